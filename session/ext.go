package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/atomic-cli/atomic/agent"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// Runner returns the session's extension runner.
func (s *Session) Runner() *ext.Runner { return s.runner }

// runCtx is the context handed to agent-event handlers: the active run's (so ctx.signal is
// the agent's abort signal, events.md §1.3), else background.
func (s *Session) runCtx() context.Context {
	if c := s.agent.RunContext(); c != nil {
		return c
	}
	return context.Background()
}

// messageEnd lets `message_end` handlers replace a message (same role) before it is persisted.
func (s *Session) messageEnd(ctx context.Context, m *llm.Message) {
	if !s.runner.Has(ext.IDMessageEnd) {
		return
	}
	out, _, _ := emit[*ext.MessageEndResult](s, ctx, ext.MessageEnd{Message: m})
	if out.Message != nil && out.Message != m {
		*m = *out.Message
	}
}

// transformContext is the `context` event: handlers get a deep copy and may replace the list.
func (s *Session) transformContext(ctx context.Context, msgs []llm.Message) []llm.Message {
	if !s.runner.Has(ext.IDContext) {
		return msgs
	}
	// Handlers may edit the messages in place: they get a deep copy, never the agent's own.
	cp := make([]llm.Message, len(msgs))
	for i := range msgs {
		cp[i] = msgs[i].Clone()
	}
	out, _, _ := emit[*ext.ContextResult](s, ctx, ext.ContextEvent{Messages: cp})
	return out.Messages
}

// beforeToolCall is the fail-closed `tool_call` event.
func (s *Session) beforeToolCall(ctx context.Context, call *tool.Call) (*agent.Block, error) {
	if !s.runner.Has(ext.IDToolCall) {
		return nil, nil
	}
	out, res, err := emit[*ext.ToolCallResult](s, ctx, ext.ToolCall{ToolCallID: call.ID, ToolName: call.Name, Input: call.Args})
	if err != nil {
		return nil, err
	}
	call.Args = out.Input
	if res != nil && res.Block {
		return &agent.Block{Reason: res.Reason, Terminate: res.Terminate}, nil
	}
	return nil, nil
}

// afterToolCall is the `tool_result` event (chained partial patches).
func (s *Session) afterToolCall(ctx context.Context, call tool.Call, res tool.Result) tool.Result {
	if !s.runner.Has(ext.IDToolResult) {
		return res
	}
	// Parallel calls finish concurrently; their tool_result dispatches do not overlap, so
	// handlers never race each other (as in Atomic's single event queue).
	s.toolResultMu.Lock()
	defer s.toolResultMu.Unlock()
	out, _, _ := emit[*ext.ToolResultPatch](s, ctx, ext.ToolResult{
		ToolCallID: call.ID, ToolName: call.Name, Input: call.Args,
		Content: res.Content, Details: res.Details, IsError: res.IsError,
	})
	res.Content, res.Details, res.IsError = out.Content, out.Details, out.IsError
	return res
}

