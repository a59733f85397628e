package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	jsonmode "github.com/atomic-cli/atomic/mode/json"
	"github.com/atomic-cli/atomic/session"
)

// Config is what a Server reads and writes.
type Config struct {
	// In carries commands and extension_ui_response frames.
	In io.Reader
	// Out receives responses, events and extension_ui_request frames.
	Out io.Writer
	// Err receives human diagnostics; nil discards them.
	Err io.Writer
}

// flushDelay bounds how long a streamed delta (message_update, tool_execution_update) waits in
// the output buffer for the next line before it is written on its own.
const flushDelay = 16 * time.Millisecond

// Server is one RPC session over a pair of streams. Make it with NewServer, hand UI and
// ExtensionError to the session.Runtime it will drive, then call Serve once.
type Server struct {
	out  *jsonmode.Writer
	errw io.Writer
	ui   *dialogs
	// sub delivers the session's events and writes every other line, in causal order, on its
	// own goroutine (session.Subscriber): nothing the server writes runs on the agent loop.
	sub *session.Subscriber

	flushTimer   *time.Timer
	flushPending atomic.Bool

	mu    sync.Mutex // guards everything below up to the blank line
	early []item     // frames read before Serve, submitted in order when it starts
	rt    *session.Runtime
	// cmds is the runtime's command path (session.Commands): ordered commands, interrupts and
	// jobs run there, under a context Serve cancels when it ends; nil before Serve.
	cmds *session.Commands
	jobs map[*bashJob]struct{}

	prompts  atomic.Int64  // prompt goroutines running
	eof      chan struct{} // closed when the commands read before EOF have run
	stop     chan struct{} // closed when ctx.shutdown() reached an idle point
	stopOnce sync.Once
	eofOnce  sync.Once
	logOnce  sync.Once

	logins loginSet // login_provider commands in flight, for cancel_login_provider
}

// item is one frame read before Serve; eof marks the end of the input.
type item struct {
	cmd *command
	eof bool
}

// NewServer returns a Server on c and starts reading c.In at once, so extension dialogs shown
// while the runtime starts can already be answered; commands wait for Serve.
func NewServer(c Config) *Server {
	errw := c.Err
	if errw == nil {
		errw = io.Discard
	}
	s := &Server{
		out:  jsonmode.NewWriter(c.Out),
		errw: errw,
		eof:  make(chan struct{}),
		jobs: map[*bashJob]struct{}{},
		stop: make(chan struct{}),
	}
	s.ui = newDialogs(s)
	s.sub = session.NewSubscriber(s.onEvent, session.SubscribeOptions{})
	s.flushTimer = time.AfterFunc(time.Hour, s.flushNow)
	s.flushTimer.Stop()
	go s.read(c.In)
	return s
}

// UI is ctx.ui in RPC mode: dialogs and notifications become extension_ui_request frames
// (rpc-and-json.md §6). Pass it as session.Options.UI.
func (s *Server) UI() ext.UI { return s.ui }

// ExtensionError writes an extension_error line (rpc-and-json.md §5, written by the mode). Pass
// it as session.Options.OnExtensionError.
func (s *Server) ExtensionError(e *ext.Error) {
	b := append(make([]byte, 0, 128), `{"type":"extension_error","extensionPath":`...)
	b = llm.AppendJSONString(b, e.ExtensionPath)
	b = append(b, `,"event":`...)
	b = llm.AppendJSONString(b, e.Event)
	b = append(b, `,"error":`...)
	b = llm.AppendJSONString(b, e.Message)
	s.writeLine(append(b, '}'))
}

