package host

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// Queued events (docs/extension-protocol.md "Queued events"). The agent-loop notification
// events travel through one FIFO queue whose handlers lag behind the loop (events.md §1.2), so
// the core sends them to the host as `event` notifications and goes on at once: the host runs
// them in order, one handler after another, and reports a failing handler with `event.error`.
// The loop catches up with the queue at the barriers: before tool_call and agent_settled the
// core sends `sync`, which the host answers once everything queued before it has run, and the
// host finishes its queue before it answers `shutdown`. Only a host whose initialize result has
// capabilities.queuedEvents gets notifications; for the others every event stays a request.
// Which events are queued and which are barriers are columns of the event table (ext.Spec.Queued,
// ext.Spec.Barrier); the host learns them, with the ordered and editable columns, from
// initialize's eventRules.

// queuedError is a failure of a queued handler, waiting to be handed to the runner.
type queuedError struct {
	event   string
	message string
}

// enqueue sends one queued event to host handler h of extension i and returns at once. The
// runner reports what it returns as this handler's error: the failures of the extension's queued
// handlers that the host reported since (usually an earlier delta of the same event).
func (s *Supervisor) enqueue(p *process, g *generation, i, h int, spec *ext.Spec, c ext.Context, payload any) (any, error) {
	body, err := appendPayload(nil, payload)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s payload: %w", spec.Name, err)
	}
	// The handler runs later; its ctx calls resolve to the generation's latest context, whose
	// getters are live (the handler lags behind the loop, as in pi).
	id := g.mark(c)
	p.queued.Add(1)
	if err := p.out.Notify(protocol.MethodEvent, eventParams(i, g.n, h, spec.Name, body, id, ext.HasRunSignal(c))); err != nil && p.alive() {
		return nil, fmt.Errorf("extension host: sending %s: %w", spec.Name, err)
	}
	return nil, g.takeErrors(i, spec.Name)
}

// queuedFailed records the failure of a queued handler reported by the host.
func (s *Supervisor) queuedFailed(a protocol.EventErrorParams) {
	g := s.generation(a.Gen)
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if a.Ext < 0 || a.Ext >= len(g.errs) {
		return
	}
	g.errs[a.Ext] = append(g.errs[a.Ext], queuedError{event: a.Event, message: a.Message})
}

// takeErrors returns the recorded failures of extension i as one error (nil: none). A failure
// of another event than the one being dispatched names its event; several are joined with "; ".
func (g *generation) takeErrors(i int, event string) error {
	g.mu.Lock()
	qs := g.errs[i]
	g.errs[i] = nil
	g.mu.Unlock()
	if len(qs) == 0 {
		return nil
	}
	// One line, so each report stays one line of a log.
	msgs := make([]string, len(qs))
	for k, q := range qs {
		if q.event == event {
			msgs[k] = q.message
		} else {
			msgs[k] = q.event + " handler: " + q.message
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

// ensureBarriers subscribes, through the API of extension i that registers a queued handler, a
// handler of every barrier row of the event table (once per extension): it waits for the host's
// queue and hands the extension's queued failures to the runner. A fail-closed barrier
// (tool_call) never blocks a call: it gives up well before the runner's guard timeout, and the
// failures wait for the next queued event or isolate barrier.
func (s *Supervisor) ensureBarriers(g *generation, i int, api ext.API) {
	g.mu.Lock()
	first := !g.barriered[i]
	g.barriered[i] = true
	g.mu.Unlock()
	if !first {
		return
	}
	for id := range ext.Table {
		spec := &ext.Table[id]
		if !spec.Barrier {
			continue
		}
		_, _ = api.OnName(spec.Name, func(c ext.Context, _ any) (any, error) {
			ctx := c.Signal()
			if spec.Errors == ext.FailClosed {
				limit := ext.GuardTimeout / 2
				if s.opts.HandlerTimeout > 0 {
					limit = s.opts.HandlerTimeout / 2
				}
				ctx, cancel := context.WithTimeout(ctx, limit)
				defer cancel()
				s.barrier(ctx)
				return nil, nil
			}
			s.barrier(ctx)
			return nil, g.takeErrors(i, spec.Name)
		})
	}
}

// barrier waits until the host has run every queued event sent so far (and read the failures it
// reported). A host that is gone has nothing left to wait for.
func (s *Supervisor) barrier(ctx context.Context) {
	p := s.current(0)
	if p == nil {
		return
	}
	n := p.queued.Load()
	if p.synced.Load() >= n {
		return
	}
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	if p.synced.Load() >= n {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// The host bounds each queued handler by the handler timeout; the barrier is bounded too, so a
	// host that does not cannot hold the loop.
	if _, err := p.callWithin(ctx, s.opts.HandlerTimeout, 0, protocol.MethodSync, nil, "the queued event handlers", nil); err == nil {
		for {
			old := p.synced.Load()
			if old >= n || p.synced.CompareAndSwap(old, n) {
				break
			}
		}
	}
}

// Drain waits until the host has run every queued event sent so far.
func (s *Supervisor) Drain() { s.barrier(context.Background()) }