// providerHooks wires the provider HTTP path events; nil when nobody listens.
func (s *Session) providerHooks(m *llm.Model) *llm.Hooks {
	r := s.runner
	if !r.Has(ext.IDBeforeProviderHeaders) && !r.Has(ext.IDBeforeProviderRequest) && !r.Has(ext.IDProviderRequest) && !r.Has(ext.IDAfterProviderResponse) {
		return nil
	}
	h := &llm.Hooks{}
	if r.Has(ext.IDBeforeProviderHeaders) {
		h.BeforeHeaders = func(ctx context.Context, headers map[string]string) {
			emit[ext.None](s, ctx, ext.BeforeProviderHeaders{Headers: headers, Provider: m.Provider, ModelID: m.ID})
		}
	}
	if r.Has(ext.IDBeforeProviderRequest) {
		h.BeforeRequest = func(ctx context.Context, payload any) any {
			out, _, _ := emit[*ext.PayloadResult](s, ctx, ext.BeforeProviderRequest{Payload: payload})
			return out.Payload
		}
	}
	if r.Has(ext.IDProviderRequest) {
		h.OnRequest = func(ctx context.Context, body []byte) {
			emit[ext.None](s, ctx, ext.ProviderRequest{PayloadJSON: string(body), Provider: m.Provider, ModelID: m.ID})
		}
	}
	if r.Has(ext.IDAfterProviderResponse) {
		h.AfterResponse = func(ctx context.Context, status int, headers http.Header) {
			emit[ext.None](s, ctx, ext.AfterProviderResponse{Status: status, Headers: ext.HeaderMap(headers), RequestID: firstHeader(headers, "request-id", "x-request-id")})
		}
	}
	return h
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// PromptOptions qualify a prompt.
type PromptOptions struct {
	// Source is the `input` event's source: interactive (default), rpc or extension.
	Source string
	Images []llm.Content
	// StreamingBehavior queues a prompt that arrives while the agent is streaming: "steer" or
	// "followUp". Empty steers, except for Source "rpc", where it is ErrAlreadyProcessing
	// (rpc-and-json.md §3.1).
	StreamingBehavior string
	// OnStart, when set, is called once on the agent loop's goroutine just before the prompt's
	// agent_start is published to front-ends (after its extension handlers ran), so a front-end
	// can acknowledge the prompt ahead of its events (RPC mode). It is not called when the
	// prompt ends before a run starts (a command or input hook handled it, it was queued, or
	// it failed). It must not block.
	OnStart func()
}

// ErrCommandFailed wraps the error of an extension command run from a prompt.
var ErrCommandFailed = errors.New("extension command failed")

// Prompt runs one prompt the way a user's input is handled (events.md §2, "Prompt"): an
// extension `/command` runs instead (no input event); otherwise `input` may transform or handle
// the text, queued nextTurn messages are attached, `before_agent_start` may change the system
// prompt and inject messages, the agent runs, `session_stop` may ask for more passes (at most 8),
// and `agent_settled` fires once at the end, even on error. Provider failures end the run with
// an error assistant message, not a Go error.
func (s *Session) Prompt(ctx context.Context, text string, images []llm.Content) error {
	return s.PromptWith(ctx, text, PromptOptions{Images: images})
}

// PromptWith is Prompt with options.
func (s *Session) PromptWith(ctx context.Context, text string, o PromptOptions) error {
	if err := s.live("prompt"); err != nil {
		return err
	}
	if name, args, ok := parseCommand(text); ok {
		if cmd, e, found := s.runner.Command(name); found {
			return s.runCommand(ctx, name, cmd, e, args)
		}
	}
	if o.Source == "" {
		o.Source = "interactive"
	}
	s.waitMCPDirect()
	images := o.Images
	if s.runner.Has(ext.IDInput) {
		out, _, _ := emit[*ext.InputResult](s, ctx, ext.Input{Text: text, Images: images, Source: o.Source})
		if out.Handled {
			return nil
		}
		text, images = out.Text, out.Images
	}
	text = s.expandResources(text) // /skill:name and /template (resources.go), after input as in pi
	// A compaction outside a run (manual, or before another prompt) finishes first: the prompt
	// then runs on the compacted context, not beside the planner request. During a run's own
	// (mid-turn) compaction the agent is running and the prompt is queued below as before.
	if !s.agent.IsRunning() {
		if err := s.waitCompaction(ctx); err != nil {
			return err
		}
	}
	if s.agent.IsRunning() || s.IsRetrying() { // a retry backoff counts as streaming (retry.go)
		m := llm.UserText(text, images, s.now().UnixMilli())
		switch {
		case o.StreamingBehavior == "followUp":
			s.agent.FollowUp(m)
		case o.StreamingBehavior == "" && o.Source == "rpc":
			return ErrAlreadyProcessing
		default:
			s.agent.Steer(m)
		}
		return nil
	}
	if err := s.prePrompt(ctx, text); err != nil {
		return err
	}
	defer s.settled()
	return s.runTurn(ctx, text, images, []llm.Message{llm.UserText(text, images, s.now().UnixMilli())}, o.OnStart)
}

// runTurn is the prompt path after `input` for msgs (a user prompt, or the messages of an
// extension's triggerTurn): the queued nextTurn messages join them, `before_agent_start` (with
// prompt text and images) may change the system prompt and inject messages, retryable provider
// failures are retried, and `session_stop` may continue the run. An agent that is busy fails
// with agent.ErrBusy and leaves the nextTurn queue as it was. onStart is PromptOptions.OnStart.
func (s *Session) runTurn(ctx context.Context, text string, images []llm.Content, msgs []llm.Message, onStart func()) error {
	s.mu.Lock()
	queued := s.nextTurn
	msgs = append(msgs, queued...)
	s.nextTurn = nil
	base := s.basePrompt
	s.mu.Unlock()
	systemPrompt := base
	if s.runner.Has(ext.IDBeforeAgentStart) {
		out, _, _ := emit[*ext.BeforeAgentStartResult](s, ctx, ext.BeforeAgentStart{
			Prompt: text, Images: images, SystemPrompt: base,
			SystemPromptOptions: s.systemPromptOptions(),
		})
		systemPrompt = out.SystemPrompt
		// A handler that changed the tools (setActiveTools) rebuilt the base prompt: this turn
		// advertises the new tool set, under whatever the handlers added around the old base.
		s.mu.Lock()
		rebuilt := s.basePrompt
		s.mu.Unlock()
		if rebuilt != base {
			systemPrompt = strings.Replace(systemPrompt, base, rebuilt, 1)
		}
		for _, m := range out.Messages {
			msgs = append(msgs, s.customMessage(m, false))
		}
	}
	s.agent.Configure(func(c *agent.Config) { c.SystemPrompt = systemPrompt })
	if onStart != nil {
		fn := onStart
		s.onStart.Store(&fn)
		defer s.onStart.CompareAndSwap(&fn, nil)
	}
	// retry.go: retryable provider failures are retried before the prompt settles.
	if err := s.runRetrying(ctx, func() error { return s.agent.Prompt(ctx, msgs...) }); err != nil {
		if errors.Is(err, agent.ErrBusy) && len(queued) > 0 {
			s.mu.Lock()
			s.nextTurn = append(queued, s.nextTurn...)
			s.mu.Unlock()
		}
		return err
	}
	return s.sessionStop(ctx)
}

// sessionStop runs the oh-my-pi settle hook: a continuation prompts again with its additional
// context, at most Cap times in a row (events.md §3.5).
func (s *Session) sessionStop(ctx context.Context) error {
	spec, _ := ext.Lookup("session_stop")
	for n := 0; n < spec.Cap && s.runner.Has(ext.IDSessionStop) && ctx.Err() == nil; n++ {
		msgs := s.agent.Messages()
		var last *llm.Message
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == llm.RoleAssistant {
				last = &msgs[i]
				break
			}
		}
		out, res, _ := emit[*ext.SessionStopResult](s, ctx, ext.SessionStop{
			Messages: msgs, LastAssistantMessage: last, SessionID: s.store.SessionID(),
			SessionFile: s.store.SessionFile(), StopHookActive: n > 0,
		})
		if res != nil && res.Decision == "block" {
			return nil
		}
		c := out.Continuation()
		if c == nil {
			return nil
		}
		extra := c.AdditionalContext
		if extra == "" {
			extra = c.Reason
		}
		cont := s.customMessage(ext.CustomMessage{CustomType: "session_stop", Content: []llm.Content{llm.Text(extra)}, Display: true}, false)
		if err := s.runRetrying(ctx, func() error { return s.agent.Prompt(ctx, cont) }); err != nil {
			return err
		}
	}
	return nil
}

