package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/sse"
)

// reflectBody is the request body as encoding/json writes it without HTML escaping (the payload
// type has no MarshalJSON, so this is the reflection encoding AppendRequestBody must equal).
func reflectBody(t *testing.T, p *payload) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestAppendRequestBodyMatchesEncodingJSON checks AppendRequestBody byte for byte against
// encoding/json for every block kind, optional member and string escape.
func TestAppendRequestBodyMatchesEncodingJSON(t *testing.T) {
	tricky := "a\b\f\n\r\t\x00\x01\x1f\"\\</x>&'\u2028\u2029\xff\xc3 é 😀 \u007f"
	full := &payload{
		Model:  "claude-" + tricky,
		Stream: true, MaxTokens: 40192,
		System: []*textBlock{{Type: "text", Text: tricky, CacheControl: ephemeral}},
		Messages: []message{
			{Role: "user", Content: []any{&textBlock{Type: "text", Text: tricky},
				&imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0K"}}}},
			{Role: "assistant", Content: []any{
				&thinkingBlock{Type: "thinking", Thinking: tricky, Signature: "sig"},
				&redactedThinkingBlock{Type: "redacted_thinking", Data: "opaque"},
				&textBlock{Type: "text", Text: "ok"},
				&toolUseBlock{Type: "tool_use", ID: "toolu_1", Name: "bash", Input: map[string]any{
					"z": 1.5, "a": []any{"x", nil, true, map[string]any{"k": "<v>" + tricky}}, "n": nil}},
				&toolUseBlock{Type: "tool_use", ID: "toolu_2", Name: "ls", Input: map[string]any{}}}},
			{Role: "user", Content: []any{
				&toolResultBlock{Type: "tool_result", ToolUseID: "toolu_1", Content: tricky, IsError: true},
				&toolResultBlock{Type: "tool_result", ToolUseID: "toolu_2"},
				&toolResultBlock{Type: "tool_result", ToolUseID: "toolu_3", Content: []any{
					&textBlock{Type: "text", Text: "see"},
					&imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: "image/jpeg", Data: "/9j/"},
						CacheControl: ephemeral}}, CacheControl: ephemeral}}},
			{Role: "user", Content: nil},
		},
		Tools: []toolParam{
			{Name: "bash", Description: tricky, InputSchema: json.RawMessage("{ \"type\" : \"object\",\n \"properties\": {\"c\": {\"type\": \"string\", \"description\": \"<&>\"}} }")},
			{Name: "none"},
		},
		Thinking: &thinkingParams{Type: "enabled", BudgetTokens: 8192},
		Metadata: &metadataParam{UserID: tricky},
	}
	temp, tiny := 0.7, 1e-7
	long := &cacheControl{Type: "ephemeral", TTL: "1h"}
	cases := map[string]*payload{
		"every block":    full,
		"no messages":    {Model: "m", MaxTokens: 1},
		"empty messages": {Model: "m", Messages: []message{}, MaxTokens: 1, Stream: true},
		"temperature and a 1h cache": {Model: "m", Temperature: &temp, System: []*textBlock{{Type: "text", Text: "s", CacheControl: long}},
			Messages: []message{{Role: "user", Content: []any{&textBlock{Type: "text", Text: "q", CacheControl: long}}}}},
		"tiny temperature": {Model: "m", Temperature: &tiny},
	}
	// A payload built the production way, from a conversation.
	model := &llm.Model{ID: "claude-test", API: llm.APIAnthropicMessages, Provider: "anthropic", MaxTokens: 64000,
		Reasoning: true, Input: []string{"text", "image"}}
	cases["buildPayload"] = buildPayload(&llm.Request{Model: model, SystemPrompt: "sys", ThinkingLevel: llm.ThinkingMedium,
		Messages: []llm.Message{
			llm.UserText("hi "+tricky, nil, 1),
			{Role: llm.RoleAssistant, API: model.API, Provider: model.Provider, Model: model.ID, Content: []llm.Content{
				{Type: llm.ContentThinking, Thinking: "hmm", ThinkingSignature: "s"},
				{Type: llm.ContentToolCall, ID: "call|1", Name: "read", Arguments: map[string]any{"path": "a.go"}}}},
			{Role: llm.RoleToolResult, ToolCallID: "call|1", ToolName: "read", Content: []llm.Content{llm.Text("package a")}},
			llm.UserText("next", nil, 2),
		},
		Tools: []llm.ToolSpec{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type": "object"}`)}}})
	for name, p := range cases {
		want := reflectBody(t, p)
		got, err := p.AppendRequestBody(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		if viaMarshal, err := sse.Marshal(p); err != nil || !bytes.Equal(viaMarshal, want) {
			t.Errorf("%s: sse.Marshal does not use AppendRequestBody's bytes (%v)", name, err)
		}
	}
	// Appending keeps what dst held.
	if got, _ := cases["no messages"].AppendRequestBody([]byte("x")); string(got[:2]) != `x{` {
		t.Errorf("prefix lost: %.10s", got)
	}
}

// TestAppendRequestBodyCoversPayload fails when a member is added to a request body type: add it
// to AppendRequestBody (and a case above) too.
func TestAppendRequestBodyCoversPayload(t *testing.T) {
	known := map[reflect.Type]string{
		reflect.TypeFor[payload]():               "model messages system max_tokens stream tools thinking temperature metadata",
		reflect.TypeFor[message]():               "role content",
		reflect.TypeFor[cacheControl]():          "type ttl",
		reflect.TypeFor[textBlock]():             "type text cache_control",
		reflect.TypeFor[imageSource]():           "type media_type data",
		reflect.TypeFor[imageBlock]():            "type source cache_control",
		reflect.TypeFor[thinkingBlock]():         "type thinking signature",
		reflect.TypeFor[toolUseBlock]():          "type id name input",
		reflect.TypeFor[toolResultBlock]():       "type tool_use_id content is_error cache_control",
		reflect.TypeFor[toolParam]():             "name description input_schema",
		reflect.TypeFor[thinkingParams]():        "type budget_tokens",
		reflect.TypeFor[redactedThinkingBlock](): "type data",
		reflect.TypeFor[metadataParam]():         "user_id",
	}
	for typ, want := range known {
		var names []string
		for f := range typ.Fields() {
			names = append(names, strings.Split(f.Tag.Get("json"), ",")[0])
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s members %q, AppendRequestBody writes %q", typ.Name(), got, want)
		}
	}
}

// TestAppendRequestBodyErrors checks that what encoding/json refuses fails here too.
func TestAppendRequestBodyErrors(t *testing.T) {
	for name, p := range map[string]*payload{
		"bad schema":        {Tools: []toolParam{{Name: "t", InputSchema: json.RawMessage("{nope")}}},
		"unencodable input": {Messages: []message{{Role: "assistant", Content: []any{&toolUseBlock{Input: map[string]any{"f": func() {}}}}}}},
	} {
		if _, err := p.AppendRequestBody(nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// BenchmarkRequestBody100k encodes the body of a 100,000-message conversation (the request of a
// resumed long session), with AppendRequestBody and with encoding/json.
func BenchmarkRequestBody100k(b *testing.B) {
	model := &llm.Model{ID: "fake-model", API: llm.APIAnthropicMessages, Provider: "fake", MaxTokens: 4096}
	msgs := make([]llm.Message, 0, 100000)
	for i := range 50000 {
		msgs = append(msgs, llm.UserText(fmt.Sprintf("question %d: what does function f%d do?", i, i), nil, int64(i)),
			llm.Message{Role: llm.RoleAssistant, API: model.API, Provider: model.Provider, Model: model.ID,
				Content: []llm.Content{llm.Text(fmt.Sprintf("## Answer %d\n\nFunction `f%d` returns **%d**.\n\n- it is pure\n- it is fast\n", i, i, i))}})
	}
	p := buildPayload(&llm.Request{Model: model, Messages: msgs})
	b.Run("append", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.AppendRequestBody(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
