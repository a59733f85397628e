package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/llm"
)

// Batched queued events (docs/extension-protocol.md "Queued events"). An extension's handlers of
// one queued event share one runner handler: a dispatch sends the host one notification listing
// them all (capabilities.eventBatches), and the host runs them in order on one payload. The
// payload is encoded once per dispatch, whatever the number of extensions of the host that
// subscribed. A message_update whose partial message only grew by its delta travels as the delta
// alone (capabilities.messageDeltas): the host keeps the partial message of the stream and hands
// each handler the whole of it, so a delta costs the same at the first token and the last.

// batch is the runner handler of every host handler of one extension for one queued event.
// handlers is replaced, never edited in place (a dispatch reads it without copying); g.mu guards
// it and unsub.
type batch struct {
	handlers []int
	unsub    func()
}

// onBatched subscribes host handler h of extension i to the queued event spec, joining the
// extension's batch for the event (subscribing the batch on the first handler). It returns the
// function that takes h out again.
func (s *Supervisor) onBatched(p *process, g *generation, api ext.API, i, h int, spec *ext.Spec) (func(), error) {
	g.mu.Lock()
	if g.batches[i] == nil {
		g.batches[i] = map[ext.EventID]*batch{}
	}
	b := g.batches[i][spec.ID]
	fresh := b == nil
	if fresh {
		b = &batch{}
		g.batches[i][spec.ID] = b
	}
	hs := make([]int, 0, len(b.handlers)+1)
	k := 0
	for k < len(b.handlers) && b.handlers[k] < h {
		k++
	}
	hs = append(append(append(hs, b.handlers[:k]...), h), b.handlers[k:]...)
	b.handlers = hs
	g.mu.Unlock()
	if fresh {
		what := fmt.Sprintf("the %s handlers of %s", spec.Name, s.paths[i])
		unsub, err := api.OnName(spec.Name, func(c ext.Context, payload any) (any, error) {
			return s.dispatchBatch(g, b, i, spec, what, c, payload)
		})
		if err != nil {
			g.mu.Lock()
			delete(g.batches[i], spec.ID)
			g.mu.Unlock()
			return nil, err
		}
		g.mu.Lock()
		b.unsub = unsub
		g.mu.Unlock()
		if spec.Queued {
			s.ensureBarriers(g, i, api)
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			var kept []int
			for _, x := range b.handlers {
				if x != h {
					kept = append(kept, x)
				}
			}
			b.handlers = kept
			var unsub func()
			if len(kept) == 0 {
				unsub = b.unsub
				if g.batches[i][spec.ID] == b {
					delete(g.batches[i], spec.ID)
				}
			}
			g.mu.Unlock()
			if unsub != nil {
				unsub()
			}
		})
	}, nil
}

