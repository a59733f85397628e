package tui

import (
	"maps"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/session"
)

// fps is the renderer's frame rate, and frameInterval the shortest gap between two batches of
// session events handed to the UI: bursts of deltas coalesce into one update and one frame
// (tui.md §9.3 asks ≥16 ms between frames; 30 frames a second halves the renderer's CPU while
// streaming, measured in bench/). Key presses do not wait for the interval.
const (
	fps           = 30
	frameInterval = time.Second / fps
)

// StreamReadInterval is how the interactive mode has provider streams read
// (session.Options.StreamReadInterval): once a frame, so the deltas that arrive within a frame are
// read with one wakeup instead of one each. The reads fall in step with the pump's frame timer
// (each restarts after the read or batch that ended the last one), so a batch read reaches the
// screen at once: a delta waits at most a frame to be read and is painted with it, sooner than
// with reads every half frame, each waiting for the pump's next frame (up to a frame and a half),
// and with half the wakeups (bench/tui-vs-pi.sh: a quarter less CPU than at 16 ms).
const StreamReadInterval = frameInterval

// eventsMsg is a batch of session events in emission order.
type eventsMsg []any

// Converted events. Each carries copies of what the UI needs, because some event data (the
// partial message of message_update) is valid only during the emit callback.
type (
	// messageStart / messageEnd carry the message (stable after the callback).
	evMessageStart struct{ m *llm.Message }
	evMessageEnd   struct{ m *llm.Message }
	// evDelta is a text or thinking delta of the streaming assistant message.
	evDelta struct {
		idx   int
		typ   string // llm.ContentText or llm.ContentThinking
		delta string
	}
	// evToolCall is a snapshot of a streaming tool call block.
	evToolCall struct {
		idx      int
		call     llm.Content
		complete bool
	}
	evToolStart struct {
		id, name string
		args     map[string]any
	}
	evToolUpdate struct {
		id      string
		content []llm.Content
		details any
	}
	evToolEnd struct {
		id      string
		content []llm.Content
		details any
		isError bool
	}
	evAgentStart struct{}
	evAgentEnd   struct{}
	// evSession is any session-level event (model_changed, auto_retry_start, compaction_*, …).
	evSession struct {
		typ  string
		data any
	}
)

// queue is the unbounded, lossless hand-off between the session's emitting goroutines and the
// Bubble Tea loop: push never blocks (a busy UI never stalls the agent, and a stalled agent never
// blocks the UI); the pump goroutine delivers everything queued as one eventsMsg.
type queue struct {
	mu     sync.Mutex // guards items, closed
	items  []any
	closed bool
	wake   chan struct{} // cap 1: signalled when items grows
}

func newQueue() *queue { return &queue{wake: make(chan struct{}, 1)} }

func (q *queue) push(v any) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue) take() []any {
	q.mu.Lock()
	defer q.mu.Unlock()
	it := q.items
	q.items = nil
	return it
}

func (q *queue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) == 0
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pump delivers queued events to send until done is closed, at most one batch per frameInterval
// less frameSlack. It sleeps only when events come sooner than that after the last batch: a batch
// read a frame after the last (StreamReadInterval) is delivered at once, in the wakeup that read
// it, and a pump with nothing to deliver sets no timer at all.
func (q *queue) pump(send func(tea.Msg), done <-chan struct{}) {
	var last time.Time // when the last batch was sent
	var t *time.Timer
	for {
		select {
		case <-done:
			return
		case <-q.wake:
		}
		if q.empty() {
			continue // a wake left over from pushes the last batch took
		}
		if wait := frameInterval - frameSlack - time.Since(last); wait > 0 {
			if t == nil {
				t = time.NewTimer(wait)
			} else {
				t.Reset(wait)
			}
			select {
			case <-done:
				t.Stop()
				return
			case <-t.C:
			}
		}
		if items := q.take(); len(items) > 0 {
			send(eventsMsg(items))
			last = time.Now()
		}
	}
}

// convert turns a stream event into the UI's copy of it; nil for events the UI ignores. It runs
// on the stream subscriber's goroutine (session.Subscriber) and must not block.
func convert(e session.Event) any {
	switch p := e.Payload.(type) {
	case *ext.MessageStart:
		return evMessageStart{p.Message}
	case *ext.MessageEnd:
		return evMessageEnd{p.Message}
	case *ext.MessageUpdate:
		se := p.AssistantMessageEvent
		if se == nil {
			return nil
		}
		switch se.Type {
		case llm.EventTextDelta:
			return evDelta{idx: se.ContentIndex, typ: llm.ContentText, delta: se.Delta}
		case llm.EventThinkingDelta:
			return evDelta{idx: se.ContentIndex, typ: llm.ContentThinking, delta: se.Delta}
		case llm.EventToolCallStart, llm.EventToolCallDelta, llm.EventToolCallEnd:
			var c llm.Content
			if se.Type == llm.EventToolCallEnd && se.ToolCall != nil {
				c = *se.ToolCall
			} else if p.Message != nil && se.ContentIndex < len(p.Message.Content) {
				c = p.Message.Content[se.ContentIndex]
			}
			c.Arguments = maps.Clone(c.Arguments)
			return evToolCall{idx: se.ContentIndex, call: c, complete: se.Type == llm.EventToolCallEnd}
		}
		return nil
	case *ext.ToolExecutionStart:
		return evToolStart{id: p.ToolCallID, name: p.ToolName, args: maps.Clone(p.Args)}
	case *ext.ToolExecutionUpdate:
		u := evToolUpdate{id: p.ToolCallID}
		if p.PartialResult != nil {
			u.content = append([]llm.Content(nil), p.PartialResult.Content...)
			u.details = p.PartialResult.Details
		}
		return u
	case *ext.ToolExecutionEnd:
		u := evToolEnd{id: p.ToolCallID, isError: p.IsError}
		if p.Result != nil {
			u.content = append([]llm.Content(nil), p.Result.Content...)
			u.details = p.Result.Details
		}
		return u
	case *ext.AgentStart:
		return evAgentStart{}
	case *ext.AgentEnd:
		return evAgentEnd{}
	case *ext.TurnStart, *ext.TurnEnd:
		return nil
	}
	return evSession{typ: e.Type, data: e.Payload}
}
