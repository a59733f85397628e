package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// A Chat Completions stream as OpenAI writes it: a role chunk, text, two tool calls with
// fragmented arguments, the finish chunk, the usage chunk and [DONE].
const chatToolStream = `data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"I'll list"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" the files."},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"bash","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"comm"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"and\":\"ls\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_def","type":"function","function":{"name":"read","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"path\":\"a.txt\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}

data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[],"usage":{"prompt_tokens":1396,"completion_tokens":17,"total_tokens":1413,"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}

data: [DONE]

`

// A reasoning model on an OpenAI-compatible server (DeepSeek style reasoning_content), CRLF lines.
var chatReasoningStream = strings.ReplaceAll(`data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Two plus"},"finish_reason":null}]}

data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":" two."},"finish_reason":null}]}

data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"4"},"finish_reason":null}]}

data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":9,"total_tokens":21}}

data: [DONE]

`, "\n", "\r\n")

func chatModel(baseURL string) *llm.Model {
	return &llm.Model{
		ID: "gpt-test", API: llm.APIOpenAICompletions, Provider: "openai", BaseURL: baseURL,
		Input: []string{"text", "image"}, MaxTokens: 16384, Cost: llm.ModelCost{Input: 1, Output: 2, CacheRead: 0.5},
	}
}

func TestCompletionsStreamTextAndToolCalls(t *testing.T) {
	srv := sseServer(t, nil, chatToolStream)
	var events []llm.Event
	msg := NewCompletions().Stream(context.Background(), userRequest(chatModel(srv.URL), "list"), func(e llm.Event) {
		e.Partial = nil
		events = append(events, e)
	})
	if msg.StopReason != llm.StopToolUse || msg.ErrorMessage != "" {
		t.Fatalf("stopReason %q, error %q", msg.StopReason, msg.ErrorMessage)
	}
	want := []llm.Content{
		llm.Text("I'll list the files."),
		{Type: llm.ContentToolCall, ID: "call_abc", Name: "bash", Arguments: map[string]any{"command": "ls"}},
		{Type: llm.ContentToolCall, ID: "call_def", Name: "read", Arguments: map[string]any{"path": "a.txt"}},
	}
	if !reflect.DeepEqual(msg.Content, want) {
		t.Fatalf("content =\n%+v\nwant\n%+v", msg.Content, want)
	}
	if msg.ResponseID != "chatcmpl-AbC123" || msg.API != llm.APIOpenAICompletions || msg.Provider != "openai" {
		t.Fatalf("ids: %q %q %q", msg.ResponseID, msg.API, msg.Provider)
	}
	u := msg.Usage
	if u.Input != 372 || u.CacheRead != 1024 || u.Output != 17 || u.TotalTokens != 1413 || u.Cost.Total == 0 {
		t.Fatalf("usage = %+v", u)
	}
	var types []string
	for _, e := range events {
		types = append(types, e.Type)
	}
	// Blocks stay open until the end, as pi's openai-completions provider does
	// (fixtures/pi-0.73.1/json/events.types.txt).
	assertTypes(t, types, "start",
		"text_start", "text_delta", "text_delta",
		"toolcall_start", "toolcall_delta", "toolcall_delta",
		"toolcall_start", "toolcall_delta",
		"text_end", "toolcall_end", "toolcall_end", "done")
	if e := events[len(events)-2]; e.ToolCall == nil || e.ToolCall.ID != "call_def" {
		t.Fatalf("last toolcall_end = %+v", e)
	}
}

