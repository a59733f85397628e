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

//go:generate go run gen_catalog.go

// BuiltinModels returns a fresh copy of the built-in catalog: every Anthropic, OpenAI and Google
// model pi-ai knows (catalog.json, refreshed by catalog_refresh.mjs and turned into
// catalog_gen.go by `go generate`), with their published limits (tokens) and list prices (US
// dollars per million tokens), grouped by provider in the order anthropic, openai, google.
// Anthropic models appear under their alias ("claude-sonnet-4-5") and their dated snapshot id
// ("claude-sonnet-4-5-20250929"). Models of an API atomic does not speak are listed here and
// hidden by the registry's API filter (Registry.SetAPIFilter). The caller owns the result.
func BuiltinModels() []*llm.Model {
	ms := make([]llm.Model, len(builtinCatalog))
	copy(ms, builtinCatalog[:])
	out := make([]*llm.Model, len(ms))
	for i := range ms {
		ms[i].Input = append([]string(nil), ms[i].Input...)
		out[i] = &ms[i]
	}
	return out
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
