// Package sse is the client side of the streaming provider APIs: a reader of server-sent events
// (the text/event-stream framing of the WHATWG HTML standard, §9.2) and Open, the hooked HTTP
// path every provider of atomic sends its request through (headers, payload, hooks, status check),
// and Stream, which wraps Open for a provider's Stream.
//
// The reader splits lines on LF only and strips one trailing CR, like the framing of
// ../shared/spec/rpc-and-json.md §1; it has no line-length limit.
//
// sse imports llm (for llm.Hooks and llm.Builder) and nothing else of atomic. A Reader belongs to one goroutine.
package sse
