package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// A Responses stream as OpenAI writes it: a reasoning item with two summary parts, a message and a
// function call.
const respToolStream = `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_67ccd2bed1ec8190","object":"response","created_at":1741476542,"status":"in_progress","model":"gpt-test","output":[],"usage":null}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_67ccd2bed1ec8190","object":"response","created_at":1741476542,"status":"in_progress","model":"gpt-test","output":[],"usage":null}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"rs_abc","type":"reasoning","summary":[]}}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","sequence_number":3,"item_id":"rs_abc","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":4,"item_id":"rs_abc","output_index":0,"summary_index":0,"delta":"**Listing files**"}

event: response.reasoning_summary_text.done
data: {"type":"response.reasoning_summary_text.done","sequence_number":5,"item_id":"rs_abc","output_index":0,"summary_index":0,"text":"**Listing files**"}

event: response.reasoning_summary_part.done
data: {"type":"response.reasoning_summary_part.done","sequence_number":6,"item_id":"rs_abc","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"**Listing files**"}}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","sequence_number":7,"item_id":"rs_abc","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":8,"item_id":"rs_abc","output_index":0,"summary_index":1,"delta":"Use bash."}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":9,"output_index":0,"item":{"id":"rs_abc","type":"reasoning","encrypted_content":"gAAAAABo_enc","summary":[{"type":"summary_text","text":"**Listing files**"},{"type":"summary_text","text":"Use bash."}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":10,"output_index":1,"item":{"id":"msg_def","type":"message","status":"in_progress","content":[],"role":"assistant"}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":11,"item_id":"msg_def","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":12,"item_id":"msg_def","output_index":1,"content_index":0,"delta":"I'll list"}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":13,"item_id":"msg_def","output_index":1,"content_index":0,"delta":" the files."}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":14,"item_id":"msg_def","output_index":1,"content_index":0,"text":"I'll list the files."}

event: response.content_part.done
data: {"type":"response.content_part.done","sequence_number":15,"item_id":"msg_def","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"I'll list the files."}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":16,"output_index":1,"item":{"id":"msg_def","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"I'll list the files."}],"role":"assistant"}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":17,"output_index":2,"item":{"id":"fc_ghi","type":"function_call","status":"in_progress","arguments":"","call_id":"call_jkl","name":"bash"}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":18,"item_id":"fc_ghi","output_index":2,"delta":"{\"command\":"}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":19,"item_id":"fc_ghi","output_index":2,"delta":"\"ls\"}"}

event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","sequence_number":20,"item_id":"fc_ghi","output_index":2,"arguments":"{\"command\":\"ls\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":21,"output_index":2,"item":{"id":"fc_ghi","type":"function_call","status":"completed","arguments":"{\"command\":\"ls\"}","call_id":"call_jkl","name":"bash"}}

event: response.completed
data: {"type":"response.completed","sequence_number":22,"response":{"id":"resp_67ccd2bed1ec8190","object":"response","created_at":1741476542,"status":"completed","model":"gpt-test","output":[],"usage":{"input_tokens":1500,"input_tokens_details":{"cached_tokens":1024},"output_tokens":120,"output_tokens_details":{"reasoning_tokens":64},"total_tokens":1620}}}

`

const reasoningItem = `{"id":"rs_abc","type":"reasoning","encrypted_content":"gAAAAABo_enc","summary":[{"type":"summary_text","text":"**Listing files**"},{"type":"summary_text","text":"Use bash."}]}`

func respModel(baseURL string) *llm.Model {
	return &llm.Model{
		ID: "gpt-test", API: llm.APIOpenAIResponses, Provider: "openai", BaseURL: baseURL, Reasoning: true,
		Input: []string{"text", "image"}, MaxTokens: 128000, Cost: llm.ModelCost{Input: 1, Output: 2, CacheRead: 0.1},
	}
}

