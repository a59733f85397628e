package session

import (
	"context"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

// emit is the one emit path of a session fact (style.md, "One fact, one emission"): the
// extension handlers run by the event's table row (ext.Emit), then, when the row has a Stream
// name, the fact as the handlers left it is published to the front-ends. Every session event
// goes through here or through onLoop; nothing else publishes.
func emit[R any, E any, PE interface {
	*E
	ext.Event[R]
}](s *Session, ctx context.Context, e E) (E, R, error) {
	out, res, err := ext.Emit[R, E, PE](s.runner, ctx, e)
	var p ext.Payload = PE(&out)
	if name := ext.SpecOf(p).Stream; name != "" && s.stream.active() {
		s.stream.publish(Event{Type: name, Payload: p})
	}
	return out, res, err
}

// onLoop is the agent loop's one subscriber (it runs on the loop's goroutine, under the agent's
// emit lock, so loop facts keep their order): each fact goes to the extension handlers, a
// message_end is persisted, and the fact is published to the front-ends, in that order
// (events.md §1.2: extension handlers first, then the session's public listeners).
func (s *Session) onLoop(p ext.Payload) {
	spec := ext.SpecOf(p)
	if e, ok := p.(*ext.AgentEnd); ok {
		// Extensions and the front-ends' stream are told the same (retry.go).
		e.WillContinue = s.retryWillContinue(s.runCtx())
	}
	if s.runner.Has(spec.ID) {
		s.runner.Notify(s.runCtx(), p)
	}
	switch e := p.(type) {
	case *ext.MessageEnd:
		s.persist(e.Message)
	case *ext.AgentStart:
		if fn := s.onStart.Swap(nil); fn != nil {
			(*fn)()
		}
	}
	if spec.Stream == "" || !s.stream.active() {
		return
	}
	switch e := p.(type) {
	case *ext.MessageUpdate:
		s.stream.publishUpdate(spec.Stream, e)
		return
	case *ext.ToolExecutionStart:
		// tool_call handlers may edit the arguments in place after this event.
		c := *e
		c.Args, _ = llm.CloneValue(e.Args).(map[string]any)
		p = &c
	}
	s.stream.publish(Event{Type: spec.Stream, Payload: p})
}

// Subscribe attaches a new Subscriber calling fn to this session's stream (see Subscriber).
// Front-ends of a Runtime subscribe to the Runtime instead, which follows replacements.
func (s *Session) Subscribe(fn func(Event), o SubscribeOptions) *Subscriber {
	sub := NewSubscriber(fn, o)
	s.Attach(sub)
	return sub
}

// Attach adds sub to this session's stream; the function returned removes it.
func (s *Session) Attach(sub *Subscriber) (detach func()) { return s.stream.attach(sub) }

// publishMessage emits the message_start and message_end of a message the session adds outside
// a run, ordered with the loop's facts; the message_end is persisted by onLoop.
func (s *Session) publishMessage(m llm.Message) {
	s.agent.Emit(&ext.MessageStart{Message: &m})
	s.agent.Emit(&ext.MessageEnd{Message: &m})
}