func parseCommand(text string) (name, args string, ok bool) {
	if !strings.HasPrefix(text, "/") || len(text) < 2 {
		return "", "", false
	}
	body := text[1:]
	name, args, _ = strings.Cut(body, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], strings.TrimSpace(body[i:])
	}
	return name, strings.TrimSpace(args), name != ""
}

func (s *Session) runCommand(ctx context.Context, name string, cmd ext.Command, e *ext.Extension, args string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
		if err != nil {
			err = fmt.Errorf("%w: /%s (%s): %v", ErrCommandFailed, name, e.Path, err)
		}
	}()
	return cmd.Handler(ctx, s.commandContext(ctx), args)
}

// systemPromptOptions are before_agent_start's systemPromptOptions for the active tools.
func (s *Session) systemPromptOptions() ext.SystemPromptOptions {
	if s.opts.SystemPromptOptions != nil {
		o := s.opts.SystemPromptOptions(s.agent.Config().Tools)
		if o.SelectedTools == nil {
			o.SelectedTools = []string{}
		}
		return o
	}
	return ext.SystemPromptOptions{SelectedTools: s.toolNames(), Cwd: s.opts.Cwd}
}

func (s *Session) toolNames() []string {
	var out []string
	for _, t := range s.agent.Config().Tools {
		out = append(out, t.Name())
	}
	return out
}

