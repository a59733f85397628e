package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Builder assembles an assistant message from a provider's stream and emits the matching Events.
// Providers call its methods in stream order from one goroutine; it is not safe for concurrent use.
//
// Block indices returned by the Start methods are content indices of the message. Blocks still
// open when Finish or Fail is called are ended first, in index order.
type Builder struct {
	msg     Message
	emit    func(Event)
	open    []bool
	text    []strings.Builder
	args    map[int]*strings.Builder
	started bool
}

// NewBuilder returns a Builder for a message of model m; emit receives every event (nil: none).
func NewBuilder(m *Model, emit func(Event)) *Builder {
	if emit == nil {
		emit = func(Event) {}
	}
	b := &Builder{emit: emit, args: map[int]*strings.Builder{}}
	b.msg = Message{
		Role:       RoleAssistant,
		Content:    []Content{},
		StopReason: StopStop,
		Timestamp:  time.Now().UnixMilli(),
	}
	if m != nil {
		b.msg.API, b.msg.Provider, b.msg.Model = m.API, m.Provider, m.ID
	}
	return b
}

// Message returns the message as assembled so far. The result is owned by the Builder.
func (b *Builder) Message() *Message { return &b.msg }

// SetResponseID records the provider's response id.
func (b *Builder) SetResponseID(id string) { b.msg.ResponseID = id }

// SetUsage replaces the token usage. Costs are computed at Finish.
func (b *Builder) SetUsage(u Usage) { b.msg.Usage = u }

// Usage returns the usage recorded so far, for providers that accumulate it.
func (b *Builder) Usage() *Usage { return &b.msg.Usage }

// Start emits the start event once; the other methods call it when needed.
func (b *Builder) Start() {
	if b.started {
		return
	}
	b.started = true
	b.emit(Event{Type: EventStart, Partial: &b.msg})
}

func (b *Builder) add(c Content, typ string) int {
	b.Start()
	i := len(b.msg.Content)
	b.msg.Content = append(b.msg.Content, c)
	b.open = append(b.open, true)
	b.text = append(b.text, strings.Builder{})
	b.emit(Event{Type: typ, ContentIndex: i, Partial: &b.msg})
	return i
}

// StartText opens a text block and returns its index.
func (b *Builder) StartText() int { return b.add(Text(""), EventTextStart) }

// StartThinking opens a thinking block and returns its index.
func (b *Builder) StartThinking() int {
	return b.add(Content{Type: ContentThinking}, EventThinkingStart)
}

// StartToolCall opens a tool-call block with the call's id and tool name and returns its index.
func (b *Builder) StartToolCall(id, name string) int {
	i := b.add(Content{Type: ContentToolCall, ID: id, Name: name, Arguments: map[string]any{}}, EventToolCallStart)
	b.args[i] = &strings.Builder{}
	return i
}

// AppendText adds a delta to text block i.
func (b *Builder) AppendText(i int, delta string) {
	if delta == "" || !b.isOpen(i) {
		return
	}
	b.text[i].WriteString(delta)
	b.msg.Content[i].Text = b.text[i].String()
	b.emit(Event{Type: EventTextDelta, ContentIndex: i, Delta: delta, Partial: &b.msg})
}

// AppendThinking adds a delta to thinking block i.
func (b *Builder) AppendThinking(i int, delta string) {
	if delta == "" || !b.isOpen(i) {
		return
	}
	b.text[i].WriteString(delta)
	b.msg.Content[i].Thinking = b.text[i].String()
	b.emit(Event{Type: EventThinkingDelta, ContentIndex: i, Delta: delta, Partial: &b.msg})
}

// AppendToolArgs adds a fragment of the JSON arguments of tool-call block i.
func (b *Builder) AppendToolArgs(i int, delta string) {
	if delta == "" || !b.isOpen(i) {
		return
	}
	b.args[i].WriteString(delta)
	b.emit(Event{Type: EventToolCallDelta, ContentIndex: i, Delta: delta, Partial: &b.msg})
}

