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
// The script format and the encode layer (Render: one Turn as the exact response bytes, without
// a server) are the production package llm/script, which the replay provider (llm/replay) and
// the demo use too; fakellm re-exports their names.
//
// fakellm imports llm and llm/script and nothing else of atomic; only tests, mode/tui/tuitest (a
// test harness) and the cmd/fakellm tool import it. Handler and Server are safe for concurrent
// use: the request log is owned by a mutex in Handler.
package fakellm
