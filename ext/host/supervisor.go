package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// Options configure a Supervisor.
type Options struct {
	// Name names the host in messages ("node").
	Name string
	// Command returns the command line that starts the host (program first); it runs before
	// each start, so it may prepare files. An error disables the host and is what every
	// extension of it reports.
	Command func() ([]string, error)
	// Dir and Env are the host's working directory and environment (nil: atomic's).
	Dir string
	Env []string
	// Stderr receives the host's stderr (its log, and what extensions print); nil is os.Stderr.
	Stderr io.Writer
	// Prepare returns the code the host runs for an extension path (the Node host: the
	// TypeScript transpiled to CommonJS). nil sends no code and lets the host read the path.
	Prepare func(path string) (string, error)
	// CheckInit validates the host's initialize result (a minimum runtime version); an error
	// disables the host.
	CheckInit func(protocol.InitializeResult) error
	// Version, AgentDir, AppName and ConfigDirName are sent in initialize.
	Version, AgentDir, AppName, ConfigDirName string
	// Logf receives diagnostics: a callback blocking the host, restarts. nil discards them.
	Logf func(format string, args ...any)

	// HandlerTimeout bounds every awaited event handler of the host (settings.json
	// extensionHandlerTimeoutMs): past it the dispatch fails with a *TimeoutError naming the
	// handler, so a fail-closed event blocks and a transform keeps its value. 0 leaves handlers
	// unbounded (the runner's guard still bounds fail-closed events).
	HandlerTimeout time.Duration
	// ShellPath is settings.json shellPath, handed to the host in initialize for its
	// createLocalBashOperations.
	ShellPath string
	// WarnAfter is the heartbeat gap after which the callback in progress is named (250 ms);
	// DeadAfter the gap after which the host is declared unresponsive and restarted (default:
	// HandlerTimeout, or 1 s without one), so a host is restarted only when it stays
	// unresponsive as long as a handler may run.
	WarnAfter, DeadAfter time.Duration
	// NoticeAfter is the heartbeat gap after which Logf names the callback blocking the host
	// (default WarnAfter). The interactive mode, whose log is the transcript, sets it longer so
	// a short stall on a loaded machine is not reported to the user.
	NoticeAfter time.Duration
	// StartTimeout bounds starting and initializing the host (10 s); LoadTimeout bounds one
	// extension factory, async work included (30 s).
	StartTimeout, LoadTimeout time.Duration
	// MaxRestarts within RestartWindow (5 in 30 s) disable the host for the rest of the run.
	MaxRestarts   int
	RestartWindow time.Duration
}

func (o *Options) defaults() {
	if o.Name == "" {
		o.Name = "extension"
	}
	if o.WarnAfter <= 0 {
		o.WarnAfter = 250 * time.Millisecond
	}
	if o.NoticeAfter < o.WarnAfter {
		o.NoticeAfter = o.WarnAfter
	}
	if o.DeadAfter <= 0 {
		o.DeadAfter = max(o.HandlerTimeout, time.Second)
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 10 * time.Second
	}
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = 30 * time.Second
	}
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = 5
	}
	if o.RestartWindow <= 0 {
		o.RestartWindow = 30 * time.Second
	}
	if o.AppName == "" {
		o.AppName = "atomic"
	}
	if o.ConfigDirName == "" {
		o.ConfigDirName = ".atomic"
	}
}

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("extension host: closed")

// Supervisor runs one extension host child process for a fixed list of extension paths and
// keeps it alive: it starts it on first use (or at Start), restarts it after a crash or a hang,
// and re-loads the extensions of the current runtime into the new process. mu guards every
// field below it.
type Supervisor struct {
	opts  Options
	paths []string

	providers providerTable // the host's autocomplete providers (uisurf.go)
	renders   renderTable   // invalidate callbacks of host renderers (render.go)

	mu          sync.Mutex
	proc        *process
	starting    chan struct{} // closed when the start in progress ends
	disabled    error         // why the host cannot run (not found, crash loop)
	incarnation int
	restarts    []time.Time
	closed      bool
	gen         *generation
	gens        map[int64]*generation
	nextGen     int64
	early       []*future // code prepared by Start, used by the first generation

	work worker
}

// worker runs functions in order on one goroutine (started on first use, ended by stop). Its
// queue is unbounded, so the reader that posts never blocks. mu guards the rest.
type worker struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []func()
	running bool
	stopped bool
}

func (w *worker) post(fn func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.queue = append(w.queue, fn)
	if w.cond == nil {
		w.cond = sync.NewCond(&w.mu)
	}
	if !w.running {
		w.running = true
		go w.run()
	}
	w.cond.Signal()
}

func (w *worker) run() {
	w.mu.Lock()
	for {
		for len(w.queue) == 0 && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		fn := w.queue[0]
		w.queue = w.queue[1:]
		w.mu.Unlock()
		fn()
		w.mu.Lock()
	}
}