// customMessage turns an extension message into an agent message of role custom.
func (s *Session) customMessage(m ext.CustomMessage, exclude bool) llm.Message {
	content := m.Content
	if content == nil {
		content = []llm.Content{}
	}
	return llm.Message{Role: llm.RoleCustom, CustomType: m.CustomType, Content: content, Display: m.Display, Details: m.Details, ExcludeFromContext: exclude, Timestamp: s.now().UnixMilli()}
}

// Start emits the startup lifecycle on a fresh runtime (events.md §2): session_start with the
// reason, the pi/oh-my-pi compatibility after-events for switches and forks, then
// resources_discover; the runner is bound first so buffered notices flush.
func (s *Session) Start(ctx context.Context, reason, previousSessionFile string) {
	s.runner.SetHost(s)
	s.runner.Bind()
	emit[ext.None](s, ctx, ext.SessionStart{Reason: reason, PreviousSessionFile: previousSessionFile})
	switch reason {
	case "new", "resume":
		emit[ext.None](s, ctx, ext.SessionSwitch{Reason: reason, PreviousSessionFile: previousSessionFile})
	case "fork":
		emit[ext.None](s, ctx, ext.SessionFork{PreviousSessionFile: previousSessionFile})
		emit[ext.None](s, ctx, ext.SessionBranch{PreviousSessionFile: previousSessionFile})
	}
	discoverReason := "startup"
	if reason == "reload" {
		discoverReason = "reload"
	}
	out, _, _ := emit[*ext.ResourcesDiscoverResult](s, ctx, ext.ResourcesDiscover{Cwd: s.opts.Cwd, Reason: discoverReason})
	if len(out.Contributed) > 0 && s.opts.ExtendResources != nil {
		// pi's extendResourcesFromExtensions: the contributed skills and templates join the
		// discovered ones and the system prompt listing them is rebuilt.
		skills, templates := s.opts.ExtendResources(out.Contributed)
		s.mu.Lock()
		s.opts.Skills, s.opts.PromptTemplates = skills, templates
		s.mu.Unlock()
		if s.opts.SystemPromptBuilder != nil {
			s.ToolsChanged()
		}
	}
}

// Shutdown aborts any run, waits for extension-triggered turns, emits session_shutdown and
// disposes the session: every context handed out before is stale from then on.
func (s *Session) Shutdown(ctx context.Context, reason, targetSessionFile string) {
	if s.disposed.Load() {
		return
	}
	s.agent.Abort()
	emit[ext.None](s, ctx, ext.SessionShutdown{Reason: reason, TargetSessionFile: targetSessionFile})
	s.runner.Drain()
	// Work extensions started (triggered turns, ctx.compact) ends with the session; after the
	// session_shutdown handlers, whose ctx.signal it is while idle.
	s.endLife()
	s.runner.Dispose() // workflow observers and publishers, extension providers (before SetHost(nil))
	s.disposed.Store(true)
	s.runner.MarkStale()
	s.runner.SetHost(nil)
}

