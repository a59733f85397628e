package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/internal/procgroup"
	"github.com/atomic-cli/atomic/tool"
)

// ErrUnavailable is wrapped by the errors of calls that failed because the host crashed, hung,
// was restarted or could not be started.
var ErrUnavailable = errors.New("extension host unavailable")

// process is one incarnation of the child. mu guards pending, failure and closed.
type process struct {
	sup         *Supervisor
	incarnation int
	cmd         *exec.Cmd
	out         *protocol.Writer // the child's stdin
	syncOut     *protocol.Writer // the child's fd 4
	closers     []io.Closer

	nextID   atomic.Int64
	mu       sync.Mutex
	pending  map[int64]*call
	failure  error // why the process is gone; set once
	closed   bool  // Close was asked for: an exit is not a crash
	done     chan struct{}
	waitDone chan struct{}
	// served are the cancel functions of the host's cancellable requests in progress
	// (builtin.execute), by id.
	served map[string]context.CancelFunc
	// comps are the host's components mounted in the core's UI, by host id (component.go).
	comps sync.Map
	// pickers are the open host session pickers by host id (uidialog.go).
	pickers sync.Map
	// branchWatch subscribes this host to git branch changes once (ui.onBranchChange).
	branchWatch sync.Once

	lastBeat atomic.Int64 // unix nanoseconds of the last heartbeat (or sync-channel activity)
	// serving is set while the core answers a sync request: the host is blocked waiting for
	// us, not hung.
	serving atomic.Bool
	read    readCounter // main-channel messages processed, for the sync channel's `after`

	// queued counts the event notifications sent (queued on the host); synced is the count the
	// last sync barrier covered, so a barrier with nothing new to wait for costs nothing.
	// queues says the host accepts queued event notifications (capabilities.queuedEvents).
	queues atomic.Bool
	// batches says the host takes one queued notification for all of an extension's handlers of
	// an event (capabilities.eventBatches); deltas that it keeps the partial message of a stream
	// and takes message_update as a delta (capabilities.messageDeltas). See batch.go.
	batches atomic.Bool
	deltas  atomic.Bool
	// requests says the host runs several handlers of an extension for one request event in one
	// `event` request (capabilities.requestBatches, batch.go).
	requests atomic.Bool
	// runs says the host takes a run of deltas in one message_update line (capabilities.deltaRuns).
	runs   atomic.Bool
	stream streamState
	queued atomic.Int64
	synced atomic.Int64
	syncMu sync.Mutex // one barrier at a time
}

// call is one core -> host request in flight.
type call struct {
	id   int64
	what string // the callback, for diagnostics: "tool_call handler of /x/ext.ts"
	// loading marks initialize and load: the host may run an extension's synchronous top level
	// without a heartbeat, so these are bounded by their own timeout (StartTimeout,
	// LoadTimeout), not by DeadAfter.
	loading bool
	started time.Time
	resp    chan *protocol.Message

	upMu     sync.Mutex
	updates  []json.RawMessage
	upSignal chan struct{}

	// ctxID is the context id the call handed to the host (0: none). While the host waits for a
	// dialog of that context (held > 0) the handler timeout does not run; after the last one it
	// gets the whole bound again from released.
	ctxID    int64
	heldMu   sync.Mutex
	held     int
	released time.Time
}

// remaining is how much of limit the call has left at now: limit after the start or the end of
// its last dialog, minus the time since; limit while a dialog is open.
func (c *call) remaining(limit time.Duration, now time.Time) time.Duration {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	if c.held > 0 {
		return limit
	}
	from := c.started
	if c.released.After(from) {
		from = c.released
	}
	return limit - now.Sub(from)
}

// holdDialog marks the pending calls of context ctxID as waiting for the user (a ui.* dialog the
// host asked for), so the handler timeout does not count that time; the returned function ends
// the hold.
func (p *process) holdDialog(ctxID int64) func() {
	if ctxID == 0 {
		return func() {}
	}
	p.mu.Lock()
	var held []*call
	for _, c := range p.pending {
		if c.ctxID == ctxID {
			held = append(held, c)
		}
	}
	p.mu.Unlock()
	for _, c := range held {
		c.heldMu.Lock()
		c.held++
		c.heldMu.Unlock()
	}
	return func() {
		now := time.Now()
		for _, c := range held {
			c.heldMu.Lock()
			c.held--
			c.released = now
			c.heldMu.Unlock()
		}
	}
}

