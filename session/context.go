package session

import (
	"context"
	"errors"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/tool"
)

// extContext is the ExtensionContext of one dispatch or tool call. Every method checks that the
// session is still live: after replacement or reload the methods that return an error fail with
// a *ext.StaleContextError, and the others do nothing and return their zero value (Err reports
// the staleness), so a stale context used from an extension's own goroutine never crashes the
// process. Getters keep answering about the replaced session (its cwd, model, store); actions
// (abort, shutdown, compact) do nothing or fail; ui shows nothing.
type extContext struct {
	s   *Session
	ctx context.Context
	// prompt is the chained system prompt during before_agent_start (nil otherwise).
	prompt *string
}

// SetSystemPrompt implements ext.SystemPromptSetter.
func (c *extContext) SetSystemPrompt(p string) { c.prompt = &p }

func (s *Session) newContext(ctx context.Context) ext.Context { return &extContext{s: s, ctx: ctx} }

// stale reports whether the session was replaced (the method then returns its zero value).
func (c *extContext) stale() bool { return c.s.disposed.Load() }

func (c *extContext) Err() error { return c.s.live("ctx") }

func (c *extContext) UI() ext.UI {
	if c.stale() {
		return ext.NoUI{} // a replaced session shows no dialogs: they resolve to their defaults
	}
	return c.s.ui
}

func (c *extContext) HasUI() bool {
	_, none := c.s.opts.UI.(ext.NoUI)
	return !none
}

func (c *extContext) Mode() string {
	return c.s.opts.Mode
}

func (c *extContext) Cwd() string {
	return c.s.opts.Cwd
}

// IsProjectTrusted reports the run's project trust decision (Options.ProjectUntrusted;
// config-and-resources.md §6).
func (c *extContext) IsProjectTrusted() bool {
	return !c.s.opts.ProjectUntrusted
}

func (c *extContext) SessionManager() ext.SessionView {
	return c.s.store
}

func (c *extContext) ModelRegistry() *model.Registry {
	return c.s.reg
}

func (c *extContext) Model() *llm.Model {
	return c.s.Model()
}

func (c *extContext) Signal() context.Context {
	if c.stale() {
		return c.s.life // cancelled: the session is over
	}
	if !c.s.agent.IsRunning() || c.ctx == nil {
		return c.s.life // idle: ends when the session shuts down
	}
	return c.ctx
}

// InRun implements ext.RunScoped: Signal is the active run's context.
func (c *extContext) InRun() bool {
	return !c.stale() && c.ctx != nil && c.s.agent.IsRunning()
}

// IsIdle is false while the agent runs and while a compaction runs (a prompt sent then waits for
// it, see waitCompaction).
func (c *extContext) IsIdle() bool {
	return !c.s.agent.IsRunning() && !c.s.IsCompacting()
}

func (c *extContext) Abort() {
	if c.stale() {
		return
	}
	c.s.Abort() // also cancels a pending retry backoff (retry.go)
}

func (c *extContext) HasPendingMessages() bool {
	return c.s.agent.HasQueuedMessages()
}

// Shutdown is a no-op in print and JSON mode (rpc-and-json.md §8); the interactive and RPC modes
// will honour it when idle.
func (c *extContext) Shutdown() {
	if c.stale() {
		return
	}
	if c.s.rt != nil {
		c.s.rt.requestShutdown()
	}
}

func (c *extContext) GetContextUsage() *ext.ContextUsage {
	m := c.s.Model()
	if m == nil {
		return nil
	}
	msgs := c.s.agent.Messages()
	var tokens int64
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant && msgs[i].StopReason != llm.StopError && msgs[i].StopReason != llm.StopAborted {
			u := msgs[i].Usage
			tokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
			last = i
			break
		}
	}
	for _, msg := range msgs[last+1:] {
		b, _ := msg.AppendJSON(nil)
		tokens += int64(len(b)+3) / 4
	}
	u := &ext.ContextUsage{Tokens: tokens, ContextWindow: m.ContextWindow}
	if m.ContextWindow > 0 {
		u.Percent = float64(tokens) * 100 / float64(m.ContextWindow)
	}
	return u
}

