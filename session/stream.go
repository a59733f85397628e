package session

import (
	"sync"
	"sync/atomic"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

// Event is one fact on the front-end stream (see the package doc, "The front-end stream").
//
// Type is the stream name, the "type" member JSON and RPC modes write (rpc-and-json.md §5): the
// Stream column of the fact's ext table row (model_select is "model_changed"), or the name of a
// session type below. Payload is the fact itself, typed; switch on it:
//
//	*ext.AgentStart, *ext.AgentEnd, *ext.AgentSettled, *ext.TurnStart, *ext.TurnEnd,
//	*ext.MessageStart, *ext.MessageUpdate, *ext.MessageEnd,
//	*ext.ToolExecutionStart, *ext.ToolExecutionUpdate, *ext.ToolExecutionEnd,
//	*ext.ModelSelect, *ext.ThinkingLevelSelect, *ext.SessionInfoChanged, *ext.EntryAppended,
//	*ext.CompactionStart, *ext.CompactionEnd, *ext.AutoRetryStart, *ext.AutoRetryEnd,
//	*ext.RetryFallbackApplied, *ext.RetryFallbackSucceeded   (every row with a Stream name)
//	*SessionStarted                                         (front-ends only, never on the wire)
//
// A payload is shared by every subscriber and is never changed after it is published: read it,
// do not modify it. *ext.MessageUpdate's Message is a snapshot of the partial message at that
// delta for subscribers that asked for snapshots (SubscribeOptions), nil for the others.
type Event struct {
	Type    string
	Payload any
}

// AppendJSON appends the event as JSON and RPC modes write it (one object, no newline).
func (e Event) AppendJSON(dst []byte) ([]byte, error) {
	return ext.AppendStreamJSON(dst, e.Type, e.Payload)
}

// Wire reports whether JSON and RPC modes write the event: false for the session events pi's
// protocol does not have (SessionStarted).
func (e Event) Wire() bool {
	_, local := e.Payload.(*SessionStarted)
	return !local
}

// Delta reports whether the event is a streaming delta (message_update, tool_execution_update):
// the only events a coalescing subscriber may receive merged.
func (e Event) Delta() bool {
	switch e.Payload.(type) {
	case *ext.MessageUpdate, *ext.ToolExecutionUpdate:
		return true
	}
	return false
}

// SessionStarted is published (stream name "session_started") when the Runtime has replaced its
// session, after the new session's session_start and resources_discover handlers ran: /new,
// /resume, /fork, /clone, reload, or the restart after a failed replacement. Session is the new
// live session; later events come from it. The first session of a Runtime is not announced
// (nobody can subscribe before NewRuntime returns it: read Runtime.Session()).
type SessionStarted struct {
	// Reason is new, resume, fork or reload (events.md §3.2).
	Reason string
	// PreviousSessionFile is the replaced session's file ("" when it had none, or on reload).
	PreviousSessionFile string
	// Session is the new live session.
	Session *Session
}

// SubscribeOptions qualify a subscription.
type SubscribeOptions struct {
	// Snapshots sets *ext.MessageUpdate's Message to an immutable snapshot of the partial
	// message at that delta (one copy of the message per delta while such a subscriber is
	// attached). Without it Message is nil: rebuild the message from the deltas, or read
	// message_end. Usage is always set.
	Snapshots bool
	// Coalesce lets the stream merge deltas this subscriber has not received yet: a queued
	// message_update is replaced by the next one, a queued tool_execution_update by the next one
	// of the same tool call. Lifecycle events are never merged or dropped. A coalescing
	// subscriber reads *ext.MessageUpdate's Message (the cumulative snapshot), not the delta;
	// Coalesce implies Snapshots.
	Coalesce bool
}

// Subscriber receives stream events in publication order on a goroutine of its own, so it can
// neither slow the agent loop nor deadlock it (calling back into the session from fn is
// allowed). Its queue is unbounded and lossless (see SubscribeOptions.Coalesce for the one
// exception a subscriber may ask for). Make one with NewSubscriber and attach it with
// Runtime.Attach or Session.Attach, or use their Subscribe; Close it when done.
type Subscriber struct {
	fn        func(Event)
	coalesce  bool
	snapshots bool

	mu      sync.Mutex // guards queue, closed, detach
	queue   []queued
	closed  bool
	detach  []func()      // removes the subscriber from the streams it is attached to
	wake    chan struct{} // cap 1: the queue may have grown
	stopped chan struct{} // closed when the delivery goroutine has ended
}

// queued is an event, or a function to run in order (Do).
type queued struct {
	ev Event
	do func()
}

// NewSubscriber returns a Subscriber calling fn for each event, and starts its delivery
// goroutine (ended by Close).
func NewSubscriber(fn func(Event), o SubscribeOptions) *Subscriber {
	s := &Subscriber{fn: fn, coalesce: o.Coalesce, snapshots: o.Snapshots || o.Coalesce, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	go s.run()
	return s
}

// Do runs fn on the delivery goroutine after every event queued before it: a front-end that
// writes its own lines (responses, dialogs) beside the events keeps them in causal order. After
// Close, fn is not run.
func (s *Subscriber) Do(fn func()) { s.push(queued{do: fn}) }

// Sync waits until every event and function queued before it has been delivered (at once after
// Close). Like Close, it must not be called from fn or a Do function.
func (s *Subscriber) Sync() {
	done := make(chan struct{})
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		<-s.stopped
		return
	}
	s.Do(func() { close(done) })
	select {
	case <-done:
	case <-s.stopped:
	}
}

// Close detaches the subscriber from every stream it is attached to, delivers the events and
// functions queued so far, stops its goroutine and waits for that. It must not be called from fn
// or a Do function (it would wait for itself).
func (s *Subscriber) Close() {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	detach := s.detach
	s.detach = nil
	s.mu.Unlock()
	for _, d := range detach {
		d()
	}
	if !already {
		s.signal()
	}
	<-s.stopped
}

func (s *Subscriber) push(q queued) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.coalesce && q.do == nil && len(s.queue) > 0 && mergeable(s.queue[len(s.queue)-1].ev, q.ev) {
		s.queue[len(s.queue)-1] = q
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, q)
	s.mu.Unlock()
	s.signal()
}

