package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// Runtime owns the live Session and replaces it on /new, /resume, /fork and reload with the
// lifecycle of events.md §2: session_before_* (may cancel) → session_shutdown on the old runtime
// → the old one is disposed (its contexts are stale) → a new Session with freshly run extension
// factories → session_start{reason, previousSessionFile} → resources_discover → withSession.
// Front-ends subscribe to the Runtime, so they follow the replacement: every session of a
// Runtime publishes to the Runtime's one stream, and a SessionStarted event announces each
// replacement. Safe for concurrent use.
type Runtime struct {
	mu       sync.Mutex // guards cur, shutdown, scoped, onShutdown
	cur      *Session
	base     Options
	stream   *stream
	shutdown bool
	scoped   []*llm.Model // scoped.go
	// onShutdown are called (outside mu) when an extension requests a shutdown.
	onShutdown []*func()

	cmdMu   sync.Mutex // guards inbox, working: the ordered command lane (commands.go)
	inbox   []orderedCmd
	working bool // the command goroutine is running
	// replacing is held (cap 1) for the whole of a session replacement, so two replacements
	// started together run one after the other.
	replacing chan struct{}
}

// NewRuntime builds the first Session from o and starts it (session_start{startup},
// resources_discover). When an extension fails to load it returns an *ExtensionLoadError
// naming each one before the session starts, so no handler runs and nothing is sent (pi and
// Atomic exit 1 then); the failures were also reported to o.OnExtensionError.
func NewRuntime(ctx context.Context, o Options) (*Runtime, error) {
	rt := &Runtime{base: o, stream: &stream{}, replacing: make(chan struct{}, 1)}
	s, err := rt.build(o.Store, o.Model, o.ThinkingLevel)
	if err != nil {
		return nil, err
	}
	if len(s.loadErrs) > 0 {
		return nil, &ExtensionLoadError{Errs: s.loadErrs}
	}
	rt.cur = s
	if o.BeforeStart != nil {
		if err := o.BeforeStart(s); err != nil {
			rt.Shutdown(context.Background()) // closes o.MCP too
			return nil, err
		}
	}
	s.Start(ctx, "startup", "")
	rt.bindMCP()
	return rt, nil
}

// ExtensionLoadError is NewRuntime's error when extensions fail to load: Errs holds one
// error per failing extension, in load order, each naming the extension's path and the cause.
type ExtensionLoadError struct{ Errs []error }

// Error is one line per failing extension.
func (e *ExtensionLoadError) Error() string { return errors.Join(e.Errs...).Error() }

// Unwrap returns the per-extension errors.
func (e *ExtensionLoadError) Unwrap() []error { return e.Errs }

func (rt *Runtime) build(st *store.Session, m *llm.Model, thinking string) (*Session, error) {
	o := rt.base
	o.Store, o.Model, o.ThinkingLevel = st, m, thinking
	s, err := newSession(o, rt.stream)
	if err != nil {
		return nil, err
	}
	s.rt = rt
	if prev := rt.Session(); prev != nil {
		s.SetAutoRetry(prev.AutoRetryEnabled())    // an RPC set_auto_retry survives replacement
		s.SetAutoCompaction(prev.AutoCompaction()) // and so does set_auto_compaction
	}
	return s, nil
}

// Session returns the live session.
func (rt *Runtime) Session() *Session {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.cur
}

// Subscribe attaches a new Subscriber calling fn to the stream of the live session and of every
// session that replaces it (see Subscriber for the delivery contract). Close it when done.
func (rt *Runtime) Subscribe(fn func(Event), o SubscribeOptions) *Subscriber {
	sub := NewSubscriber(fn, o)
	rt.Attach(sub)
	return sub
}

// Attach adds sub to the Runtime's stream; the function returned removes it.
func (rt *Runtime) Attach(sub *Subscriber) (detach func()) { return rt.stream.attach(sub) }

// announce publishes the SessionStarted of a replacement.
func (rt *Runtime) announce(s *Session, reason, prevFile string) {
	rt.stream.publish(Event{Type: "session_started", Payload: &SessionStarted{Reason: reason, PreviousSessionFile: prevFile, Session: s}})
}