// WaitIdle blocks until no run is active and turns triggered by extensions have finished.
func (s *Session) WaitIdle(ctx context.Context) error {
	for {
		if err := s.agent.Wait(ctx); err != nil {
			return err
		}
		if err := s.inflight.wait(ctx); err != nil {
			return err
		}
		if !s.agent.IsRunning() && s.inflight.idle() {
			return nil
		}
	}
}

func (s *Session) live(op string) error {
	if s.disposed.Load() {
		return &ext.StaleContextError{Op: op}
	}
	return nil
}

// Host implementation (ext.Host): what extensions do to the session.

// SendMessage delivers extension messages per opts (seed 004, "pi.sendMessage").
func (s *Session) SendMessage(ctx context.Context, msgs []ext.CustomMessage, o ext.SendOptions) error {
	if err := s.live("sendMessage"); err != nil {
		return err
	}
	am := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		am[i] = s.customMessage(m, o.ExcludeFromContext)
	}
	return s.deliver(am, o)
}

// SendUserMessage delivers a user message; while streaming, DeliverAs is required.
func (s *Session) SendUserMessage(ctx context.Context, content []llm.Content, o ext.SendOptions) error {
	if err := s.live("sendUserMessage"); err != nil {
		return err
	}
	if s.agent.IsRunning() && o.DeliverAs == "" {
		return errors.New(`sendUserMessage: the agent is streaming: pass deliverAs "steer" or "followUp"`)
	}
	if s.agent.IsRunning() {
		return s.deliver([]llm.Message{{Role: llm.RoleUser, Content: content, Timestamp: s.now().UnixMilli()}}, o)
	}
	// Idle: the user message takes the prompt path (input with source "extension",
	// before_agent_start, nextTurn messages), in the background (an admission receipt).
	var text strings.Builder
	var images []llm.Content
	for _, c := range content {
		switch c.Type {
		case llm.ContentText:
			text.WriteString(c.Text)
		case llm.ContentImage:
			images = append(images, c)
		}
	}
	s.inflight.add()
	go func() {
		defer s.inflight.done()
		if err := s.PromptWith(s.life, text.String(), PromptOptions{Source: "extension", Images: images}); err != nil && s.life.Err() == nil {
			s.onErr(fmt.Errorf("session: sendUserMessage: %w", err))
		}
	}()
	return nil
}

func (s *Session) deliver(msgs []llm.Message, o ext.SendOptions) error {
	running := s.agent.IsRunning()
	switch {
	case o.DeliverAs == "nextTurn":
		s.mu.Lock()
		s.nextTurn = append(s.nextTurn, msgs...)
		s.mu.Unlock()
		return nil
	case o.DeliverAs == "interrupt":
		s.startTurn(msgs, true)
		return nil
	case running && o.DeliverAs == "" && len(msgs) > 0 && msgs[0].ExcludeFromContext:
		// Display-only while streaming: persisted and shown, never sent (seed 004).
		for _, m := range msgs {
			s.publishMessage(m) // onLoop persists its message_end
		}
		return nil
	case running && o.DeliverAs == "followUp":
		s.agent.FollowUp(msgs...)
		return nil
	case running:
		s.agent.Steer(msgs...)
		return nil
	case o.TriggerTurn:
		s.startTurn(msgs, false)
		return nil
	}
	// Idle without a turn: the messages join the session as they are.
	for _, m := range msgs {
		s.appendIdle(m)
	}
	return nil
}

