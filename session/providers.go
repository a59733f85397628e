package session

import (
	"fmt"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/anthropic"
	"github.com/atomic-cli/atomic/llm/openai"
)

// ProviderFor returns the streaming client for a wire API (config-and-resources.md §7), or an
// error naming the API when atomic does not speak it yet.
func ProviderFor(api string) (llm.Provider, error) {
	switch api {
	case llm.APIAnthropicMessages:
		return anthropic.New(), nil
	case llm.APIOpenAICompletions:
		return openai.NewCompletions(), nil
	case llm.APIOpenAIResponses:
		return openai.NewResponses(), nil
	}
	return nil, fmt.Errorf("the %q API is not supported yet (supported: %s, %s, %s)", api,
		llm.APIAnthropicMessages, llm.APIOpenAICompletions, llm.APIOpenAIResponses)
}
