package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/providertest"
	"github.com/atomic-cli/atomic/llm"
)

// A realistic Messages API stream: thinking with a signature, text with a ping in between, and a
// tool call whose arguments arrive in fragments.
const toolUseStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"cache_creation_input_tokens":100,"cache_read_input_tokens":1024,"output_tokens":2}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" a listing."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"I'll list "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"the files."}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"bash","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"l"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"s -la\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

`

func testModel(baseURL string) *llm.Model {
	return &llm.Model{
		ID: "claude-test", API: llm.APIAnthropicMessages, Provider: "anthropic", BaseURL: baseURL,
		Reasoning: true, Input: []string{"text", "image"}, MaxTokens: 64000,
		Cost: llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	}
}

// collect streams req and returns the final message and the event types in order.
func collect(ctx context.Context, req *llm.Request) (llm.Message, []string) {
	var types []string
	msg := New().Stream(ctx, req, func(e llm.Event) { types = append(types, e.Type) })
	return msg, types
}

func TestStreamThinkingTextAndToolUse(t *testing.T) {
	srv := sseServer(t, nil, toolUseStream)
	m := testModel(srv.URL)
	var events []llm.Event
	msg := New().Stream(context.Background(), userRequest(m, "list"), func(e llm.Event) {
		if e.Type == llm.EventDone {
			if e.Message == nil || e.Message.StopReason != llm.StopToolUse {
				t.Errorf("done event message = %+v", e.Message)
			}
		}
		e.Partial = nil
		events = append(events, e)
	})

	if msg.StopReason != llm.StopToolUse || msg.ErrorMessage != "" {
		t.Fatalf("stopReason %q, error %q", msg.StopReason, msg.ErrorMessage)
	}
	if msg.ResponseID != "msg_01XFDUDYJgAACzvnptvVoYEL" || msg.API != llm.APIAnthropicMessages || msg.Model != "claude-test" {
		t.Fatalf("ids: %q %q %q", msg.ResponseID, msg.API, msg.Model)
	}
	want := []llm.Content{
		{Type: llm.ContentThinking, Thinking: "The user wants a listing.", ThinkingSignature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
		llm.Text("I'll list the files."),
		{Type: llm.ContentToolCall, ID: "toolu_01A09q90qw90lq917835lq9", Name: "bash", Arguments: map[string]any{"command": "ls -la"}},
	}
	if !reflect.DeepEqual(msg.Content, want) {
		t.Fatalf("content =\n%+v\nwant\n%+v", msg.Content, want)
	}
	u := msg.Usage
	if u.Input != 472 || u.Output != 89 || u.CacheRead != 1024 || u.CacheWrite != 100 || u.TotalTokens != 472+89+1024+100 {
		t.Fatalf("usage = %+v", u)
	}
	if u.Cost.Total == 0 {
		t.Fatal("cost not computed")
	}

	var types []string
	for _, e := range events {
		types = append(types, e.Type)
	}
	wantTypes := []string{"start",
		"thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
		"text_start", "text_delta", "text_delta", "text_end",
		"toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end",
		"done"}
	if !reflect.DeepEqual(types, wantTypes) {
		t.Fatalf("events =\n%q\nwant\n%q", types, wantTypes)
	}
	if e := events[8]; e.Content != "I'll list the files." || e.ContentIndex != 1 {
		t.Fatalf("text_end = %+v", e)
	}
	if e := events[12]; e.ToolCall == nil || e.ToolCall.Arguments["command"] != "ls -la" {
		t.Fatalf("toolcall_end = %+v", e)
	}
}

func TestRequestBodyAndHeaders(t *testing.T) {
	var rec recorded
	srv := sseServer(t, &rec, toolUseStream)
	m := testModel(srv.URL)
	m.Headers = map[string]string{"X-Model": "m", "anthropic-version": "2099-01-01"}
	other := func(content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, API: llm.APIOpenAICompletions, Provider: "openai", Model: "gpt", Content: content, StopReason: llm.StopStop}
	}
	mine := func(stop llm.StopReason, content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, API: m.API, Provider: m.Provider, Model: m.ID, Content: content, StopReason: stop}
	}
	req := &llm.Request{
		Model:         m,
		SystemPrompt:  "You are a test.",
		APIKey:        "sk-ant-test",
		Headers:       map[string]string{"X-Request": "r"},
		ThinkingLevel: llm.ThinkingMedium,
		Tools: []llm.ToolSpec{{Name: "bash", Description: "Run a command",
			Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}},
		Messages: []llm.Message{
			llm.UserText("List files", []llm.Content{llm.Image("aGVsbG8=", "image/png")}, 1),
			mine(llm.StopToolUse,
				llm.Content{Type: llm.ContentThinking, Thinking: "Plan", ThinkingSignature: "sig1"},
				llm.Content{Type: llm.ContentThinking, Redacted: true, ThinkingSignature: "opaque"},
				llm.Text("Listing."),
				llm.Content{Type: llm.ContentToolCall, ID: "toolu_1", Name: "bash", Arguments: map[string]any{"command": "ls"}},
				llm.Content{Type: llm.ContentToolCall, ID: "call_x|fc_y", Name: "read", Arguments: map[string]any{"path": "a.txt"}},
				llm.Content{Type: llm.ContentToolCall, ID: "toolu_3", Name: "bash", Arguments: map[string]any{"command": "pwd"}},
			),
			{Role: llm.RoleToolResult, ToolCallID: "toolu_1", ToolName: "bash", Content: []llm.Content{llm.Text("a.txt\nb.txt")}},
			{Role: llm.RoleToolResult, ToolCallID: "call_x|fc_y", ToolName: "read", Content: []llm.Content{llm.Text("not found")}, IsError: true},
			other(llm.Content{Type: llm.ContentThinking, Thinking: "other reasoning", ThinkingSignature: "reasoning_content"}, llm.Text("Done.")),
			mine(llm.StopAborted, llm.Text("partial")),
			{Role: llm.RoleUser, Content: []llm.Content{llm.Text("Thanks")}, ContentIsString: true},
		},
	}
	msg, _ := collect(context.Background(), req)
	if msg.StopReason != llm.StopToolUse {
		t.Fatalf("stream failed: %s", msg.ErrorMessage)
	}
	if rec.Path != "/v1/messages" {
		t.Fatalf("path = %q", rec.Path)
	}
	for k, want := range map[string]string{
		"X-Api-Key": "sk-ant-test", "Anthropic-Version": "2099-01-01", "Content-Type": "application/json",
		"Accept": "text/event-stream", "X-Model": "m", "X-Request": "r", "Authorization": "",
	} {
		if got := rec.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	want := `{
	"model": "claude-test",
	"messages": [
		{"role":"user","content":[{"type":"text","text":"List files"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGVsbG8="}}]},
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"Plan","signature":"sig1"},
			{"type":"redacted_thinking","data":"opaque"},
			{"type":"text","text":"Listing."},
			{"type":"tool_use","id":"toolu_1","name":"bash","input":{"command":"ls"}},
			{"type":"tool_use","id":"call_x_fc_y","name":"read","input":{"path":"a.txt"}},
			{"type":"tool_use","id":"toolu_3","name":"bash","input":{"command":"pwd"}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt\nb.txt","is_error":false},
			{"type":"tool_result","tool_use_id":"call_x_fc_y","content":"not found","is_error":true},
			{"type":"tool_result","tool_use_id":"toolu_3","content":"No result provided","is_error":true}]},
		{"role":"assistant","content":[{"type":"text","text":"other reasoning"},{"type":"text","text":"Done."}]},
		{"role":"user","content":[{"type":"text","text":"Thanks","cache_control":{"type":"ephemeral"}}]}
	],
	"system": [{"type":"text","text":"You are a test.","cache_control":{"type":"ephemeral"}}],
	"max_tokens": 40192,
	"stream": true,
	"tools": [{"name":"bash","description":"Run a command","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}],
	"thinking": {"type":"enabled","budget_tokens":8192}
}`
	assertJSON(t, rec.Body, want)
}

func TestThinkingBudget(t *testing.T) {
	tests := []struct {
		level     string
		reqMax    int
		modelMax  int
		reasoning bool
		wantMax   int
		wantBudge int // 0: no thinking
	}{
		{llm.ThinkingOff, 0, 64000, true, 32000, 0},
		{llm.ThinkingHigh, 0, 64000, false, 32000, 0},
		{llm.ThinkingMinimal, 0, 64000, true, 33024, 1024},
		{llm.ThinkingLow, 4096, 64000, true, 6144, 2048},
		{llm.ThinkingHigh, 0, 20000, true, 20000, 16384},
		{llm.ThinkingHigh, 0, 16000, true, 16000, 14976},
		{llm.ThinkingXHigh, 0, 200000, true, 48384, 16384}, // xhigh needs compat supportsXhigh
		{llm.ThinkingLow, 0, 1500, true, 1500, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d/%d", tt.level, tt.reqMax, tt.modelMax), func(t *testing.T) {
			m := &llm.Model{ID: "c", Reasoning: tt.reasoning, MaxTokens: tt.modelMax}
			p := buildPayload(&llm.Request{Model: m, ThinkingLevel: tt.level, MaxTokens: tt.reqMax})
			budget := 0
			if p.Thinking != nil {
				budget = p.Thinking.BudgetTokens
			}
			if p.MaxTokens != tt.wantMax || budget != tt.wantBudge {
				t.Fatalf("max_tokens %d budget %d, want %d %d", p.MaxTokens, budget, tt.wantMax, tt.wantBudge)
			}
			if budget > 0 && p.MaxTokens <= budget {
				t.Fatalf("max_tokens %d not above budget %d", p.MaxTokens, budget)
			}
		})
	}
	m := &llm.Model{ID: "c", Reasoning: true, MaxTokens: 200000, Compat: map[string]any{"supportsXhigh": true}}
	if p := buildPayload(&llm.Request{Model: m, ThinkingLevel: llm.ThinkingXHigh}); p.Thinking.BudgetTokens != 32000 {
		t.Fatalf("xhigh budget = %d", p.Thinking.BudgetTokens)
	}
}

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com":     "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com/":    "https://api.anthropic.com/v1/messages",
		"http://localhost:8080/v1":      "http://localhost:8080/v1/messages",
		"https://proxy.example/api/v1/": "https://proxy.example/api/v1/messages",
	} {
		if got := Endpoint(in); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAuthorizationHeaderReplacesAPIKey(t *testing.T) {
	var rec recorded
	srv := sseServer(t, &rec, toolUseStream)
	req := userRequest(testModel(srv.URL), "hi")
	req.APIKey = "sk-ant-oat-token"
	req.Headers = map[string]string{"Authorization": "Bearer sk-ant-oat-token"}
	collect(context.Background(), req)
	if rec.Header.Get("Authorization") != "Bearer sk-ant-oat-token" || rec.Header.Get("X-Api-Key") != "" {
		t.Fatalf("headers = %v", rec.Header)
	}
}

func TestEmptyAPIKeySendsNoKeyHeader(t *testing.T) {
	var rec recorded
	srv := sseServer(t, &rec, toolUseStream)
	msg, _ := collect(context.Background(), userRequest(testModel(srv.URL), "hi"))
	if msg.StopReason != llm.StopToolUse {
		t.Fatalf("stream failed: %s", msg.ErrorMessage)
	}
	if _, ok := rec.Header["X-Api-Key"]; ok {
		t.Fatalf("x-api-key sent without a key: %v", rec.Header)
	}
}

func TestHooksOrderAndPayloadReplacement(t *testing.T) {
	var rec recorded
	srv := sseServer(t, &rec, toolUseStream)
	req := userRequest(testModel(srv.URL), "hi")
	var order []string
	req.Hooks = &llm.Hooks{
		BeforeHeaders: func(_ context.Context, h map[string]string) {
			order = append(order, "before_headers")
			h["x-hooked"] = "yes"
			delete(h, "accept")
		},
		BeforeRequest: func(_ context.Context, payload any) any {
			order = append(order, "before_request")
			p := payload.(map[string]any)
			if p["model"] != "claude-test" || p["stream"] != true {
				t.Errorf("payload = %v", p)
			}
			p["max_tokens"] = 7
			p["metadata"] = map[string]any{"user_id": "u1"}
			return p
		},
		OnRequest: func(_ context.Context, body []byte) {
			order = append(order, "on_request")
			if !bytes.Contains(body, []byte(`"max_tokens":7`)) {
				t.Errorf("OnRequest body = %s", body)
			}
		},
		AfterResponse: func(_ context.Context, status int, h http.Header) {
			order = append(order, fmt.Sprintf("after_response %d %s", status, h.Get("Content-Type")))
		},
	}
	var sawStartAfterResponse bool
	New().Stream(context.Background(), req, func(e llm.Event) {
		if e.Type == llm.EventStart {
			sawStartAfterResponse = len(order) == 4
		}
	})
	want := []string{"before_headers", "before_request", "on_request", "after_response 200 text/event-stream"}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("hooks = %q, want %q", order, want)
	}
	if !sawStartAfterResponse {
		t.Fatal("start was emitted before after_response")
	}
	var body map[string]any
	json.Unmarshal(rec.Body, &body)
	if body["max_tokens"] != 7.0 || body["metadata"] == nil {
		t.Fatalf("replaced payload not sent: %s", rec.Body)
	}
	if rec.Header.Get("X-Hooked") != "yes" || rec.Header.Get("Accept") != "" {
		t.Fatalf("header edits not applied: %v", rec.Header)
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   string
	}{
		{429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			"429 Too Many Requests: Number of request tokens has exceeded your per-minute rate limit"},
		{500, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, "500 Internal Server Error: Internal server error"},
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "529: Overloaded"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			msg, types := collect(context.Background(), userRequest(testModel(srv.URL), "hi"))
			if msg.StopReason != llm.StopError || msg.ErrorMessage != tt.want {
				t.Fatalf("got %q %q, want error %q", msg.StopReason, msg.ErrorMessage, tt.want)
			}
			if !reflect.DeepEqual(types, []string{"start", "error"}) {
				t.Fatalf("events = %q", types)
			}
		})
	}
}

func TestErrorEventMidStream(t *testing.T) {
	stream := `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}

event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

`
	srv := sseServer(t, nil, stream)
	msg, types := collect(context.Background(), userRequest(testModel(srv.URL), "hi"))
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "overloaded_error: Overloaded" {
		t.Fatalf("got %q %q", msg.StopReason, msg.ErrorMessage)
	}
	if llm.TextOf(msg.Content, "") != "Hel" {
		t.Fatalf("partial content lost: %+v", msg.Content)
	}
	want := []string{"start", "text_start", "text_delta", "error"}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("events = %q", types)
	}
}

func TestStopReasons(t *testing.T) {
	tests := []struct {
		reason  string
		want    llm.StopReason
		wantErr string
	}{
		{"end_turn", llm.StopStop, ""},
		{"stop_sequence", llm.StopStop, ""},
		{"max_tokens", llm.StopLength, ""},
		{"refusal", llm.StopError, "refused"},
		{"something_new", llm.StopError, "something_new"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			stream := fmt.Sprintf(`event: message_start
data: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":1,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hi"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":%q},"usage":{"output_tokens":3}}

event: message_stop
data: {"type":"message_stop"}

`, tt.reason)
			srv := sseServer(t, nil, stream)
			msg, _ := collect(context.Background(), userRequest(testModel(srv.URL), "hi"))
			if msg.StopReason != tt.want || !strings.Contains(msg.ErrorMessage, tt.wantErr) || (tt.wantErr == "" && msg.ErrorMessage != "") {
				t.Fatalf("got %q %q, want %q %q", msg.StopReason, msg.ErrorMessage, tt.want, tt.wantErr)
			}
			if msg.Content[0].Text != "Hi" || msg.Usage.Output != 3 {
				t.Fatalf("message = %+v", msg)
			}
		})
	}
}

// cutStream is toolUseStream up to the middle of the text block.
var cutStream = toolUseStream[:strings.Index(toolUseStream, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}")]

func TestStreamEndsEarly(t *testing.T) {
	srv := sseServer(t, nil, cutStream)
	msg, types := collect(context.Background(), userRequest(testModel(srv.URL), "hi"))
	assertCut(t, msg, types)
}

func TestConnectionCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		// Half an event, then the connection drops without the chunked terminator.
		io.WriteString(w, cutStream+"event: content_block_delta\ndata: {\"type\":\"content_blo")
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	defer srv.Close()
	msg, types := collect(context.Background(), userRequest(testModel(srv.URL), "hi"))
	assertCut(t, msg, types)
}

func assertCut(t *testing.T, msg llm.Message, types []string) {
	t.Helper()
	if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "stream ended before the response was complete") {
		t.Fatalf("got %q %q", msg.StopReason, msg.ErrorMessage)
	}
	if len(msg.Content) != 2 || msg.Content[1].Text != "I'll list the files." || msg.Content[0].ThinkingSignature == "" {
		t.Fatalf("partial content not kept: %+v", msg.Content)
	}
	// The cut text block is kept but never ended: the stream did not end it.
	if types[len(types)-1] != llm.EventError || types[len(types)-2] != llm.EventTextDelta {
		t.Fatalf("events = %q", types)
	}
}

func TestAbortMidStream(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, cutStream)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var types []string
	msg := New().Stream(ctx, userRequest(testModel(srv.URL), "hi"), func(e llm.Event) {
		types = append(types, e.Type)
		if e.Type == llm.EventTextDelta && e.Partial.Content[e.ContentIndex].Text == "I'll list the files." {
			cancel()
		}
	})
	if msg.StopReason != llm.StopAborted || msg.ErrorMessage == "" {
		t.Fatalf("got %q %q", msg.StopReason, msg.ErrorMessage)
	}
	if llm.TextOf(msg.Content, "") != "I'll list the files." {
		t.Fatalf("partial content not kept: %+v", msg.Content)
	}
	if types[len(types)-1] != llm.EventError {
		t.Fatalf("events = %q", types)
	}
}

func TestNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	msg, _ := collect(context.Background(), userRequest(testModel(url), "hi"))
	if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "connection refused") {
		t.Fatalf("got %q %q", msg.StopReason, msg.ErrorMessage)
	}
}

// memTransport answers every request with body, without a network.
type memTransport []byte

func (b memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(bytes.NewReader(b)),
		Request: r,
	}, nil
}

func BenchmarkStreamText(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n")
	sb.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for range 10000 {
		sb.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"word \"}}\n\n")
	}
	sb.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	sb.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":10000}}\n\n")
	sb.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	req := userRequest(testModel("http://bench.invalid"), "hi")
	req.HTTPClient = &http.Client{Transport: memTransport(sb.String())}
	p := New()
	b.ReportAllocs()
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		msg := p.Stream(context.Background(), req, func(llm.Event) {})
		if msg.StopReason != llm.StopStop || len(msg.Content[0].Text) != 50000 {
			b.Fatalf("bad message: %s %s", msg.StopReason, msg.ErrorMessage)
		}
	}
}

// The shared provider test helpers (internal/providertest).
type recorded = providertest.Recorded

var (
	sseServer   = providertest.SSEServer
	userRequest = providertest.UserRequest
	assertJSON  = providertest.AssertJSON
)

// pi-ai's metadata: a string user_id becomes the request's metadata.user_id; other members and a
// non-string user_id are not Anthropic's and are left out.
func TestMetadataUserID(t *testing.T) {
	m := &llm.Model{ID: "c", MaxTokens: 1000}
	for _, tt := range []struct {
		meta map[string]any
		want string // "" : no metadata member
	}{
		{map[string]any{"user_id": "u-42", "trace": "x"}, `"metadata":{"user_id":"u-42"}`},
		{map[string]any{"user_id": 42}, ""},
		{map[string]any{"other": "x"}, ""},
		{nil, ""},
	} {
		body, err := buildPayload(&llm.Request{Model: m, Metadata: tt.meta}).AppendRequestBody(nil)
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(body), `"metadata"`); has != (tt.want != "") || (tt.want != "" && !strings.Contains(string(body), tt.want)) {
			t.Errorf("metadata %v: body %s", tt.meta, body)
		}
	}
}
