package agent

import (
	"encoding/json"
	"strconv"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// AppendJSON appends the event as one JSON object (no newline), in the shape JSON and RPC modes
// write (rpc-and-json.md §5). message_update carries the delta event and the cumulative usage,
// never the whole partial message, so a stream's output grows linearly with its deltas.
func (e *Event) AppendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = append(dst, `{"type":`...)
	dst = llm.AppendJSONString(dst, e.Type)
	msg := func(key string, m *llm.Message) {
		if m == nil || err != nil {
			return
		}
		dst = append(dst, ',')
		dst = llm.AppendJSONString(dst, key)
		dst = append(dst, ':')
		dst, err = m.AppendJSON(dst)
	}
	msgs := func(key string, ms []llm.Message) {
		dst = append(dst, ',')
		dst = llm.AppendJSONString(dst, key)
		dst = append(dst, ":["...)
		for i := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			if err == nil {
				dst, err = ms[i].AppendJSON(dst)
			}
		}
		dst = append(dst, ']')
	}
	val := func(key string, v any) {
		if err != nil {
			return
		}
		b, e := json.Marshal(v)
		if e != nil {
			err = e
			return
		}
		dst = append(dst, ',')
		dst = llm.AppendJSONString(dst, key)
		dst = append(dst, ':')
		dst = append(dst, b...)
	}
	call := func() {
		dst = append(dst, `,"toolCallId":`...)
		dst = llm.AppendJSONString(dst, e.ToolCallID)
		dst = append(dst, `,"toolName":`...)
		dst = llm.AppendJSONString(dst, e.ToolName)
	}
	switch e.Type {
	case EventAgentEnd:
		msgs("messages", e.Messages)
	case EventTurnStart:
		dst = append(dst, `,"turnIndex":`...)
		dst = strconv.AppendInt(dst, int64(e.TurnIndex), 10)
		dst = append(dst, `,"timestamp":`...)
		dst = strconv.AppendInt(dst, e.Timestamp, 10)
	case EventTurnEnd:
		dst = append(dst, `,"turnIndex":`...)
		dst = strconv.AppendInt(dst, int64(e.TurnIndex), 10)
		msg("message", e.Message)
		msgs("toolResults", e.ToolResults)
	case EventMessageStart, EventMessageEnd:
		msg("message", e.Message)
	case EventMessageUpdate:
		if e.Message != nil {
			val("usage", e.Message.Usage)
		}
		if e.StreamEvent != nil && err == nil {
			dst = append(dst, `,"assistantMessageEvent":`...)
			dst, err = e.StreamEvent.AppendJSON(dst)
		}
	case EventToolExecutionStart:
		call()
		val("args", e.Args)
	case EventToolExecutionUpdate:
		call()
		val("args", e.Args)
		val("partialResult", resultJSON(e.Result))
	case EventToolExecutionEnd:
		call()
		val("result", resultJSON(e.Result))
		dst = append(dst, `,"isError":`...)
		dst = strconv.AppendBool(dst, e.IsError)
	default:
		if e.Data != nil && err == nil {
			b, e2 := json.Marshal(e.Data)
			if e2 != nil {
				err = e2
			} else if len(b) > 2 && b[0] == '{' {
				dst = append(dst, ',')
				dst = append(dst, b[1:len(b)-1]...)
			}
		}
	}
	return append(dst, '}'), err
}

// MarshalJSON implements json.Marshaler.
func (e Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil) }

type resultWire struct {
	Content []llm.Content `json:"content"`
	Details any           `json:"details,omitempty"`
}

func resultJSON(r *tool.Result) resultWire {
	if r == nil {
		return resultWire{Content: []llm.Content{}}
	}
	c := r.Content
	if c == nil {
		c = []llm.Content{}
	}
	return resultWire{Content: c, Details: r.Details}
}
