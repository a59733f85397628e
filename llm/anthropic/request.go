package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// Thinking budgets in tokens per thinking level, for models with reasoning.
var thinkingBudgets = map[string]int{
	llm.ThinkingMinimal: 1024,
	llm.ThinkingLow:     2048,
	llm.ThinkingMedium:  8192,
	llm.ThinkingHigh:    16384,
	llm.ThinkingXHigh:   32000,
	llm.ThinkingMax:     64000,
}

const (
	defaultMaxTokens = 32000 // cap of the default max_tokens taken from the model
	minAnswerTokens  = 1024  // room left for the answer when a thinking budget must shrink
	minBudgetTokens  = 1024  // the smallest budget the API accepts
)

type payload struct {
	Model     string          `json:"model"`
	Messages  []message       `json:"messages"`
	System    []*textBlock    `json:"system,omitempty"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	Tools     []toolParam     `json:"tools,omitempty"`
	Thinking  *thinkingParams `json:"thinking,omitempty"`
	// Temperature is sent only without thinking.
	Temperature *float64 `json:"temperature,omitempty"`
	// Metadata carries the request's user_id (llm.Request.Metadata).
	Metadata *metadataParam `json:"metadata,omitempty"`
}

// metadataParam is the Messages API's request metadata.
type metadataParam struct {
	UserID string `json:"user_id"`
}

type message struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// cacheFor is the cache marker of req's cache retention: none for "none", a 1 h TTL for "long"
// when the model's compat supportsLongCacheRetention (default true), else the 5-minute default.
func cacheFor(req *llm.Request) *cacheControl {
	switch req.CacheRetention {
	case "none":
		return nil
	case "long":
		if req.Model.CompatBool("supportsLongCacheRetention", true) {
			return &cacheControl{Type: "ephemeral", TTL: "1h"}
		}
	}
	return ephemeral
}

type textBlock struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type imageBlock struct {
	Type         string        `json:"type"`
	Source       imageSource   `json:"source"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type toolUseBlock struct {
	Type  string         `json:"type"`
	ID    string         `json:"id"`
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

type toolResultBlock struct {
	Type         string        `json:"type"`
	ToolUseID    string        `json:"tool_use_id"`
	Content      any           `json:"content,omitempty"`
	IsError      bool          `json:"is_error"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type toolParam struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type thinkingParams struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// buildPayload converts req into the Messages API request body.
func buildPayload(req *llm.Request) *payload {
	m := req.Model
	p := &payload{Model: m.ID, Stream: true, Messages: convertMessages(m, req.Messages)}
	if req.SystemPrompt != "" {
		p.System = []*textBlock{{Type: "text", Text: req.SystemPrompt, CacheControl: cacheFor(req)}}
	}
	markCache(p.Messages, cacheFor(req))

	p.MaxTokens = req.MaxTokens
	if p.MaxTokens <= 0 {
		p.MaxTokens = min(m.MaxTokens, defaultMaxTokens)
		if p.MaxTokens <= 0 {
			p.MaxTokens = 4096
		}
	}
	if level := llm.ClampThinkingLevel(m, req.ThinkingLevel); level != llm.ThinkingOff {
		p.MaxTokens, p.Thinking = withThinking(p.MaxTokens, m.MaxTokens, thinkingBudgets[level])
	}

	if p.Thinking == nil {
		p.Temperature = req.Temperature
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, toolParam{Name: t.Name, Description: t.Description, InputSchema: t.Schema()})
	}
	if id, ok := req.Metadata["user_id"].(string); ok {
		p.Metadata = &metadataParam{UserID: id} // other members and types: not Anthropic's
	}
	return p
}

// withThinking grows maxTokens by the budget so the answer keeps its room, within the model's
// limit (0: unknown), and shrinks the budget when the limit leaves less than that. It returns nil
// thinking when no budget the API accepts fits.
func withThinking(maxTokens, modelMax, budget int) (int, *thinkingParams) {
	maxTokens += budget
	if modelMax > 0 && maxTokens > modelMax {
		maxTokens = modelMax
	}
	if maxTokens <= budget {
		budget = maxTokens - minAnswerTokens
	}
	if budget < minBudgetTokens {
		return maxTokens, nil
	}
	return maxTokens, &thinkingParams{Type: "enabled", BudgetTokens: budget}
}

// markCache puts a cache breakpoint on the last block of the last message when it is the user's,
// so the whole conversation so far is cached for the next turn.
func markCache(msgs []message, cc *cacheControl) {
	if len(msgs) == 0 || cc == nil {
		return
	}
	last := msgs[len(msgs)-1]
	if last.Role != "user" || len(last.Content) == 0 {
		return
	}
	switch b := last.Content[len(last.Content)-1].(type) {
	case *textBlock:
		b.CacheControl = cc
	case *imageBlock:
		b.CacheControl = cc
	case *toolResultBlock:
		b.CacheControl = cc
	}
}

// convertMessages turns the conversation into Messages API messages: tool results become
// tool_result blocks of a user message, consecutive ones merged into one message.
func convertMessages(m *llm.Model, msgs []llm.Message) []message {
	msgs = llm.RepairToolCalls(msgs)
	out := make([]message, 0, len(msgs))
	for i := range msgs {
		msg := &msgs[i]
		switch msg.Role {
		case llm.RoleUser:
			if content := contentBlocks(m, msg.Content); len(content) > 0 {
				out = append(out, message{Role: "user", Content: content})
			}
		case llm.RoleAssistant:
			if content := assistantContent(m, msg); len(content) > 0 {
				out = append(out, message{Role: "assistant", Content: content})
			}
		case llm.RoleToolResult:
			block := &toolResultBlock{
				Type:      "tool_result",
				ToolUseID: toolCallID(msg.ToolCallID),
				Content:   toolResultContent(m, msg.Content),
				IsError:   msg.IsError,
			}
			if n := len(out); n > 0 && out[n-1].Role == "user" && isToolResults(out[n-1].Content) {
				out[n-1].Content = append(out[n-1].Content, block)
			} else {
				out = append(out, message{Role: "user", Content: []any{block}})
			}
		}
	}
	return out
}

func isToolResults(content []any) bool {
	for _, c := range content {
		if _, ok := c.(*toolResultBlock); !ok {
			return false
		}
	}
	return true
}

const imageOmitted = "(image omitted: the model does not accept images)"

// contentBlocks converts the text and image blocks of a user message or a tool result. The API
// rejects blank text blocks, so they are dropped.
func contentBlocks(m *llm.Model, blocks []llm.Content) []any {
	var out []any
	for _, c := range blocks {
		switch c.Type {
		case llm.ContentText:
			if strings.TrimSpace(c.Text) != "" {
				out = append(out, &textBlock{Type: "text", Text: c.Text})
			}
		case llm.ContentImage:
			out = append(out, image(m, c))
		}
	}
	return out
}

func image(m *llm.Model, c llm.Content) any {
	if !m.SupportsImages() {
		return &textBlock{Type: "text", Text: imageOmitted}
	}
	return &imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: c.MimeType, Data: c.Data}}
}

// toolResultContent is a string when the result is text only, else text and image blocks;
// nil (no content) when it is empty.
func toolResultContent(m *llm.Model, blocks []llm.Content) any {
	textOnly := true
	for _, c := range blocks {
		if c.Type == llm.ContentImage {
			textOnly = false
		}
	}
	if textOnly {
		if s := llm.TextOf(blocks, "\n"); s != "" {
			return s
		}
		return nil
	}
	return contentBlocks(m, blocks)
}

// assistantContent converts an assistant message. Thinking is sent back as thinking, byte-exact,
// only to the model that signed it; signed thinking of another model becomes a text block and
// redacted thinking is dropped. Unsigned thinking (an empty signature, as Anthropic-compatible
// servers that do not sign send; pi#4464) is never replayed as text, which would leak the
// reasoning into the visible context: it is dropped, or, for a model whose compat sets
// allowEmptySignature, sent back to that same model as thinking with an empty signature.
func assistantContent(m *llm.Model, msg *llm.Message) []any {
	sameModel := msg.API == m.API && msg.Provider == m.Provider && msg.Model == m.ID
	var out []any
	for _, c := range msg.Content {
		switch c.Type {
		case llm.ContentText:
			if strings.TrimSpace(c.Text) != "" {
				out = append(out, &textBlock{Type: "text", Text: c.Text})
			}
		case llm.ContentThinking:
			switch {
			case c.Redacted:
				if sameModel && c.ThinkingSignature != "" {
					out = append(out, &redactedThinkingBlock{Type: "redacted_thinking", Data: c.ThinkingSignature})
				}
			case strings.TrimSpace(c.ThinkingSignature) == "":
				if sameModel && m.CompatBool("allowEmptySignature", false) && c.Thinking != "" {
					out = append(out, &thinkingBlock{Type: "thinking", Thinking: c.Thinking, Signature: ""})
				}
			case sameModel:
				out = append(out, &thinkingBlock{Type: "thinking", Thinking: c.Thinking, Signature: c.ThinkingSignature})
			case strings.TrimSpace(c.Thinking) != "":
				out = append(out, &textBlock{Type: "text", Text: c.Thinking})
			}
		case llm.ContentToolCall:
			input := c.Arguments
			if input == nil {
				input = map[string]any{}
			}
			out = append(out, &toolUseBlock{Type: "tool_use", ID: toolCallID(c.ID), Name: c.Name, Input: input})
		}
	}
	return out
}

// toolCallID makes an id of another provider acceptable to Anthropic, which allows only
// [a-zA-Z0-9_-] and 64 characters.
func toolCallID(id string) string { return llm.SanitizeToolCallID(id, 64) }