// dispatchBatch delivers one event to every handler of batch b. A queued event is one
// notification when the host takes batches; a request event is one request for the handlers
// (callBatch) when the host takes request batches. Otherwise each handler gets its own message,
// as for a single proxy.
func (s *Supervisor) dispatchBatch(g *generation, b *batch, i int, spec *ext.Spec, what string, c ext.Context, payload any) (any, error) {
	p, err := s.ensure()
	if err != nil {
		return nil, errors.New(errorText(err))
	}
	g.mu.Lock()
	hs := b.handlers
	g.mu.Unlock()
	if len(hs) == 0 {
		return nil, nil
	}
	if !spec.Queued {
		return s.requestBatch(g, hs, i, spec, c, payload)
	}
	if p.queues.Load() && p.batches.Load() {
		return s.enqueueBatch(p, g, i, hs, spec, c, payload)
	}
	var errs []error
	for _, h := range hs {
		var err error
		if p.queues.Load() {
			_, err = s.enqueue(p, g, i, h, spec, c, payload)
		} else {
			_, err = s.dispatch(p, g, i, h, spec, what, c, payload)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return nil, errors.Join(errs...)
}

// requestBatch runs handlers hs of extension i for one request event: a single handler as one
// request; several in one request when the host takes request batches (callBatch), else the
// first one as its own request, the rest after the runner folded its outcome. The runner gets
// the outcomes as *ext.Outcomes, so each handler's result and error count as they would alone.
func (s *Supervisor) requestBatch(g *generation, hs []int, i int, spec *ext.Spec, c ext.Context, payload any) (any, error) {
	p, err := s.ensure()
	if err != nil {
		return nil, errors.New(errorText(err))
	}
	what := fmt.Sprintf("the %s handler of %s", spec.Name, s.paths[i])
	if len(hs) == 1 {
		return s.dispatch(p, g, i, hs[0], spec, what, c, payload)
	}
	if !p.requests.Load() {
		res, err := s.dispatch(p, g, i, hs[0], spec, what, c, payload)
		return &ext.Outcomes{Each: []ext.Outcome{{Result: res, Err: err}}, Rest: s.restOf(g, hs[1:], i, spec)}, nil
	}
	return s.callBatch(p, g, hs, i, spec, what, c, payload)
}

// restOf is the runner handler of handlers hs of extension i, the ones a batch left to run.
func (s *Supervisor) restOf(g *generation, hs []int, i int, spec *ext.Spec) ext.Handler {
	return func(c ext.Context, payload any) (any, error) {
		return s.requestBatch(g, hs, i, spec, c, payload)
	}
}

// callBatch sends one request event to handlers hs of extension i in one `event` request and
// turns the host's EventBatchResult into outcomes. The host bounds each handler by the handler
// timeout (a timeout is that handler's *TimeoutError); the request is bounded by the sum of
// theirs. A failure of the whole request (the host died) is the first handler's error.
func (s *Supervisor) callBatch(p *process, g *generation, hs []int, i int, spec *ext.Spec, what string, c ext.Context, payload any) (any, error) {
	body, err := appendPayload(nil, payload)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s payload: %w", spec.Name, err)
	}
	goctx := c.Signal()
	signal := ext.HasRunSignal(c)
	id := g.enter(c)
	defer g.leave(id)
	var limit time.Duration
	if s.opts.HandlerTimeout > 0 {
		limit = s.opts.HandlerTimeout*time.Duration(len(hs)) + cancelGrace
	}
	raw, err := p.callWithin(goctx, limit, id, protocol.MethodEvent, batchParams(i, g.n, hs, spec.Name, body, id, signal),
		fmt.Sprintf("the %s handlers of %s", spec.Name, s.paths[i]), nil)
	if err != nil {
		return nil, handlerError(err)
	}
	var res protocol.EventBatchResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("the host answered %s with %.200s: %v", spec.Name, raw, err)
	}
	if len(res.Each) == 0 || len(res.Each) > len(hs) {
		return nil, fmt.Errorf("the host answered %s for %d handlers with %d outcomes", spec.Name, len(hs), len(res.Each))
	}
	if len(res.Mutated) > 0 {
		if err := applyMutated(payload, res.Mutated); err != nil {
			return nil, fmt.Errorf("%s: %v", spec.Name, err)
		}
	}
	out := &ext.Outcomes{Each: make([]ext.Outcome, len(res.Each))}
	for k, o := range res.Each {
		switch {
		case o.Timeout:
			out.Each[k].Err = &TimeoutError{What: what, After: s.opts.HandlerTimeout}
		case o.Error != "":
			out.Each[k].Err = errors.New(o.Error)
		case len(o.Result) > 0 && string(o.Result) != "null":
			r, err := decodeResult(spec, o.Result)
			if err == nil && spec.Name == "user_bash" {
				r = bindUserBash(p, what, r)
			}
			out.Each[k] = ext.Outcome{Result: r, Err: err}
		}
	}
	if n := len(res.Each); n < len(hs) {
		out.Rest = s.restOf(g, hs[n:], i, spec)
	}
	return out, nil
}

