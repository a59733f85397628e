package store

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/atomic-cli/atomic/llm"
)

// decodeMessageFast decodes a raw AgentMessage into exactly the llm.Message that
// llm.Message.UnmarshalJSON would produce, without its per-message map and per-field
// json.Unmarshal calls. It reports false whenever the input leaves the common shape (escaped keys,
// unexpected JSON types, invalid UTF-8, keys that differ from a known one only in case, ...); the
// caller then uses llm's decoder, which also produces the error for bad input.
func decodeMessageFast(raw []byte) (*llm.Message, bool) {
	m := new(llm.Message)
	if !decodeMessageInto(m, raw) {
		return nil, false
	}
	return m, true
}

// decodeMessageInto is decodeMessageFast into *m (a zero Message); on false *m is partly set.
func decodeMessageInto(m *llm.Message, raw []byte) bool {
	var buf [32]field
	fields, ok := parseObject(raw, buf[:0])
	if !ok {
		return false
	}
	for i := range fields {
		f := &fields[i]
		if f.esc {
			return false
		}
		v := f.val
		k := string(f.key) // compared only: no allocation
		if k == "details" {
			m.Details = json.RawMessage(v)
			continue
		}
		if k == "exitCode" && !isNull(v) {
			n, ok := number(v)
			if !ok {
				return false
			}
			code := int(n)
			m.ExitCode = &code
			continue
		}
		if isNull(v) {
			if !knownMessageField(k) {
				m.Extra = setExtra(m.Extra, f)
			}
			continue
		}
		ok := true
		switch k {
		case "role":
			m.Role, ok = sym(v)
			if m.Role == "hookMessage" {
				m.Role = llm.RoleCustom
			}
		case "content":
			if v[0] == '"' {
				var s string
				s, ok = strShared(v)
				m.Content = []llm.Content{llm.Text(s)}
				m.ContentIsString = true
			} else {
				m.Content, ok = contentBlocks(v)
			}
		case "timestamp":
			var n float64
			n, ok = number(v)
			m.Timestamp = int64(n)
		case "api":
			m.API, ok = sym(v)
		case "provider":
			m.Provider, ok = str(v)
		case "model":
			m.Model, ok = str(v)
		case "usage":
			ok = usageFast(v, &m.Usage)
		case "stopReason":
			var s string
			s, ok = sym(v)
			m.StopReason = llm.StopReason(s)
		case "errorMessage":
			m.ErrorMessage, ok = str(v)
		case "responseId":
			m.ResponseID, ok = str(v)
		case "toolCallId":
			m.ToolCallID, ok = str(v)
		case "toolName":
			m.ToolName, ok = sym(v)
		case "isError":
			m.IsError, ok = rawBool(v)
		case "command":
			m.Command, ok = str(v)
		case "output":
			m.Output, ok = strShared(v)
		case "cancelled":
			m.Cancelled, ok = rawBool(v)
		case "truncated":
			m.Truncated, ok = rawBool(v)
		case "fullOutputPath":
			m.FullOutputPath, ok = str(v)
		case "excludeFromContext":
			m.ExcludeFromContext, ok = rawBool(v)
		case "customType":
			m.CustomType, ok = str(v)
		case "display":
			m.Display, ok = rawBool(v)
		case "summary":
			m.Summary, ok = strShared(v)
		case "fromId":
			m.FromID, ok = str(v)
		case "tokensBefore":
			var n float64
			n, ok = number(v)
			m.TokensBefore = int64(n)
		default:
			m.Extra = setExtra(m.Extra, f)
		}
		if !ok {
			return false
		}
	}
	return true
}

func knownMessageField(k string) bool {
	switch k {
	case "role", "content", "timestamp", "api", "provider", "model", "usage", "stopReason", "errorMessage",
		"responseId", "toolCallId", "toolName", "details", "isError", "command", "output", "exitCode",
		"cancelled", "truncated", "fullOutputPath", "excludeFromContext", "customType", "display",
		"summary", "fromId", "tokensBefore":
		return true
	}
	return false
}

func setExtra(extra map[string]json.RawMessage, f *field) map[string]json.RawMessage {
	if extra == nil {
		extra = map[string]json.RawMessage{}
	}
	extra[string(f.key)] = json.RawMessage(f.val)
	return extra
}

// str reads a JSON string the way encoding/json does; it declines invalid UTF-8, which
// encoding/json would replace.
func str(v []byte) (string, bool) {
	s, ok := rawString(v)
	if !ok || !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}

// strShared is str for a value inside an immutable buffer the result may keep alive (see
// rawStringShared): message texts decoded from a loaded file share its bytes.
func strShared(v []byte) (string, bool) {
	s, ok := rawStringShared(v)
	if !ok || !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}

// common holds values that repeat in every message, so decoding shares one string for them.
var common = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult, llm.RoleBashExecution, llm.RoleCustom,
		llm.RoleBranchSummary, llm.RoleCompactionSummary,
		string(llm.StopStop), string(llm.StopLength), string(llm.StopToolUse), string(llm.StopError), string(llm.StopAborted),
		llm.ContentText, llm.ContentImage, llm.ContentThinking, llm.ContentToolCall,
		"anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai",
		"bash", "read", "edit", "write", "ls", "find", "grep",
	} {
		m[s] = s
	}
	return m
}()

// sym reads a string that is usually one of the common values.
func sym(v []byte) (string, bool) {
	if len(v) >= 2 && v[0] == '"' {
		if s, ok := common[string(v[1:len(v)-1])]; ok {
			return s, true
		}
	}
	return str(v)
}

