package ext

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// Payload is implemented by the pointer type of every payload in the table (*AgentStart,
// *ModelSelect, …); only this package declares payloads. A Payload value is what the session's
// one emit path hands to the runner and then to the front-end stream.
type Payload interface{ eventID() EventID }

// SpecOf returns the table row of a payload.
func SpecOf(p Payload) *Spec { return &Table[p.eventID()] }

// Notify dispatches a payload of a notification row (Combine Notify) to its handlers, with the
// row's rules (buffering, fire-and-forget), as Emit does. Rows with another combine rule are not
// dispatched: their emitter calls Emit where the result is used (message_end's replacement runs
// in the agent's MessageEnd hook, before the message_end fact is published). Handlers receive p
// itself, so the caller must not change it afterwards.
func (r *Runner) Notify(ctx context.Context, p Payload) {
	if r == nil {
		return
	}
	spec := &Table[p.eventID()]
	if spec.Combine != Notify {
		return
	}
	hs := (*r.handlers.Load())[spec.ID]
	if len(hs) == 0 && spec.Buffer == 0 {
		return
	}
	if spec.Buffer > 0 {
		r.mu.Lock()
		if !r.bound {
			q := append(r.buffered[spec.ID], func() { r.dispatch(ctx, spec, p) })
			if len(q) > spec.Buffer {
				q = q[len(q)-spec.Buffer:]
			}
			r.buffered[spec.ID] = q
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		if len(hs) == 0 {
			return
		}
	}
	if !spec.Awaited {
		r.post(func() { r.dispatch(ctx, spec, p) })
		return
	}
	_, _ = r.dispatch(ctx, spec, p)
}

// ToolOutput is a tool's result as tool_execution_update (the cumulative partial result) and
// tool_execution_end carry it: {"content": […], "details"?: …}.
type ToolOutput struct {
	Content []llm.Content `json:"content"`
	Details any           `json:"details,omitempty"`
}

// NewToolOutput returns the ToolOutput of r (content [] when r is nil or has none).
func NewToolOutput(r *tool.Result) *ToolOutput {
	if r == nil {
		return &ToolOutput{Content: []llm.Content{}}
	}
	c := r.Content
	if c == nil {
		c = []llm.Content{}
	}
	return &ToolOutput{Content: c, Details: r.Details}
}

// StreamEncoder is implemented by payloads whose front-end stream form differs from their
// extension JSON (rpc-and-json.md §5): AppendStreamFields appends the members that follow
// "type", each with its leading comma. Other payloads are written as their JSON object.
type StreamEncoder interface {
	AppendStreamFields(dst []byte) ([]byte, error)
}

// AppendStreamJSON appends the JSON object JSON and RPC modes write for p, whose stream name is
// name: {"type": name, …members}.
func AppendStreamJSON(dst []byte, name string, p any) ([]byte, error) {
	dst = append(dst, `{"type":`...)
	dst = llm.AppendJSONString(dst, name)
	if enc, ok := p.(StreamEncoder); ok {
		var err error
		dst, err = enc.AppendStreamFields(dst)
		return append(dst, '}'), err
	}
	if p != nil {
		b, err := json.Marshal(p)
		if err != nil {
			return append(dst, '}'), err
		}
		if len(b) > 2 && b[0] == '{' {
			dst = append(dst, ',')
			dst = append(dst, b[1:len(b)-1]...)
		}
	}
	return append(dst, '}'), nil
}

func appendMessage(dst []byte, key string, m *llm.Message) ([]byte, error) {
	if m == nil {
		return dst, nil
	}
	dst = append(dst, ',')
	dst = llm.AppendJSONString(dst, key)
	dst = append(dst, ':')
	return m.AppendJSON(dst)
}

func appendMessages(dst []byte, key string, ms []llm.Message) ([]byte, error) {
	dst = append(dst, ',')
	dst = llm.AppendJSONString(dst, key)
	dst = append(dst, ":["...)
	var err error
	for i := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = ms[i].AppendJSON(dst); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

func appendValue(dst []byte, key string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	dst = append(dst, ',')
	dst = llm.AppendJSONString(dst, key)
	dst = append(dst, ':')
	return append(dst, b...), nil
}

func appendCall(dst []byte, id, name string) []byte {
	dst = append(dst, `,"toolCallId":`...)
	dst = llm.AppendJSONString(dst, id)
	dst = append(dst, `,"toolName":`...)
	return llm.AppendJSONString(dst, name)
}

// AppendStreamFields writes messages and willContinue (whether a retry or fallback run follows
// on its own; issue 10 item 17), which extensions get too.
func (e *AgentEnd) AppendStreamFields(dst []byte) ([]byte, error) {
	dst, err := appendMessages(dst, "messages", e.Messages)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `,"willContinue":`...)
	return strconv.AppendBool(dst, e.WillContinue), nil
}

// AppendStreamFields writes turnIndex and timestamp.
func (e *TurnStart) AppendStreamFields(dst []byte) ([]byte, error) {
	dst = append(dst, `,"turnIndex":`...)
	dst = strconv.AppendInt(dst, int64(e.TurnIndex), 10)
	dst = append(dst, `,"timestamp":`...)
	return strconv.AppendInt(dst, e.Timestamp, 10), nil
}

// AppendStreamFields writes turnIndex, message and toolResults with the messages' encoder.
func (e *TurnEnd) AppendStreamFields(dst []byte) ([]byte, error) {
	dst = append(dst, `,"turnIndex":`...)
	dst = strconv.AppendInt(dst, int64(e.TurnIndex), 10)
	dst, err := appendMessage(dst, "message", e.Message)
	if err != nil {
		return dst, err
	}
	return appendMessages(dst, "toolResults", e.ToolResults)
}

// AppendStreamFields writes the message with its own encoder.
func (e *MessageStart) AppendStreamFields(dst []byte) ([]byte, error) {
	return appendMessage(dst, "message", e.Message)
}

// AppendStreamFields writes the message with its own encoder.
func (e *MessageEnd) AppendStreamFields(dst []byte) ([]byte, error) {
	return appendMessage(dst, "message", e.Message)
}

// AppendStreamFields writes the cumulative usage and the delta, never the partial message, so
// a stream's output grows linearly with its deltas (rpc-and-json.md §5, Atomic).
func (e *MessageUpdate) AppendStreamFields(dst []byte) ([]byte, error) {
	usage := &e.Usage
	if e.Message != nil {
		usage = &e.Message.Usage
	}
	dst, err := appendValue(dst, "usage", usage)
	if err != nil {
		return dst, err
	}
	if e.AssistantMessageEvent != nil {
		dst = append(dst, `,"assistantMessageEvent":`...)
		dst, err = e.AssistantMessageEvent.AppendJSON(dst)
	}
	return dst, err
}

// AppendStreamFields writes toolCallId, toolName and args (not the oh-my-pi intent).
func (e *ToolExecutionStart) AppendStreamFields(dst []byte) ([]byte, error) {
	return appendValue(appendCall(dst, e.ToolCallID, e.ToolName), "args", e.Args)
}

// AppendStreamFields writes toolCallId, toolName, args and partialResult.
func (e *ToolExecutionUpdate) AppendStreamFields(dst []byte) ([]byte, error) {
	dst, err := appendValue(appendCall(dst, e.ToolCallID, e.ToolName), "args", e.Args)
	if err != nil {
		return dst, err
	}
	return appendValue(dst, "partialResult", orEmpty(e.PartialResult))
}

// AppendStreamFields writes toolCallId, toolName, result and isError.
func (e *ToolExecutionEnd) AppendStreamFields(dst []byte) ([]byte, error) {
	dst, err := appendValue(appendCall(dst, e.ToolCallID, e.ToolName), "result", orEmpty(e.Result))
	dst = append(dst, `,"isError":`...)
	return strconv.AppendBool(dst, e.IsError), err
}

func orEmpty(o *ToolOutput) *ToolOutput {
	if o == nil {
		return &ToolOutput{Content: []llm.Content{}}
	}
	return o
}

// AppendStreamFields writes the new level only (thinking_level_changed, rpc-and-json.md §5).
func (e *ThinkingLevelSelect) AppendStreamFields(dst []byte) ([]byte, error) {
	dst = append(dst, `,"level":`...)
	return llm.AppendJSONString(dst, e.Level), nil
}

// AppendStreamFields writes compaction_start's reason and midTurn (rpc-and-json.md §5).
func (e *CompactionStart) AppendStreamFields(dst []byte) ([]byte, error) {
	return e.CompactionStatus.appendWire(dst, false)
}

// AppendStreamFields writes compaction_end's reason, midTurn, aborted, willRetry, result and
// errorMessage (rpc-and-json.md §5).
func (e *CompactionEnd) AppendStreamFields(dst []byte) ([]byte, error) {
	return e.CompactionStatus.appendWire(dst, true)
}

// appendWire writes the members of the stream's compaction events, in sorted order as the
// protocol has always written them.
func (st *CompactionStatus) appendWire(dst []byte, end bool) ([]byte, error) {
	wire := map[string]any{"reason": st.Reason}
	if st.MidTurn {
		wire["midTurn"] = true
	}
	if end {
		wire["aborted"], wire["willRetry"] = st.Aborted, st.WillRetry
		if st.Result != nil {
			wire["result"] = st.Result
		}
		if st.ErrorMessage != "" {
			wire["errorMessage"] = st.ErrorMessage
		}
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return dst, err
	}
	dst = append(dst, ',')
	return append(dst, b[1:len(b)-1]...), nil
}
