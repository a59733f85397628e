package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Turn selection modes of a Script.
const (
	// MatchRequestCount answers the i-th request (counting from 0) with turn i. It is the default.
	MatchRequestCount = "request-count"
	// MatchAssistantCount answers a request with the turn whose index is the number of assistant
	// turns in the request's conversation (see CountAssistantTurns), so a conversation that is
	// resumed or replayed gets the same answers. It is the mode of the pi fixture scenarios.
	MatchAssistantCount = "assistant-count"
)

// Stop reasons a Turn may force; the names are those of llm.StopReason.
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
)

// Script is what a scripted model plays (internal/fakellm serves it, llm/replay records it). Its JSON form is a superset of the pi fixture scenario
// format (testdata/pi-0.73.1/scenarios at the repository root):
//
//	{
//	  "match": "assistant-count",            // or "request-count" (default)
//	  "turns": [
//	    {"thinking": "Let me look.", "text": "I'll list the files.",
//	     "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}],
//	     "chunks": 3, "delay_ms": 10, "usage": {"input": 100, "output": 20}},
//	    {"tool_calls": [{"name": "bash", "raw_arguments": "{\"command\": "}]},
//	    {"error": {"status": 429, "message": "slow down"}, "headers": {"retry-after": "1"}},
//	    {"text": "The answer is 4", "chunks": 4, "drop": true, "drop_after": 2},
//	    {"text": "partial", "stream_error": {"type": "overloaded_error", "message": "Overloaded"}},
//	    {"text": "The directory listing is above. Done."}
//	  ]
//	}
//
// Unknown fields are rejected by ParseScript so a misspelt field fails loudly.
type Script struct {
	// Match selects the turn for a request: MatchRequestCount ("" too) or MatchAssistantCount.
	Match string `json:"match,omitempty"`
	// Turns are the answers, indexed as Match says.
	Turns []Turn `json:"turns"`
}

// Turn is one scripted answer. A streamed turn sends, in order, Thinking, Text and ToolCalls;
// empty parts are left out. Error replaces the stream with an HTTP error response.
type Turn struct {
	// Thinking is streamed as reasoning: an Anthropic thinking block, Chat Completions
	// reasoning_content deltas, or a Responses reasoning summary.
	Thinking string `json:"thinking,omitempty"`
	// ThinkingSignature is the Anthropic signature_delta of the thinking block; "" gives
	// "sig_fake_<turn>".
	ThinkingSignature string `json:"thinking_signature,omitempty"`
	// UnsignedThinking sends the Anthropic thinking block without any signature_delta, as some
	// Anthropic-compatible servers do (the block's signature stays ""). Other APIs ignore it.
	UnsignedThinking bool `json:"unsigned_thinking,omitempty"`
	// Text is streamed as the assistant's text.
	Text string `json:"text,omitempty"`
	// ToolCalls are streamed after the text, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`

	// StopReason forces the reported stop reason (StopStop, StopLength, StopToolUse); "" means
	// StopToolUse when the turn has tool calls, else StopStop.
	StopReason string `json:"stop_reason,omitempty"`
	// Usage is the reported token usage; nil estimates it as pi's fixture fake did: input is the
	// request body length / 4 and output the length of the generated parts / 4, rounded up.
	Usage *Usage `json:"usage,omitempty"`

	// Chunks splits every streamed string (thinking, text, each tool call's arguments) into that
	// many deltas of nearly equal rune count; 0 or 1 sends each in one delta.
	Chunks int `json:"chunks,omitempty"`
	// DelayMS is the pause in milliseconds the server makes before every event after the first.
	// The pause ends early when the client goes away.
	DelayMS int `json:"delay_ms,omitempty"`
	// Headers are extra response headers, for error and stream turns alike.
	Headers map[string]string `json:"headers,omitempty"`

	// Error, when set, answers with an HTTP error instead of a stream; the turn must then have
	// no thinking, text or tool calls.
	Error *APIError `json:"error,omitempty"`
	// StreamError, when set, ends the stream after its content with the provider's in-stream
	// error event instead of the normal terminal events. Its Status is ignored.
	StreamError *APIError `json:"stream_error,omitempty"`
	// Drop cuts the connection after DropAfter content deltas have been sent, or just before the
	// terminal events when the turn has fewer deltas; the client sees an unexpected EOF.
	Drop bool `json:"drop,omitempty"`
	// DropAfter is the number of content deltas sent before a Drop; it requires Drop.
	DropAfter int `json:"drop_after,omitempty"`
	// Stall makes the server go silent without closing the connection, to test the client's
	// stream deadline: StallHeaders hangs before the response headers, StallEvents after
	// StallAfter stream frames (events) were sent. The hang ends when the client goes away, the
	// server closes, or after MaxStall.
	Stall string `json:"stall,omitempty"`
	// StallAfter is the number of frames sent before a StallEvents hang (1: after the first
	// event); it requires Stall "events".
	StallAfter int `json:"stall_after,omitempty"`
}

// Stall modes of a Turn.
const (
	StallHeaders = "headers"
	StallEvents  = "events"
)

// MaxStall bounds a scripted stall, so a client without a deadline still ends eventually.
const MaxStall = 10 * time.Minute

