package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/atomic-cli/atomic/llm"
)

// DefaultModel is the model name echoed when the request names none.
const DefaultModel = "fake-model"

// created is the fixed creation time (Unix seconds, 2026-01-01) put in every response, so
// rendered bytes are deterministic.
const created = 1767225600

// Info is what Render needs to know about the request being answered.
type Info struct {
	// Turn is the index of the scripted turn; it appears in tool call and item ids.
	Turn int
	// Seq is the 1-based number of the request on the server; it appears in response ids.
	// 0 means Turn+1.
	Seq int
	// Model is echoed in the response; "" means DefaultModel.
	Model string
	// InputTokens is the input usage reported when the turn has no Usage.
	InputTokens int
	// IncludeUsage is the Chat Completions stream_options.include_usage flag: when set, chunks
	// carry "usage":null and a final chunk carries the usage.
	IncludeUsage bool
}

// FrameKind classifies a Frame for the drop logic.
type FrameKind int

// Frame kinds.
const (
	// FrameMeta is any event that is neither a content delta nor terminal: starts, stops, pings.
	FrameMeta FrameKind = iota
	// FrameDelta carries a piece of thinking, text or tool call arguments.
	FrameDelta
	// FrameEnd is one of the terminal events: the stop reason and usage, the end marker, or an
	// in-stream error.
	FrameEnd
)

// Frame is one server-sent event.
type Frame struct {
	// Event is the SSE event name; "" for data-only streams (Chat Completions).
	Event string
	// Data is the payload of the data line: JSON, or "[DONE]".
	Data string
	// Kind says whether the frame is a delta or terminal, for cutting a dropped turn.
	Kind FrameKind
}

// AppendTo appends the frame's SSE bytes ("event: x\ndata: y\n\n") to dst.
func (f Frame) AppendTo(dst []byte) []byte {
	if f.Event != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, f.Event...)
		dst = append(dst, '\n')
	}
	dst = append(dst, "data: "...)
	dst = append(dst, f.Data...)
	return append(dst, "\n\n"...)
}

// Rendered is a turn rendered for one API: the complete HTTP response.
type Rendered struct {
	// Status is the HTTP status: 200 for a stream, the error's status otherwise.
	Status int
	// Header holds the response headers: content type, request id, and the turn's Headers.
	Header http.Header
	// Frames are the SSE events sent, already cut for a dropped turn; nil for an HTTP error.
	Frames []Frame
	// Body is the exact response body: the error JSON, or the Frames concatenated.
	Body []byte
	// Truncated reports a dropped turn: the connection is to be cut after Body.
	Truncated bool
	// DelayMS is the turn's pause before every frame after the first.
	DelayMS int
	// Stall is the turn's Stall: StallHeaders (hang before the headers), StallEvents (hang after
	// StallAfter frames) or "" (no stall).
	Stall string
	// StallAfter is the number of frames sent before a StallEvents hang.
	StallAfter int
}

// Render renders turn t as the response of api (llm.APIAnthropicMessages,
// llm.APIOpenAICompletions or llm.APIOpenAIResponses) to the request described by info. It fails
// when the api is unknown or the turn is invalid.
func Render(api string, t Turn, info Info) (*Rendered, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("script: render turn %d: %w", info.Turn, err)
	}
	if info.Seq == 0 {
		info.Seq = info.Turn + 1
	}
	if info.Model == "" {
		info.Model = DefaultModel
	}
	r := &Rendered{Header: http.Header{}, DelayMS: t.DelayMS, Stall: t.Stall, StallAfter: t.StallAfter}
	if t.Error != nil {
		status := t.Error.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		body, err := errorBody(api, status, t.Error)
		if err != nil {
			return nil, err
		}
		r.Status, r.Body = status, body
		r.Header.Set("Content-Type", "application/json")
	} else {
		var frames []Frame
		switch api {
		case llm.APIAnthropicMessages:
			frames = anthropicFrames(t, info)
		case llm.APIOpenAICompletions:
			frames = chatFrames(t, info)
		case llm.APIOpenAIResponses:
			frames = responsesFrames(t, info)
		default:
			return nil, fmt.Errorf("script: render: unknown api %q", api)
		}
		if t.Drop {
			frames = cut(frames, t.DropAfter)
			r.Truncated = true
		}
		r.Status, r.Frames = http.StatusOK, frames
		for _, f := range frames {
			r.Body = f.AppendTo(r.Body)
		}
		r.Header.Set("Content-Type", "text/event-stream; charset=utf-8")
		r.Header.Set("Cache-Control", "no-cache")
	}
	reqID := "req_fake_" + strconv.Itoa(info.Seq)
	if api == llm.APIAnthropicMessages {
		r.Header.Set("Request-Id", reqID)
	} else {
		r.Header.Set("X-Request-Id", reqID)
	}
	keys := make([]string, 0, len(t.Headers))
	for k := range t.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.Header.Set(k, t.Headers[k])
	}
	return r, nil
}

