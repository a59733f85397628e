package ext

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-cli/atomic/tool"
)

// Event is implemented by every payload type of the table; R is the event's result type. The
// methods are unexported so only this package declares events.
type Event[R any] interface {
	eventID() EventID
	resultOf(R)
}

// None is the result type of notification events.
type None = *struct{}

// Handler is the untyped form of a subscribed handler: payload is the event's payload pointer,
// the result the event's result type (a nil pointer: no result).
type Handler func(ctx Context, payload any) (any, error)

type handler struct {
	ext *Extension
	seq int
	fn  Handler
}

// Error is a handler failure reported to the runner's error listeners (the `extension_error`
// of rpc-and-json.md §5).
type Error struct {
	ExtensionPath string `json:"extensionPath"`
	Event         string `json:"event"`
	Err           error  `json:"-"`
	Message       string `json:"error"`
}

// Error names the extension, the event and the handler's error.
func (e *Error) Error() string {
	return fmt.Sprintf("extension %s: %s: %v", e.ExtensionPath, e.Event, e.Err)
}

// Unwrap returns the handler's error.
func (e *Error) Unwrap() error { return e.Err }

// ErrBlocked is wrapped by the error Emit returns when a fail-closed handler failed.
var ErrBlocked = errors.New("blocked by a failing extension handler")

// Runner dispatches events to the handlers of loaded extensions. The zero value is not usable;
// call NewRunner.
type Runner struct {
	handlers atomic.Pointer[[][]handler] // copy-on-write, indexed by EventID
	mu       sync.Mutex                  // guards registration, exts, listeners, seq, bound, buffered
	exts     []*Extension
	seq      int
	onError  []func(*Error)
	newCtx   func(ctx context.Context) Context
	bound    bool
	buffered map[EventID][]func()

	stale atomic.Bool  // set when the session is replaced or reloaded
	guard atomic.Int64 // the fail-closed bound in nanoseconds (SetGuardTimeout); 0: GuardTimeout
	// dialogs counts the user dialogs open (HoldGuards) and released is when the last one closed
	// (unix nanoseconds): the user's time does not count against a fail-closed guard.
	dialogs  atomic.Int64
	released atomic.Int64
	reg      registry
	host     Host
	busOnce  sync.Once
	evbus    *Bus

	qmu     sync.Mutex // guards queue, pending, running
	qcond   *sync.Cond // signalled when pending drops to 0
	queue   []func()
	pending int  // queued plus running deliveries
	running bool // the delivery goroutine is active

	wfOnce sync.Once            // guards wf
	wf     *WorkflowActivityHub // workflow activity hub (workflow.go)
	prov   providerState        // providers registered by extensions (provider.go)
}

// NewRunner returns a runner with no extensions. newCtx builds the Context handed to the
// handlers of one dispatch; nil gives handlers a Context whose every operation fails with
// ErrNoSession.
func NewRunner(newCtx func(ctx context.Context) Context) *Runner {
	r := &Runner{newCtx: newCtx, buffered: map[EventID][]func(){}}
	empty := make([][]handler, len(Table))
	r.handlers.Store(&empty)
	return r
}

// SetContextFactory replaces the factory of handler contexts (the session sets it when it binds).
func (r *Runner) SetContextFactory(newCtx func(ctx context.Context) Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.newCtx = newCtx
}

// OnError adds a listener for handler errors of isolate events (and of fail-closed ones, which
// are also returned to the emitter).
func (r *Runner) OnError(fn func(*Error)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onError = append(r.onError, fn)
}

// Extensions returns the loaded extensions in load order.
func (r *Runner) Extensions() []*Extension {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Extension(nil), r.exts...)
}

func (r *Runner) addExtension(e *Extension) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.index = len(r.exts)
	r.exts = append(r.exts, e)
}

// subscribe adds fn for event id; handlers stay sorted by (extension load index, registration
// order). It returns a function that removes the handler.
func (r *Runner) subscribe(ext *Extension, id EventID, fn Handler) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	h := handler{ext: ext, seq: r.seq, fn: fn}
	old := *r.handlers.Load()
	next := make([][]handler, len(old))
	copy(next, old)
	list := append([]handler(nil), old[id]...)
	i := len(list)
	for i > 0 && list[i-1].ext.index > ext.index {
		i--
	}
	list = append(list, handler{})
	copy(list[i+1:], list[i:])
	list[i] = h
	next[id] = list
	r.handlers.Store(&next)
	seq := h.seq
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		cur := *r.handlers.Load()
		next := make([][]handler, len(cur))
		copy(next, cur)
		var kept []handler
		for _, h := range cur[id] {
			if h.seq != seq {
				kept = append(kept, h)
			}
		}
		next[id] = kept
		r.handlers.Store(&next)
	}
}

