// Package anthropic is the provider of the "anthropic-messages" wire API: it streams one assistant
// message from POST {baseUrl}/v1/messages with "stream": true, over net/http and llm/sse, and
// reports it through llm.Builder (rpc-and-json.md §5 event order).
//
// The request body is built as a plain JSON value so the before_provider_request hook can read
// and replace it (events.md §3.4). No Anthropic SDK is used.
//
// anthropic imports llm and llm/sse only. A Provider holds no state and is safe for concurrent
// use; each Stream call owns its request and stream.
package anthropic