func (c *call) pushUpdate(raw json.RawMessage) {
	c.upMu.Lock()
	c.updates = append(c.updates, raw)
	c.upMu.Unlock()
	select {
	case c.upSignal <- struct{}{}:
	default:
	}
}

func (c *call) takeUpdates() []json.RawMessage {
	c.upMu.Lock()
	defer c.upMu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

// readCounter counts processed main-channel messages; waitFor blocks until n were processed or
// the process is gone.
type readCounter struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    int64
	dead bool
}

func (r *readCounter) init() { r.cond = sync.NewCond(&r.mu) }

func (r *readCounter) inc() {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
	r.cond.Broadcast()
}

func (r *readCounter) kill() {
	r.mu.Lock()
	r.dead = true
	r.mu.Unlock()
	r.cond.Broadcast()
}

func (r *readCounter) waitFor(n int64) {
	r.mu.Lock()
	for r.n < n && !r.dead {
		r.cond.Wait()
	}
	r.mu.Unlock()
}

// spawn starts the child with the main channel on fds 5 (our requests) and 6 (its messages) and
// the sync channel on fds 3 and 4 (protocol.MainIn…). Its stdin is empty and its stdout and
// stderr go to the log: nothing an extension or its children print reaches the protocol.
func (s *Supervisor) spawn(incarnation int) (*process, error) {
	if s.opts.Command == nil {
		return nil, fmt.Errorf("%w: no command to start the %s host", ErrUnavailable, s.name())
	}
	argv, err := s.opts.Command()
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: no command to start the %s host", ErrUnavailable, s.name())
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.opts.Dir
	cmd.Env = s.opts.Env
	cmd.Stderr = s.opts.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	cmd.Stdout = cmd.Stderr
	// A child of the host that keeps the log open does not hold up the exit status.
	cmd.WaitDelay = 2 * time.Second
	// The pipes, in the child's fd order 3, 4, 5, 6; ours are the other ends.
	var theirs, ours []*os.File
	closeAll := func() {
		for _, f := range append(theirs, ours...) {
			f.Close()
		}
	}
	for _, hostWrites := range []bool{true, false, false, true} {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("%w: creating the %s host's channels: %v", ErrUnavailable, s.name(), err)
		}
		if hostWrites {
			theirs, ours = append(theirs, w), append(ours, r)
		} else {
			theirs, ours = append(theirs, r), append(ours, w)
		}
	}
	cmd.ExtraFiles = theirs
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("%w: starting the %s host (%s): %v", ErrUnavailable, s.name(), argv[0], err)
	}
	for _, f := range theirs {
		f.Close()
	}
	reqR, repW, mainW, mainR := ours[0], ours[1], ours[2], ours[3]
	// The host leads its own process group (setProcAttr); a watcher in that group kills it and
	// every non-detached child of the host's extensions when atomic dies, even by SIGKILL.
	group, _ := procgroup.Guard(cmd.Process.Pid) // nil where groups do not exist
	p := &process{
		sup: s, incarnation: incarnation, cmd: cmd,
		out: protocol.NewWriter(mainW), syncOut: protocol.NewWriter(repW),
		closers: []io.Closer{mainW, mainR, reqR, repW},
		pending: map[int64]*call{}, done: make(chan struct{}), waitDone: make(chan struct{}),
	}
	p.read.init()
	p.lastBeat.Store(time.Now().UnixNano())
	go p.readMain(mainR)
	go p.serveSync(reqR)
	go func() {
		err := cmd.Wait()
		if group != nil {
			group.Kill() // the host is gone: its non-detached children end with it
		}
		if err == nil {
			err = errors.New("exited")
		}
		p.fail(fmt.Errorf("the %s extension host %v", s.name(), describeExit(err)))
		close(p.waitDone)
	}()
	return p, nil
}