func TestResponsesStream(t *testing.T) {
	srv := sseServer(t, nil, respToolStream)
	var events []llm.Event
	msg := NewResponses().Stream(context.Background(), userRequest(respModel(srv.URL), "list"), func(e llm.Event) {
		e.Partial = nil
		events = append(events, e)
	})
	if msg.StopReason != llm.StopToolUse || msg.ErrorMessage != "" {
		t.Fatalf("stopReason %q, error %q", msg.StopReason, msg.ErrorMessage)
	}
	want := []llm.Content{
		{Type: llm.ContentThinking, Thinking: "**Listing files**\n\nUse bash.", ThinkingSignature: reasoningItem},
		{Type: llm.ContentText, Text: "I'll list the files.", TextSignature: "msg_def"},
		{Type: llm.ContentToolCall, ID: "call_jkl|fc_ghi", Name: "bash", Arguments: map[string]any{"command": "ls"}},
	}
	if !reflect.DeepEqual(msg.Content, want) {
		t.Fatalf("content =\n%+v\nwant\n%+v", msg.Content, want)
	}
	u := msg.Usage
	if msg.ResponseID != "resp_67ccd2bed1ec8190" || u.Input != 476 || u.CacheRead != 1024 || u.Output != 120 || u.TotalTokens != 1620 {
		t.Fatalf("response %q usage %+v", msg.ResponseID, u)
	}
	var types []string
	for _, e := range events {
		types = append(types, e.Type)
	}
	assertTypes(t, types, "start",
		"thinking_start", "thinking_delta", "thinking_delta", "thinking_delta", "thinking_end",
		"text_start", "text_delta", "text_delta", "text_end",
		"toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end",
		"done")
}

func TestResponsesRequestBody(t *testing.T) {
	var rec recorded
	srv := sseServer(t, &rec, respToolStream)
	m := respModel(srv.URL)
	mine := func(content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, API: m.API, Provider: m.Provider, Model: m.ID, Content: content, StopReason: llm.StopToolUse}
	}
	req := &llm.Request{
		Model: m, SystemPrompt: "Be brief.", ThinkingLevel: llm.ThinkingMedium, APIKey: "sk-test", SessionID: "sess-1",
		Tools: []llm.ToolSpec{{Name: "bash", Description: "Run", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}},
		Messages: []llm.Message{
			llm.UserText("List", []llm.Content{llm.Image("aW1n", "image/png")}, 1),
			mine(
				llm.Content{Type: llm.ContentThinking, Thinking: "**Listing files**", ThinkingSignature: reasoningItem},
				llm.Content{Type: llm.ContentText, Text: "Listing.", TextSignature: "msg_def"},
				llm.Content{Type: llm.ContentToolCall, ID: "call_jkl|fc_ghi", Name: "bash", Arguments: map[string]any{"command": "ls"}},
			),
			{Role: llm.RoleToolResult, ToolCallID: "call_jkl|fc_ghi", ToolName: "bash", Content: []llm.Content{llm.Text("a.txt"), llm.Image("cG5n", "image/png")}},
			{Role: llm.RoleAssistant, API: llm.APIOpenAICompletions, Provider: "other", Model: "x", StopReason: llm.StopToolUse, Content: []llm.Content{
				{Type: llm.ContentThinking, Thinking: "other thoughts", ThinkingSignature: "reasoning_content"},
				{Type: llm.ContentToolCall, ID: "call_9", Name: "bash", Arguments: map[string]any{"command": "pwd"}},
			}},
			{Role: llm.RoleToolResult, ToolCallID: "call_9", ToolName: "bash", Content: []llm.Content{llm.Text("/p")}, IsError: true},
			llm.UserText("Thanks", nil, 2),
		},
	}
	if msg, _ := collect(NewResponses(), req); msg.StopReason == llm.StopError {
		t.Fatal(msg.ErrorMessage)
	}
	if rec.Path != "/responses" || rec.Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("path %q headers %v", rec.Path, rec.Header)
	}
	assertJSON(t, rec.Body, `{
		"model": "gpt-test",
		"input": [
			{"role":"developer","content":"Be brief."},
			{"role":"user","content":[{"type":"input_text","text":"List"},{"type":"input_image","detail":"auto","image_url":"data:image/png;base64,aW1n"}]},
			`+reasoningItem+`,
			{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Listing.","annotations":[]}],"status":"completed","id":"msg_def"},
			{"type":"function_call","id":"fc_ghi","call_id":"call_jkl","name":"bash","arguments":"{\"command\":\"ls\"}"},
			{"type":"function_call_output","call_id":"call_jkl","output":"a.txt"},
			{"role":"user","content":[{"type":"input_text","text":"Attached image(s) from tool result:"},{"type":"input_image","detail":"auto","image_url":"data:image/png;base64,cG5n"}]},
			{"role":"assistant","content":"other thoughts"},
			{"type":"function_call","call_id":"call_9","name":"bash","arguments":"{\"command\":\"pwd\"}"},
			{"type":"function_call_output","call_id":"call_9","output":"/p"},
			{"role":"user","content":[{"type":"input_text","text":"Thanks"}]}
		],
		"stream": true,
		"store": false,
		"prompt_cache_key": "sess-1",
		"max_output_tokens": 32000,
		"tools": [{"type":"function","name":"bash","description":"Run","parameters":{"type":"object","properties":{"command":{"type":"string"}}},"strict":false}],
		"reasoning": {"effort":"medium","summary":"auto"},
		"include": ["reasoning.encrypted_content"]
	}`)
}

