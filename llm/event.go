package llm

// Stream event types, in the order a provider may emit them (rpc-and-json.md §5).
const (
	EventStart         = "start"
	EventTextStart     = "text_start"
	EventTextDelta     = "text_delta"
	EventTextEnd       = "text_end"
	EventThinkingStart = "thinking_start"
	EventThinkingDelta = "thinking_delta"
	EventThinkingEnd   = "thinking_end"
	EventToolCallStart = "toolcall_start"
	EventToolCallDelta = "toolcall_delta"
	EventToolCallEnd   = "toolcall_end"
	EventDone          = "done"
	EventError         = "error"
)

// Event is one assistant stream event (pi's AssistantMessageEvent without the cumulative
// "partial"). Fields by Type:
//
//	*_start:        ContentIndex
//	*_delta:        ContentIndex, Delta
//	text_end, thinking_end: ContentIndex, Content (the whole block text)
//	toolcall_end:   ContentIndex, ToolCall
//	done:           Reason (stop|length|toolUse), Message (the final message)
//	error:          Reason (error|aborted), Message (the final message, written as "error")
//
// Partial is the message as assembled so far; it is owned by the provider and valid only during
// the emit call. It is never serialised.
type Event struct {
	Type         string
	ContentIndex int
	Delta        string
	Content      string
	ToolCall     *Content
	Reason       StopReason
	Message      *Message
	Partial      *Message
}

// AppendJSON appends the event's JSON object to dst.
func (e *Event) AppendJSON(dst []byte) ([]byte, error) {
	w := objWriter{buf: dst}
	w.str("type", e.Type)
	switch e.Type {
	case EventStart:
	case EventTextStart, EventThinkingStart, EventToolCallStart:
		w.int("contentIndex", int64(e.ContentIndex))
	case EventTextDelta, EventThinkingDelta, EventToolCallDelta:
		w.int("contentIndex", int64(e.ContentIndex))
		w.str("delta", e.Delta)
	case EventTextEnd, EventThinkingEnd:
		w.int("contentIndex", int64(e.ContentIndex))
		w.str("content", e.Content)
	case EventToolCallEnd:
		w.int("contentIndex", int64(e.ContentIndex))
		if e.ToolCall != nil {
			w.value("toolCall", e.ToolCall)
		}
	case EventDone, EventError:
		w.str("reason", string(e.Reason))
		key := "message"
		if e.Type == EventError {
			key = "error"
		}
		if e.Message != nil {
			b, err := e.Message.AppendJSON(nil)
			if err != nil {
				return nil, err
			}
			w.raw(key, b)
		}
	}
	return w.close(), w.err
}

// MarshalJSON implements json.Marshaler.
func (e Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil) }
