package openai

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// Completions streams from the OpenAI Chat Completions API and the many servers that copy it
// (vLLM, llama.cpp, Ollama, OpenRouter…). The zero value is ready to use.
type Completions struct{}

// NewCompletions returns a Chat Completions ("openai-completions") provider.
func NewCompletions() *Completions { return &Completions{} }

var _ llm.Provider = (*Completions)(nil)

// init registers the openai-completions and openai-responses wire APIs (llm.RegisterAPI).
func init() {
	llm.RegisterAPI(llm.APIOpenAICompletions, func() llm.Provider { return NewCompletions() })
	llm.RegisterAPI(llm.APIOpenAIResponses, func() llm.Provider { return NewResponses() })
}

// Stream sends req to {baseUrl}/chat/completions (DefaultBaseURL when the model has none) and
// streams the answer into emit (llm.Provider).
//
// The body is the one pi sends: model, messages (a system or, for a reasoning model, developer
// message first), stream, stream_options.include_usage, store:false, max_completion_tokens, tools
// with strict:false, and the reasoning parameter of the model's thinkingFormat when thinking is on.
// Compat keys honoured: supportsDeveloperRole, supportsStore, supportsUsageInStreaming,
// maxTokensField, supportsStrictMode, supportsReasoningEffort, reasoningEffortMap, thinkingFormat
// (openai, openrouter, zai, qwen, qwen-chat-template), requiresToolResultName,
// requiresAssistantAfterToolResult.
//
// The response is complete at "data: [DONE]", or at the end of the body after a finish_reason
// (some servers omit [DONE]). Failures never return a Go error: an HTTP status of 400 or more
// gives StopReason error with "<status>: <server message>"; an error object in the stream or
// finish_reason content_filter gives StopReason error; a stream that ends before it is complete
// gives StopReason error with the content so far; a cancelled ctx gives StopReason aborted with
// the content so far.
func (p *Completions) Stream(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
	return stream(ctx, req, emit, "/chat/completions", func() any { return completionsPayload(req) },
		func(b *llm.Builder, m *llm.Model) eventStream {
			return &completionsStream{b: b, m: m, tools: map[int]*toolState{}}
		})
}

