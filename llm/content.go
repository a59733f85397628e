package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Content block types (session-format.md §8).
const (
	ContentText     = "text"
	ContentImage    = "image"
	ContentThinking = "thinking"
	ContentToolCall = "toolCall"
)

// Content is one content block of a message. Type selects which fields are meaningful:
//
//	text:     Text, TextSignature
//	image:    Data (base64), MimeType
//	thinking: Thinking, ThinkingSignature, Redacted
//	toolCall: ID, Name, Arguments, ThoughtSignature (ArgumentsError: not serialised)
//
// MarshalJSON writes only the fields of its Type, in pi's field order, so "text":"" is kept for an
// empty text block while unrelated fields never appear.
type Content struct {
	Type string

	Text          string
	TextSignature string

	Data     string
	MimeType string

	Thinking          string
	ThinkingSignature string
	Redacted          bool

	ID               string
	Name             string
	Arguments        map[string]any
	ThoughtSignature string

	// ArgumentsError, set by Builder.End, says why the streamed arguments of a tool call could not
	// be parsed as a JSON object. It is never serialised.
	ArgumentsError string
}

// Text returns a text block.
func Text(s string) Content { return Content{Type: ContentText, Text: s} }

// Image returns an image block from base64 data and its MIME type (image/png, image/jpeg, ...).
func Image(base64Data, mimeType string) Content {
	return Content{Type: ContentImage, Data: base64Data, MimeType: mimeType}
}

// MarshalJSON implements json.Marshaler.
func (c Content) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("type", c.Type)
	switch c.Type {
	case ContentText:
		w.str("text", c.Text)
		w.strOpt("textSignature", c.TextSignature)
	case ContentImage:
		w.str("data", c.Data)
		w.str("mimeType", c.MimeType)
	case ContentThinking:
		w.str("thinking", c.Thinking)
		w.strOpt("thinkingSignature", c.ThinkingSignature)
		if c.Redacted {
			w.raw("redacted", []byte("true"))
		}
	case ContentToolCall:
		w.str("id", c.ID)
		w.str("name", c.Name)
		args := c.Arguments
		if args == nil {
			args = map[string]any{}
		}
		if err := w.value("arguments", args); err != nil {
			return nil, err
		}
		w.strOpt("thoughtSignature", c.ThoughtSignature)
	}
	return w.close(), w.err
}

// UnmarshalJSON implements json.Unmarshaler. Unknown block types keep their type and are otherwise
// empty; unknown fields are ignored.
func (c *Content) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type              string         `json:"type"`
		Text              string         `json:"text"`
		TextSignature     string         `json:"textSignature"`
		Data              string         `json:"data"`
		MimeType          string         `json:"mimeType"`
		Thinking          string         `json:"thinking"`
		ThinkingSignature string         `json:"thinkingSignature"`
		Redacted          bool           `json:"redacted"`
		ID                string         `json:"id"`
		Name              string         `json:"name"`
		Arguments         map[string]any `json:"arguments"`
		ThoughtSignature  string         `json:"thoughtSignature"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("llm: content block: %w", err)
	}
	*c = Content{
		Type: raw.Type, Text: raw.Text, TextSignature: raw.TextSignature,
		Data: raw.Data, MimeType: raw.MimeType,
		Thinking: raw.Thinking, ThinkingSignature: raw.ThinkingSignature, Redacted: raw.Redacted,
		ID: raw.ID, Name: raw.Name, Arguments: raw.Arguments, ThoughtSignature: raw.ThoughtSignature,
	}
	return nil
}

// Clone returns a deep copy of the block (tool-call arguments included).
func (c Content) Clone() Content {
	if c.Arguments != nil {
		c.Arguments = cloneMap(c.Arguments)
	}
	return c
}

// TextOf joins the text of every text block in blocks, separated by sep.
func TextOf(blocks []Content, sep string) string {
	var b bytes.Buffer
	n := 0
	for _, c := range blocks {
		if c.Type != ContentText {
			continue
		}
		if n > 0 {
			b.WriteString(sep)
		}
		b.WriteString(c.Text)
		n++
	}
	return b.String()
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneAny(v)
	}
	return out
}

func cloneAny(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return cloneMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneAny(e)
		}
		return out
	case json.RawMessage:
		return append(json.RawMessage(nil), t...)
	default:
		return v
	}
}

// CloneValue deep-copies a JSON-shaped value (maps, slices, scalars, json.RawMessage). Other values
// are returned as they are.
func CloneValue(v any) any { return cloneAny(v) }
