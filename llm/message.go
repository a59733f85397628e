package llm

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Message roles (session-format.md §8). User, Assistant and ToolResult are sent to providers as they
// are; the others are converted to user messages first (session-format.md §7.1).
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
)

// StopReason says why an assistant message ended.
type StopReason string

// Stop reasons of an assistant message (session-format.md §8).
const (
	StopStop    StopReason = "stop"
	StopLength  StopReason = "length"
	StopToolUse StopReason = "toolUse"
	StopError   StopReason = "error"
	StopAborted StopReason = "aborted"
)

// Message is one AgentMessage of any role. Role selects which fields are meaningful:
//
//	user:              Content (ContentIsString: written as a plain string), Timestamp
//	assistant:         Content, API, Provider, Model, Usage, StopReason, ErrorMessage, ResponseID, Timestamp
//	toolResult:        ToolCallID, ToolName, Content, Details, IsError, Timestamp
//	bashExecution:     Command, Output, ExitCode, Cancelled, Truncated, FullOutputPath, ExcludeFromContext, Timestamp
//	custom:            CustomType, Content (ContentIsString), Display, Details, ExcludeFromContext, Timestamp
//	branchSummary:     Summary, FromID, Timestamp
//	compactionSummary: Summary, TokensBefore, Timestamp
//
// Timestamp is Unix milliseconds. Fields this type does not know (other implementations add some)
// are kept in Extra and written back after the known ones, so a message survives a load/save round
// trip unchanged in meaning.
type Message struct {
	Role      string
	Content   []Content
	Timestamp int64

	API          string
	Provider     string
	Model        string
	Usage        Usage
	StopReason   StopReason
	ErrorMessage string
	ResponseID   string

	ToolCallID string
	ToolName   string
	Details    any

	Command        string
	Output         string
	ExitCode       *int
	FullOutputPath string

	CustomType string

	Summary      string
	FromID       string
	TokensBefore int64

	// The flags come last, packed into one word (a resumed long session holds one Message per
	// entry in its context): each belongs to the role group above that names it.
	ContentIsString    bool
	IsError            bool
	Cancelled          bool
	Truncated          bool
	ExcludeFromContext bool
	Display            bool

	Extra map[string]json.RawMessage
}

// MarshalJSON writes the message with pi's field order for its role.
func (m Message) MarshalJSON() ([]byte, error) {
	return m.AppendJSON(nil)
}

// AppendJSON appends the JSON encoding of m to dst.
func (m *Message) AppendJSON(dst []byte) ([]byte, error) {
	w := objWriter{buf: dst}
	w.str("role", m.Role)
	switch m.Role {
	case RoleUser:
		m.writeContent(&w)
		w.int("timestamp", m.Timestamp)
	case RoleAssistant:
		m.writeContent(&w)
		w.str("api", m.API)
		w.str("provider", m.Provider)
		w.str("model", m.Model)
		w.value("usage", m.Usage)
		w.str("stopReason", string(m.StopReason))
		w.strOpt("errorMessage", m.ErrorMessage)
		w.int("timestamp", m.Timestamp)
		w.strOpt("responseId", m.ResponseID)
	case RoleToolResult:
		w.str("toolCallId", m.ToolCallID)
		w.str("toolName", m.ToolName)
		m.writeContent(&w)
		if m.Details != nil {
			w.value("details", m.Details)
		}
		w.bool("isError", m.IsError)
		w.int("timestamp", m.Timestamp)
	case RoleBashExecution:
		w.str("command", m.Command)
		w.str("output", m.Output)
		if m.ExitCode != nil {
			w.int("exitCode", int64(*m.ExitCode))
		}
		w.bool("cancelled", m.Cancelled)
		w.bool("truncated", m.Truncated)
		w.strOpt("fullOutputPath", m.FullOutputPath)
		if m.ExcludeFromContext {
			w.bool("excludeFromContext", true)
		}
		w.int("timestamp", m.Timestamp)
	case RoleCustom:
		w.str("customType", m.CustomType)
		m.writeContent(&w)
		w.bool("display", m.Display)
		if m.Details != nil {
			w.value("details", m.Details)
		}
		if m.ExcludeFromContext {
			w.bool("excludeFromContext", true)
		}
		w.int("timestamp", m.Timestamp)
	case RoleBranchSummary:
		w.str("summary", m.Summary)
		w.str("fromId", m.FromID)
		w.int("timestamp", m.Timestamp)
	case RoleCompactionSummary:
		w.str("summary", m.Summary)
		w.int("tokensBefore", m.TokensBefore)
		w.int("timestamp", m.Timestamp)
	default:
		if len(m.Content) > 0 || m.ContentIsString {
			m.writeContent(&w)
		}
		w.int("timestamp", m.Timestamp)
	}
	if len(m.Extra) > 0 {
		keys := make([]string, 0, len(m.Extra))
		for k := range m.Extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			w.raw(k, m.Extra[k])
		}
	}
	return w.close(), w.err
}

func (m *Message) writeContent(w *objWriter) {
	if m.ContentIsString {
		w.str("content", TextOf(m.Content, ""))
		return
	}
	if len(m.Content) == 0 {
		w.raw("content", []byte("[]"))
		return
	}
	w.key("content")
	w.buf = append(w.buf, '[')
	for i := range m.Content {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		b, err := m.Content[i].MarshalJSON()
		if err != nil && w.err == nil {
			w.err = err
		}
		w.buf = append(w.buf, b...)
	}
	w.buf = append(w.buf, ']')
}