func (c *extContext) Compact(o ext.CompactOptions) error {
	if c.stale() {
		return &ext.StaleContextError{Op: "ctx.compact"}
	}
	c.s.compactAsync(o) // compaction_trigger.go
	return nil
}

func (c *extContext) GetSystemPrompt() string {
	if c.prompt != nil {
		return *c.prompt
	}
	return c.s.agent.Config().SystemPrompt
}

// commandContext is the ExtensionCommandContext of one command run.
type commandContext struct{ extContext }

func (s *Session) commandContext(ctx context.Context) ext.CommandContext {
	return &commandContext{extContext{s: s, ctx: ctx}}
}

// ErrNoRuntime is returned by session operations of a session made without a Runtime.
var ErrNoRuntime = errors.New("session operations need a session.Runtime")

// SendMessage sends extension messages to this context's session (ReplacedSessionContext in
// withSession: bound to the replacement session).
func (c *commandContext) SendMessage(msg ext.CustomMessage, o ext.SendOptions) error {
	return c.s.SendMessage(c.ctx, []ext.CustomMessage{msg}, o)
}

// SendUserMessage sends a user message to this context's session.
func (c *commandContext) SendUserMessage(content []llm.Content, o ext.SendOptions) error {
	return c.s.SendUserMessage(c.ctx, content, o)
}

func (c *commandContext) WaitForIdle(ctx context.Context) error {
	if err := c.s.live("ctx.waitForIdle"); err != nil {
		return err
	}
	return c.s.WaitIdle(ctx)
}

func (c *commandContext) runtime(op string) (*Runtime, error) {
	if err := c.s.live(op); err != nil {
		return nil, err
	}
	if c.s.rt == nil {
		return nil, ErrNoRuntime
	}
	return c.s.rt, nil
}

func (c *commandContext) NewSession(ctx context.Context, o ext.NewSessionOptions) (bool, error) {
	rt, err := c.runtime("ctx.newSession")
	if err != nil {
		return false, err
	}
	return rt.NewSession(ctx, o)
}

func (c *commandContext) Fork(ctx context.Context, entryID string, o ext.ForkOptions) (bool, error) {
	rt, err := c.runtime("ctx.fork")
	if err != nil {
		return false, err
	}
	return rt.Fork(ctx, entryID, o)
}

func (c *commandContext) NavigateTree(ctx context.Context, targetID string, o ext.NavigateOptions) (bool, error) {
	rt, err := c.runtime("ctx.navigateTree")
	if err != nil {
		return false, err
	}
	return rt.NavigateTree(ctx, targetID, o)
}

func (c *commandContext) SwitchSession(ctx context.Context, path string, o ext.SwitchOptions) (bool, error) {
	rt, err := c.runtime("ctx.switchSession")
	if err != nil {
		return false, err
	}
	return rt.SwitchSession(ctx, path, o)
}

func (c *commandContext) Reload(ctx context.Context) error {
	rt, err := c.runtime("ctx.reload")
	if err != nil {
		return err
	}
	return rt.Reload(ctx)
}

// toolContext gives tool calls the session's tool.Env: its id and file (todo's claims) and its
// dialogs (ask_user_question), none in print and JSON mode.
func (s *Session) toolContext(ctx context.Context) context.Context {
	return tool.WithEnv(ctx, toolEnv{s})
}

// toolEnv is the tool.Env of a session.
type toolEnv struct{ s *Session }

func (e toolEnv) SessionID() string   { return e.s.store.SessionID() }
func (e toolEnv) SessionFile() string { return e.s.store.SessionFile() }
func (e toolEnv) Dialogs() tool.Dialogs {
	c := &extContext{s: e.s}
	if !c.HasUI() {
		return nil
	}
	return c.UI()
}
