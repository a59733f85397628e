package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// Unsigned thinking (an empty signature from an Anthropic-compatible server, pi#4464) is never
// sent back as visible text; signed thinking of the same model stays byte-exact.
func TestUnsignedThinkingIsNotReplayedAsText(t *testing.T) {
	m := &llm.Model{ID: "claude-test", Provider: "compat", API: llm.APIAnthropicMessages, MaxTokens: 4096}
	mine := func(content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, API: m.API, Provider: m.Provider, Model: m.ID, Content: content, StopReason: llm.StopStop}
	}
	fromOther := func(content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, API: m.API, Provider: "elsewhere", Model: "x", Content: content, StopReason: llm.StopStop}
	}
	signed := "EqQBCgIYAhIM1gbcDa9GJwZA2b3h\u2028+/="
	req := &llm.Request{Model: m, Messages: []llm.Message{
		llm.UserText("one", nil, 1),
		mine(llm.Content{Type: llm.ContentThinking, Thinking: "SECRET-UNSIGNED reasoning"}, llm.Text("Answer one.")),
		llm.UserText("two", nil, 2),
		mine(llm.Content{Type: llm.ContentThinking, Thinking: "SECRET-BLANK", ThinkingSignature: "  "}, llm.Text("Answer two.")),
		llm.UserText("three", nil, 3),
		fromOther(llm.Content{Type: llm.ContentThinking, Thinking: "SECRET-OTHER-UNSIGNED"}, llm.Text("Answer three.")),
		llm.UserText("four", nil, 4),
		mine(llm.Content{Type: llm.ContentThinking, Thinking: "kept thinking", ThinkingSignature: signed}, llm.Text("Answer four.")),
		llm.UserText("five", nil, 5),
	}}
	body, err := json.Marshal(buildPayload(req))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "SECRET") {
		t.Fatalf("unsigned thinking leaked into the request: %s", body)
	}
	var p struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	last := p.Messages[7]
	var block struct{ Type, Thinking, Signature string }
	if err := json.Unmarshal(last.Content[0], &block); err != nil {
		t.Fatal(err)
	}
	if block.Type != "thinking" || block.Thinking != "kept thinking" || block.Signature != signed {
		t.Fatalf("signed thinking = %+v, want it byte-exact", block)
	}
	for i, want := range []string{"Answer one.", "Answer two.", "Answer three."} {
		msg := p.Messages[2*i+1]
		if len(msg.Content) != 1 || !strings.Contains(string(msg.Content[0]), want) {
			t.Errorf("assistant message %d = %s, want only its text", i, msg.Content)
		}
	}

	// A provider that accepts empty signatures gets its own unsigned thinking back as thinking.
	m.Compat = map[string]any{"allowEmptySignature": true}
	body, _ = json.Marshal(buildPayload(req))
	if !strings.Contains(string(body), `{"type":"thinking","thinking":"SECRET-UNSIGNED reasoning","signature":""}`) {
		t.Errorf("allowEmptySignature: %s", body)
	}
	if strings.Contains(string(body), `"text":"SECRET`) {
		t.Errorf("allowEmptySignature still replays thinking as text: %s", body)
	}
}