// Prompt runs a prompt on the live session (see Session.PromptWith), then waits for turns that
// extensions started meanwhile.
func (rt *Runtime) Prompt(ctx context.Context, text string, images []llm.Content) error {
	if err := rt.Session().PromptWith(ctx, text, PromptOptions{Images: images}); err != nil {
		return err
	}
	if err := rt.Session().WaitIdle(ctx); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// Messages returns the live session's context.
func (rt *Runtime) Messages() []llm.Message { return rt.Session().Messages() }

// HeaderJSON returns the live session's header line.
func (rt *Runtime) HeaderJSON() []byte { return rt.Session().HeaderJSON() }

// Shutdown emits session_shutdown{quit} on the live session and disposes it.
func (rt *Runtime) Shutdown(ctx context.Context) {
	s := rt.Session()
	rt.flushMCP()
	s.Shutdown(ctx, "quit", "")
	rt.closeMCP(ctx)
	s.store.Close() // the session file is free for other processes
}

func (rt *Runtime) requestShutdown() {
	rt.mu.Lock()
	rt.shutdown = true
	fns := rt.onShutdown
	rt.mu.Unlock()
	for _, fn := range fns {
		(*fn)()
	}
}

// OnShutdownRequest registers fn, called on the requesting goroutine each time an extension
// calls ctx.shutdown(); a front-end uses it to stop at its next idle point (seed 004). fn must
// not block. The returned function unregisters it.
func (rt *Runtime) OnShutdownRequest(fn func()) (remove func()) {
	p := &fn
	rt.mu.Lock()
	rt.onShutdown = append(rt.onShutdown, p)
	rt.mu.Unlock()
	return func() {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		for i, q := range rt.onShutdown {
			if q == p {
				rt.onShutdown = append(rt.onShutdown[:i:i], rt.onShutdown[i+1:]...)
				return
			}
		}
	}
}

// ShutdownRequested reports whether an extension called ctx.shutdown().
func (rt *Runtime) ShutdownRequested() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.shutdown
}

// replace tears the live session down and starts a new one on the store that prepare returns.
// prepare runs before anything is torn down, so a failure there (an invalid file, a failing
// setup) leaves the live session untouched. inPlace, when prepare returns no store, derives the
// new store from the old one after shutdown (for stores that cannot be re-opened: in memory or
// not written yet). If building the new session fails, the old store is started again so the
// runtime stays usable, and the error is returned. The caller holds the replacement lock
// (serially).
func (rt *Runtime) replace(ctx context.Context, reason, target string, prepare func(old *Session) (*store.Session, error), inPlace func(old *Session) (*store.Session, error)) (*Session, error) {
	old := rt.Session()
	prevFile := old.store.SessionFile()
	st, err := prepare(old)
	if err != nil {
		return nil, err
	}
	// session_shutdown names the destination of a new session or a fork too (seed 004), when
	// it is a file already.
	if target == "" && st != nil && (reason == "new" || reason == "fork") {
		target = st.SessionFile()
	}
	old.agent.Abort()
	_ = old.agent.Wait(ctx)
	old.Shutdown(ctx, reason, target)
	// What the old extensions registered in the UI (autocomplete providers) goes with them.
	ext.ResetExtensionUI(rt.base.UI)
	if st == nil {
		if st, err = inPlace(old); err != nil {
			rt.restart(ctx, old)
			return nil, err
		}
	}
	mdl, restored := old.Model(), false
	if reason == "resume" {
		if m := rt.sessionModel(st); m != nil && (mdl == nil || m.Provider != mdl.Provider || m.ID != mdl.ID) {
			mdl, restored = m, true
		}
	}
	thinking := old.ThinkingLevel()
	if _, empty := st.ContextInfo(); reason == "resume" && !empty {
		// A resumed session keeps its own thinking level ("" takes it from the file), as pi's
		// switchSession restores it; the current level is not written into the other file.
		thinking = ""
	}
	s, err := rt.build(st, mdl, thinking)
	if err != nil {
		if st != old.store {
			st.Close()
		}
		rt.restart(ctx, old)
		return nil, err
	}
	if st != old.store {
		old.store.Close() // another process may write the old file now
	}
	rt.mu.Lock()
	rt.cur = s
	rt.mu.Unlock()
	if reason == "reload" {
		prevFile = ""
	}
	rt.beforeStart(s)
	s.Start(ctx, reason, prevFile)
	if restored {
		emit[ext.None](s, ctx, ext.ModelSelect{Model: mdl, PreviousModel: old.Model(), Source: "restore"})
	}
	rt.announce(s, reason, prevFile)
	return s, nil
}