// cut keeps the frames up to the n-th delta, stopping before the first terminal frame.
func cut(frames []Frame, n int) []Frame {
	deltas := 0
	for i, f := range frames {
		if f.Kind == FrameEnd || (f.Kind == FrameDelta && deltas == n) {
			return frames[:i]
		}
		if f.Kind == FrameDelta {
			deltas++
		}
	}
	return frames
}

// errorBody renders the provider's error JSON for an HTTP error.
func errorBody(api string, status int, e *APIError) ([]byte, error) {
	if e.Body != "" {
		return []byte(e.Body), nil
	}
	msg := e.Message
	if msg == "" {
		msg = "fakellm: scripted error " + strconv.Itoa(status)
	}
	switch api {
	case llm.APIAnthropicMessages:
		typ := e.Type
		if typ == "" {
			typ = anthropicErrorType(status)
		}
		return marshal(obj{"type", "error", "error", obj{"type", typ, "message", msg}}), nil
	case llm.APIOpenAICompletions, llm.APIOpenAIResponses:
		typ, code := openAIErrorType(status)
		if e.Type != "" {
			typ = e.Type
		}
		if e.Code != "" {
			code = e.Code
		}
		return marshal(obj{"error", obj{"message", msg, "type", typ, "param", nil, "code", nullable(code)}}), nil
	}
	return nil, fmt.Errorf("script: render error: unknown api %q", api)
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	if status < 500 {
		return "invalid_request_error"
	}
	return "api_error"
}

func openAIErrorType(status int) (typ, code string) {
	switch status {
	case 401:
		return "invalid_request_error", "invalid_api_key"
	case 404:
		return "invalid_request_error", "model_not_found"
	case 429:
		return "requests", "rate_limit_exceeded"
	}
	if status < 500 {
		return "invalid_request_error", ""
	}
	return "server_error", ""
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// stopReason is the neutral stop reason of t.
func stopReason(t Turn) string {
	if t.StopReason != "" {
		return t.StopReason
	}
	if len(t.ToolCalls) > 0 {
		return StopToolUse
	}
	return StopStop
}

// usage returns the turn's usage, estimated when the script gives none.
func usage(t Turn, info Info) Usage {
	if t.Usage != nil {
		return *t.Usage
	}
	n := len(t.Thinking) + len(t.Text)
	if len(t.ToolCalls) > 0 {
		calls := make([]obj, len(t.ToolCalls))
		for i, c := range t.ToolCalls {
			var args any = json.RawMessage(arguments(c))
			if c.RawArguments != "" {
				args = c.RawArguments
			}
			calls[i] = obj{"name", c.Name, "arguments", args}
		}
		n += len(marshal(calls))
	}
	return Usage{Input: info.InputTokens, Output: EstimateTokens(n)}
}

// EstimateTokens is the token estimate a rendered turn reports for a request body of n bytes: n/4
// rounded up.
func EstimateTokens(n int) int { return (n + 3) / 4 }

// arguments returns the argument text of c as sent on the wire.
func arguments(c ToolCall) string {
	if c.RawArguments != "" {
		return c.RawArguments
	}
	if len(c.Arguments) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, c.Arguments); err != nil {
		return string(c.Arguments) // Validate has checked it; unreachable
	}
	return buf.String()
}

// toolCallID returns the id of the i-th tool call of t for a provider whose ids start with prefix.
func toolCallID(c ToolCall, prefix string, turn, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return prefix + strconv.Itoa(turn) + "_" + strconv.Itoa(i)
}

// split cuts s into n pieces of nearly equal rune count; "" gives none, n < 2 gives s whole.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	runes := utf8.RuneCountInString(s)
	if n < 2 {
		return []string{s}
	}
	if n > runes {
		n = runes
	}
	parts := make([]string, 0, n)
	start, seen := 0, 0
	for i := 0; i < n; i++ {
		want := runes * (i + 1) / n
		end := start
		for seen < want {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
			seen++
		}
		parts = append(parts, s[start:end])
		start = end
	}
	return parts
}

// obj is a JSON object whose keys keep their order: alternating key, value.
type obj []any

// marshal encodes v without HTML escaping. obj values keep their key order.
func marshal(v any) []byte {
	return appendJSON(nil, v)
}

func appendJSON(dst []byte, v any) []byte {
	switch v := v.(type) {
	case obj:
		dst = append(dst, '{')
		for i := 0; i+1 < len(v); i += 2 {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, v[i])
			dst = append(dst, ':')
			dst = appendJSON(dst, v[i+1])
		}
		return append(dst, '}')
	case []obj:
		dst = append(dst, '[')
		for i, o := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, o)
		}
		return append(dst, ']')
	case []any:
		dst = append(dst, '[')
		for i, o := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, o)
		}
		return append(dst, ']')
	case json.RawMessage:
		return append(dst, v...)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("script: encode %T: %v", v, err)) // only plain values reach here
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