func TestResponsesDropsItemIDsWithoutReasoning(t *testing.T) {
	m := respModel("")
	m.Reasoning = false
	msg := llm.Message{Role: llm.RoleAssistant, API: m.API, Provider: m.Provider, Model: m.ID, StopReason: llm.StopToolUse, Content: []llm.Content{
		{Type: llm.ContentText, Text: "Hi", TextSignature: "msg_1"},
		{Type: llm.ContentToolCall, ID: "call_1|fc_1", Name: "bash", Arguments: map[string]any{}},
	}}
	p := responsesPayload(&llm.Request{Model: m, Messages: []llm.Message{llm.UserText("x", nil, 1), msg}})
	b, _ := json.Marshal(p.Input)
	assertJSON(t, b, `[
		{"role":"user","content":[{"type":"input_text","text":"x"}]},
		{"role":"assistant","content":"Hi"},
		{"type":"function_call","call_id":"call_1","name":"bash","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_1","output":"No result provided"}
	]`)
	if p.Reasoning != nil || p.Include != nil {
		t.Fatalf("reasoning sent for a model without reasoning: %+v", p)
	}
}

func TestResponsesFailures(t *testing.T) {
	prefix := respToolStream[:strings.Index(respToolStream, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":13")]
	tests := []struct {
		name   string
		tail   string
		reason llm.StopReason
		errMsg string
	}{
		{"failed", `event: response.failed
data: {"type":"response.failed","sequence_number":13,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."}}}

`, llm.StopError, "The model failed to generate a response. (server_error)"},
		{"error event", `event: error
data: {"type":"error","sequence_number":13,"code":"rate_limit_exceeded","message":"Rate limit reached","param":null}

`, llm.StopError, "Rate limit reached (rate_limit_exceeded)"},
		{"incomplete", `event: response.incomplete
data: {"type":"response.incomplete","sequence_number":13,"response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}}

`, llm.StopLength, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := sseServer(t, nil, prefix+tt.tail)
			msg, types := collect(NewResponses(), userRequest(respModel(srv.URL), "hi"))
			if msg.StopReason != tt.reason || msg.ErrorMessage != tt.errMsg {
				t.Fatalf("got %q %q, want %q %q", msg.StopReason, msg.ErrorMessage, tt.reason, tt.errMsg)
			}
			if llm.TextOf(msg.Content, "") != "I'll list" {
				t.Fatalf("partial content lost: %+v", msg.Content)
			}
			if last := types[len(types)-1]; (tt.errMsg != "") != (last == llm.EventError) {
				t.Fatalf("events = %q", types)
			}
		})
	}
}

