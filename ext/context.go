package ext

import (
	"context"
	"errors"
	"fmt"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/store"
)

// ErrNoSession is returned by context operations when no session is bound (a detached context).
var ErrNoSession = errors.New("ext: no session is bound to this context")

// ErrNotAvailable is returned by operations whose subsystem does not exist yet.
var ErrNotAvailable = errors.New("not available yet")

// StaleContextError is the error of a context (or API) used after its session was replaced or
// reloaded (events.md §1.3): Context.Err and every operation that returns an error report it.
type StaleContextError struct {
	Op string
}

// Error says which operation used the stale context and what to use instead.
func (e *StaleContextError) Error() string {
	return fmt.Sprintf("extension ctx is stale: %s was called after the session was replaced or reloaded; use the ctx passed to withSession or to the new session's handlers", e.Op)
}

// SessionView is the read-only session state a handler sees (ctx.sessionManager). *store.Session
// implements it.
type SessionView interface {
	Entries() []*store.Entry
	Branch(fromID string) []*store.Entry
	LeafID() string
	LeafEntry() *store.Entry
	Entry(id string) *store.Entry
	Children(parentID string) []*store.Entry
	Label(id string) string
	Tree() []*store.TreeNode
	Header() store.Header
	SessionName() string
	Cwd() string
	SessionDir() string
	SessionID() string
	SessionFile() string
	IsPersisted() bool
	BuildContext() store.Context
}

// ContextUsage is the context-window usage of the active model.
type ContextUsage struct {
	Tokens        int64   `json:"tokens"`
	ContextWindow int     `json:"contextWindow"`
	Percent       float64 `json:"percent"`
}

// CompactOptions tune ctx.compact (verbatim-lines parameters).
type CompactOptions struct {
	// CompressionRatio is the fraction of compactable lines to keep; 0: the setting.
	CompressionRatio float64
	// PreserveRecent is the exact number of newest context-visible messages to protect; nil:
	// the setting (0 is meaningful: nothing is protected).
	PreserveRecent *int
	// Query guides the planner's relevance choices.
	Query string
	// OnComplete receives the *compact.Result; OnError the failure. Exactly one is called.
	OnComplete func(result any)
	OnError    func(err error)
}

// Context is ExtensionContext (seed 004, "ExtensionContext"): what every handler and tool sees.
// Getters are live. After the session is replaced or reloaded, Err and the operations that return
// an error report a *StaleContextError; nothing panics (an extension's own goroutine may hold an
// old Context): actions without an error do nothing, getters answer about the replaced session,
// UI is NoUI and Signal is done.
type Context interface {
	// UI is the mode's UI; in print and JSON mode the non-interactive defaults.
	UI() UI
	// HasUI is false in print and JSON mode.
	HasUI() bool
	// Mode is "print", "json", "rpc" or "tui" (the terminal UI; Atomic's ctx.mode, spec tui.md §4.5).
	Mode() string
	Cwd() string
	IsProjectTrusted() bool
	SessionManager() SessionView
	ModelRegistry() *model.Registry
	Model() *llm.Model
	// Signal is the active run's context (cancelled on abort) while the agent runs; otherwise a
	// context that ends when the session does (cancelled at once for a replaced session). Never
	// nil.
	Signal() context.Context
	IsIdle() bool
	Abort()
	HasPendingMessages() bool
	// Shutdown requests a graceful shutdown (a no-op in print mode).
	Shutdown()
	GetContextUsage() *ContextUsage
	// Compact starts a verbatim-lines compaction in the background once the agent is idle
	// (seed 004 "ctx.compact()") and returns at once; the outcome goes to opts.OnComplete or
	// opts.OnError.
	Compact(opts CompactOptions) error
	GetSystemPrompt() string
	// Err is nil while the context is live, a *StaleContextError after replacement.
	Err() error
	// ObserveWorkflowActivity attaches observer to the runner's workflow activity hub: a snapshot
	// first, then FIFO updates, one callback at a time (workflow.go). Dispose the subscription
	// when done; the runner's disposal disposes it too.
	ObserveWorkflowActivity(observer WorkflowActivityObserver) (*WorkflowActivitySubscription, error)
}

// RunScoped is implemented by contexts whose Signal is an agent run's only while one is active
// (a session's): InRun reports whether it is.
type RunScoped interface{ InRun() bool }

// HasRunSignal reports whether c.Signal() is the signal of work that can be aborted: an active
// run for a RunScoped context, otherwise a Signal that can be cancelled at all. Child hosts give
// a handler an AbortSignal only then (pi's ctx.signal is undefined while idle).
func HasRunSignal(c Context) bool {
	if r, ok := c.(RunScoped); ok {
		return r.InRun()
	}
	return c.Signal().Done() != nil
}

// NoSession is a Context with no session behind it, for handlers that run before one exists
// (project_trust, session_directory) or outside any: no UI, no model, idle, and the operations
// that need a session fail with ErrNoSession. Embed it and override what the caller does have:
//
//	type trustCtx struct{ ext.NoSession; cwd string }
//	func (c *trustCtx) Cwd() string { return c.cwd }
//
// Ctx is what Signal returns (context.Background when nil).
type NoSession struct {
	Ctx context.Context
}

