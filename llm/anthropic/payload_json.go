package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/atomic-cli/atomic/llm"
)

// AppendRequestBody appends the request body to dst (sse.BodyAppender): the bytes encoding/json
// writes for p without HTML escaping (sse.Marshal's form), built without reflection and sized
// once, so a long conversation is encoded without regrowing a buffer of its own size. A tool's input schema is compacted as
// encoding/json compacts a json.RawMessage; it fails, as encoding/json does, on a schema that is
// not valid JSON or a tool call argument that cannot be encoded.
func (p *payload) AppendRequestBody(dst []byte) ([]byte, error) {
	if n := p.sizeHint(); cap(dst)-len(dst) < n {
		dst = append(make([]byte, 0, len(dst)+n), dst...)
	}
	var err error
	dst = append(dst, `{"model":`...)
	dst = appendString(dst, p.Model)
	dst = append(dst, `,"messages":`...)
	if p.Messages == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range p.Messages {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = p.Messages[i].appendJSON(dst); err != nil {
				return nil, err
			}
		}
		dst = append(dst, ']')
	}
	if len(p.System) > 0 {
		dst = append(dst, `,"system":[`...)
		for i, b := range p.System {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = b.appendJSON(dst)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(p.MaxTokens), 10)
	dst = append(dst, `,"stream":`...)
	dst = strconv.AppendBool(dst, p.Stream)
	if len(p.Tools) > 0 {
		dst = append(dst, `,"tools":[`...)
		for i := range p.Tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			t := &p.Tools[i]
			dst = append(dst, `{"name":`...)
			dst = appendString(dst, t.Name)
			dst = append(dst, `,"description":`...)
			dst = appendString(dst, t.Description)
			dst = append(dst, `,"input_schema":`...)
			if t.InputSchema == nil {
				dst = append(dst, "null"...)
			} else {
				var buf bytes.Buffer
				if err := json.Compact(&buf, t.InputSchema); err != nil {
					return nil, fmt.Errorf("anthropic: tool %s: input schema: %w", t.Name, err)
				}
				dst = append(dst, buf.Bytes()...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if p.Thinking != nil {
		dst = append(dst, `,"thinking":{"type":`...)
		dst = appendString(dst, p.Thinking.Type)
		dst = append(dst, `,"budget_tokens":`...)
		dst = strconv.AppendInt(dst, int64(p.Thinking.BudgetTokens), 10)
		dst = append(dst, '}')
	}
	if p.Temperature != nil {
		t, err := marshalValue(*p.Temperature)
		if err != nil {
			return nil, fmt.Errorf("anthropic: temperature: %w", err)
		}
		dst = append(dst, `,"temperature":`...)
		dst = append(dst, t...)
	}
	if p.Metadata != nil {
		dst = append(dst, `,"metadata":{"user_id":`...)
		dst = appendString(dst, p.Metadata.UserID)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// sizeHint estimates the encoded size of p from its texts (escapes and images make it grow).
func (p *payload) sizeHint() int {
	n := 256 + len(p.Model)
	for _, b := range p.System {
		n += len(b.Text) + 64
	}
	for i := range p.Messages {
		n += 32
		for _, c := range p.Messages[i].Content {
			n += 40
			switch b := c.(type) {
			case *textBlock:
				n += len(b.Text)
			case *thinkingBlock:
				n += len(b.Thinking) + len(b.Signature)
			case *imageBlock:
				n += len(b.Source.Data) + 64
			case *toolResultBlock:
				if s, ok := b.Content.(string); ok {
					n += len(s) + 64
				}
			}
		}
	}
	for i := range p.Tools {
		n += len(p.Tools[i].Description) + len(p.Tools[i].InputSchema) + 64
	}
	return n
}

func (m *message) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"role":`...)
	dst = appendString(dst, m.Role)
	dst = append(dst, `,"content":`...)
	dst, err := appendBlocks(dst, m.Content)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendBlocks writes a []any of block pointers; nil is null, as encoding/json writes it.
func appendBlocks(dst []byte, blocks []any) ([]byte, error) {
	if blocks == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	var err error
	for i, c := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendBlock(dst, c); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

func appendBlock(dst []byte, c any) ([]byte, error) {
	switch b := c.(type) {
	case *textBlock:
		return b.appendJSON(dst), nil
	case *imageBlock:
		dst = append(dst, `{"type":`...)
		dst = appendString(dst, b.Type)
		dst = append(dst, `,"source":{"type":`...)
		dst = appendString(dst, b.Source.Type)
		dst = append(dst, `,"media_type":`...)
		dst = appendString(dst, b.Source.MediaType)
		dst = append(dst, `,"data":`...)
		dst = appendString(dst, b.Source.Data)
		dst = append(dst, '}')
		dst = appendCache(dst, b.CacheControl)
		return append(dst, '}'), nil
	case *thinkingBlock:
		dst = append(dst, `{"type":`...)
		dst = appendString(dst, b.Type)
		dst = append(dst, `,"thinking":`...)
		dst = appendString(dst, b.Thinking)
		dst = append(dst, `,"signature":`...)
		dst = appendString(dst, b.Signature)
		return append(dst, '}'), nil
	case *redactedThinkingBlock:
		dst = append(dst, `{"type":`...)
		dst = appendString(dst, b.Type)
		dst = append(dst, `,"data":`...)
		dst = appendString(dst, b.Data)
		return append(dst, '}'), nil
	case *toolUseBlock:
		dst = append(dst, `{"type":`...)
		dst = appendString(dst, b.Type)
		dst = append(dst, `,"id":`...)
		dst = appendString(dst, b.ID)
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, b.Name)
		dst = append(dst, `,"input":`...)
		in, err := marshalValue(b.Input)
		if err != nil {
			return nil, fmt.Errorf("anthropic: tool call %s input: %w", b.ID, err)
		}
		dst = append(dst, in...)
		return append(dst, '}'), nil
	case *toolResultBlock:
		dst = append(dst, `{"type":`...)
		dst = appendString(dst, b.Type)
		dst = append(dst, `,"tool_use_id":`...)
		dst = appendString(dst, b.ToolUseID)
		switch content := b.Content.(type) {
		case nil:
		case string:
			dst = append(dst, `,"content":`...)
			dst = appendString(dst, content)
		case []any:
			dst = append(dst, `,"content":`...)
			var err error
			if dst, err = appendBlocks(dst, content); err != nil {
				return nil, err
			}
		default:
			v, err := marshalValue(content)
			if err != nil {
				return nil, err
			}
			dst = append(dst, `,"content":`...)
			dst = append(dst, v...)
		}
		dst = append(dst, `,"is_error":`...)
		dst = strconv.AppendBool(dst, b.IsError)
		dst = appendCache(dst, b.CacheControl)
		return append(dst, '}'), nil
	}
	v, err := marshalValue(c)
	if err != nil {
		return nil, err
	}
	return append(dst, v...), nil
}

func (b *textBlock) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, b.Type)
	dst = append(dst, `,"text":`...)
	dst = appendString(dst, b.Text)
	dst = appendCache(dst, b.CacheControl)
	return append(dst, '}')
}

func appendCache(dst []byte, c *cacheControl) []byte {
	if c == nil {
		return dst
	}
	dst = append(dst, `,"cache_control":{"type":`...)
	dst = appendString(dst, c.Type)
	if c.TTL != "" {
		dst = append(dst, `,"ttl":`...)
		dst = appendString(dst, c.TTL)
	}
	return append(dst, '}')
}

// marshalValue encodes v as encoding/json does without HTML escaping (maps with sorted keys).
func marshalValue(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// appendString writes s as encoding/json writes a string without HTML escaping
// (llm.AppendGoJSONString).
func appendString(dst []byte, s string) []byte { return llm.AppendGoJSONString(dst, s) }
