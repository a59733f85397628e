package llm

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The wire-API registry: each provider package registers the APIs it speaks from its init
// (llm/anthropic: anthropic-messages; llm/openai: openai-completions, openai-responses), so a
// binary speaks exactly the APIs whose packages it links (llm/providers links all of them).
var apis struct {
	mu  sync.RWMutex
	new map[string]func() Provider
}

// RegisterAPI makes newProvider the implementation of the wire API api (a models.json "api"
// value such as "anthropic-messages"). It panics when api is empty, newProvider is nil or api
// is already registered: two implementations of one API is a build error, not a choice.
func RegisterAPI(api string, newProvider func() Provider) {
	if api == "" || newProvider == nil {
		panic("llm.RegisterAPI: an API name and a constructor are required")
	}
	apis.mu.Lock()
	defer apis.mu.Unlock()
	if _, dup := apis.new[api]; dup {
		panic(fmt.Sprintf("llm.RegisterAPI: the %q API is registered twice", api))
	}
	if apis.new == nil {
		apis.new = map[string]func() Provider{}
	}
	apis.new[api] = newProvider
}

// ProviderFor returns a new provider for the wire API api, or an error naming the registered
// APIs when none speaks it.
func ProviderFor(api string) (Provider, error) {
	apis.mu.RLock()
	newProvider := apis.new[api]
	apis.mu.RUnlock()
	if newProvider == nil {
		return nil, fmt.Errorf("the %q API is not supported yet (supported: %s)", api, strings.Join(RegisteredAPIs(), ", "))
	}
	return newProvider(), nil
}

// RegisteredAPIs returns the registered wire APIs, sorted.
func RegisteredAPIs() []string {
	apis.mu.RLock()
	defer apis.mu.RUnlock()
	out := make([]string, 0, len(apis.new))
	for api := range apis.new {
		out = append(out, api)
	}
	sort.Strings(out)
	return out
}