// sessionModel is the model a resumed session last used, as pi's switchSession restores it: the
// registry's model of that provider and id when its provider has auth and atomic speaks its API;
// nil otherwise (the current model stays).
func (rt *Runtime) sessionModel(st *store.Session) *llm.Model {
	reg := rt.base.Registry
	if reg == nil || st == nil {
		return nil
	}
	info, _ := st.ContextInfo()
	if info.Model == nil {
		return nil
	}
	m := reg.Find(info.Model.Provider, info.Model.ModelID)
	if m == nil || !reg.HasAuth(m.Provider) {
		return nil
	}
	if rt.base.Provider == nil {
		if _, err := ProviderFor(m.API); err != nil {
			return nil
		}
	}
	return m
}

// serially runs one replacement (its before-event included) while holding the replacement lock,
// so two replacements started together never interleave: the second starts from the session the
// first left. with (withSession) then runs on the new session outside the lock, so it may
// replace the session again. A replacement started from inside another one's session_before_*
// or session_shutdown handler waits for it until ctx ends.
func (rt *Runtime) serially(ctx context.Context, with func(context.Context, ext.CommandContext) error, run func() (s *Session, cancelled bool, err error)) (bool, error) {
	select {
	case rt.replacing <- struct{}{}:
	case <-ctx.Done():
		return false, fmt.Errorf("session: waiting for the session replacement in progress: %w", ctx.Err())
	}
	s, cancelled, err := func() (*Session, bool, error) {
		defer func() { <-rt.replacing }()
		return run()
	}()
	if err != nil || cancelled || s == nil || with == nil {
		return cancelled, err
	}
	return false, with(ctx, s.commandContext(ctx))
}

// beforeStart runs Options.BeforeStart for a replacement session; its error is reported, the
// replacement goes on.
func (rt *Runtime) beforeStart(s *Session) {
	if rt.base.BeforeStart != nil {
		if err := rt.base.BeforeStart(s); err != nil {
			s.onErr(err)
		}
	}
}

// restart rebuilds a runtime on the old session's store after a failed replacement.
func (rt *Runtime) restart(ctx context.Context, old *Session) {
	s, err := rt.build(old.store, old.Model(), old.ThinkingLevel())
	if err != nil {
		old.onErr(fmt.Errorf("session: could not restart the session after a failed replacement: %w", err))
		return
	}
	rt.mu.Lock()
	rt.cur = s
	rt.mu.Unlock()
	rt.beforeStart(s)
	s.Start(ctx, "reload", "")
	rt.announce(s, "reload", "")
}

// freshStore returns a new empty store beside old's (same directory, or in memory).
func freshStore(old *store.Session, parent string) (*store.Session, error) {
	if !old.IsPersisted() {
		return store.InMemory(old.Cwd()), nil
	}
	return store.Create(old.Cwd(), old.SessionDir(), store.CreateOptions{ParentSession: parent})
}

// reopen returns a second store object on old's file, or nil when the file is not on disk yet.
func reopen(old *store.Session) (*store.Session, error) {
	f := old.SessionFile()
	if f == "" {
		return nil, nil
	}
	if _, err := os.Stat(f); err != nil {
		return nil, nil
	}
	return store.Open(f, old.SessionDir())
}

func (rt *Runtime) beforeSwitch(ctx context.Context, reason, target string) bool {
	_, res, _ := emit[*ext.CancelResult](rt.Session(), ctx, ext.SessionBeforeSwitch{Reason: reason, TargetSessionFile: target})
	return res != nil && res.Cancel
}

// NewSession replaces the session with a new, empty one (ctx.newSession).
func (rt *Runtime) NewSession(ctx context.Context, o ext.NewSessionOptions) (bool, error) {
	return rt.serially(ctx, o.WithSession, func() (*Session, bool, error) {
		if rt.beforeSwitch(ctx, "new", "") {
			return nil, true, nil
		}
		s, err := rt.replace(ctx, "new", "", func(old *Session) (*store.Session, error) {
			st, err := freshStore(old.store, o.ParentSession)
			if err != nil {
				return nil, err
			}
			if o.Setup != nil {
				if err := o.Setup(st); err != nil {
					return nil, fmt.Errorf("newSession setup: %w", err)
				}
			}
			return st, nil
		}, nil)
		return s, false, err
	})
}