// enqueueBatch sends one queued event to handlers hs of extension i in one notification and
// returns at once, with the failures of the extension's queued handlers reported since.
func (s *Supervisor) enqueueBatch(p *process, g *generation, i int, hs []int, spec *ext.Spec, c ext.Context, payload any) (any, error) {
	id := g.mark(c)
	signal := ext.HasRunSignal(c)
	p.queued.Add(1)
	if err := p.stream.send(p.out, spec, payload, p.deltas.Load(), p.runs.Load(), i, g.n, hs, id, signal); err != nil && p.alive() {
		return nil, err
	}
	return nil, g.takeErrors(i, spec.Name)
}

// runTail ends a held event notification whose `more` run of deltas can grow.
const runTail = "]}}\n"

// send holds the `event` notification of one queued dispatch to handlers hs of extension i on
// out (protocol.Writer.Hold). deltas and runs are the host's capabilities messageDeltas and
// deltaRuns. The stream state, the encoded payload and the order of the lines go together.
func (st *streamState) send(out *protocol.Writer, spec *ext.Spec, payload any, deltas, runs bool, i int, gen int64, hs []int, ctx int64, signal bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.prepare(payload, deltas)
	var ev *llm.Event
	if st.lastDelta && runs {
		ev = payload.(*ext.MessageUpdate).AssistantMessageEvent
	}
	var encErr error
	err := out.Hold(func(held []byte, epoch uint64) ([]byte, int) {
		if st.joins(held, epoch, i, gen, hs, signal, ev) {
			return st.join(held, ev.Delta), 1
		}
		body, err := st.encoded()
		if err != nil {
			encErr = fmt.Errorf("encoding the %s payload: %w", spec.Name, err)
			return held, 0
		}
		return st.hold(held, epoch, i, gen, hs, spec.Name, body, ctx, signal, ev), 1
	})
	if encErr != nil {
		return encErr
	}
	if err != nil {
		return fmt.Errorf("extension host: sending %s: %w", spec.Name, err)
	}
	return nil
}

// joins reports whether delta ev (nil: not a delta) continues the `more` run of the last held
// line: same extension, generation, handlers and signal, same kind and block, the next sequence
// number, and nothing held after it.
func (st *streamState) joins(held []byte, epoch uint64, i int, gen int64, hs []int, signal bool, ev *llm.Event) bool {
	r := &st.run
	return ev != nil && r.open && r.epoch == epoch && r.end == len(held) && r.ext == i && r.gen == gen && r.signal == signal &&
		r.typ == ev.Type && r.index == ev.ContentIndex && r.seq+1 == st.lastSeq && slices.Equal(r.hs, hs)
}

// join appends delta to the `more` run of the last held line (joins said it may).
func (st *streamState) join(held []byte, delta string) []byte {
	r := &st.run
	held = held[:len(held)-len(runTail)]
	if r.count > 0 {
		held = append(held, ',')
	}
	held = llm.AppendJSONString(held, delta)
	held = append(held, runTail...)
	r.count++
	r.seq = st.lastSeq
	r.end = len(held)
	return held
}

// hold appends the event notification of one queued dispatch, body its payload, to the held
// lines of the writer (epoch as protocol.Writer.Hold gives it). A delta (ev not nil) opens a
// `more` run (capabilities.deltaRuns) that the following deltas may join.
func (st *streamState) hold(held []byte, epoch uint64, i int, gen int64, hs []int, event string, body []byte, ctx int64, signal bool, ev *llm.Event) []byte {
	r := &st.run
	r.open = false
	held = append(held, `{"jsonrpc":"2.0","method":"event","params":`...)
	held = append(held, batchParams(i, gen, hs, event, body, ctx, signal)...)
	if ev == nil {
		return append(held, "}\n"...)
	}
	held = held[:len(held)-1] // the params' closing brace
	held = append(held, `,"more":[`+runTail...)
	*r = deltaRun{open: true, epoch: epoch, end: len(held), ext: i, gen: gen, hs: hs, signal: signal, typ: ev.Type, index: ev.ContentIndex, seq: st.lastSeq}
	return held
}