// number reads a JSON number as float64, as encoding/json does for a float64 target.
func number(v []byte) (float64, bool) {
	if len(v) == 0 || !(v[0] == '-' || isDigit(v[0])) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// intExact reads a JSON number into int64 the way encoding/json does for an int64 target:
// integer literals only.
func intExact(v []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

var blockKeys = []string{"type", "text", "textSignature", "data", "mimeType", "thinking", "thinkingSignature",
	"redacted", "id", "name", "arguments", "thoughtSignature"}

// foldsToKnown reports whether k would match one of known case-insensitively (encoding/json's
// struct field matching) without being equal to it.
func foldsToKnown(k string, known []string) bool {
	for _, kk := range known {
		if strings.EqualFold(k, kk) {
			return true
		}
	}
	return false
}

// contentBlocks decodes a content array like json.Unmarshal into []llm.Content does.
func contentBlocks(v []byte) ([]llm.Content, bool) {
	if v[0] != '[' {
		return nil, false
	}
	// Decoded on the stack first, so the slice kept has no spare capacity (most messages have one
	// block, and a 100,000-message session keeps them all).
	var stack [4]llm.Content
	tmp := stack[:0]
	for it := newElements(v); ; {
		b, more := it.next()
		if !more {
			out := make([]llm.Content, len(tmp))
			copy(out, tmp)
			return out, true
		}
		c, ok := contentBlock(b)
		if !ok {
			return nil, false
		}
		tmp = append(tmp, c)
	}
}

func contentBlock(b []byte) (llm.Content, bool) {
	var c llm.Content
	if !isObject(b) {
		return c, false
	}
	var buf [12]field
	fields, ok := parseObject(b, buf[:0])
	if !ok {
		return c, false
	}
	for i := range fields {
		f := &fields[i]
		if f.esc {
			return c, false
		}
		v := f.val
		if isNull(v) {
			continue
		}
		ok := true
		switch string(f.key) {
		case "type":
			c.Type, ok = sym(v)
		case "text":
			c.Text, ok = strShared(v)
		case "textSignature":
			c.TextSignature, ok = strShared(v)
		case "data":
			c.Data, ok = strShared(v)
		case "mimeType":
			c.MimeType, ok = str(v)
		case "thinking":
			c.Thinking, ok = strShared(v)
		case "thinkingSignature":
			c.ThinkingSignature, ok = strShared(v)
		case "redacted":
			c.Redacted, ok = rawBool(v)
		case "id":
			c.ID, ok = str(v)
		case "name":
			c.Name, ok = str(v)
		case "arguments":
			if !isObject(v) {
				return c, false
			}
			// Decoded into a local: taking the address of c's field would move every block
			// decoded to the heap.
			var args map[string]any
			ok = json.Unmarshal(v, &args) == nil
			c.Arguments = args
		case "thoughtSignature":
			c.ThoughtSignature, ok = strShared(v)
		default:
			ok = !foldsToKnown(string(f.key), blockKeys)
		}
		if !ok {
			return c, false
		}
	}
	return c, true
}

var usageKeys = []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
var costKeys = []string{"input", "output", "cacheRead", "cacheWrite", "total"}

// flatObject splits a JSON object whose keys need no unescaping into its members (into buf[:0]);
// it fails on an escaped key or when v is not an object. Callers skip null members themselves.
// It takes no callback, so decoding a usage per message allocates nothing.
func flatObject(v []byte, buf []field) ([]field, bool) {
	if !isObject(v) {
		return nil, false
	}
	fields, ok := parseObject(v, buf[:0])
	if !ok {
		return nil, false
	}
	for i := range fields {
		if fields[i].esc {
			return nil, false
		}
	}
	return fields, true
}

// usageFast decodes a usage object like json.Unmarshal into llm.Usage does.
func usageFast(v []byte, u *llm.Usage) bool {
	var buf [8]field
	fields, ok := flatObject(v, buf[:0])
	if !ok {
		return false
	}
	for i := range fields {
		val := fields[i].val
		if isNull(val) {
			continue
		}
		switch key := string(fields[i].key); key {
		case "input":
			u.Input, ok = intExact(val)
		case "output":
			u.Output, ok = intExact(val)
		case "cacheRead":
			u.CacheRead, ok = intExact(val)
		case "cacheWrite":
			u.CacheWrite, ok = intExact(val)
		case "totalTokens":
			u.TotalTokens, ok = intExact(val)
		case "cost":
			ok = costFast(val, &u.Cost)
		default:
			ok = !foldsToKnown(key, usageKeys)
		}
		if !ok {
			return false
		}
	}
	return true
}

func costFast(v []byte, c *llm.Cost) bool {
	var buf [8]field
	fields, ok := flatObject(v, buf[:0])
	if !ok {
		return false
	}
	for i := range fields {
		val := fields[i].val
		if isNull(val) {
			continue
		}
		switch key := string(fields[i].key); key {
		case "input":
			c.Input, ok = number(val)
		case "output":
			c.Output, ok = number(val)
		case "cacheRead":
			c.CacheRead, ok = number(val)
		case "cacheWrite":
			c.CacheWrite, ok = number(val)
		case "total":
			c.Total, ok = number(val)
		default:
			ok = !foldsToKnown(key, costKeys)
		}
		if !ok {
			return false
		}
	}
	return true
}