// SwitchSession replaces the session with the one stored at path (ctx.switchSession, /resume).
func (rt *Runtime) SwitchSession(ctx context.Context, path string, o ext.SwitchOptions) (bool, error) {
	return rt.serially(ctx, o.WithSession, func() (*Session, bool, error) {
		if rt.beforeSwitch(ctx, "resume", path) {
			return nil, true, nil
		}
		s, err := rt.replace(ctx, "resume", path, func(old *Session) (*store.Session, error) {
			return store.Open(path, "")
		}, nil)
		return s, false, err
	})
}

// Fork replaces the session with a fork at entryID (ctx.fork, /fork and /clone): position
// "before" (default) forks before the selected user message; "at" duplicates the path through it.
func (rt *Runtime) Fork(ctx context.Context, entryID string, o ext.ForkOptions) (bool, error) {
	pos := o.Position
	if pos == "" {
		pos = "before"
	}
	if pos != "before" && pos != "at" {
		return false, fmt.Errorf("fork: position must be before or at, not %q", pos)
	}
	return rt.serially(ctx, o.WithSession, func() (*Session, bool, error) { return rt.fork(ctx, entryID, pos) })
}

// fork is Fork under the replacement lock.
func (rt *Runtime) fork(ctx context.Context, entryID, pos string) (*Session, bool, error) {
	cur := rt.Session()
	entry := cur.store.Entry(entryID)
	if entry == nil {
		return nil, false, fmt.Errorf("fork: %w: %s", store.ErrEntryNotFound, entryID)
	}
	if pos == "before" && (entry.Type != store.TypeMessage || entry.Role() != llm.RoleUser) {
		return nil, false, fmt.Errorf("fork: entry %s is not a user message (fork before needs one; use position \"at\" to clone)", entryID)
	}
	_, res, _ := emit[*ext.SessionBeforeForkResult](cur, ctx, ext.SessionBeforeFork{EntryID: entryID, Position: pos})
	if res != nil && res.Cancel {
		return nil, true, nil
	}
	branch := func(st *store.Session) error {
		prev := st.SessionFile()
		switch {
		case pos == "at":
			_, err := st.CreateBranchedSession(entryID)
			return err
		case entry.Parent() != "":
			_, err := st.CreateBranchedSession(entry.Parent())
			return err
		default:
			_, err := st.NewSession(store.CreateOptions{ParentSession: prev})
			return err
		}
	}
	s, err := rt.replace(ctx, "fork", "", func(old *Session) (*store.Session, error) {
		st, err := reopen(old.store)
		if st == nil || err != nil {
			return nil, err
		}
		return st, branch(st)
	}, func(old *Session) (*store.Session, error) {
		return old.store, branch(old.store)
	})
	return s, false, err
}

// Reload re-runs the extensions on the same session (ctx.reload, /reload).
func (rt *Runtime) Reload(ctx context.Context) error {
	_, err := rt.serially(ctx, nil, func() (*Session, bool, error) {
		rt.reloadResources()
		s, err := rt.replace(ctx, "reload", "", func(old *Session) (*store.Session, error) { return old.store, nil }, nil)
		return s, false, err
	})
	return err
}

// reloadResources re-discovers skills and prompt templates for the next session (Options.
// ReloadResources) and rebuilds the base system prompt that lists them. It runs inside
// rt.serially, before the replacement is built from rt.base.
func (rt *Runtime) reloadResources() {
	if rt.base.ReloadResources == nil {
		return
	}
	rt.base.Skills, rt.base.PromptTemplates = rt.base.ReloadResources()
	if rt.base.SystemPromptBuilder != nil {
		rt.base.SystemPrompt = rt.base.SystemPromptBuilder(rt.base.Tools)
	}
}

// NavigateTree moves the leaf to targetID in place (ctx.navigateTree, /tree): session_before_tree
// may cancel, supply a summary or override the options; with Summarize the abandoned branch is
// summarised (branch_summary.go); then the leaf moves, the context is rebuilt and session_tree
// fires.
func (rt *Runtime) NavigateTree(ctx context.Context, targetID string, o ext.NavigateOptions) (bool, error) {
	s := rt.Session()
	if s.agent.IsRunning() {
		return false, errors.New("navigateTree: the agent is streaming; wait for idle first")
	}
	if s.store.Entry(targetID) == nil {
		return false, fmt.Errorf("navigateTree: %w: %s", store.ErrEntryNotFound, targetID)
	}
	// --- branch summaries (issue 6 item 3): the rest lives in branch_summary.go ---
	return s.navigateTree(ctx, targetID, o)
}