func (NoSession) UI() UI                         { return NoUI{} }
func (NoSession) HasUI() bool                    { return false }
func (NoSession) Mode() string                   { return "" }
func (NoSession) Cwd() string                    { return "" }
func (NoSession) IsProjectTrusted() bool         { return false }
func (NoSession) SessionManager() SessionView    { return nil }
func (NoSession) ModelRegistry() *model.Registry { return nil }
func (NoSession) Model() *llm.Model              { return nil }
func (NoSession) IsIdle() bool                   { return true }
func (NoSession) Abort()                         {}
func (NoSession) HasPendingMessages() bool       { return false }
func (NoSession) Shutdown()                      {}
func (NoSession) GetContextUsage() *ContextUsage { return nil }
func (NoSession) Compact(CompactOptions) error   { return ErrNoSession }
func (NoSession) GetSystemPrompt() string        { return "" }
func (NoSession) Err() error                     { return nil }

// Signal returns Ctx, or context.Background when it is nil; never nil.
func (n NoSession) Signal() context.Context {
	if n.Ctx == nil {
		return context.Background()
	}
	return n.Ctx
}

// ObserveWorkflowActivity fails with ErrNoSession: there is no runner to observe.
func (NoSession) ObserveWorkflowActivity(WorkflowActivityObserver) (*WorkflowActivitySubscription, error) {
	return nil, ErrNoSession
}

// detachedContext is the Context of a runner with no session bound; r (may be nil) serves the
// runner-level operations (workflow observation).
type detachedContext struct {
	NoSession
	r *Runner
}

// UI is the surface of ctx.ui that every mode implements (the roadmap's one ext.UI interface):
// print and JSON mode use NoUI, RPC forwards to the client, the TUI draws.
type UI interface {
	// Select asks the user to pick one of options; ok is false when dismissed or without UI.
	Select(ctx context.Context, title string, options []string) (choice string, ok bool)
	// Confirm asks a yes/no question; false without UI.
	Confirm(ctx context.Context, title, message string) bool
	// Input asks for a line of text; ok is false when dismissed or without UI.
	Input(ctx context.Context, title, placeholder string) (text string, ok bool)
	// Editor asks for multi-line text, prefilled; ok is false when dismissed or without UI.
	Editor(ctx context.Context, title, prefill string) (text string, ok bool)
	// Notify shows a message; level is info, warning or error.
	Notify(message, level string)
	SetStatus(key, text string)
	SetWidget(key string, lines []string)
	SetTitle(title string)
	SetEditorText(text string)
	GetEditorText() string
}

// NoUI is the UI of print and JSON mode: dialogs resolve to their defaults at once and the rest
// does nothing (seed 004, "Mode Behavior").
type NoUI struct{}

// Select returns no choice (dismissed).
func (NoUI) Select(context.Context, string, []string) (string, bool) { return "", false }

// Confirm answers no.
func (NoUI) Confirm(context.Context, string, string) bool { return false }

// Input returns no text (dismissed).
func (NoUI) Input(context.Context, string, string) (string, bool) { return "", false }

// Editor returns no text (dismissed).
func (NoUI) Editor(context.Context, string, string) (string, bool) { return "", false }

// Notify does nothing.
func (NoUI) Notify(string, string) {}

// SetStatus does nothing.
func (NoUI) SetStatus(string, string) {}

// SetWidget does nothing.
func (NoUI) SetWidget(string, []string) {}

// SetTitle does nothing.
func (NoUI) SetTitle(string) {}

// SetEditorText does nothing.
func (NoUI) SetEditorText(string) {}

// GetEditorText returns "".
func (NoUI) GetEditorText() string { return "" }

// CommandContext is ExtensionCommandContext: a Context plus the session operations that are safe
// only in commands (seed 004, "ExtensionCommandContext").
type CommandContext interface {
	Context
	// WaitForIdle blocks until the agent is idle or ctx ends.
	WaitForIdle(ctx context.Context) error
	// NewSession replaces the session with a new one (session_before_switch may cancel).
	NewSession(ctx context.Context, opts NewSessionOptions) (cancelled bool, err error)
	// Fork replaces the session with a fork at entryID (session_before_fork may cancel).
	Fork(ctx context.Context, entryID string, opts ForkOptions) (cancelled bool, err error)
	// NavigateTree moves the leaf to targetID.
	NavigateTree(ctx context.Context, targetID string, opts NavigateOptions) (cancelled bool, err error)
	// SwitchSession replaces the session with the one in sessionPath.
	SwitchSession(ctx context.Context, sessionPath string, opts SwitchOptions) (cancelled bool, err error)
	// Reload re-runs the extensions and reloads resources.
	Reload(ctx context.Context) error
	// SendMessage and SendUserMessage act on this context's session; in withSession that is the
	// replacement session (ReplacedSessionContext, seed 004).
	SendMessage(msg CustomMessage, opts SendOptions) error
	SendUserMessage(content []llm.Content, opts SendOptions) error
}

// NewSessionOptions are the options of ctx.newSession.
type NewSessionOptions struct {
	ParentSession string
	// Setup mutates the new session's store before WithSession runs.
	Setup func(s *store.Session) error
	// WithSession runs post-switch work against the replacement session's context.
	WithSession func(ctx context.Context, c CommandContext) error
}

// ForkOptions are the options of ctx.fork.
type ForkOptions struct {
	Position    string // before (default) | at
	WithSession func(ctx context.Context, c CommandContext) error
}

// NavigateOptions are the options of ctx.navigateTree.
type NavigateOptions struct {
	Summarize           bool
	CustomInstructions  string
	ReplaceInstructions bool
	Label               string
}

// SwitchOptions are the options of ctx.switchSession.
type SwitchOptions struct {
	WithSession func(ctx context.Context, c CommandContext) error
}
