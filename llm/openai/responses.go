package openai

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// Responses streams from the OpenAI Responses API. The zero value is ready to use.
type Responses struct{}

// NewResponses returns a Responses ("openai-responses") provider.
func NewResponses() *Responses { return &Responses{} }

var _ llm.Provider = (*Responses)(nil)

// Stream sends req to {baseUrl}/responses (DefaultBaseURL when the model has none) and streams
// the answer into emit (llm.Provider).
//
// The body holds model, input (the system prompt as a system or, for a reasoning model, developer
// message first, then the conversation as message, function_call, function_call_output and
// reasoning items), stream, store:false, prompt_cache_key (req.SessionID), max_output_tokens,
// tools with strict:false, and reasoning {effort, summary:"auto"} with
// include ["reasoning.encrypted_content"] when thinking is on.
//
// Stored ids follow pi: a tool call id is "<call_id>|<item id>"; a text block's signature is its
// message item id; a thinking block's signature is its whole reasoning item as JSON, sent back
// (with the item ids) only to the model that produced it.
//
// Failures never return a Go error: an HTTP status of 400 or more gives StopReason error with
// "<status>: <server message>"; response.failed and error events give StopReason error; a stream
// that ends before response.completed (or response.incomplete) gives StopReason error with the
// content so far; a cancelled ctx gives StopReason aborted with the content so far.
func (p *Responses) Stream(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
	return stream(ctx, req, emit, "/responses", func() any { return responsesPayload(req) },
		func(b *llm.Builder, m *llm.Model) eventStream {
			return &responsesStream{b: b, m: m, items: map[int]*itemState{}}
		})
}

type respPayload struct {
	Model          string `json:"model"`
	Input          []any  `json:"input"`
	Stream         bool   `json:"stream"`
	Store          bool   `json:"store"`
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
	// PromptCacheRetention is "24h" for cache retention "long" (when the model's compat
	// supportsLongCacheRetention, default true).
	PromptCacheRetention string         `json:"prompt_cache_retention,omitempty"`
	MaxOutputTokens      int            `json:"max_output_tokens,omitempty"`
	Temperature          *float64       `json:"temperature,omitempty"`
	Tools                []respTool     `json:"tools,omitempty"`
	Reasoning            *respReasoning `json:"reasoning,omitempty"`
	Include              []string       `json:"include,omitempty"`
}

type respTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

type respReasoning struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

type respText struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type respUser struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type inputText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type inputImage struct {
	Type     string `json:"type"`
	Detail   string `json:"detail"`
	ImageURL string `json:"image_url"`
}

type outputMessage struct {
	Type    string       `json:"type"`
	Role    string       `json:"role"`
	Content []outputText `json:"content"`
	Status  string       `json:"status"`
	ID      string       `json:"id"`
}

type outputText struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type functionCall struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// inputParts makes the content parts of Responses user messages.
var inputParts = partMaker{
	text:  func(s string) any { return &inputText{Type: "input_text", Text: s} },
	image: func(c llm.Content) any { return &inputImage{Type: "input_image", Detail: "auto", ImageURL: dataURL(c)} },
}

// responsesPayload builds the Responses request body of req.
func responsesPayload(req *llm.Request) *respPayload {
	m := req.Model
	p := &respPayload{Model: m.ID, Stream: true, Input: responsesInput(req), PromptCacheKey: req.SessionID, Temperature: req.Temperature}
	switch req.CacheRetention {
	case "none":
		p.PromptCacheKey = ""
	case "long":
		if m.CompatBool("supportsLongCacheRetention", true) {
			p.PromptCacheRetention = "24h"
		}
	}
	p.MaxOutputTokens = maxTokens(req)
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, respTool{
			Type: "function", Name: t.Name, Description: t.Description, Parameters: t.Schema(), Strict: strictParam(m),
		})
	}
	if level := llm.ClampThinkingLevel(m, req.ThinkingLevel); level != llm.ThinkingOff {
		p.Reasoning = &respReasoning{Effort: reasoningEffort(m, level), Summary: "auto"}
		p.Include = []string{"reasoning.encrypted_content"}
	}
	return p
}

