// Package script is the scripted assistant and its wire encoding: a Script is a list of Turns
// (thinking, text, tool calls, an HTTP error, a stream error, a cut or stalled stream), and
// Render turns one Turn into the exact response bytes a provider API sends (the SSE streams of
// Anthropic Messages, OpenAI Chat Completions and OpenAI Responses, or an error body).
// CountAssistantTurns reads a request body the way the Match modes need.
//
// It is production code: llm/replay builds replay files from scripts with it (atomic --replay,
// the offline demo), and the test fake internal/fakellm serves the same bytes over loopback.
// Rendering is deterministic: the same Turn and Info give the same bytes.
//
// script imports llm (for the API names) and nothing else of atomic.
package script
