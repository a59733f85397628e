package session

import (
	"context"
	"errors"
	"sync"
)

// Lane says how a command submitted to a Runtime is scheduled (rpc-and-json.md §2.1, Atomic).
type Lane int

const (
	// Ordered commands run one at a time, in submission order, on the Runtime's command
	// goroutine, whichever front-end submitted them: a state query submitted after a prompt sees
	// the prompt accepted.
	Ordered Lane = iota
	// Interrupt commands (abort, clear_queue, a dialog answer…) run at once on the submitting
	// goroutine and never wait behind ordered work. They must not block.
	Interrupt
	// Job commands (a user's bash command) run on a goroutine of their own.
	Job
)

// ErrCommandsClosed is returned by Commands.Submit after Close.
var ErrCommandsClosed = errors.New("atomic is shutting down")

// Commands is a front-end's handle on the Runtime's one command path: RPC mode and the terminal
// UI submit the commands a user or client sends through it, so their ordering lives in one place.
// Every function it runs receives the handle's context, which Close cancels; Close then waits for
// every function and goroutine the handle started. Safe for concurrent use.
type Commands struct {
	rt     *Runtime
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex     // guards closing and wg.Add
	closing bool           // Close was called: nothing new starts
	wg      sync.WaitGroup // queued and running functions, and goroutines from Go
}

// orderedCmd is one function waiting on the Runtime's ordered lane.
type orderedCmd struct {
	c  *Commands
	fn func(context.Context)
}

// Commands returns a new handle on the Runtime's command path whose functions run under a
// context derived from ctx.
func (rt *Runtime) Commands(ctx context.Context) *Commands {
	c := &Commands{rt: rt}
	c.ctx, c.cancel = context.WithCancel(ctx)
	return c
}

// track counts one more function or goroutine; false once closing.
func (c *Commands) track() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	c.wg.Add(1)
	return true
}

// Submit schedules fn on lane. Ordered functions queue behind every ordered function submitted
// before (by any handle of the Runtime); an interrupt runs before Submit returns; a job starts on
// its own goroutine. The error is ErrCommandsClosed once Close was called (fn does not run).
func (c *Commands) Submit(lane Lane, fn func(ctx context.Context)) error {
	if !c.track() {
		return ErrCommandsClosed
	}
	switch lane {
	case Interrupt:
		defer c.wg.Done()
		fn(c.ctx)
	case Job:
		go func() {
			defer c.wg.Done()
			fn(c.ctx)
		}()
	default:
		c.rt.enqueue(orderedCmd{c: c, fn: fn})
	}
	return nil
}

// Go runs fn on a goroutine Close waits for: work a command starts that outlives it (a prompt's
// run, an abort's wait for idle). It reports false, without running fn, once Close was called.
func (c *Commands) Go(fn func(ctx context.Context)) bool {
	if !c.track() {
		return false
	}
	go func() {
		defer c.wg.Done()
		fn(c.ctx)
	}()
	return true
}

// Context returns the handle's context (cancelled by Close).
func (c *Commands) Context() context.Context { return c.ctx }

// Close stops the handle: nothing new starts, its context is cancelled (ordered functions still
// queued are skipped), and it waits until every function and goroutine it started has returned.
// It must not be called from one of them.
func (c *Commands) Close() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
}

// enqueue adds an ordered function; the command goroutine runs while the lane is not empty.
func (rt *Runtime) enqueue(o orderedCmd) {
	rt.cmdMu.Lock()
	rt.inbox = append(rt.inbox, o)
	start := !rt.working
	rt.working = true
	rt.cmdMu.Unlock()
	if start {
		go rt.work()
	}
}

// work is the command goroutine: it runs the ordered lane until it is empty.
func (rt *Runtime) work() {
	for {
		rt.cmdMu.Lock()
		if len(rt.inbox) == 0 {
			rt.working = false
			rt.cmdMu.Unlock()
			return
		}
		o := rt.inbox[0]
		rt.inbox[0] = orderedCmd{}
		rt.inbox = rt.inbox[1:]
		rt.cmdMu.Unlock()
		if o.c.ctx.Err() == nil {
			o.fn(o.c.ctx)
		}
		o.c.wg.Done()
	}
}
