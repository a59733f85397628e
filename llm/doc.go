// Package llm holds the provider-neutral conversation model of atomic: messages and their content
// blocks (shapes of ../shared/spec/session-format.md §8), the assistant stream events that providers
// emit (rpc-and-json.md §5, "assistantMessageEvent"), usage and cost, models, and the Request a
// provider is asked to stream.
//
// Every type here marshals to exactly the JSON that pi 0.73.1 writes, so a value can be stored in a
// session file, sent over RPC or printed in JSON mode without a translation layer.
//
// llm imports nothing of atomic. Provider implementations live in sub-packages, one per wire API;
// each registers the APIs it speaks with RegisterAPI from its init (registry.go).
// Values are plain data: they are not safe for concurrent mutation; copy with Clone before sharing.
package llm
