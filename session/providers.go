package session

import (
	"github.com/atomic-cli/atomic/llm"
)

// ProviderFor returns the streaming client for a wire API (config-and-resources.md §7) from the
// APIs registered with llm.RegisterAPI (a binary links them by importing llm/providers), or an
// error naming the API and the registered ones when none speaks it.
func ProviderFor(api string) (llm.Provider, error) { return llm.ProviderFor(api) }
