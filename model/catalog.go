package model

import "github.com/atomic-cli/atomic/llm"

// Built-in provider ids, in the order Default prefers them (config-and-resources.md §9).
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
	ProviderGoogle    = "google"
)

// builtinProviders lists the providers of the built-in catalog in preference order.
var builtinProviders = [...]string{ProviderAnthropic, ProviderOpenAI, ProviderGoogle}

// Base URLs of the built-in providers.
const (
	anthropicBaseURL = "https://api.anthropic.com"
	openAIBaseURL    = "https://api.openai.com/v1"
	googleBaseURL    = "https://generativelanguage.googleapis.com/v1beta"
)

// BuiltinModels returns a fresh copy of the built-in catalog: the current models of Anthropic,
// OpenAI and Google with their published limits (tokens) and list prices (US dollars per million
// tokens, the lowest tier where a provider prices by prompt length), grouped by provider in the
// order anthropic, openai, google. Anthropic models appear under their alias ("claude-sonnet-4-5") and
// their dated snapshot id ("claude-sonnet-4-5-20250929"). The caller owns the result.
func BuiltinModels() []*llm.Model {
	ms := []llm.Model{
		claude("claude-opus-4-5", "Claude Opus 4.5", 64000, llm.ModelCost{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}),
		claude("claude-opus-4-5-20251101", "Claude Opus 4.5", 64000, llm.ModelCost{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}),
		claude("claude-sonnet-4-5", "Claude Sonnet 4.5", 64000, llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}),
		claude("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", 64000, llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}),
		claude("claude-haiku-4-5", "Claude Haiku 4.5", 64000, llm.ModelCost{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}),
		claude("claude-haiku-4-5-20251001", "Claude Haiku 4.5", 64000, llm.ModelCost{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}),
		claude("claude-opus-4-1", "Claude Opus 4.1", 32000, llm.ModelCost{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}),
		claude("claude-opus-4-1-20250805", "Claude Opus 4.1", 32000, llm.ModelCost{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}),
		claude("claude-opus-4-0", "Claude Opus 4", 32000, llm.ModelCost{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}),
		claude("claude-opus-4-20250514", "Claude Opus 4", 32000, llm.ModelCost{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}),
		claude("claude-sonnet-4-0", "Claude Sonnet 4", 64000, llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}),
		claude("claude-sonnet-4-20250514", "Claude Sonnet 4", 64000, llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}),

		openAI("gpt-5", "GPT-5", llm.APIOpenAIResponses, true, 400000, 128000, llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}),
		openAI("gpt-5-mini", "GPT-5 mini", llm.APIOpenAIResponses, true, 400000, 128000, llm.ModelCost{Input: 0.25, Output: 2, CacheRead: 0.025}),
		openAI("gpt-5-nano", "GPT-5 nano", llm.APIOpenAIResponses, true, 400000, 128000, llm.ModelCost{Input: 0.05, Output: 0.4, CacheRead: 0.005}),
		openAI("gpt-5-codex", "GPT-5 Codex", llm.APIOpenAIResponses, true, 400000, 128000, llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}),
		openAI("gpt-5.1", "GPT-5.1", llm.APIOpenAIResponses, true, 400000, 128000, llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}),
		openAI("gpt-5.1-codex", "GPT-5.1 Codex", llm.APIOpenAIResponses, true, 400000, 128000, llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}),
		openAI("gpt-5.1-codex-mini", "GPT-5.1 Codex mini", llm.APIOpenAIResponses, true, 400000, 128000, llm.ModelCost{Input: 0.25, Output: 2, CacheRead: 0.025}),
		openAI("o3", "o3", llm.APIOpenAIResponses, true, 200000, 100000, llm.ModelCost{Input: 2, Output: 8, CacheRead: 0.5}),
		openAI("o4-mini", "o4-mini", llm.APIOpenAIResponses, true, 200000, 100000, llm.ModelCost{Input: 1.1, Output: 4.4, CacheRead: 0.275}),
		openAI("gpt-4.1", "GPT-4.1", llm.APIOpenAICompletions, false, 1047576, 32768, llm.ModelCost{Input: 2, Output: 8, CacheRead: 0.5}),
		openAI("gpt-4.1-mini", "GPT-4.1 mini", llm.APIOpenAICompletions, false, 1047576, 32768, llm.ModelCost{Input: 0.4, Output: 1.6, CacheRead: 0.1}),
		openAI("gpt-4.1-nano", "GPT-4.1 nano", llm.APIOpenAICompletions, false, 1047576, 32768, llm.ModelCost{Input: 0.1, Output: 0.4, CacheRead: 0.025}),
		openAI("gpt-4o", "GPT-4o", llm.APIOpenAICompletions, false, 128000, 16384, llm.ModelCost{Input: 2.5, Output: 10, CacheRead: 1.25}),
		openAI("gpt-4o-mini", "GPT-4o mini", llm.APIOpenAICompletions, false, 128000, 16384, llm.ModelCost{Input: 0.15, Output: 0.6, CacheRead: 0.075}),

		gemini("gemini-3-pro-preview", "Gemini 3 Pro Preview", true, 65536, llm.ModelCost{Input: 2, Output: 12, CacheRead: 0.2}),
		gemini("gemini-2.5-pro", "Gemini 2.5 Pro", true, 65536, llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}),
		gemini("gemini-2.5-flash", "Gemini 2.5 Flash", true, 65536, llm.ModelCost{Input: 0.3, Output: 2.5, CacheRead: 0.03}),
		gemini("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", true, 65536, llm.ModelCost{Input: 0.1, Output: 0.4, CacheRead: 0.01}),
		gemini("gemini-2.0-flash", "Gemini 2.0 Flash", false, 8192, llm.ModelCost{Input: 0.1, Output: 0.4, CacheRead: 0.025}),
	}
	out := make([]*llm.Model, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
}