// SetSignature sets the signature of block i: textSignature, thinkingSignature or thoughtSignature
// by the block's type.
func (b *Builder) SetSignature(i int, sig string) {
	if i < 0 || i >= len(b.msg.Content) {
		return
	}
	c := &b.msg.Content[i]
	switch c.Type {
	case ContentText:
		c.TextSignature = sig
	case ContentThinking:
		c.ThinkingSignature = sig
	case ContentToolCall:
		c.ThoughtSignature = sig
	}
}

// SetRedacted marks thinking block i as redacted, keeping data as its opaque signature.
func (b *Builder) SetRedacted(i int, data string) {
	if i < 0 || i >= len(b.msg.Content) {
		return
	}
	b.msg.Content[i].Redacted = true
	b.msg.Content[i].ThinkingSignature = data
}

func (b *Builder) isOpen(i int) bool { return i >= 0 && i < len(b.open) && b.open[i] }

// End closes block i and emits its *_end event. A tool call's accumulated argument JSON is parsed
// here; text that is not a JSON object leaves Arguments empty and records why in ArgumentsError,
// so the agent can tell the model instead of running the tool.
func (b *Builder) End(i int) {
	if !b.isOpen(i) {
		return
	}
	b.open[i] = false
	c := &b.msg.Content[i]
	switch c.Type {
	case ContentText:
		b.emit(Event{Type: EventTextEnd, ContentIndex: i, Content: c.Text, Partial: &b.msg})
	case ContentThinking:
		b.emit(Event{Type: EventThinkingEnd, ContentIndex: i, Content: c.Thinking, Partial: &b.msg})
	case ContentToolCall:
		raw := strings.TrimSpace(b.args[i].String())
		if raw != "" {
			var args map[string]any
			if err := json.Unmarshal([]byte(raw), &args); err != nil {
				c.ArgumentsError = fmt.Sprintf("the arguments of tool call %q (%s) are not a JSON object: %v; received: %s", c.ID, c.Name, err, clip(raw, 500))
			} else if args != nil {
				c.Arguments = args
			}
		}
		tc := c.Clone()
		b.emit(Event{Type: EventToolCallEnd, ContentIndex: i, ToolCall: &tc, Partial: &b.msg})
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// closeSilently closes open blocks: tool-call arguments are parsed, no event is emitted.
func (b *Builder) closeSilently() {
	emit := b.emit
	b.emit = func(Event) {}
	b.endAll()
	b.emit = emit
}

func (b *Builder) endAll() {
	for i := range b.open {
		b.End(i)
	}
}

// Finish closes open blocks, computes cost from m's rates, sets the stop reason and emits done.
// It returns the final message.
func (b *Builder) Finish(reason StopReason, m *Model) Message {
	b.Start()
	b.endAll()
	if reason == "" {
		reason = StopStop
	}
	if reason == StopStop && len(b.msg.ToolCalls()) > 0 {
		reason = StopToolUse
	}
	b.msg.StopReason = reason
	if m != nil {
		b.msg.Usage.ComputeCost(m.Cost)
	}
	final := b.msg.Clone()
	b.emit(Event{Type: EventDone, Reason: reason, Message: &final, Partial: &b.msg})
	return final
}

// Fail closes open blocks without emitting their end events (the stream did not end them) and
// emits error with the partial message, StopReason StopAborted when
// aborted is true, else StopError, and errMsg as its ErrorMessage.
func (b *Builder) Fail(errMsg string, aborted bool, m *Model) Message {
	b.Start()
	b.closeSilently()
	b.msg.StopReason = StopError
	if aborted {
		b.msg.StopReason = StopAborted
		if errMsg == "" {
			errMsg = "Request was aborted"
		}
	}
	b.msg.ErrorMessage = errMsg
	if m != nil {
		b.msg.Usage.ComputeCost(m.Cost)
	}
	final := b.msg.Clone()
	b.emit(Event{Type: EventError, Reason: b.msg.StopReason, Message: &final, Partial: &b.msg})
	return final
}