// deltaRun is the last held event line, whose `more` run a following delta may join.
type deltaRun struct {
	open   bool
	epoch  uint64
	end    int
	ext    int
	gen    int64
	hs     []int
	signal bool
	typ    string
	index  int
	seq    int64
	count  int
}

// batchParams encodes protocol.EventParams with Handlers by hand (the payload is JSON already).
func batchParams(ext int, gen int64, hs []int, event string, payload []byte, ctx int64, signal bool) json.RawMessage {
	b := make([]byte, 0, len(payload)+len(event)+96+4*len(hs))
	b = append(b, `{"ext":`...)
	b = strconv.AppendInt(b, int64(ext), 10)
	b = append(b, `,"gen":`...)
	b = strconv.AppendInt(b, gen, 10)
	b = append(b, `,"handler":`...)
	b = strconv.AppendInt(b, int64(hs[0]), 10)
	b = append(b, `,"handlers":[`...)
	for k, h := range hs {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(h), 10)
	}
	b = append(b, `],"event":`...)
	return appendEventTail(b, event, payload, ctx, signal)
}

// streamState is what a process was last sent of a message_update stream, and the payload last
// encoded (a dispatch reaching several extensions of the host encodes it once). mu guards it.
type streamState struct {
	mu sync.Mutex

	// last is the payload pointer of the dispatch body was encoded for (each Emit makes a new
	// one, and holding it here keeps its address from being reused).
	last     any
	lastBody []byte

	// msg is the partial message the host holds, as sent: its blocks' text (or thinking)
	// lengths and the fields a delta does not carry. seq numbers the message_update bodies, so a
	// host that receives one body for several extensions applies its delta once.
	msg        *llm.Message
	lens       []int
	usage      llm.Usage
	stop       llm.StopReason
	errMessage string
	responseID string
	seq        int64
	// lastSeq is the sequence number of the last dispatch (0: not a numbered message_update),
	// lastDelta says it is a delta alone (deltaSeq); run is the held line of deltas.
	lastSeq   int64
	lastDelta bool
	run       deltaRun
}

// body returns the JSON of payload for spec, reusing the last one for the same dispatch.
func (st *streamState) body(spec *ext.Spec, payload any, deltas bool) ([]byte, error) {
	st.prepare(payload, deltas)
	return st.encoded()
}

// prepare makes payload the dispatch being sent, once per dispatch: a message_update for a host
// that keeps the partial message gets its sequence number, and is a delta alone (lastDelta)
// when the message only grew by the delta since the last one, else the whole message, which
// the host keeps from then on. The JSON is made by encoded, when a line needs it.
func (st *streamState) prepare(payload any, deltas bool) {
	if st.last == payload {
		return
	}
	st.last, st.lastBody, st.lastDelta, st.lastSeq = payload, nil, false, 0
	e, ok := payload.(*ext.MessageUpdate)
	if !ok || !deltas {
		return
	}
	st.seq++
	st.lastSeq = st.seq
	if st.grewByDelta(e) {
		st.lens[e.AssistantMessageEvent.ContentIndex] += len(e.AssistantMessageEvent.Delta)
		st.lastDelta = true
		return
	}
	m := e.Message
	st.msg = m
	st.lens = st.lens[:0]
	if m == nil {
		return
	}
	for k := range m.Content {
		st.lens = append(st.lens, blockLen(&m.Content[k]))
	}
	st.usage, st.stop, st.errMessage, st.responseID = m.Usage, m.StopReason, m.ErrorMessage, m.ResponseID
}