// ToolCall is one tool call of a Turn. Exactly one of Arguments and RawArguments may be set;
// neither sends "{}".
type ToolCall struct {
	// ID is the tool call id; "" gives call_<turn>_<i> (Chat Completions, Responses call_id) or
	// toolu_<turn>_<i> (Anthropic).
	ID string `json:"id,omitempty"`
	// Name is the tool's name; it must not be empty.
	Name string `json:"name"`
	// Arguments is a JSON object, sent compacted with its key order kept.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// RawArguments is sent verbatim as the argument text, to simulate a malformed tool call.
	RawArguments string `json:"raw_arguments,omitempty"`
}

// Call returns a ToolCall of name whose arguments are args marshalled to JSON. It panics when
// args cannot be marshalled, which is a bug in the test that calls it.
func Call(name string, args any) ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("script.Call(%q): arguments: %v", name, err))
	}
	return ToolCall{Name: name, Arguments: b}
}

// APIError is an error the fake provider reports, rendered in the provider's own error shape.
type APIError struct {
	// Status is the HTTP status of an Error turn; 0 means 500.
	Status int `json:"status,omitempty"`
	// Type is the provider error type ("rate_limit_error", "server_error", ...); "" picks the
	// provider's usual type for Status.
	Type string `json:"type,omitempty"`
	// Code is the OpenAI error code; "" picks one for Status where OpenAI sends one.
	Code string `json:"code,omitempty"`
	// Message is the human-readable message; "" gives "fakellm: scripted error <status>".
	Message string `json:"message,omitempty"`
	// Body, when set, is sent verbatim instead of the rendered error JSON (Error turns only).
	Body string `json:"body,omitempty"`
}

// Usage is a token count report. Input excludes cached tokens, as in llm.Usage; for OpenAI the
// prompt total sent is Input+CacheRead. CacheWrite is reported by Anthropic only. Reasoning is
// the part of Output spent on thinking (OpenAI only).
type Usage struct {
	Input      int `json:"input"`                 // uncached input tokens
	Output     int `json:"output"`                // output tokens, reasoning included
	CacheRead  int `json:"cache_read,omitempty"`  // input tokens read from the cache
	CacheWrite int `json:"cache_write,omitempty"` // input tokens written to the cache
	Reasoning  int `json:"reasoning,omitempty"`   // output tokens spent on reasoning
}

// ParseScript decodes a script in the JSON form documented on Script and validates it.
func ParseScript(data []byte) (Script, error) {
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("script: parse: %w", err)
	}
	if err := s.Validate(); err != nil {
		return Script{}, err
	}
	return s, nil
}

// LoadScenario reads a script file, such as a pi fixture scenario, and validates it.
func LoadScenario(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, fmt.Errorf("script: load scenario: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return Script{}, fmt.Errorf("script: load scenario %s: %w", path, err)
	}
	return s, nil
}

// Validate reports the first thing wrong with the script, naming the turn and field.
func (s Script) Validate() error {
	switch s.Match {
	case "", MatchRequestCount, MatchAssistantCount:
	default:
		return fmt.Errorf("script: match %q: want %q or %q", s.Match, MatchRequestCount, MatchAssistantCount)
	}
	for i := range s.Turns {
		if err := s.Turns[i].Validate(); err != nil {
			return fmt.Errorf("script: turn %d: %w", i, err)
		}
	}
	return nil
}

// Validate reports the first thing wrong with the turn.
func (t *Turn) Validate() error {
	switch t.StopReason {
	case "", StopStop, StopLength, StopToolUse:
	default:
		return fmt.Errorf("stop_reason %q: want %q, %q or %q", t.StopReason, StopStop, StopLength, StopToolUse)
	}
	if t.Chunks < 0 || t.DelayMS < 0 || t.DropAfter < 0 {
		return fmt.Errorf("chunks, delay_ms and drop_after must not be negative")
	}
	if t.DropAfter > 0 && !t.Drop {
		return fmt.Errorf("drop_after is set but drop is false")
	}
	switch t.Stall {
	case "", StallHeaders, StallEvents:
	default:
		return fmt.Errorf("stall %q: want %q or %q", t.Stall, StallHeaders, StallEvents)
	}
	if t.StallAfter < 0 || t.StallAfter > 0 && t.Stall != StallEvents {
		return fmt.Errorf("stall_after must not be negative and requires stall %q", StallEvents)
	}
	if t.Stall != "" && (t.Error != nil || t.Drop) {
		return fmt.Errorf("a stalled turn cannot be an error turn or drop the stream")
	}
	if t.Error != nil {
		if t.Thinking != "" || t.Text != "" || len(t.ToolCalls) > 0 {
			return fmt.Errorf("an error turn carries no thinking, text or tool calls")
		}
		if t.Drop || t.StreamError != nil {
			return fmt.Errorf("an error turn cannot also drop the stream or send a stream error")
		}
		if st := t.Error.Status; st != 0 && (st < 400 || st > 599) {
			return fmt.Errorf("error status %d: want 400-599", st)
		}
	}
	if t.Drop && t.StreamError != nil {
		return fmt.Errorf("a turn cannot both drop the stream and send a stream error")
	}
	for i, c := range t.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %d: name is empty", i)
		}
		if len(c.Arguments) > 0 && c.RawArguments != "" {
			return fmt.Errorf("tool call %d (%s): set arguments or raw_arguments, not both", i, c.Name)
		}
		if len(c.Arguments) > 0 {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(c.Arguments, &obj); err != nil || obj == nil {
				return fmt.Errorf("tool call %d (%s): arguments must be a JSON object; use raw_arguments for malformed ones", i, c.Name)
			}
		}
	}
	return nil
}