// Serve runs the protocol on rt until the input ends (EOF: the commands read before it are
// answered, then the active run is aborted), ctx is cancelled (a signal), or an extension's
// ctx.shutdown() meets an idle point. It returns the exit code, 0. Running prompts, bash commands
// and dialogs are cancelled and awaited before it returns; it does not shut the runtime down.
func (s *Server) Serve(ctx context.Context, rt *session.Runtime) int {
	cmds := rt.Commands(ctx)
	detach := rt.Attach(s.sub)
	s.mu.Lock()
	s.rt, s.cmds = rt, cmds
	early := s.early
	s.early = nil
	// Frames read before Serve keep their order: all of them take the ordered lane, where an
	// interrupt runs inline and a job starts its goroutine.
	for _, it := range early {
		if it.eof {
			s.submitEOF()
			continue
		}
		cmd := it.cmd
		if err := cmds.Submit(session.Ordered, func(ctx context.Context) { s.dispatch(ctx, cmd) }); err != nil {
			s.respond(cmd, result{err: errShuttingDown})
		}
	}
	s.mu.Unlock()

	select {
	case <-s.eof:
	case <-s.stop:
	case <-ctx.Done():
	}

	s.mu.Lock()
	jobs := make([]*bashJob, 0, len(s.jobs))
	for j := range s.jobs {
		jobs = append(jobs, j)
	}
	s.mu.Unlock()
	s.ui.close()
	for _, j := range jobs {
		j.cancel()
	}
	rt.Session().Abort()
	cmds.Close() // cancels the running commands and waits for them
	detach()
	s.sub.Close() // every line queued so far is written
	s.flushTimer.Stop()
	if err := s.out.Flush(); err != nil {
		s.logWriteError(err)
	}
	return 0
}

// read is the reader goroutine: it answers dialogs and frame errors at once, hands interrupts
// and jobs to dispatch once Serve runs, and queues the rest for the worker.
func (s *Server) read(in io.Reader) {
	lr := NewLineReader(in)
	for {
		line, err := lr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.logf("reading commands: %v", err)
			}
			// Nobody is left to answer a dialog: they resolve to their defaults.
			s.ui.close()
			s.mu.Lock()
			if s.cmds == nil {
				s.early = append(s.early, item{eof: true})
			} else {
				s.submitEOF()
			}
			s.mu.Unlock()
			return
		}
		s.receive(line)
	}
}