// Has reports whether any handler is subscribed to the event. Emitters that build an expensive
// payload check it first (events.md §1.1).
func (r *Runner) Has(id EventID) bool {
	if r == nil {
		return false
	}
	return len((*r.handlers.Load())[id]) > 0
}

// HasName is Has by event name or alias; unknown names report false.
func (r *Runner) HasName(name string) bool {
	id, ok := byName[name]
	return ok && r.Has(id)
}

// Bind marks the runner bound to a session: events emitted before it with a Buffer in their
// table row were kept (drop-oldest) and are delivered now, in order, on the notification queue.
func (r *Runner) Bind() {
	r.mu.Lock()
	r.bound = true
	pending := r.buffered
	r.buffered = map[EventID][]func(){}
	r.mu.Unlock()
	for id := range Table {
		for _, fn := range pending[EventID(id)] {
			r.post(fn)
		}
	}
	r.WorkflowActivity().bind() // workflow hooks held during loading (workflow.go)
	r.flushProviders()          // providers registered during loading (provider.go)
}

// Emit dispatches event e to its handlers and folds their results by the event's Combine rule
// (events.md §1, §4). It returns the payload as the last handler left it (chained events change
// it), the combined result (the zero R when no handler gave one) and, for fail-closed events
// only, an error wrapping ErrBlocked when a handler failed or panicked. Isolate errors are
// reported to the OnError listeners and never returned.
//
// With no subscriber Emit returns e at once without allocating. Fire-and-forget events are
// queued and delivered in order on the runner's notification goroutine; Emit then returns e and
// the zero R.
func Emit[R any, E any, PE interface {
	*E
	Event[R]
}](r *Runner, ctx context.Context, e E) (E, R, error) {
	var zero R
	if r == nil {
		return e, zero, nil
	}
	var probe PE
	id := probe.eventID()
	hs := (*r.handlers.Load())[id]
	spec := &Table[id]
	if len(hs) == 0 && spec.Buffer == 0 {
		return e, zero, nil
	}
	p := new(E)
	*p = e
	if spec.Buffer > 0 {
		r.mu.Lock()
		if !r.bound {
			q := append(r.buffered[id], func() { r.dispatch(ctx, spec, PE(p)) })
			if len(q) > spec.Buffer {
				q = q[len(q)-spec.Buffer:]
			}
			r.buffered[id] = q
			r.mu.Unlock()
			return e, zero, nil
		}
		r.mu.Unlock()
		if len(hs) == 0 {
			return e, zero, nil
		}
	}
	if !spec.Awaited {
		r.post(func() { r.dispatch(ctx, spec, PE(p)) })
		return e, zero, nil
	}
	var res any
	var err error
	if spec.Errors == FailClosed {
		// A guard that hangs blocks (events.md §4 row 7): wait at most GuardTimeout, or until
		// ctx ends, then fail closed while the handler is left to finish on its own. The payload
		// it may still mutate is a private copy.
		res, err = r.dispatchGuard(ctx, spec, PE(p))
		if err != nil {
			return e, out0[R](res), err
		}
	} else {
		res, err = r.dispatch(ctx, spec, PE(p))
	}
	out, _ := res.(R)
	return *p, out, err
}

func out0[R any](res any) R {
	out, _ := res.(R)
	return out
}

// GuardTimeout bounds how long a fail-closed event (tool_call) waits for its handlers; when it
// passes, the operation is blocked (events.md §4 row 7). It can be changed before dispatching;
// a runner's SetGuardTimeout overrides it.
var GuardTimeout = 30 * time.Second

// SetGuardTimeout sets this runner's bound for fail-closed events (settings.json
// extensionHandlerTimeoutMs); d <= 0 restores GuardTimeout.
func (r *Runner) SetGuardTimeout(d time.Duration) { r.guard.Store(int64(max(d, 0))) }

// HoldGuards says a user dialog is open (an extension asked the user something): until the
// returned function is called, and for the whole guard bound after it, no fail-closed guard
// gives up, since the time is the user's, not the handler's.
func (r *Runner) HoldGuards() (release func()) {
	r.dialogs.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			r.released.Store(time.Now().UnixNano())
			r.dialogs.Add(-1)
		})
	}
}