// mergeable reports whether next may replace prev in a coalescing subscriber's queue.
func mergeable(prev, next Event) bool {
	switch n := next.Payload.(type) {
	case *ext.MessageUpdate:
		_, ok := prev.Payload.(*ext.MessageUpdate)
		return ok
	case *ext.ToolExecutionUpdate:
		p, ok := prev.Payload.(*ext.ToolExecutionUpdate)
		return ok && p.ToolCallID == n.ToolCallID
	}
	return false
}

func (s *Subscriber) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run is the delivery goroutine: it takes the whole queue at once and delivers it in order.
func (s *Subscriber) run() {
	defer close(s.stopped)
	var batch []queued
	for {
		s.mu.Lock()
		batch, s.queue = s.queue, batch[:0]
		closed := s.closed
		s.mu.Unlock()
		for i := range batch {
			if batch[i].do != nil {
				batch[i].do()
			} else {
				s.fn(batch[i].ev)
			}
			batch[i] = queued{}
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		<-s.wake
	}
}

// stream is the fan-out of a session's (or a Runtime's) front-end events. Publication is
// serialised by mu, so every subscriber sees one order.
type stream struct {
	mu   sync.Mutex // guards publication order and subs changes
	subs atomic.Pointer[[]*Subscriber]
}

// active reports whether anyone is subscribed (the loop skips building snapshots otherwise).
func (st *stream) active() bool {
	p := st.subs.Load()
	return p != nil && len(*p) > 0
}

func (st *stream) publish(ev Event) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if p := st.subs.Load(); p != nil {
		for _, s := range *p {
			s.push(queued{ev: ev})
		}
	}
}

// publishUpdate publishes a message_update: subscribers that asked for snapshots share one
// snapshot of the partial message, the others a form without the message.
func (st *stream) publishUpdate(name string, e *ext.MessageUpdate) {
	light := &ext.MessageUpdate{}
	if e.Message != nil {
		light.Usage = e.Message.Usage
	}
	if e.AssistantMessageEvent != nil {
		d := *e.AssistantMessageEvent
		d.Partial = nil
		light.AssistantMessageEvent = &d
	}
	var full *ext.MessageUpdate
	st.mu.Lock()
	defer st.mu.Unlock()
	p := st.subs.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		if !s.snapshots {
			s.push(queued{ev: Event{Type: name, Payload: light}})
			continue
		}
		if full == nil {
			full = snapshotUpdate(e)
		}
		s.push(queued{ev: Event{Type: name, Payload: full}})
	}
}

// attach adds sub; the returned function removes it (events published later do not reach it).
func (st *stream) attach(sub *Subscriber) (detach func()) {
	st.mu.Lock()
	var next []*Subscriber
	if p := st.subs.Load(); p != nil {
		next = append(next, *p...)
	}
	next = append(next, sub)
	st.subs.Store(&next)
	st.mu.Unlock()
	detach = func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		p := st.subs.Load()
		if p == nil {
			return
		}
		kept := make([]*Subscriber, 0, len(*p))
		for _, s := range *p {
			if s != sub {
				kept = append(kept, s)
			}
		}
		st.subs.Store(&kept)
	}
	sub.mu.Lock()
	sub.detach = append(sub.detach, detach)
	sub.mu.Unlock()
	return detach
}

// snapshotUpdate returns the immutable message_update a subscriber receives: the loop's partial
// message is copied (the message and its content slice; blocks are values whose strings and
// argument maps the builder replaces, never edits), and the delta no longer points at it.
func snapshotUpdate(e *ext.MessageUpdate) *ext.MessageUpdate {
	out := &ext.MessageUpdate{}
	if e.Message != nil {
		m := *e.Message
		m.Content = append([]llm.Content(nil), e.Message.Content...)
		out.Message = &m
		out.Usage = m.Usage
	}
	if e.AssistantMessageEvent != nil {
		d := *e.AssistantMessageEvent
		d.Partial = out.Message
		out.AssistantMessageEvent = &d
	}
	return out
}