// receive routes one frame.
func (s *Server) receive(line []byte) {
	if _, typ, err := decodeEnvelope(line); err == nil {
		switch typ {
		case commandTypeUIResponse:
			var a uiAnswer
			if json.Unmarshal(line, &a) == nil {
				s.ui.answer(a)
			}
			return
		case commandTypeUIInput:
			var a uiInput
			if json.Unmarshal(line, &a) == nil {
				s.ui.input(a.ID, a.Data)
			}
			return
		case commandTypeUIResize:
			var a uiResize
			if json.Unmarshal(line, &a) == nil && a.Columns > 0 && a.Rows > 0 {
				s.ui.resize(a.Columns, a.Rows)
			}
			return
		}
	}
	cmd, ferr := decodeCommand(line)
	if ferr != nil {
		s.respondFailure(ferr.id, ferr.command, ferr.msg)
		return
	}
	if p, ok := cmd.params.(*providerParams); ok && cmd.Type == "login_provider" {
		cmd.login = s.logins.add(p.Provider, p.LoginID)
	}
	s.mu.Lock()
	cmds := s.cmds
	if cmds == nil {
		s.early = append(s.early, item{cmd: cmd})
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	var err error
	switch cmd.spec.lane {
	case laneOrdered:
		err = cmds.Submit(session.Ordered, func(ctx context.Context) {
			s.run(ctx, cmd)
			s.checkShutdown()
		})
	case laneJob:
		err = cmds.Submit(session.Job, func(ctx context.Context) { s.run(ctx, cmd) })
	default:
		err = cmds.Submit(session.Interrupt, func(ctx context.Context) {
			s.run(ctx, cmd)
			s.checkShutdown()
		})
	}
	if err != nil {
		if cmd.login != nil {
			s.logins.remove(cmd.login)
		}
		s.respond(cmd, result{err: errShuttingDown})
	}
}

// submitEOF queues the end of the input behind the commands read before it (s.mu held).
func (s *Server) submitEOF() {
	_ = s.cmds.Submit(session.Ordered, func(context.Context) { s.eofOnce.Do(func() { close(s.eof) }) })
}

// dispatch runs a frame read before Serve on the ordered lane: an interrupt inline, a job on a
// goroutine of its own.
func (s *Server) dispatch(ctx context.Context, cmd *command) {
	switch cmd.spec.lane {
	case laneJob:
		if !s.goTracked(func(ctx context.Context) { s.run(ctx, cmd) }) {
			s.respond(cmd, result{err: errShuttingDown})
		}
	case laneOrdered:
		s.run(ctx, cmd)
		s.checkShutdown()
	default:
		s.run(ctx, cmd)
	}
}

// errShuttingDown answers commands that arrive while Serve is ending.
var errShuttingDown = session.ErrCommandsClosed

// goTracked starts fn on a goroutine of the command path, which Serve waits for; false (fn not
// started) once Serve is ending.
func (s *Server) goTracked(fn func(ctx context.Context)) bool {
	s.mu.Lock()
	cmds := s.cmds
	s.mu.Unlock()
	return cmds != nil && cmds.Go(fn)
}

// result is a handler's outcome; silent means the handler answers (or answered) by itself.
type result struct {
	data   any
	err    error
	silent bool
}

// run executes one command and writes its response. A panicking handler is answered with an
// error and the server keeps serving.
func (s *Server) run(ctx context.Context, cmd *command) {
	s.mu.Lock()
	rt := s.rt
	s.mu.Unlock()
	var r result
	func() {
		defer func() {
			if p := recover(); p != nil {
				r = result{err: fmt.Errorf("internal error while handling %s: %v", cmd.Type, p)}
			}
		}()
		r = handlers[cmd.Type](s, ctx, rt, cmd)
	}()
	if !r.silent {
		s.respond(cmd, r)
	}
}

// respond writes the response of cmd.
func (s *Server) respond(cmd *command, r result) {
	if r.err != nil {
		s.respondFailure(cmd.ID, cmd.Type, r.err.Error())
		return
	}
	b, err := appendResponse(nil, cmd.ID, cmd.Type, r.data, "", true)
	if err != nil {
		s.respondFailure(cmd.ID, cmd.Type, fmt.Sprintf("cannot encode the %s response: %v", cmd.Type, err))
		return
	}
	s.writeLine(b)
}

func (s *Server) respondFailure(id json.RawMessage, command, msg string) {
	b, _ := appendResponse(nil, id, command, nil, msg, false)
	s.writeLine(b)
}

// writeLine queues one whole line (b is the server's from now on) behind the events published
// before it.
func (s *Server) writeLine(b []byte) {
	s.sub.Do(func() {
		if err := s.out.WriteLine(b); err != nil {
			s.logWriteError(err)
		}
	})
}

func (s *Server) logWriteError(err error) {
	s.logOnce.Do(func() { s.logf("writing to stdout: %v", err) })
}

func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.errw, "rpc: "+format+"\n", args...)
}

// onEvent streams one session event (on the subscriber's goroutine). Deltas stay buffered for
// at most flushDelay.
func (s *Server) onEvent(e session.Event) {
	if err := s.out.WriteEvent(e); err != nil {
		s.logf("%v", err)
	}
	if e.Delta() {
		if s.flushPending.CompareAndSwap(false, true) {
			s.flushTimer.Reset(flushDelay)
		}
		return
	}
	if _, ok := e.Payload.(*ext.AgentSettled); ok {
		s.checkShutdown()
	}
}

func (s *Server) flushNow() {
	s.flushPending.Store(false)
	if err := s.out.Flush(); err != nil {
		s.logWriteError(err)
	}
}

// checkShutdown ends Serve once an extension asked for shutdown and the session is idle
// (rpc-and-json.md §2.2, events.md: ctx.shutdown() waits for idle in RPC mode).
func (s *Server) checkShutdown() {
	s.mu.Lock()
	rt := s.rt
	s.mu.Unlock()
	if rt == nil || !rt.ShutdownRequested() || s.prompts.Load() > 0 || rt.Session().IsStreaming() {
		return
	}
	s.stopOnce.Do(func() { close(s.stop) })
}

// pendingPrompt is a prompt whose response waits for its preflight to end.
type pendingPrompt struct {
	id   json.RawMessage
	once sync.Once
	done chan struct{}
}

// answer writes the prompt's single response, success when err is nil; false when it was
// answered already.
func (p *pendingPrompt) answer(s *Server, err error) bool {
	first := false
	p.once.Do(func() {
		first = true
		cmd := &command{ID: p.id, Type: "prompt"}
		s.respond(cmd, result{err: err})
		close(p.done)
	})
	return first
}