func describeExit(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st := ee.ProcessState; st != nil && st.Exited() {
			return fmt.Sprintf("exited with code %d", st.ExitCode())
		}
		return "was killed (" + strings.TrimPrefix(ee.Error(), "signal: ") + ")"
	}
	return err.Error()
}

// fail marks the process gone with reason (the first reason wins), fails every pending call and
// kills the child.
func (p *process) fail(reason error) {
	p.mu.Lock()
	if p.failure != nil {
		p.mu.Unlock()
		return
	}
	p.failure = reason
	p.pending = map[int64]*call{} // their callers see p.done and read the failure
	closed := p.closed
	p.mu.Unlock()
	// The supervisor learns of the failure before any caller does, so a call made right after
	// a failed one finds the restart (or the disabled host) accounted for.
	if !closed {
		p.sup.crashed(p, reason)
	}
	close(p.done)
	p.read.kill()
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	for _, c := range p.closers {
		_ = c.Close()
	}
}

// err is the failure as the error of a call that was running `what`.
func (p *process) err(what string) error {
	p.mu.Lock()
	reason := p.failure
	p.mu.Unlock()
	if reason == nil {
		reason = errors.New("stopped")
	}
	if what == "" || strings.Contains(reason.Error(), what) {
		return fmt.Errorf("%w: %v", ErrUnavailable, reason)
	}
	return fmt.Errorf("%w: %v during %s", ErrUnavailable, reason, what)
}

// alive reports whether the process has not failed.
func (p *process) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// cancelGrace is how long a cancelled call waits for the host's answer before it gives up.
const cancelGrace = time.Second

// call sends a request and waits for its result. Partial results of tool.execute go to
// onUpdate, on the calling goroutine. When ctx ends the host is sent $/cancelRequest and has
// cancelGrace to answer. A host failure fails the call with an error wrapping ErrUnavailable.
func (p *process) call(ctx context.Context, method string, params any, what string, onUpdate func(json.RawMessage)) (json.RawMessage, error) {
	return p.callWithin(ctx, 0, 0, method, params, what, onUpdate)
}

// TimeoutError is the error of a call whose handler did not settle within the handler timeout
// (Options.HandlerTimeout, settings.json extensionHandlerTimeoutMs): What names the callback
// ("the context handler of /x/ext.ts"), After the bound.
type TimeoutError struct {
	What  string
	After time.Duration
}

// Error says which callback did not settle and within how long.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s did not settle within %v (extensionHandlerTimeoutMs)", e.What, e.After)
}