// loadMessages reads the conversation pi sent, as stored in its session file.
func loadMessages(t *testing.T, path string) []llm.Message {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []llm.Message
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m llm.Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// TestCompletionsMatchesPiRequest rebuilds the last request pi 0.73.1 sent in two recorded
// scenarios from the same conversation, system prompt and tools, and wants the same bytes.
func TestCompletionsMatchesPiRequest(t *testing.T) {
	for _, scenario := range []string{"print", "ext"} {
		t.Run(scenario, func(t *testing.T) {
			want, err := os.ReadFile("testdata/pi-" + scenario + "-request.json")
			if err != nil {
				t.Fatal(err)
			}
			want = bytes.TrimSpace(want)
			var pi struct {
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
				Tools []struct {
					Function llm.ToolSpec `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(want, &pi); err != nil {
				t.Fatal(err)
			}
			var system string
			json.Unmarshal(pi.Messages[0].Content, &system)
			var tools []llm.ToolSpec
			for _, tl := range pi.Tools {
				tools = append(tools, tl.Function)
			}

			var rec recorded
			srv := sseServer(t, &rec, chatToolStream)
			m := &llm.Model{ID: "fake-model", API: llm.APIOpenAICompletions, Provider: "fakellm",
				BaseURL: srv.URL + "/v1", Input: []string{"text"}, MaxTokens: 4096}
			req := &llm.Request{
				Model: m, SystemPrompt: system, Tools: tools, APIKey: "sk-fake", ThinkingLevel: llm.ThinkingOff,
				Messages: loadMessages(t, "testdata/pi-"+scenario+"-messages.jsonl"),
			}
			if msg, _ := collect(NewCompletions(), req); msg.StopReason == llm.StopError {
				t.Fatal(msg.ErrorMessage)
			}
			if rec.Path != "/v1/chat/completions" {
				t.Fatalf("path = %q", rec.Path)
			}
			if got := rec.Header.Get("Authorization"); got != "Bearer sk-fake" {
				t.Fatalf("authorization = %q", got)
			}
			if got := rec.Header.Get("Content-Type"); got != "application/json" {
				t.Fatalf("content-type = %q", got)
			}
			if !bytes.Equal(rec.Body, want) {
				assertJSON(t, rec.Body, string(want))
				t.Fatalf("same JSON, different bytes:\n%s\nwant\n%s", rec.Body, want)
			}
		})
	}
}

func TestCompletionsRequestConversion(t *testing.T) {
	var rec recorded
	srv := sseServer(t, &rec, chatToolStream)
	m := chatModel(srv.URL)
	m.Reasoning = true
	m.Compat = map[string]any{"maxTokensField": "max_tokens", "requiresToolResultName": true, "supportsStrictMode": false}
	mine := func(stop llm.StopReason, content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, API: m.API, Provider: m.Provider, Model: m.ID, Content: content, StopReason: stop}
	}
	req := &llm.Request{
		Model: m, SystemPrompt: "Be brief.", ThinkingLevel: llm.ThinkingHigh, MaxTokens: 1000,
		Headers: map[string]string{"Authorization": "Token custom"},
		APIKey:  "sk-ignored",
		Tools:   []llm.ToolSpec{{Name: "noargs", Description: "No arguments"}},
		Messages: []llm.Message{
			llm.UserText("Look", []llm.Content{llm.Image("aW1n", "image/png")}, 1),
			mine(llm.StopToolUse,
				llm.Content{Type: llm.ContentThinking, Thinking: "hmm", ThinkingSignature: "reasoning_content"},
				llm.Text("Reading."),
				llm.Content{Type: llm.ContentToolCall, ID: "call_1|fc_1", Name: "read", Arguments: map[string]any{"path": "x.png"}},
				llm.Content{Type: llm.ContentToolCall, ID: "toolu_ünïcode", Name: "read", Arguments: map[string]any{"path": "y"}},
			),
			{Role: llm.RoleToolResult, ToolCallID: "call_1|fc_1", ToolName: "read",
				Content: []llm.Content{llm.Text("Read image"), llm.Image("cG5n", "image/png")}},
			{Role: llm.RoleAssistant, API: llm.APIAnthropicMessages, Provider: "anthropic", Model: "claude",
				Content: []llm.Content{{Type: llm.ContentThinking, Thinking: "claude thoughts", ThinkingSignature: "sig"}, llm.Text("Seen.")}, StopReason: llm.StopStop},
			mine(llm.StopError, llm.Text("broken")),
			{Role: llm.RoleUser, Content: []llm.Content{llm.Text("Thanks")}, ContentIsString: true},
		},
	}
	msg, _ := collect(NewCompletions(), req)
	if msg.StopReason == llm.StopError {
		t.Fatal(msg.ErrorMessage)
	}
	if got := rec.Header.Get("Authorization"); got != "Token custom" {
		t.Fatalf("authorization = %q", got)
	}
	assertJSON(t, rec.Body, `{
		"model": "gpt-test",
		"messages": [
			{"role":"developer","content":"Be brief."},
			{"role":"user","content":[{"type":"text","text":"Look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,aW1n"}}]},
			{"role":"assistant","content":"Reading.","reasoning_content":"hmm","tool_calls":[
				{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"x.png\"}"}},
				{"id":"toolu___n__code","type":"function","function":{"name":"read","arguments":"{\"path\":\"y\"}"}}]},
			{"role":"tool","content":"Read image","tool_call_id":"call_1","name":"read"},
			{"role":"tool","content":"No result provided","tool_call_id":"toolu___n__code","name":"read"},
			{"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,cG5n"}}]},
			{"role":"assistant","content":"claude thoughts\n\nSeen."},
			{"role":"user","content":"Thanks"}
		],
		"stream": true,
		"stream_options": {"include_usage": true},
		"store": false,
		"max_tokens": 1000,
		"tools": [{"type":"function","function":{"name":"noargs","description":"No arguments","parameters":{"type":"object","properties":{}}}}],
		"reasoning_effort": "high"
	}`)
}

func TestCompletionsThinkingFormats(t *testing.T) {
	tests := []struct {
		format, level string
		reasoning     bool
		compat        map[string]any
		want          string // the thinking-related fields of the body
	}{
		{"", llm.ThinkingMedium, true, nil, `{"reasoning_effort":"medium"}`},
		{"", llm.ThinkingOff, true, nil, `{}`},
		{"", llm.ThinkingHigh, false, nil, `{}`},
		{"", llm.ThinkingXHigh, true, map[string]any{"supportsXhigh": true}, `{"reasoning_effort":"xhigh"}`},
		{"", llm.ThinkingLow, true, map[string]any{"reasoningEffortMap": map[string]any{"low": "minimal"}}, `{"reasoning_effort":"minimal"}`},
		{"", llm.ThinkingLow, true, map[string]any{"supportsReasoningEffort": false}, `{}`},
		{"openrouter", llm.ThinkingLow, true, nil, `{"reasoning":{"effort":"low"}}`},
		{"zai", llm.ThinkingLow, true, nil, `{"thinking":{"type":"enabled"}}`},
		{"zai", llm.ThinkingOff, true, nil, `{"thinking":{"type":"disabled"}}`},
		{"qwen", llm.ThinkingOff, true, nil, `{"enable_thinking":false}`},
		{"qwen-chat-template", llm.ThinkingHigh, true, nil, `{"chat_template_kwargs":{"enable_thinking":true}}`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%v", tt.format, tt.level, tt.reasoning), func(t *testing.T) {
			m := chatModel("")
			m.Reasoning = tt.reasoning
			m.Compat = map[string]any{}
			for k, v := range tt.compat {
				m.Compat[k] = v
			}
			if tt.format != "" {
				m.Compat["thinkingFormat"] = tt.format
			}
			p := completionsPayload(&llm.Request{Model: m, ThinkingLevel: tt.level})
			b, _ := json.Marshal(p)
			var all map[string]any
			json.Unmarshal(b, &all)
			got := map[string]any{}
			for _, k := range []string{"reasoning_effort", "reasoning", "thinking", "enable_thinking", "chat_template_kwargs"} {
				if v, ok := all[k]; ok {
					got[k] = v
				}
			}
			gb, _ := json.Marshal(got)
			assertJSON(t, gb, tt.want)
		})
	}
}

func TestCompletionsReasoningStream(t *testing.T) {
	srv := sseServer(t, nil, chatReasoningStream)
	m := chatModel(srv.URL)
	m.Reasoning = true
	msg, types := collect(NewCompletions(), userRequest(m, "2+2?"))
	if msg.StopReason != llm.StopStop {
		t.Fatal(msg.ErrorMessage)
	}
	want := []llm.Content{
		{Type: llm.ContentThinking, Thinking: "Two plus two.", ThinkingSignature: "reasoning_content"},
		llm.Text("4"),
	}
	if !reflect.DeepEqual(msg.Content, want) {
		t.Fatalf("content = %+v", msg.Content)
	}
	if msg.Usage.Input != 12 || msg.Usage.Output != 9 {
		t.Fatalf("usage = %+v", msg.Usage)
	}
	assertTypes(t, types, "start", "thinking_start", "thinking_delta", "thinking_delta",
		"text_start", "text_delta", "thinking_end", "text_end", "done")
}

func TestCompletionsGeneratesMissingToolCallIDs(t *testing.T) {
	stream := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"bash","arguments":"{\"command\":"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"name":"read","arguments":"{}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	srv := sseServer(t, nil, stream)
	msg, _ := collect(NewCompletions(), userRequest(chatModel(srv.URL), "go"))
	calls := msg.ToolCalls()
	if len(calls) != 2 {
		t.Fatalf("tool calls = %+v", msg.Content)
	}
	if !strings.HasPrefix(calls[0].ID, "call_") || calls[0].ID == calls[1].ID || calls[0].Arguments["command"] != "ls" {
		t.Fatalf("tool calls = %+v", calls)
	}
	if msg.StopReason != llm.StopToolUse {
		t.Fatalf("stopReason = %q", msg.StopReason)
	}
}

func TestCompletionsFinishWithoutDone(t *testing.T) {
	stream := chatToolStream[:strings.Index(chatToolStream, "data: [DONE]")]
	srv := sseServer(t, nil, stream)
	msg, _ := collect(NewCompletions(), userRequest(chatModel(srv.URL), "go"))
	if msg.StopReason != llm.StopToolUse || msg.Usage.Output != 17 {
		t.Fatalf("got %q %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestCompletionsFinishReasons(t *testing.T) {
	tests := []struct {
		finish  string
		want    llm.StopReason
		wantErr bool
	}{
		{"stop", llm.StopStop, false},
		{"length", llm.StopLength, false},
		{"content_filter", llm.StopError, true},
		{"eos", llm.StopStop, false},
	}
	for _, tt := range tests {
		t.Run(tt.finish, func(t *testing.T) {
			stream := fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":%q}]}\n\ndata: [DONE]\n\n", tt.finish)
			srv := sseServer(t, nil, stream)
			msg, _ := collect(NewCompletions(), userRequest(chatModel(srv.URL), "hi"))
			if msg.StopReason != tt.want || (msg.ErrorMessage != "") != tt.wantErr {
				t.Fatalf("got %q %q", msg.StopReason, msg.ErrorMessage)
			}
			if llm.TextOf(msg.Content, "") != "Hi" {
				t.Fatalf("content = %+v", msg.Content)
			}
		})
	}
}

func TestCompletionsErrorInStream(t *testing.T) {
	stream := `data: {"id":"x","choices":[{"index":0,"delta":{"content":"Hel"}}]}

data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","code":null}}

`
	srv := sseServer(t, nil, stream)
	msg, types := collect(NewCompletions(), userRequest(chatModel(srv.URL), "hi"))
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "The server had an error while processing your request." {
		t.Fatalf("got %q %q", msg.StopReason, msg.ErrorMessage)
	}
	if llm.TextOf(msg.Content, "") != "Hel" {
		t.Fatalf("partial content lost: %+v", msg.Content)
	}
	assertTypes(t, types, "start", "text_start", "text_delta", "error")
}

func TestCompletionsHTTPErrors(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   string
	}{
		{429, `{"error":{"message":"Rate limit reached for gpt-test on tokens per min (TPM): Limit 30000, Used 30000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			"429 Too Many Requests: Rate limit reached for gpt-test on tokens per min (TPM): Limit 30000, Used 30000."},
		{500, `{"error":{"message":"The server had an error processing your request.","type":"server_error"}}`,
			"500 Internal Server Error: The server had an error processing your request."},
		{404, `404 page not found`, "404 Not Found: 404 page not found"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			srv := statusServer(t, tt.status, tt.body)
			msg, types := collect(NewCompletions(), userRequest(chatModel(srv.URL), "hi"))
			if msg.StopReason != llm.StopError || msg.ErrorMessage != tt.want {
				t.Fatalf("got %q %q, want %q", msg.StopReason, msg.ErrorMessage, tt.want)
			}
			assertTypes(t, types, "start", "error")
		})
	}
}

// chatCut is chatToolStream up to the middle of the first tool call.
var chatCut = chatToolStream[:strings.Index(chatToolStream, `data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"and`)]

func TestCompletionsStreamEndsEarly(t *testing.T) {
	srv := sseServer(t, nil, chatCut)
	msg, types := collect(NewCompletions(), userRequest(chatModel(srv.URL), "hi"))
	assertPartialError(t, msg, llm.StopError, "I'll list the files.")
	if !strings.Contains(msg.ErrorMessage, "[DONE]") {
		t.Fatalf("error message = %q", msg.ErrorMessage)
	}
	if len(msg.Content) != 2 || msg.Content[1].ArgumentsError == "" {
		t.Fatalf("cut tool call = %+v", msg.Content)
	}
	if types[len(types)-1] != llm.EventError {
		t.Fatalf("events = %q", types)
	}
}

func TestCompletionsConnectionCut(t *testing.T) {
	srv := cutServer(t, chatCut)
	msg, _ := collect(NewCompletions(), userRequest(chatModel(srv.URL), "hi"))
	assertPartialError(t, msg, llm.StopError, "I'll list the files.")
}

func TestCompletionsAbort(t *testing.T) {
	srv := hangServer(t, chatCut)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var types []string
	msg := NewCompletions().Stream(ctx, userRequest(chatModel(srv.URL), "hi"), func(e llm.Event) {
		types = append(types, e.Type)
		if e.Type == llm.EventToolCallDelta {
			cancel()
		}
	})
	assertPartialError(t, msg, llm.StopAborted, "I'll list the files.")
	if types[len(types)-1] != llm.EventError {
		t.Fatalf("events = %q", types)
	}
}

func TestCompletionsHooks(t *testing.T) {
	var rec recorded
	srv := sseServer(t, &rec, chatToolStream)
	req := userRequest(chatModel(srv.URL), "hi")
	var order []string
	req.Hooks = &llm.Hooks{
		BeforeHeaders: func(_ context.Context, h map[string]string) {
			order = append(order, "headers")
			h["X-Trace"] = "t1"
		},
		BeforeRequest: func(_ context.Context, payload any) any {
			order = append(order, "request")
			if p, ok := payload.(map[string]any); !ok || p["model"] != "gpt-test" {
				t.Errorf("payload = %#v", payload)
			}
			return map[string]any{"model": "other", "messages": []any{}, "stream": true}
		},
		OnRequest: func(_ context.Context, body []byte) {
			order = append(order, "onrequest "+string(body))
		},
		AfterResponse: func(_ context.Context, status int, _ http.Header) {
			order = append(order, fmt.Sprint("response ", status))
		},
	}
	collect(NewCompletions(), req)
	want := `{"messages":[],"model":"other","stream":true}`
	assertTypes(t, order, "headers", "request", "onrequest "+want, "response 200")
	if string(rec.Body) != want || rec.Header.Get("X-Trace") != "t1" {
		t.Fatalf("sent %s with %v", rec.Body, rec.Header)
	}
}

func BenchmarkStreamCompletions(b *testing.B) {
	var sb strings.Builder
	for range 10000 {
		sb.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"word "},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	}
	sb.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":10000,"total_tokens":10010}}` + "\n\ndata: [DONE]\n\n")
	req := userRequest(chatModel("http://bench.invalid"), "hi")
	req.HTTPClient = &http.Client{Transport: memTransport(sb.String())}
	p := NewCompletions()
	b.ReportAllocs()
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		msg := p.Stream(context.Background(), req, func(llm.Event) {})
		if msg.StopReason != llm.StopStop || len(msg.Content[0].Text) != 50000 {
			b.Fatalf("bad message: %s %s", msg.StopReason, msg.ErrorMessage)
		}
	}
}