func TestResponsesHTTPErrors(t *testing.T) {
	for _, status := range []int{429, 500} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := statusServer(t, status, `{"error":{"message":"try again later","type":"server_error","param":null,"code":null}}`)
			msg, types := collect(NewResponses(), userRequest(respModel(srv.URL), "hi"))
			want := fmt.Sprintf("%d %s: try again later", status, http.StatusText(status))
			if msg.StopReason != llm.StopError || msg.ErrorMessage != want {
				t.Fatalf("got %q %q, want %q", msg.StopReason, msg.ErrorMessage, want)
			}
			assertTypes(t, types, "start", "error")
		})
	}
}

// respCut is respToolStream up to the middle of the message item.
var respCut = respToolStream[:strings.Index(respToolStream, "event: response.output_text.done")]

func TestResponsesStreamEndsEarly(t *testing.T) {
	srv := sseServer(t, nil, respCut)
	msg, _ := collect(NewResponses(), userRequest(respModel(srv.URL), "hi"))
	assertPartialError(t, msg, llm.StopError, "I'll list the files.")
	if !strings.Contains(msg.ErrorMessage, "response.completed") {
		t.Fatalf("error message = %q", msg.ErrorMessage)
	}
	if msg.Content[0].ThinkingSignature != reasoningItem {
		t.Fatalf("finished reasoning item lost: %+v", msg.Content[0])
	}
}

func TestResponsesConnectionCut(t *testing.T) {
	srv := cutServer(t, respCut)
	msg, _ := collect(NewResponses(), userRequest(respModel(srv.URL), "hi"))
	assertPartialError(t, msg, llm.StopError, "I'll list the files.")
}

func TestResponsesAbort(t *testing.T) {
	srv := hangServer(t, respCut)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var types []string
	msg := NewResponses().Stream(ctx, userRequest(respModel(srv.URL), "hi"), func(e llm.Event) {
		types = append(types, e.Type)
		if e.Type == llm.EventTextDelta && e.Delta == " the files." {
			cancel()
		}
	})
	assertPartialError(t, msg, llm.StopAborted, "I'll list the files.")
	if types[len(types)-1] != llm.EventError {
		t.Fatalf("events = %q", types)
	}
}

func TestResponsesHooksReplacePayload(t *testing.T) {
	var rec recorded
	srv := sseServer(t, &rec, respToolStream)
	req := userRequest(respModel(srv.URL), "hi")
	var order []string
	req.Hooks = &llm.Hooks{
		BeforeHeaders: func(context.Context, map[string]string) { order = append(order, "headers") },
		BeforeRequest: func(_ context.Context, payload any) any {
			order = append(order, "request")
			p := payload.(map[string]any)
			p["instructions"] = "from a hook"
			return p
		},
		OnRequest:     func(context.Context, []byte) { order = append(order, "onrequest") },
		AfterResponse: func(context.Context, int, http.Header) { order = append(order, "response") },
	}
	collect(NewResponses(), req)
	assertTypes(t, order, "headers", "request", "onrequest", "response")
	var body map[string]any
	json.Unmarshal(rec.Body, &body)
	if body["instructions"] != "from a hook" || body["model"] != "gpt-test" {
		t.Fatalf("body = %s", rec.Body)
	}
}

func BenchmarkStreamResponses(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\"}}\n\n")
	sb.WriteString("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"content\":[],\"role\":\"assistant\"}}\n\n")
	for i := range 10000 {
		fmt.Fprintf(&sb, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"word \"}\n\n", i+2)
	}
	sb.WriteString("event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"completed\",\"content\":[],\"role\":\"assistant\"}}\n\n")
	sb.WriteString("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":10,\"output_tokens\":10000,\"total_tokens\":10010}}}\n\n")
	req := userRequest(respModel("http://bench.invalid"), "hi")
	req.HTTPClient = &http.Client{Transport: memTransport(sb.String())}
	p := NewResponses()
	b.ReportAllocs()
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		msg := p.Stream(context.Background(), req, func(llm.Event) {})
		if msg.StopReason != llm.StopStop || len(msg.Content[0].Text) != 50000 {
			b.Fatalf("bad message: %s %s", msg.StopReason, msg.ErrorMessage)
		}
	}
}