// callWithin is call bounded by limit (0: unbounded): when the host has not answered within
// limit, it is sent $/cancelRequest and the call fails at once with a *TimeoutError; a late
// answer is dropped. ctxID is the context id in params (0: none): time the host spends waiting
// for a dialog of that context does not count.
func (p *process) callWithin(ctx context.Context, limit time.Duration, ctxID int64, method string, params any, what string, onUpdate func(json.RawMessage)) (json.RawMessage, error) {
	id := p.nextID.Add(1)
	c := &call{id: id, what: what, started: time.Now(), resp: make(chan *protocol.Message, 1), upSignal: make(chan struct{}, 1),
		loading: method == protocol.MethodInitialize || method == protocol.MethodLoad, ctxID: ctxID}
	p.mu.Lock()
	if p.failure != nil {
		p.mu.Unlock()
		return nil, p.err(what)
	}
	p.pending[id] = c
	p.mu.Unlock()
	if err := p.out.Request(id, method, params); err != nil {
		p.forget(id)
		if !p.alive() {
			return nil, p.err(what)
		}
		return nil, fmt.Errorf("extension host: sending %s: %w", method, err)
	}
	// The host reads requests in order: a parallel batch's next tool call may start now.
	tool.Started(ctx)
	var cancelled, expired <-chan time.Time
	var recheck *time.Timer
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		expired = t.C
	}
	ctxDone := ctx.Done()
	for {
		select {
		case m := <-c.resp:
			if onUpdate != nil {
				for _, u := range c.takeUpdates() {
					onUpdate(u)
				}
			}
			if m.Error != nil {
				return nil, m.Error
			}
			return m.Result, nil
		case <-c.upSignal:
			if onUpdate != nil {
				for _, u := range c.takeUpdates() {
					onUpdate(u)
				}
			}
		case <-p.done:
			return nil, p.err(what)
		case <-ctxDone:
			ctxDone = nil
			_ = p.out.Notify(protocol.MethodCancelRequest, protocol.CancelParams{ID: json.RawMessage(fmt.Sprint(id))})
			t := time.NewTimer(cancelGrace)
			defer t.Stop()
			cancelled = t.C
		case <-cancelled:
			p.forget(id)
			return nil, fmt.Errorf("%s: %w", what, ctx.Err())
		case <-expired:
			// A host whose heartbeat has stopped is blocked, not waiting on a promise: the monitor
			// judges it (it fails the process once the silence reaches DeadAfter, naming this call).
			// Check again shortly; a heartbeat that resumes means the handler only awaits.
			// A handler that waited for a dialog has its bound from the dialog's end.
			wait := c.remaining(limit, time.Now())
			if wait <= 0 && time.Since(time.Unix(0, p.lastBeat.Load())) >= p.sup.opts.WarnAfter && !p.serving.Load() {
				wait = 25 * time.Millisecond
			}
			if wait > 0 {
				if recheck == nil {
					recheck = time.NewTimer(wait)
					defer recheck.Stop()
				} else {
					recheck.Reset(wait)
				}
				expired = recheck.C
				continue
			}
			p.forget(id)
			_ = p.out.Notify(protocol.MethodCancelRequest, protocol.CancelParams{ID: json.RawMessage(fmt.Sprint(id))})
			return nil, &TimeoutError{What: what, After: limit}
		}
	}
}

func (p *process) forget(id int64) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// oldest returns the longest-running pending call, nil when none.
func (p *process) oldest() *call {
	p.mu.Lock()
	defer p.mu.Unlock()
	var o *call
	for _, c := range p.pending {
		if o == nil || c.started.Before(o.started) {
			o = c
		}
	}
	return o
}

// loading reports whether an initialize or load call is pending (see call.loading).
func (p *process) loading() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.pending {
		if c.loading {
			return true
		}
	}
	return false
}

// readMain reads the main channel until EOF: responses go to their calls, registrations are
// applied in order, requests run on their own goroutines.
func (p *process) readMain(r io.Reader) {
	rd := protocol.NewReader(r)
	for {
		m, err := rd.Read()
		if err != nil {
			if errors.Is(err, io.EOF) || !p.alive() || errors.Is(err, os.ErrClosed) {
				break
			}
			p.sup.logf("extension host (%s): %v", p.sup.name(), err)
			p.read.inc()
			continue
		}
		p.handle(m)
		p.read.inc()
	}
	// EOF before the exit status: wait for it, so the failure names the exit code.
	select {
	case <-p.waitDone:
	case <-time.After(2 * time.Second):
		p.fail(fmt.Errorf("the %s extension host closed its output", p.sup.name()))
	}
}