// startTurn runs a turn for msgs in the background (the call is an admission receipt); with
// interrupt it first aborts the active run. The turn takes the prompt path of a user prompt
// after `input` (runTurn): automatic compaction, the nextTurn queue, before_agent_start (its
// prompt is the messages' text), auto-retry and session_stop; agent_settled ends it.
func (s *Session) startTurn(msgs []llm.Message, interrupt bool) {
	s.inflight.add()
	go func() {
		defer s.inflight.done()
		if interrupt {
			s.agent.Abort()
		}
		defer s.settled()
		ctx := s.life // Shutdown cancels it
		var text strings.Builder
		for _, m := range msgs {
			for _, c := range m.Content {
				if c.Type == llm.ContentText {
					if text.Len() > 0 {
						text.WriteString("\n")
					}
					text.WriteString(c.Text)
				}
			}
		}
		for {
			if s.agent.Wait(ctx) != nil || ctx.Err() != nil {
				return // the session was shut down before the turn could start
			}
			err := s.prePrompt(ctx, text.String())
			if err == nil {
				err = s.runTurn(ctx, text.String(), nil, msgs, nil)
			}
			if errors.Is(err, agent.ErrBusy) {
				continue // another turn started first; queue behind it
			}
			if err != nil {
				s.onErr(fmt.Errorf("session: extension-triggered turn: %w", err))
			}
			return
		}
	}()
}

// appendIdle adds a message to the context and the session without running a turn.
func (s *Session) appendIdle(m llm.Message) {
	msgs := append(s.agent.Messages(), m)
	_ = s.agent.SetMessages(msgs)
	s.publishMessage(m) // onLoop persists its message_end
}

// AppendEntry persists extension state and emits entry_appended.
func (s *Session) AppendEntry(customType string, data any) error {
	if err := s.live("appendEntry"); err != nil {
		return err
	}
	id, err := s.store.AppendCustomEntry(customType, data)
	if err != nil {
		return err
	}
	entry := s.store.Entry(id)
	emit[ext.None](s, context.Background(), ext.EntryAppended{Entry: entry})
	return nil
}

// SetSessionName records the name and emits session_info_changed.
func (s *Session) SetSessionName(name string) error {
	if err := s.live("setSessionName"); err != nil {
		return err
	}
	if _, err := s.store.AppendSessionInfo(name); err != nil {
		return err
	}
	var p *string
	if n := strings.TrimSpace(name); n != "" {
		p = &n
	}
	emit[ext.None](s, context.Background(), ext.SessionInfoChanged{Name: p})
	return nil
}

// SessionName returns the session's display name.
func (s *Session) SessionName() string { return s.store.SessionName() }

// SetLabel labels an entry ("" clears).
func (s *Session) SetLabel(entryID, label string) error {
	if err := s.live("setLabel"); err != nil {
		return err
	}
	_, err := s.store.AppendLabelChange(entryID, label)
	return err
}

// SetModel switches the model, re-clamps the thinking level and emits thinking_level_select (if
// it changed) then model_select (events.md §2, "/model").
func (s *Session) SetModel(m *llm.Model) error {
	return s.setModel(m, "set")
}

func (s *Session) setModel(m *llm.Model, source string) error {
	if err := s.live("setModel"); err != nil {
		return err
	}
	if m == nil {
		return errors.New("setModel: no model")
	}
	if prev := s.Model(); prev != nil && prev.Provider == m.Provider && prev.ID == m.ID {
		return nil
	}
	p := s.opts.Provider
	if p == nil {
		var err error
		if p, err = ProviderFor(m.API); err != nil {
			return fmt.Errorf("setModel %s/%s: %w", m.Provider, m.ID, err)
		}
	}
	var prev *llm.Model
	var prevLevel, level string
	s.agent.Configure(func(c *agent.Config) {
		prev, prevLevel = c.Model, c.ThinkingLevel
		level = llm.ClampThinkingLevel(m, prevLevel)
		c.Model, c.Provider, c.ThinkingLevel = m, p, level
	})
	if _, err := s.store.AppendModelChange(m.Provider, m.ID); err != nil {
		return err
	}
	if level != prevLevel {
		if _, err := s.store.AppendThinkingLevelChange(level); err != nil {
			return err
		}
		emit[ext.None](s, context.Background(), ext.ThinkingLevelSelect{Level: level, PreviousLevel: prevLevel})
		// thinking_level_select is fire-and-forget but comes first (events.md §2 "/model").
		s.runner.Drain()
	}
	emit[ext.None](s, context.Background(), ext.ModelSelect{Model: m, PreviousModel: prev, Source: source})
	return nil
}