var knownMessageFields = map[string]bool{
	"role": true, "content": true, "timestamp": true, "api": true, "provider": true, "model": true,
	"usage": true, "stopReason": true, "errorMessage": true, "responseId": true, "toolCallId": true,
	"toolName": true, "details": true, "isError": true, "command": true, "output": true,
	"exitCode": true, "cancelled": true, "truncated": true, "fullOutputPath": true,
	"excludeFromContext": true, "customType": true, "display": true, "summary": true, "fromId": true,
	"tokensBefore": true,
}

// UnmarshalJSON reads a message of any role. A string content becomes one text block with
// ContentIsString set; the legacy role "hookMessage" is read as "custom" (session-format.md §9).
func (m *Message) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return fmt.Errorf("llm: message: %w", err)
	}
	*m = Message{}
	var err error
	get := func(k string, dst any) {
		if v, ok := fields[k]; ok && err == nil && string(v) != "null" {
			if e := json.Unmarshal(v, dst); e != nil {
				err = fmt.Errorf("llm: message field %q: %w", k, e)
			}
		}
	}
	get("role", &m.Role)
	if m.Role == "hookMessage" {
		m.Role = RoleCustom
	}
	if raw, ok := fields["content"]; ok && len(raw) > 0 && raw[0] == '"' {
		var s string
		get("content", &s)
		m.Content = []Content{Text(s)}
		m.ContentIsString = true
	} else {
		get("content", &m.Content)
	}
	var ts float64
	get("timestamp", &ts)
	m.Timestamp = int64(ts)
	get("api", &m.API)
	get("provider", &m.Provider)
	get("model", &m.Model)
	get("usage", &m.Usage)
	var sr string
	get("stopReason", &sr)
	m.StopReason = StopReason(sr)
	get("errorMessage", &m.ErrorMessage)
	get("responseId", &m.ResponseID)
	get("toolCallId", &m.ToolCallID)
	get("toolName", &m.ToolName)
	if v, ok := fields["details"]; ok {
		m.Details = v
	}
	get("isError", &m.IsError)
	get("command", &m.Command)
	get("output", &m.Output)
	if v, ok := fields["exitCode"]; ok && string(v) != "null" {
		var f float64
		get("exitCode", &f)
		code := int(f)
		m.ExitCode = &code
	}
	get("cancelled", &m.Cancelled)
	get("truncated", &m.Truncated)
	get("fullOutputPath", &m.FullOutputPath)
	get("excludeFromContext", &m.ExcludeFromContext)
	get("customType", &m.CustomType)
	get("display", &m.Display)
	get("summary", &m.Summary)
	get("fromId", &m.FromID)
	var tb float64
	get("tokensBefore", &tb)
	m.TokensBefore = int64(tb)
	for k, v := range fields {
		if !knownMessageFields[k] {
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[k] = v
		}
	}
	return err
}

// Clone returns a deep copy of m: content blocks, tool-call arguments, details and Extra.
func (m *Message) Clone() Message {
	c := *m
	if m.Content != nil {
		c.Content = make([]Content, len(m.Content))
		for i := range m.Content {
			c.Content[i] = m.Content[i].Clone()
		}
	}
	c.Details = cloneAny(m.Details)
	if m.ExitCode != nil {
		code := *m.ExitCode
		c.ExitCode = &code
	}
	if m.Extra != nil {
		c.Extra = make(map[string]json.RawMessage, len(m.Extra))
		for k, v := range m.Extra {
			c.Extra[k] = append(json.RawMessage(nil), v...)
		}
	}
	return c
}

// ToolCalls returns the toolCall blocks of an assistant message in source order.
func (m *Message) ToolCalls() []Content {
	var out []Content
	for _, c := range m.Content {
		if c.Type == ContentToolCall {
			out = append(out, c)
		}
	}
	return out
}

// UserText returns a user message with one text block and the given images.
func UserText(text string, images []Content, timestampMs int64) Message {
	content := make([]Content, 0, 1+len(images))
	content = append(content, Text(text))
	content = append(content, images...)
	return Message{Role: RoleUser, Content: content, Timestamp: timestampMs}
}

// Usage is the token usage of one assistant message and its cost in US dollars.
// Token counts are tokens; costs are dollars computed from the model's per-million rates.
type Usage struct {
	Input       int64 `json:"input"`
	Output      int64 `json:"output"`
	CacheRead   int64 `json:"cacheRead"`
	CacheWrite  int64 `json:"cacheWrite"`
	TotalTokens int64 `json:"totalTokens"`
	Cost        Cost  `json:"cost"`
}

// Cost is a cost breakdown in US dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// ComputeCost fills u.Cost from the model's rates (dollars per million tokens) and sets TotalTokens
// when the provider did not.
func (u *Usage) ComputeCost(rates ModelCost) {
	if u.TotalTokens == 0 {
		u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	}
	u.Cost.Input = float64(u.Input) * rates.Input / 1e6
	u.Cost.Output = float64(u.Output) * rates.Output / 1e6
	u.Cost.CacheRead = float64(u.CacheRead) * rates.CacheRead / 1e6
	u.Cost.CacheWrite = float64(u.CacheWrite) * rates.CacheWrite / 1e6
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
}