func (p *process) handle(m *protocol.Message) {
	switch {
	case m.IsResponse():
		id, ok := m.IntID()
		if !ok {
			return
		}
		p.mu.Lock()
		c := p.pending[id]
		if c != nil && c.loading {
			p.lastBeat.Store(time.Now().UnixNano()) // the gap of a synchronous load is over
		}
		delete(p.pending, id)
		p.mu.Unlock()
		if c != nil {
			c.resp <- m
		}
	case m.Method == protocol.MethodHeartbeat:
		p.lastBeat.Store(time.Now().UnixNano())
	case m.Method == protocol.MethodToolUpdate:
		// The partial result is passed on as the host wrote it: a tool's is a ToolResult, but a
		// provider.stream's is a pi stream event (type, delta…) that ToolResult would drop.
		var u struct {
			ID            json.RawMessage `json:"id"`
			PartialResult json.RawMessage `json:"partialResult"`
		}
		if json.Unmarshal(m.Params, &u) != nil {
			return
		}
		id, err := jsonInt(u.ID)
		if err != nil {
			return
		}
		p.mu.Lock()
		c := p.pending[id]
		p.mu.Unlock()
		if c != nil && len(u.PartialResult) > 0 {
			c.pushUpdate(u.PartialResult)
		}
	case m.Method == protocol.MethodCancelRequest && m.IsNotification():
		p.cancelServed(m.Params)
	case m.IsNotification():
		p.sup.notification(p, m)
	case m.IsRequest() && m.Method == protocol.MethodBuiltinExecute:
		p.serveBuiltin(m)
	case m.IsRequest() && m.Method == protocol.MethodLLMStream:
		p.serveCancellable(m, func(ctx context.Context) (any, error) {
			return p.sup.llmStream(ctx, p, m.ID, m.Params)
		})
	case m.IsRequest() && isDialog(m.Method):
		p.serveDialog(m) // uidialog.go: cancellable by the extension's AbortSignal
	case m.IsRequest():
		go func() {
			res, err := p.sup.request(p, m.Method, m.Params)
			_ = p.out.Reply(m.ID, res, err)
		}()
	}
}

func jsonInt(raw json.RawMessage) (int64, error) {
	var n int64
	err := json.Unmarshal(raw, &n)
	return n, err
}

// serveSync answers the sync channel: each request is answered after the main-channel messages
// written before it were processed, on this goroutine, in order.
func (p *process) serveSync(r io.Reader) {
	rd := protocol.NewReader(r)
	for {
		m, err := rd.Read()
		if err != nil {
			if errors.Is(err, io.EOF) || !p.alive() || errors.Is(err, os.ErrClosed) {
				return
			}
			continue
		}
		p.serving.Store(true)
		p.read.waitFor(m.After)
		res, herr := p.sup.request(p, m.Method, m.Params)
		p.lastBeat.Store(time.Now().UnixNano())
		p.serving.Store(false)
		if len(m.ID) > 0 {
			if err := p.syncOut.Reply(m.ID, res, herr); err != nil && p.alive() {
				p.sup.logf("extension host (%s): answering %s: %v", p.sup.name(), m.Method, err)
			}
		}
	}
}

// monitor watches the heartbeat: after warn it names the callback in progress, after dead it
// fails the process (and so restarts it) unless an initialize or load is pending, which its
// own timeout bounds.
func (p *process) monitor(warn, dead time.Duration) {
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	lastTick := time.Now()
	warned := false
	for {
		select {
		case <-p.done:
			return
		case now := <-t.C:
			// A long pause of our own (the machine slept, the process was stopped) is not the
			// child's fault.
			if now.Sub(lastTick) > dead/2 || p.serving.Load() {
				p.lastBeat.Store(now.UnixNano())
			}
			lastTick = now
			gap := now.Sub(time.Unix(0, p.lastBeat.Load()))
			if gap < warn {
				warned = false
				continue
			}
			what := "no callback (idle)"
			if c := p.oldest(); c != nil {
				what = c.what
			}
			// loading() is read before lastBeat again: a load answered in between has
			// stored its beat before leaving pending.
			if gap >= dead && !p.loading() && now.Sub(time.Unix(0, p.lastBeat.Load())) >= dead {
				p.fail(fmt.Errorf("the %s extension host was unresponsive for %v (no heartbeat) while running %s", p.sup.name(), dead, what))
				return
			}
			if !warned && gap >= p.sup.opts.NoticeAfter {
				warned = true
				p.sup.logf("extension host (%s): %s has blocked the host for %v", p.sup.name(), what, gap.Round(time.Millisecond))
			}
		}
	}
}

// stop asks the child to shut down, then kills it after grace.
func (p *process) stop(grace time.Duration) {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	if !p.alive() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	_, _ = p.call(ctx, protocol.MethodShutdown, nil, "shutdown", nil)
	select {
	case <-p.waitDone:
	case <-ctx.Done():
	}
	p.fail(errors.New("stopped"))
	<-p.waitDone
}