func claude(id, name string, maxTokens int, cost llm.ModelCost) llm.Model {
	return llm.Model{
		ID: id, Name: name, API: llm.APIAnthropicMessages, Provider: ProviderAnthropic, BaseURL: anthropicBaseURL,
		Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: maxTokens, Cost: cost,
	}
}

func openAI(id, name, api string, reasoning bool, contextWindow, maxTokens int, cost llm.ModelCost) llm.Model {
	return llm.Model{
		ID: id, Name: name, API: api, Provider: ProviderOpenAI, BaseURL: openAIBaseURL,
		Reasoning: reasoning, Input: []string{"text", "image"}, ContextWindow: contextWindow, MaxTokens: maxTokens, Cost: cost,
	}
}

func gemini(id, name string, reasoning bool, maxTokens int, cost llm.ModelCost) llm.Model {
	return llm.Model{
		ID: id, Name: name, API: llm.APIGoogleGenerativeAI, Provider: ProviderGoogle, BaseURL: googleBaseURL,
		Reasoning: reasoning, Input: []string{"text", "image"}, ContextWindow: 1048576, MaxTokens: maxTokens, Cost: cost,
	}
}

// EnvVars returns the environment variables that may hold an API key for provider, in lookup order
// (the first set, non-empty one is used; config-and-resources.md §8), or nil for a provider without
// a known variable. For anthropic the OAuth token comes before the API key. The result is fresh.
func EnvVars(provider string) []string {
	switch provider {
	case ProviderAnthropic:
		return []string{"ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"}
	case ProviderOpenAI:
		return []string{"OPENAI_API_KEY"}
	case ProviderGoogle:
		return []string{"GEMINI_API_KEY"}
	case "azure-openai-responses":
		return []string{"AZURE_OPENAI_API_KEY"}
	case "groq":
		return []string{"GROQ_API_KEY"}
	case "cerebras":
		return []string{"CEREBRAS_API_KEY"}
	case "xai":
		return []string{"XAI_API_KEY"}
	case "openrouter":
		return []string{"OPENROUTER_API_KEY"}
	case "vercel-ai-gateway":
		return []string{"AI_GATEWAY_API_KEY"}
	case "zai":
		return []string{"ZAI_API_KEY"}
	case "mistral":
		return []string{"MISTRAL_API_KEY"}
	case "minimax":
		return []string{"MINIMAX_API_KEY"}
	case "opencode":
		return []string{"OPENCODE_API_KEY"}
	case "kimi-coding":
		return []string{"KIMI_API_KEY"}
	case "deepseek":
		return []string{"DEEPSEEK_API_KEY"}
	case "fireworks":
		return []string{"FIREWORKS_API_KEY"}
	case "together":
		return []string{"TOGETHER_API_KEY"}
	case "baseten":
		return []string{"BASETEN_API_KEY"}
	case "moonshot":
		return []string{"MOONSHOT_API_KEY"}
	case "cloudflare":
		return []string{"CLOUDFLARE_API_KEY"}
	case "huggingface":
		return []string{"HF_TOKEN"}
	case "github-copilot":
		return []string{"COPILOT_GITHUB_TOKEN"}
	}
	return nil
}

// DefaultModelID returns the model id Default picks for provider when that provider has it, or ""
// when there is no preference (Default then takes the provider's first model).
func DefaultModelID(provider string) string {
	switch provider {
	case ProviderAnthropic:
		return "claude-sonnet-4-5"
	case ProviderOpenAI:
		return "gpt-5"
	case ProviderGoogle:
		return "gemini-2.5-pro"
	case "groq", "cerebras":
		return "openai/gpt-oss-120b"
	case "xai":
		return "grok-4"
	case "openrouter":
		return "anthropic/claude-sonnet-4.5"
	case "mistral":
		return "devstral-medium-latest"
	}
	return ""
}
