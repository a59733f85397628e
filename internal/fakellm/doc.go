// Package fakellm is a scripted fake language model for tests. It speaks the real streaming wire
// formats of three provider APIs over loopback HTTP, so the real provider code is exercised end
// to end:
//
//	Anthropic Messages            POST /v1/messages, /messages
//	OpenAI Chat Completions       POST /v1/chat/completions, /chat/completions
//	OpenAI Responses              POST /v1/responses, /responses
//
// A Script is a list of Turns; each request is answered with one turn: a stream of thinking,
// text and tool calls, an HTTP error, a stream that ends in a provider error event, or a stream
// whose connection is cut before its terminal event. Every request is recorded so a test can
// assert what the provider sent.
//
// The encode layer (Render) turns one Turn into the exact response bytes without a server; the
// replay provider (llm/replay) and the demo reuse it.
//
// fakellm imports llm for the API names and nothing else of atomic; it does not import
// net/http/httptest, so non-test packages may depend on it. Handler and Server are safe for
// concurrent use: the request log is owned by a mutex in Handler.
package fakellm