func (w *worker) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.queue = nil
	if w.cond != nil {
		w.cond.Broadcast()
	}
}

// New returns a Supervisor for the extensions at paths (in load order). It starts nothing; the
// host starts at Start or when the first factory runs.
func New(opts Options, paths []string) *Supervisor {
	opts.defaults()
	return &Supervisor{opts: opts, paths: append([]string(nil), paths...), gens: map[int64]*generation{}}
}

// Paths returns the extension paths, in load order.
func (s *Supervisor) Paths() []string { return append([]string(nil), s.paths...) }

// Factories returns one ext.Factory per path, for ext.Runner.Load (session.Options.Extensions):
// running factory 0 starts a new generation (a runtime: startup, reload, a replaced session),
// and each factory loads its extension into the host and registers what it registered.
func (s *Supervisor) Factories() []ext.Factory {
	fs := make([]ext.Factory, len(s.paths))
	for i := range s.paths {
		fs[i] = func(api ext.API) error { return s.load(i, api) }
	}
	return fs
}

// Start begins starting the host and preparing the extensions' code in the background, so that
// the factories find them ready. It is optional.
func (s *Supervisor) Start() {
	s.mu.Lock()
	if s.early == nil && s.opts.Prepare != nil {
		s.early = s.prepareAll()
	}
	s.mu.Unlock()
	go func() { _, _ = s.ensure() }()
}

// Close shuts the host down (asking it to exit, then killing it after a second). Later calls
// fail with ErrClosed.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	p := s.proc
	starting := s.starting
	s.mu.Unlock()
	if starting != nil {
		<-starting
		s.mu.Lock()
		p = s.proc
		s.mu.Unlock()
	}
	if p != nil {
		p.stop(time.Second)
	}
	s.work.stop()
	return nil
}

// Sent returns the number of messages the core has written to the current host process
// (requests, notifications and main-channel replies), for tests and benchmarks.
func (s *Supervisor) Sent() int64 {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return 0
	}
	return p.out.Count()
}

// Restarts returns how many times the host was restarted after a crash or a hang.
func (s *Supervisor) Restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.incarnation-1, 0)
}

func (s *Supervisor) name() string { return s.opts.Name }

func (s *Supervisor) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// future is the prepared code of one extension.
type future struct {
	done chan struct{}
	code string
	err  error
}

func (s *Supervisor) prepareAll() []*future {
	out := make([]*future, len(s.paths))
	for i, path := range s.paths {
		f := &future{done: make(chan struct{})}
		out[i] = f
		go func() {
			defer close(f.done)
			f.code, f.err = s.opts.Prepare(path)
		}()
	}
	return out
}