type chatPayload struct {
	Model               string          `json:"model"`
	Messages            []any           `json:"messages"`
	Stream              bool            `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	Store               *bool           `json:"store,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	Reasoning           *effortParam    `json:"reasoning,omitempty"`
	Thinking            *thinkingToggle `json:"thinking,omitempty"`
	EnableThinking      *bool           `json:"enable_thinking,omitempty"`
	ChatTemplateKwargs  map[string]any  `json:"chat_template_kwargs,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type effortParam struct {
	Effort string `json:"effort"`
}

type thinkingToggle struct {
	Type string `json:"type"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

type chatText struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatUser struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type imagePart struct {
	Type     string   `json:"type"`
	ImageURL imageURL `json:"image_url"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatAssistant struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	Reasoning        string         `json:"reasoning,omitempty"`
	ReasoningText    string         `json:"reasoning_text,omitempty"`
}

type chatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function chatCallFunction `json:"function"`
}

type chatCallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatToolResult struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name,omitempty"`
}

// chatParts makes the content parts of Chat Completions user messages.
var chatParts = partMaker{
	text:  func(s string) any { return &textPart{Type: "text", Text: s} },
	image: func(c llm.Content) any { return &imagePart{Type: "image_url", ImageURL: imageURL{URL: dataURL(c)}} },
}

// completionsPayload builds the Chat Completions request body of req.
func completionsPayload(req *llm.Request) *chatPayload {
	m := req.Model
	p := &chatPayload{Model: m.ID, Stream: true, Messages: chatMessages(req), Temperature: req.Temperature}
	if m.CompatBool("supportsUsageInStreaming", true) {
		p.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if m.CompatBool("supportsStore", true) {
		p.Store = new(bool)
	}
	if n := maxTokens(req); n > 0 {
		if m.CompatString("maxTokensField", "max_completion_tokens") == "max_tokens" {
			p.MaxTokens = n
		} else {
			p.MaxCompletionTokens = n
		}
	}
	for _, t := range req.Tools {
		fn := chatFunction{Name: t.Name, Description: t.Description, Parameters: t.Schema(), Strict: strictParam(m)}
		p.Tools = append(p.Tools, chatTool{Type: "function", Function: fn})
	}
	setThinking(p, m, llm.ClampThinkingLevel(m, req.ThinkingLevel))
	return p
}

// setThinking adds the reasoning parameter of the model's compat thinkingFormat. Formats with an
// on/off switch send it off too; the effort formats send nothing when thinking is off.
func setThinking(p *chatPayload, m *llm.Model, level string) {
	if !m.Reasoning {
		return
	}
	on := level != llm.ThinkingOff
	switch m.CompatString("thinkingFormat", "openai") {
	case "zai":
		t := &thinkingToggle{Type: "disabled"}
		if on {
			t.Type = "enabled"
		}
		p.Thinking = t
	case "qwen":
		p.EnableThinking = &on
	case "qwen-chat-template":
		p.ChatTemplateKwargs = map[string]any{"enable_thinking": on}
	case "openrouter":
		if on {
			p.Reasoning = &effortParam{Effort: reasoningEffort(m, level)}
		}
	default:
		if on && m.CompatBool("supportsReasoningEffort", true) {
			p.ReasoningEffort = reasoningEffort(m, level)
		}
	}
}

// chatMessages converts the system prompt and conversation to Chat Completions messages.
func chatMessages(req *llm.Request) []any {
	m := req.Model
	msgs := llm.RepairToolCalls(req.Messages)
	out := make([]any, 0, len(msgs)+1)
	if req.SystemPrompt != "" {
		out = append(out, &chatText{Role: systemRole(m), Content: req.SystemPrompt})
	}
	images := m.SupportsImages()
	afterAssistant := m.CompatBool("requiresAssistantAfterToolResult", false)
	withName := m.CompatBool("requiresToolResultName", false)
	lastRole := ""
	var toolImages []llm.Content // images of the current run of tool results
	flushImages := func() {
		if len(toolImages) == 0 {
			return
		}
		out = append(out, &chatUser{Role: "user", Content: chatParts.toolImages(toolImages)})
		toolImages = nil
		lastRole = "user"
	}
	for i := range msgs {
		msg := &msgs[i]
		if msg.Role != llm.RoleToolResult {
			flushImages()
		}
		switch msg.Role {
		case llm.RoleUser:
			if lastRole == "tool" && afterAssistant {
				out = append(out, &chatText{Role: "assistant", Content: "I have processed the tool results."})
			}
			if msg.ContentIsString {
				out = append(out, &chatText{Role: "user", Content: llm.TextOf(msg.Content, "")})
				lastRole = "user"
				continue
			}
			if parts := chatParts.user(msg.Content, images); len(parts) > 0 {
				out = append(out, &chatUser{Role: "user", Content: parts})
				lastRole = "user"
			}
		case llm.RoleAssistant:
			if a := chatAssistantMessage(m, msg); a != nil {
				out = append(out, a)
				lastRole = "assistant"
			}
		case llm.RoleToolResult:
			text, imgs := toolResult(msg, images)
			tr := &chatToolResult{Role: "tool", Content: text, ToolCallID: chatCallID(msg.ToolCallID)}
			if withName {
				tr.Name = msg.ToolName
			}
			out = append(out, tr)
			toolImages = append(toolImages, imgs...)
			lastRole = "tool"
		}
	}
	flushImages()
	return out
}

// chatAssistantMessage converts an assistant message; nil when nothing of it can be sent.
// Reasoning goes back only to the model that produced it, in the field it came in (recorded as
// the thinking signature); other models' reasoning is sent as text.
func chatAssistantMessage(m *llm.Model, msg *llm.Message) *chatAssistant {
	a := &chatAssistant{Role: "assistant"}
	var text, reasoning []string
	reasoningField := ""
	same := sameModel(m, msg)
	for _, c := range msg.Content {
		switch c.Type {
		case llm.ContentText:
			if c.Text != "" {
				text = append(text, c.Text)
			}
		case llm.ContentThinking:
			switch {
			case c.Redacted || strings.TrimSpace(c.Thinking) == "":
			case same:
				switch c.ThinkingSignature {
				case "reasoning_content", "reasoning", "reasoning_text":
					reasoningField = c.ThinkingSignature
					reasoning = append(reasoning, c.Thinking)
				}
			default:
				text = append(text, c.Thinking)
			}
		case llm.ContentToolCall:
			a.ToolCalls = append(a.ToolCalls, chatToolCall{
				ID: chatCallID(c.ID), Type: "function",
				Function: chatCallFunction{Name: c.Name, Arguments: argumentsJSON(c)},
			})
		}
	}
	if len(text) > 0 {
		s := strings.Join(text, "\n\n")
		a.Content = &s
	}
	if len(reasoning) > 0 {
		r := strings.Join(reasoning, "\n")
		switch reasoningField {
		case "reasoning_content":
			a.ReasoningContent = r
		case "reasoning":
			a.Reasoning = r
		case "reasoning_text":
			a.ReasoningText = r
		}
	}
	if a.Content == nil && len(a.ToolCalls) == 0 {
		return nil
	}
	return a
}

// chatCallID makes a stored tool call id acceptable to Chat Completions servers: the call id part
// of a Responses id, only [a-zA-Z0-9_-], at most 40 characters (OpenAI's limit).
func chatCallID(id string) string { return llm.SanitizeToolCallID(callID(id), 40) }