// encoded returns the JSON of the dispatch prepare was last given (made once).
func (st *streamState) encoded() ([]byte, error) {
	if st.lastBody != nil {
		return st.lastBody, nil
	}
	var b []byte
	var err error
	if e, ok := st.last.(*ext.MessageUpdate); ok && st.lastSeq > 0 {
		b, err = st.messageUpdate(e)
	} else {
		b, err = appendPayload(nil, st.last)
	}
	if err != nil {
		return nil, err
	}
	st.lastBody = b
	return b, nil
}

// messageUpdate encodes a message_update for a host that keeps the partial message, as prepare
// classified it: the delta alone with its sequence number, or the whole message.
func (st *streamState) messageUpdate(e *ext.MessageUpdate) ([]byte, error) {
	b := make([]byte, 0, 160)
	b = append(b, `{"assistantMessageEvent":`...)
	if e.AssistantMessageEvent != nil {
		var err error
		if b, err = e.AssistantMessageEvent.AppendJSON(b); err != nil {
			return nil, err
		}
	} else {
		b = append(b, "null"...)
	}
	if st.lastDelta {
		b = append(b, `,"deltaSeq":`...)
		b = strconv.AppendInt(b, st.lastSeq, 10)
		return append(b, '}'), nil
	}
	if e.Message == nil {
		return append(b, '}'), nil
	}
	b = append(b, `,"message":`...)
	b, err := e.Message.AppendJSON(b)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"messageSeq":`...)
	b = strconv.AppendInt(b, st.lastSeq, 10)
	return append(b, '}'), nil
}

// grewByDelta reports whether e's partial message is the one last sent with only its delta
// appended to the text (or thinking) of the block the delta names.
func (st *streamState) grewByDelta(e *ext.MessageUpdate) bool {
	ev, m := e.AssistantMessageEvent, e.Message
	if ev == nil || m == nil || m != st.msg || len(m.Content) != len(st.lens) {
		return false
	}
	k := ev.ContentIndex
	if k < 0 || k >= len(m.Content) {
		return false
	}
	var s string
	switch c := &m.Content[k]; {
	case ev.Type == llm.EventTextDelta && c.Type == llm.ContentText:
		s = c.Text
	case ev.Type == llm.EventThinkingDelta && c.Type == llm.ContentThinking:
		s = c.Thinking
	default:
		return false
	}
	return len(s) == st.lens[k]+len(ev.Delta) && strings.HasSuffix(s, ev.Delta) &&
		m.Usage == st.usage && m.StopReason == st.stop && m.ErrorMessage == st.errMessage && m.ResponseID == st.responseID
}

func blockLen(c *llm.Content) int {
	if c.Type == llm.ContentThinking {
		return len(c.Thinking)
	}
	return len(c.Text)
}

// appendPayload appends the JSON of an event payload. The payloads of the streaming events are
// written by their own encoders (no reflection, and no second pass over MarshalJSON output as
// json.Marshal makes); the rest go through encoding/json.
func appendPayload(dst []byte, payload any) ([]byte, error) {
	msgField := func(dst []byte, m *llm.Message) ([]byte, error) {
		dst = append(dst, `{"message":`...)
		if m == nil {
			dst = append(dst, "null"...)
		} else {
			var err error
			if dst, err = m.AppendJSON(dst); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	switch e := payload.(type) {
	case *ext.MessageUpdate:
		dst = append(dst, `{"assistantMessageEvent":`...)
		if e.AssistantMessageEvent == nil {
			dst = append(dst, "null"...)
		} else {
			var err error
			if dst, err = e.AssistantMessageEvent.AppendJSON(dst); err != nil {
				return nil, err
			}
		}
		if e.Message != nil {
			dst = append(dst, `,"message":`...)
			var err error
			if dst, err = e.Message.AppendJSON(dst); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case *ext.MessageStart:
		return msgField(dst, e.Message)
	case *ext.MessageEnd:
		return msgField(dst, e.Message)
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}