// guardLeft is how much longer a guard that started at start and is bounded by limit waits at
// now: limit while a dialog is open, else limit from the later of start and the last dialog's
// end, minus the time since.
func (r *Runner) guardLeft(start, now time.Time, limit time.Duration) time.Duration {
	if r.dialogs.Load() > 0 {
		return limit
	}
	from := start
	if rel := time.Unix(0, r.released.Load()); rel.After(from) {
		from = rel
	}
	return limit - now.Sub(from)
}

func (r *Runner) guardTimeout() time.Duration {
	if d := r.guard.Load(); d > 0 {
		return time.Duration(d)
	}
	return GuardTimeout
}

// guardKey keys the context value through which dispatch tells dispatchGuard whose handler of a
// fail-closed event is running, so a timeout names that extension.
type guardKey struct{}

func (r *Runner) dispatchGuard(ctx context.Context, spec *Spec, payload any) (any, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	running := new(atomic.Pointer[Extension])
	ctx = context.WithValue(ctx, guardKey{}, running)
	type outcome struct {
		res any
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := r.dispatch(ctx, spec, payload)
		done <- outcome{res, err}
	}()
	limit := r.guardTimeout()
	start := time.Now()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case o := <-done:
			return o.res, o.err
		case now := <-timer.C:
			if left := r.guardLeft(start, now, limit); left > 0 {
				timer.Reset(left)
				continue
			}
			path := "(unknown extension)"
			if e := running.Load(); e != nil {
				path = e.Path
			}
			cause := fmt.Errorf("the %s handler of %s did not answer within %s", spec.Name, path, limit)
			r.report(&Error{ExtensionPath: path, Event: spec.Name, Err: cause, Message: cause.Error()})
			return nil, fmt.Errorf("%w: %v", ErrBlocked, cause)
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %s aborted: %v", ErrBlocked, spec.Name, ctx.Err())
		}
	}
}

// chainedPrompter is implemented by payloads that chain the system prompt (before_agent_start).
type chainedPrompter interface{ chainedPrompt() string }

// SystemPromptSetter is implemented by contexts whose GetSystemPrompt follows the system prompt
// as chained so far: during before_agent_start each handler's ctx.getSystemPrompt() returns the
// prompt the previous handlers left (events.md §1.3).
type SystemPromptSetter interface{ SetSystemPrompt(prompt string) }

// applier is implemented by payloads of chained and accumulating events: it folds one
// handler's result into the payload, so the next handler sees it. An error rejects that result
// (reported; the payload is unchanged).
type applier interface{ apply(result any) error }

// settable is implemented by result types: isSet reports whether the result sets anything
// (a nil pointer does not).
type settable interface{ isSet() bool }

// decisive is implemented by results of first-wins events.
type decisive interface{ decisive() bool }

// vetoing is implemented by results of veto events.
type vetoing interface{ vetoes() bool }

func isSet(v any) bool {
	if v == nil {
		return false
	}
	if s, ok := v.(settable); ok {
		return s.isSet()
	}
	return true
}

// dispatch runs the handlers of one event per its spec and returns the combined result.
func (r *Runner) dispatch(goctx context.Context, spec *Spec, payload any) (any, error) {
	hs := (*r.handlers.Load())[spec.ID]
	if len(hs) == 0 {
		return nil, nil
	}
	if goctx == nil {
		goctx = context.Background()
	}
	c := r.context(goctx)
	if spec.Concurrent {
		r.dispatchConcurrent(spec, c, payload, hs)
		return nil, nil
	}
	f := folding{r: r, spec: spec, goctx: goctx, payload: payload}
	chained, _ := payload.(chainedPrompter)
	setter, _ := c.(SystemPromptSetter)
	var running *atomic.Pointer[Extension]
	if spec.Errors == FailClosed {
		running, _ = goctx.Value(guardKey{}).(*atomic.Pointer[Extension])
	}
	for _, h := range hs {
		fn := h.fn
		for fn != nil {
			if running != nil {
				running.Store(h.ext)
			}
			if chained != nil && setter != nil {
				setter.SetSystemPrompt(chained.chainedPrompt())
			}
			res, err := r.call(fn, c, payload)
			fn = nil
			if o, ok := res.(*Outcomes); ok && err == nil {
				// Several handlers of the extension ran in one go: each outcome counts as one
				// handler's, then Rest runs the ones after them on the payload folded so far.
				for _, oc := range o.Each {
					if end, ret, failed := f.fold(h, oc.Result, oc.Err); end {
						return ret, failed
					}
				}
				fn = o.Rest
				continue
			}
			if end, ret, failed := f.fold(h, res, err); end {
				return ret, failed
			}
		}
	}
	return f.combined(), nil
}

