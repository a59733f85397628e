// Package openai holds the providers of the two OpenAI wire APIs: Completions
// ("openai-completions", POST {baseUrl}/chat/completions, also spoken by most OpenAI-compatible
// servers) and Responses ("openai-responses", POST {baseUrl}/responses). Both stream over net/http
// and llm/sse and report through llm.Builder (rpc-and-json.md §5 event order).
//
// Request bodies match what pi 0.73.1 sends (../shared/fixtures/pi-0.73.1/*/requests.jsonl) and are
// built as plain JSON values so the before_provider_request hook can read and replace them
// (events.md §3.4). Server quirks are selected by the model's compat keys
// (config-and-resources.md §7). No OpenAI SDK is used.
//
// openai imports llm and llm/sse only. Providers hold no state and are safe for concurrent use;
// each Stream call owns its request and stream.
package openai