// ensure returns the running, initialized process, starting (or restarting) it if needed.
func (s *Supervisor) ensure() (*process, error) {
	for {
		s.mu.Lock()
		switch {
		case s.closed:
			s.mu.Unlock()
			return nil, ErrClosed
		case s.disabled != nil:
			err := s.disabled
			s.mu.Unlock()
			return nil, err
		case s.starting != nil:
			ch := s.starting
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-time.After(s.opts.StartTimeout):
				return nil, fmt.Errorf("%w: the %s host did not start within %v", ErrUnavailable, s.name(), s.opts.StartTimeout)
			}
		case s.proc != nil && s.proc.alive():
			p := s.proc
			s.mu.Unlock()
			return p, nil
		}
		ch := make(chan struct{})
		s.starting = ch
		s.incarnation++
		inc := s.incarnation
		s.mu.Unlock()

		p, err := s.start(inc)

		s.mu.Lock()
		s.starting = nil
		if err == nil {
			s.proc = p
		}
		s.mu.Unlock()
		close(ch)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// start spawns and initializes incarnation inc and, after a restart, loads the extensions of
// the current generation again.
func (s *Supervisor) start(inc int) (*process, error) {
	p, err := s.spawn(inc)
	if err != nil {
		s.disable(err)
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.StartTimeout)
	defer cancel()
	var res protocol.InitializeResult
	raw, err := p.call(ctx, protocol.MethodInitialize, protocol.InitializeParams{
		ProtocolVersion: protocol.Version, Name: "atomic", Version: s.opts.Version,
		AppName: s.opts.AppName, ConfigDirName: s.opts.ConfigDirName, AgentDir: s.opts.AgentDir,
		Events:           eventNames(),
		EventRules:       eventRules(),
		Capabilities:     protocol.CoreCapabilities{SyncChannel: &protocol.SyncChannel{Request: protocol.SyncRequest, Response: protocol.SyncResponse}},
		HandlerTimeoutMs: s.opts.HandlerTimeout.Milliseconds(),
		ShellPath:        s.opts.ShellPath,
	}, "initialize", nil)
	if err == nil {
		err = jsonUnmarshal(raw, &res)
	}
	if err == nil && res.ProtocolVersion != protocol.Version {
		err = fmt.Errorf("the %s host speaks protocol version %d, atomic speaks %d", s.name(), res.ProtocolVersion, protocol.Version)
	}
	if err == nil && s.opts.CheckInit != nil {
		err = s.opts.CheckInit(res)
	}
	if err != nil {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.fail(err)
		err = fmt.Errorf("%w: initializing the %s host: %v", ErrUnavailable, s.name(), err)
		s.disable(err)
		return nil, err
	}
	p.queues.Store(res.Capabilities["queuedEvents"] == true)
	p.batches.Store(res.Capabilities["eventBatches"] == true)
	p.deltas.Store(res.Capabilities["messageDeltas"] == true)
	p.requests.Store(res.Capabilities["requestBatches"] == true)
	p.runs.Store(res.Capabilities["deltaRuns"] == true)
	go p.monitor(s.opts.WarnAfter, s.opts.DeadAfter)
	if inc > 1 {
		s.reload(p)
	}
	return p, nil
}

// reload loads the extensions of the current generation into a restarted process.
func (s *Supervisor) reload(p *process) {
	s.mu.Lock()
	g := s.gen
	s.mu.Unlock()
	if g == nil {
		return
	}
	for i, path := range s.paths {
		code, loaded := g.loadedCode(i)
		if !loaded {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.LoadTimeout)
		_, err := p.call(ctx, protocol.MethodLoad, protocol.LoadParams{Generation: g.n, Ext: i, Path: path, Code: code}, "loading "+path, nil)
		cancel()
		if err != nil {
			s.logf("extension host (%s): reloading %s after the restart failed: %v", s.name(), path, errorText(err))
			continue
		}
		g.dropStale(i, p.incarnation)
	}
}

func (s *Supervisor) disable(err error) {
	s.mu.Lock()
	if s.disabled == nil {
		s.disabled = err
	}
	s.mu.Unlock()
}

// crashed is called once when a process dies without Close: the host restarts in the
// background unless it keeps failing.
func (s *Supervisor) crashed(p *process, reason error) {
	s.mu.Lock()
	if s.proc != p || s.closed {
		s.mu.Unlock()
		return
	}
	s.proc = nil
	now := time.Now()
	recent := s.restarts[:0]
	for _, t := range s.restarts {
		if now.Sub(t) < s.opts.RestartWindow {
			recent = append(recent, t)
		}
	}
	s.restarts = append(recent, now)
	if len(s.restarts) > s.opts.MaxRestarts {
		s.disabled = fmt.Errorf("%w: the %s host failed %d times in %v and is disabled for this run (last: %v)", ErrUnavailable, s.name(), len(s.restarts), s.opts.RestartWindow, reason)
		s.mu.Unlock()
		s.logf("extension host (%s): %v", s.name(), s.disabled)
		return
	}
	s.mu.Unlock()
	s.logf("extension host (%s): %v; restarting it", s.name(), reason)
	go func() { _, _ = s.ensure() }()
}

// current returns the live process if it is incarnation inc (0: any), without starting one.
func (s *Supervisor) current(inc int) *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || !s.proc.alive() || (inc != 0 && s.proc.incarnation != inc) {
		return nil
	}
	return s.proc
}

// post runs fn on the supervisor's worker goroutine, in order.
func (s *Supervisor) post(fn func()) { s.work.post(fn) }

// eventRules are the event table's columns a host applies (queued, ordered, editable, signal,
// frozen, and whether a batched request stops at a result or an error), by canonical name; rows
// with none are left out.
func eventRules() map[string]protocol.EventRule {
	out := map[string]protocol.EventRule{}
	for _, sp := range ext.Table {
		r := protocol.EventRule{Queued: sp.Queued, Ordered: sp.Ordered, Editable: sp.Editable, Signal: sp.Signal, Frozen: sp.Frozen,
			Results: !sp.Queued && sp.Combine != ext.Notify, FailClosed: sp.Errors == ext.FailClosed}
		if r.Queued || r.Ordered || len(r.Editable) > 0 || r.Signal || len(r.Frozen) > 0 || r.Results || r.FailClosed {
			out[sp.Name] = r
		}
	}
	return out
}

func eventNames() []string {
	var out []string
	for _, sp := range ext.Table {
		out = append(out, sp.Name)
		out = append(out, sp.Aliases...)
	}
	return out
}

// handlerError is the error a handler's event call reports: a *TimeoutError as it is (the
// runner names the unsettled handler from it), any other error as its message without the
// protocol's wrapping.
func handlerError(err error) error {
	var te *TimeoutError
	if errors.As(err, &te) {
		return err
	}
	return errors.New(errorText(err))
}

// errorText is the message of err without the protocol's wrapping.
func errorText(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}