// Outcomes is what a Handler returns when it stands for several handlers of its extension that
// ran together (a child host runs an extension's handlers of one event in one round trip): the
// outcome of each handler that ran, in order, and Rest, which runs the handlers after them on the
// payload as the outcomes left it (nil: none are left). The runner folds each outcome as the
// result or error of one handler of the extension (each error is reported on its own), and calls
// Rest unless the dispatch ended (a decisive result, a veto, a fail-closed error).
type Outcomes struct {
	Each []Outcome
	Rest Handler
}

// Outcome is the result (nil: none) or the error of one handler within Outcomes.
type Outcome struct {
	Result any
	Err    error
}

// folding is one dispatch's fold of its handlers' results: result is the combined result so far.
type folding struct {
	r       *Runner
	spec    *Spec
	goctx   context.Context
	payload any
	result  any
}

// fold applies one handler's result or error by the event's rules; end says the dispatch is over,
// with ret and failed its outcome (a decisive result, a veto, a fail-closed error or abort).
func (f *folding) fold(h handler, res any, err error) (end bool, ret any, failed error) {
	r, spec, payload := f.r, f.spec, f.payload
	if err == nil {
		res, err = checkResult(spec, payload, res)
	}
	if err != nil {
		e := &Error{ExtensionPath: h.ext.Path, Event: spec.Name, Err: err, Message: err.Error()}
		r.report(e)
		if spec.Errors == FailClosed {
			return true, f.combined(), fmt.Errorf("%w: extension %s failed in %s: %v", ErrBlocked, h.ext.Path, spec.Name, err)
		}
		return false, nil, nil
	}
	switch spec.Combine {
	case Notify:
	case Chain, ChainPatch, Accumulate:
		if !isSet(res) {
			break
		}
		if err := applyResult(payload, h.ext.Path, res); err != nil {
			r.report(&Error{ExtensionPath: h.ext.Path, Event: spec.Name, Err: err, Message: err.Error()})
			break
		}
		f.result = res
	case FirstWins:
		if d, ok := res.(decisive); ok && isSet(res) && d.decisive() {
			return true, res, nil
		}
	case LastWins:
		if isSet(res) {
			f.result = res
		}
	case Veto:
		if !isSet(res) {
			break
		}
		if err := applyResult(payload, h.ext.Path, res); err != nil {
			r.report(&Error{ExtensionPath: h.ext.Path, Event: spec.Name, Err: err, Message: err.Error()})
			break
		}
		if v, ok := res.(vetoing); ok && v.vetoes() {
			return true, res, nil
		}
		f.result = res
	}
	if f.goctx.Err() != nil && spec.Errors == FailClosed {
		return true, f.combined(), fmt.Errorf("%w: %s aborted: %v", ErrBlocked, spec.Name, f.goctx.Err())
	}
	return false, nil, nil
}

// combined is the dispatch's result: the one the combine rule kept, unless the payload keeps
// another (keeper).
func (f *folding) combined() any {
	if k, ok := f.payload.(keeper); ok {
		if kept := k.kept(); kept != nil {
			return kept
		}
	}
	return f.result
}

// sourcedApplier is an applier that records which extension contributed each result
// (resources_discover tags every path with its extension, events.md §3.1).
type sourcedApplier interface {
	applyFrom(extensionPath string, result any) error
}

func applyResult(payload any, extensionPath string, res any) error {
	if a, ok := payload.(sourcedApplier); ok {
		return a.applyFrom(extensionPath, res)
	}
	if a, ok := payload.(applier); ok {
		return a.apply(res)
	}
	return nil
}

// keeper is implemented by payloads whose combined result is not the last one set: kept returns
// it (nil: the combine rule's result stands). session_stop keeps the first continuation.
type keeper interface{ kept() any }

// requiresResult is implemented by payloads of events whose handlers must return a result; a
// handler that returns none is reported as failed (project_trust, events.md §3.1).
type requiresResult interface{ resultRequired() }