// SetThinkingLevel sets the level (clamped to the model) and emits thinking_level_select when
// the effective level changed.
func (s *Session) SetThinkingLevel(level string) error {
	if err := s.live("setThinkingLevel"); err != nil {
		return err
	}
	if !llm.ValidThinkingLevel(level) {
		return fmt.Errorf("setThinkingLevel: unknown level %q (use %s)", level, strings.Join(llm.ThinkingLevels, ", "))
	}
	var prev string
	s.agent.Configure(func(c *agent.Config) {
		prev = c.ThinkingLevel
		level = llm.ClampThinkingLevel(c.Model, level)
		c.ThinkingLevel = level
	})
	if level == prev {
		return nil
	}
	if _, err := s.store.AppendThinkingLevelChange(level); err != nil {
		return err
	}
	emit[ext.None](s, context.Background(), ext.ThinkingLevelSelect{Level: level, PreviousLevel: prev})
	return nil
}

// ToolsChanged recomputes the agent's tools from the built-ins and the extensions' tools, and the
// system prompt when a builder was given.
func (s *Session) ToolsChanged() {
	tools := s.runner.Tools(s.ActiveBuiltinTools(), s.allBuiltins())
	prompt := ""
	if s.opts.SystemPromptBuilder != nil {
		prompt = s.opts.SystemPromptBuilder(tools)
		s.mu.Lock()
		s.basePrompt = prompt
		s.mu.Unlock()
	}
	s.agent.Configure(func(c *agent.Config) {
		c.Tools = tools
		if prompt != "" {
			c.SystemPrompt = prompt
		}
	})
}

// checkAllowlist reports each Options.ToolAllowlist name that matches no built-in, MCP or
// extension tool (a typo in --tools would otherwise leave the model silently without it).
func (s *Session) checkAllowlist() {
	if len(s.opts.ToolAllowlist) == 0 || s.opts.OnError == nil {
		return
	}
	known := map[string]bool{}
	for _, t := range s.allBuiltins() {
		known[t.Name()] = true
	}
	for _, n := range s.runner.ToolNames() {
		known[n] = true
	}
	for _, n := range s.opts.ToolDenylist {
		known[n] = true // excluded on purpose, not a typo
	}
	for _, n := range s.opts.ToolAllowlist {
		if !known[n] {
			s.opts.OnError(fmt.Errorf("--tools: unknown tool %q", n))
		}
	}
}

// BuiltinTools returns every built-in tool the session can offer.
func (s *Session) BuiltinTools() []tool.Tool { return s.allBuiltins() }

// ActiveBuiltinTools returns the built-in tools active by default, the MCP tools among them.
func (s *Session) ActiveBuiltinTools() []tool.Tool { return withMCP(s.opts.Tools, s.opts.MCP) }

func (s *Session) allBuiltins() []tool.Tool {
	if s.opts.AllBuiltins != nil {
		return withMCP(s.opts.AllBuiltins, s.opts.MCP)
	}
	return withMCP(s.opts.Tools, s.opts.MCP)
}

var _ ext.Host = (*Session)(nil)

// settled ends a top-level prompt: agent_settled to extensions, then to the front-ends.
func (s *Session) settled() {
	emit[ext.None](s, context.Background(), ext.AgentSettled{})
}