// responsesInput converts the system prompt and conversation to input items.
func responsesInput(req *llm.Request) []any {
	m := req.Model
	msgs := llm.RepairToolCalls(req.Messages)
	out := make([]any, 0, len(msgs)+1)
	if req.SystemPrompt != "" {
		out = append(out, &respText{Role: systemRole(m), Content: req.SystemPrompt})
	}
	images := m.SupportsImages()
	var toolImages []llm.Content
	flushImages := func() {
		if len(toolImages) == 0 {
			return
		}
		out = append(out, &respUser{Role: "user", Content: inputParts.toolImages(toolImages)})
		toolImages = nil
	}
	for i := range msgs {
		msg := &msgs[i]
		if msg.Role != llm.RoleToolResult {
			flushImages()
		}
		switch msg.Role {
		case llm.RoleUser:
			if parts := inputParts.user(msg.Content, images); len(parts) > 0 {
				out = append(out, &respUser{Role: "user", Content: parts})
			}
		case llm.RoleAssistant:
			out = appendAssistantItems(out, m, msg)
		case llm.RoleToolResult:
			text, imgs := toolResult(msg, images)
			out = append(out, &functionCallOutput{Type: "function_call_output", CallID: callID(msg.ToolCallID), Output: text})
			toolImages = append(toolImages, imgs...)
		}
	}
	flushImages()
	return out
}

// appendAssistantItems converts an assistant message into output items. Reasoning items and item
// ids go back only to the model that produced them, and ids only alongside their reasoning item:
// the API rejects an item id whose reasoning is missing. Other models' reasoning is sent as text.
func appendAssistantItems(out []any, m *llm.Model, msg *llm.Message) []any {
	same := sameModel(m, msg)
	var reasoning []json.RawMessage
	if same {
		for _, c := range msg.Content {
			if c.Type == llm.ContentThinking && isReasoningItem(c.ThinkingSignature) {
				reasoning = append(reasoning, json.RawMessage(c.ThinkingSignature))
			}
		}
	}
	withIDs := len(reasoning) > 0
	for _, c := range msg.Content {
		switch c.Type {
		case llm.ContentThinking:
			switch {
			case withIDs && isReasoningItem(c.ThinkingSignature):
				out = append(out, json.RawMessage(c.ThinkingSignature))
			case !same && !c.Redacted && strings.TrimSpace(c.Thinking) != "":
				out = append(out, &respText{Role: "assistant", Content: c.Thinking})
			}
		case llm.ContentText:
			if c.Text == "" {
				continue
			}
			if withIDs && strings.HasPrefix(c.TextSignature, "msg_") {
				out = append(out, &outputMessage{
					Type: "message", Role: "assistant", Status: "completed", ID: c.TextSignature,
					Content: []outputText{{Type: "output_text", Text: c.Text, Annotations: []any{}}},
				})
			} else {
				out = append(out, &respText{Role: "assistant", Content: c.Text})
			}
		case llm.ContentToolCall:
			fc := &functionCall{Type: "function_call", CallID: callID(c.ID), Name: c.Name, Arguments: argumentsJSON(c)}
			if withIDs {
				if _, item, ok := strings.Cut(c.ID, "|"); ok && strings.HasPrefix(item, "fc_") {
					fc.ID = item
				}
			}
			out = append(out, fc)
		}
	}
	return out
}

// isReasoningItem reports whether a thinking signature holds a Responses reasoning item.
func isReasoningItem(sig string) bool {
	if !strings.HasPrefix(sig, "{") {
		return false
	}
	var item struct {
		Type string `json:"type"`
	}
	return json.Unmarshal([]byte(sig), &item) == nil && item.Type == "reasoning"
}