// checkResult turns a typed nil result into no result, and rejects a result of the wrong type
// (an untyped OnName handler's mistake) as a handler error instead of letting the combine rule
// panic on it. A handler of a requiresResult event that returns nothing fails.
func checkResult(spec *Spec, payload any, res any) (any, error) {
	if res != nil {
		if rv := reflect.ValueOf(res); rv.Kind() == reflect.Pointer && rv.IsNil() {
			res = nil
		}
	}
	if res == nil {
		if _, ok := payload.(requiresResult); ok {
			return nil, fmt.Errorf("%s handler returned no result", spec.Name)
		}
		return nil, nil
	}
	if spec.Result != nil && reflect.TypeOf(res) != reflect.PointerTo(spec.Result) {
		return nil, fmt.Errorf("%s handler returned %T, want *%s", spec.Name, res, spec.Result.Name())
	}
	return res, nil
}

// ConcurrentTimeout bounds how long a concurrent dispatch waits for each handler.
const ConcurrentTimeout = 2 * time.Second

// dispatchConcurrent runs every handler at once (notification events only) and waits at most
// ConcurrentTimeout; a handler still running then is reported and left behind.
func (r *Runner) dispatchConcurrent(spec *Spec, c Context, payload any, hs []handler) {
	done := make(chan int, len(hs))
	for i, h := range hs {
		go func() {
			if _, err := r.call(h.fn, c, payload); err != nil {
				r.report(&Error{ExtensionPath: h.ext.Path, Event: spec.Name, Err: err, Message: err.Error()})
			}
			done <- i
		}()
	}
	timer := time.NewTimer(ConcurrentTimeout)
	defer timer.Stop()
	finished := make([]bool, len(hs))
	for n := 0; n < len(hs); n++ {
		select {
		case i := <-done:
			finished[i] = true
		case <-timer.C:
			for i, ok := range finished {
				if !ok {
					err := fmt.Errorf("the handler did not finish within %s", ConcurrentTimeout)
					r.report(&Error{ExtensionPath: hs[i].ext.Path, Event: spec.Name, Err: err, Message: err.Error()})
				}
			}
			return
		}
	}
}

// call runs one handler, turning a panic into an error.
func (r *Runner) call(fn Handler, c Context, payload any) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			if se, ok := p.(*StaleContextError); ok {
				err = se
				return
			}
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(c, payload)
}

func (r *Runner) report(e *Error) {
	r.mu.Lock()
	ls := r.onError
	r.mu.Unlock()
	for _, fn := range ls {
		fn(e)
	}
}

// post queues fn for in-order delivery on the notification goroutine, which runs only while
// the queue is non-empty. The queue is unbounded, so a fire-and-forget handler that emits more
// fire-and-forget events never blocks.
func (r *Runner) post(fn func()) {
	r.qmu.Lock()
	r.queue = append(r.queue, fn)
	r.pending++
	start := !r.running
	r.running = true
	r.qmu.Unlock()
	if start {
		go r.deliver()
	}
}

func (r *Runner) deliver() {
	for {
		r.qmu.Lock()
		if len(r.queue) == 0 {
			r.running = false
			r.qmu.Unlock()
			return
		}
		fn := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		r.qmu.Unlock()
		fn()
		r.qmu.Lock()
		r.pending--
		if r.pending == 0 && r.qcond != nil {
			r.qcond.Broadcast()
		}
		r.qmu.Unlock()
	}
}

// Drain waits until every queued fire-and-forget delivery has run. It must not be called from a
// fire-and-forget handler.
func (r *Runner) Drain() {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	if r.qcond == nil {
		r.qcond = sync.NewCond(&r.qmu)
	}
	for r.pending > 0 {
		r.qcond.Wait()
	}
}

func (r *Runner) setHost(h Host) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h != nil {
		r.host = h
	}
}

// MarkStale invalidates every API of this runner: after session replacement or reload, calls
// fail with a *StaleContextError (events.md §1.3).
func (r *Runner) MarkStale() { r.stale.Store(true) }

// SetHost binds the session that API calls act on (nil unbinds).
func (r *Runner) SetHost(h Host) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.host = h
}

func (r *Runner) getHost() Host {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.host
}

func (r *Runner) builtins() []tool.Tool {
	if h := r.getHost(); h != nil {
		return h.BuiltinTools()
	}
	return nil
}

func (r *Runner) bus() *Bus {
	r.busOnce.Do(func() { r.evbus = &Bus{} })
	return r.evbus
}

// context builds the Context of one dispatch or tool call.
func (r *Runner) context(ctx context.Context) Context {
	r.mu.Lock()
	newCtx := r.newCtx
	r.mu.Unlock()
	if newCtx != nil {
		return newCtx(ctx)
	}
	return detachedContext{NoSession: NoSession{Ctx: ctx}, r: r}
}
