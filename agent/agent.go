package agent

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// ErrBusy is returned by Prompt and Continue while a run is in progress.
var ErrBusy = errors.New("agent: a run is already in progress; queue the message with Steer or FollowUp")

// QueueMode says how many queued messages are delivered at once.
type QueueMode string

// Queue delivery modes.
const (
	OneAtATime QueueMode = "one-at-a-time"
	All        QueueMode = "all"
)

// Config is what an Agent needs to run. Provider and Model are required.
type Config struct {
	Provider      llm.Provider
	Model         *llm.Model
	SystemPrompt  string
	ThinkingLevel string
	Tools         []tool.Tool
	Hooks         Hooks
	// Sequential runs tool calls one after another instead of in parallel.
	Sequential bool
	// SteeringMode and FollowUpMode default to OneAtATime.
	SteeringMode QueueMode
	FollowUpMode QueueMode
	// Now returns the current time; nil means time.Now (tests pin it).
	Now func() time.Time
}

// Agent runs prompts against a provider with tools. Its methods are safe for concurrent use;
// only one run is active at a time.
type Agent struct {
	mu       sync.Mutex // guards cfg, messages, queues, running, cancel, subs
	cfg      Config
	messages []llm.Message
	steer    [][]llm.Message // batches, delivered whole
	followUp [][]llm.Message
	running  bool
	done     chan struct{}   // closed when the active run ends
	runCtx   context.Context // the active run's context (nil when idle)
	cancel   context.CancelFunc
	subs     atomic.Pointer[[]*func(ext.Payload)] // copy-on-write under mu
	emitMu   sync.Mutex                           // serialises event delivery
}

// New returns an Agent with cfg and an empty context.
func New(cfg Config) *Agent {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SteeringMode == "" {
		cfg.SteeringMode = OneAtATime
	}
	if cfg.FollowUpMode == "" {
		cfg.FollowUpMode = OneAtATime
	}
	return &Agent{cfg: cfg}
}

// Subscribe adds fn to the event subscribers; it returns a function that removes it (safe to
// call at any time, also while an event is being delivered: the removal applies from the next
// event). Subscribers run synchronously in subscription order on the emitting goroutine, one
// event at a time; each event is a pointer to its ext payload (*ext.AgentStart,
// *ext.MessageUpdate, …) that subscribers must not change. The session is the one subscriber in
// atomic: it dispatches each event to extensions, persists it and publishes it to front-ends.
func (a *Agent) Subscribe(fn func(ext.Payload)) (unsubscribe func()) {
	p := &fn
	a.mu.Lock()
	defer a.mu.Unlock()
	var next []*func(ext.Payload)
	if cur := a.subs.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, p)
	a.subs.Store(&next)
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		cur := a.subs.Load()
		if cur == nil {
			return
		}
		kept := make([]*func(ext.Payload), 0, len(*cur))
		for _, q := range *cur {
			if q != p {
				kept = append(kept, q)
			}
		}
		a.subs.Store(&kept)
	}
}

// Configure applies fn to the configuration under the agent's lock; changes apply from the next
// provider request.
func (a *Agent) Configure(fn func(*Config)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fn(&a.cfg)
}

// Config returns a copy of the current configuration.
func (a *Agent) Config() Config {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg
}

// Messages returns the context: the agent's own messages, not a copy, as a slice cut to its
// length (appending to it copies). Callers must not modify its elements.
func (a *Agent) Messages() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The agent only ever appends to its slice or replaces it, so the messages up to len are
	// never written again: the caller gets them without a copy, cut to their length so its own
	// appends cannot reach the agent's array.
	return a.messages[:len(a.messages):len(a.messages)]
}

// SetMessages replaces the context, e.g. when a session is loaded. It fails while running.
func (a *Agent) SetMessages(msgs []llm.Message) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return ErrBusy
	}
	a.messages = append([]llm.Message(nil), msgs...)
	return nil
}

// AdoptMessages is SetMessages without the copy: the agent takes msgs over, capacity included,
// so its next appends can use msgs' spare room. The caller must not use msgs afterwards (a
// freshly built context: a long resumed session is not held twice).
func (a *Agent) AdoptMessages(msgs []llm.Message) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return ErrBusy
	}
	a.messages = msgs
	return nil
}

// IsRunning reports whether a run is in progress.
func (a *Agent) IsRunning() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}

// RunContext returns the active run's context (cancelled on abort), or nil when idle.
func (a *Agent) RunContext() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runCtx
}

// Wait blocks until no run is active or ctx ends.
func (a *Agent) Wait(ctx context.Context) error {
	for {
		a.mu.Lock()
		done := a.done
		a.mu.Unlock()
		if done == nil {
			return nil
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Steer queues messages delivered together after the current turn's tool calls finish, before
// the next provider request. Messages of one call stay contiguous (an atomic batch).
func (a *Agent) Steer(m ...llm.Message) {
	if len(m) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steer = append(a.steer, m)
}

// FollowUp queues messages delivered together when the agent would otherwise stop.
func (a *Agent) FollowUp(m ...llm.Message) {
	if len(m) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.followUp = append(a.followUp, m)
}

func flatten(q [][]llm.Message) []llm.Message {
	var out []llm.Message
	for _, b := range q {
		out = append(out, b...)
	}
	return out
}

// QueuedMessages returns copies of the steering and follow-up queues.
func (a *Agent) QueuedMessages() (steer, followUp []llm.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return flatten(a.steer), flatten(a.followUp)
}

// ClearQueues empties both queues and returns what they held.
func (a *Agent) ClearQueues() (steer, followUp []llm.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	steer, followUp = flatten(a.steer), flatten(a.followUp)
	a.steer, a.followUp = nil, nil
	return steer, followUp
}

// HasQueuedMessages reports whether a steering or follow-up message is waiting.
func (a *Agent) HasQueuedMessages() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.steer) > 0 || len(a.followUp) > 0
}

// Abort cancels the active run, if any. The partial assistant message is kept with stop reason
// "aborted"; running tools see their context cancelled.
func (a *Agent) Abort() {
	a.mu.Lock()
	cancel := a.cancel
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Prompt adds msgs (usually one user message) to the context and runs until the model stops
// calling tools and the queues are empty, or ctx is cancelled, or the provider fails. A provider
// failure is not a Go error: it ends the run with an assistant message whose stop reason is
// "error" (read it from the context or the events). The error is ErrBusy or ctx's error only.
func (a *Agent) Prompt(ctx context.Context, msgs ...llm.Message) error {
	return a.run(ctx, msgs)
}

// Continue runs from the current context without a new message (after an error or to deliver
// queued messages). The last message must not be an assistant message unless queued messages wait.
func (a *Agent) Continue(ctx context.Context) error {
	a.mu.Lock()
	n := len(a.messages)
	last := ""
	if n > 0 {
		last = a.messages[n-1].Role
	}
	queued := len(a.steer) + len(a.followUp)
	a.mu.Unlock()
	if n == 0 {
		return errors.New("agent: nothing to continue: the context is empty")
	}
	if last == llm.RoleAssistant && queued == 0 {
		return errors.New("agent: cannot continue from an assistant message")
	}
	return a.run(ctx, nil)
}

// Emit delivers a message event the session adds outside a run (a display-only or idle
// message's message_start/message_end) to the subscribers, ordered with the loop's own events.
func (a *Agent) Emit(e ext.Payload) { a.emit(e) }

func (a *Agent) emit(e ext.Payload) {
	a.emitMu.Lock()
	defer a.emitMu.Unlock()
	subs := a.subs.Load()
	if subs == nil {
		return
	}
	for _, fn := range *subs {
		(*fn)(e)
	}
}

// replaceMessages installs a context rebuilt during the run (compaction).
func (a *Agent) replaceMessages(msgs []llm.Message) {
	a.mu.Lock()
	a.messages = append([]llm.Message(nil), msgs...)
	a.mu.Unlock()
}

func (a *Agent) appendMessage(m llm.Message) {
	a.mu.Lock()
	a.messages = append(a.messages, m)
	a.mu.Unlock()
}

func (a *Agent) dequeue(steering bool) []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	q, mode := &a.followUp, a.cfg.FollowUpMode
	if steering {
		q, mode = &a.steer, a.cfg.SteeringMode
	}
	if len(*q) == 0 {
		return nil
	}
	if mode == All {
		out := flatten(*q)
		*q = nil
		return out
	}
	out := (*q)[0]
	*q = (*q)[1:]
	return out
}

// run is the loop of one prompt: events.md §3.5 and §1.7.
func (a *Agent) run(parent context.Context, prompts []llm.Message) error {
	ctx, cancel := context.WithCancel(parent)
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		cancel()
		return ErrBusy
	}
	a.running, a.cancel = true, cancel
	done := make(chan struct{})
	a.done, a.runCtx = done, ctx
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.running, a.cancel, a.done, a.runCtx = false, nil, nil, nil
		a.mu.Unlock()
		cancel()
		close(done)
	}()

	var added []llm.Message
	addMsg := func(m llm.Message) *llm.Message {
		start := m // message_start keeps the message as it began; finalize may replace m
		a.emit(&ext.MessageStart{Message: &start})
		a.finalize(ctx, &m)
		a.appendMessage(m)
		added = append(added, m)
		a.emit(&ext.MessageEnd{Message: &m})
		return &m
	}

	for {
		if err := a.runOnce(ctx, prompts, &added, addMsg); err != nil {
			return err
		}
		// Follow-ups (or steers) queued while agent_end was handled start another run, with its
		// own agent_start … agent_end (events.md §2 "Prompt", step 12).
		if ctx.Err() != nil {
			return nil
		}
		next := a.dequeue(true)
		if len(next) == 0 {
			next = a.dequeue(false)
		}
		if len(next) == 0 {
			return nil
		}
		prompts, added = next, nil
	}
}

// runOnce is one low-level run: agent_start, the turns, agent_end.
func (a *Agent) runOnce(ctx context.Context, prompts []llm.Message, addedp *[]llm.Message, addMsg func(llm.Message) *llm.Message) error {
	a.emit(&ext.AgentStart{})
	turn := 0
	pending := prompts
	if len(pending) == 0 {
		pending = a.dequeue(true)
	}
	firstTurn := true
	overflowRetried := false
	for {
		if !firstTurn {
			turn++
		}
		firstTurn = false
		a.emit(&ext.TurnStart{TurnIndex: turn, Timestamp: a.cfg.Now().UnixMilli()})
		for _, m := range pending {
			addMsg(m)
		}
		pending = nil

		if hook := a.Config().Hooks.BeforeRequest; hook != nil && ctx.Err() == nil {
			repl, stop := hook(ctx, a.Messages())
			if stop != nil {
				cfg := a.Config()
				failed := llm.NewBuilder(cfg.Model, nil).Fail(stop.Error(), ctx.Err() != nil, cfg.Model)
				start := failed.Clone()
				start.Content = []llm.Content{}
				a.emit(&ext.MessageStart{Message: &start})
				a.finalize(ctx, &failed)
				a.appendMessage(failed)
				a.emit(&ext.MessageEnd{Message: &failed})
				*addedp = append(*addedp, failed)
				a.emit(&ext.TurnEnd{TurnIndex: turn, Message: &failed, ToolResults: []llm.Message{}})
				break
			}
			if repl != nil {
				a.replaceMessages(repl)
			}
		}
		assistant := a.streamAssistant(ctx)
		*addedp = append(*addedp, assistant)
		if assistant.StopReason == llm.StopError && !overflowRetried && ctx.Err() == nil {
			if hook := a.Config().Hooks.Overflow; hook != nil {
				msgs := a.Messages()
				if repl, ok := hook(ctx, &assistant, msgs[:len(msgs)-1]); ok {
					overflowRetried = true
					a.replaceMessages(repl)
					a.emit(&ext.TurnEnd{TurnIndex: turn, Message: &assistant, ToolResults: []llm.Message{}})
					continue
				}
			}
		}
		if assistant.StopReason == llm.StopError || assistant.StopReason == llm.StopAborted {
			a.emit(&ext.TurnEnd{TurnIndex: turn, Message: &assistant, ToolResults: []llm.Message{}})
			break
		}
		var results []llm.Message
		terminate := false
		if calls := assistant.ToolCalls(); len(calls) > 0 {
			results, terminate = a.runTools(ctx, calls)
			for i := range results {
				results[i] = *addMsg(results[i])
			}
		}
		if results == nil {
			results = []llm.Message{}
		}
		a.emit(&ext.TurnEnd{TurnIndex: turn, Message: &assistant, ToolResults: results})
		if steer := a.dequeue(true); len(steer) > 0 {
			pending = steer
			continue
		}
		if len(results) > 0 && !terminate {
			continue
		}
		if fu := a.dequeue(false); len(fu) > 0 {
			pending = fu
			continue
		}
		break
	}
	a.emit(&ext.AgentEnd{Messages: *addedp})
	return nil
}

// streamAssistant makes one provider request and streams the assistant message, emitting
// message_start at the first stream event, message_update per delta and message_end at the end.
func (a *Agent) streamAssistant(ctx context.Context) llm.Message {
	cfg := a.Config()
	msgs := a.Messages()
	if cfg.Hooks.TransformContext != nil {
		msgs = cfg.Hooks.TransformContext(ctx, msgs)
	}
	req := &llm.Request{
		Model:         cfg.Model,
		SystemPrompt:  cfg.SystemPrompt,
		Messages:      ConvertToLLM(msgs),
		ThinkingLevel: llm.ClampThinkingLevel(cfg.Model, cfg.ThinkingLevel),
	}
	for _, t := range cfg.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()})
	}
	started := false
	var final llm.Message
	if cfg.Hooks.PrepareRequest != nil {
		if err := cfg.Hooks.PrepareRequest(ctx, req); err != nil {
			b := llm.NewBuilder(cfg.Model, nil)
			final = b.Fail(err.Error(), ctx.Err() != nil, cfg.Model)
		}
	}
	if final.Role == "" && ctx.Err() != nil {
		// Aborted between turns (for example during tool calls): record the aborted turn
		// without a request, as the provider would have.
		final = llm.NewBuilder(cfg.Model, nil).Fail("", true, cfg.Model)
	}
	if final.Role == "" {
		final = cfg.Provider.Stream(ctx, req, func(ev llm.Event) {
			if !started {
				started = true
				start := ev.Partial.Clone()
				start.StopReason = llm.StopStop
				a.emit(&ext.MessageStart{Message: &start})
			}
			if ev.Type == llm.EventStart || ev.Type == llm.EventDone || ev.Type == llm.EventError {
				return
			}
			a.emit(&ext.MessageUpdate{Message: ev.Partial, AssistantMessageEvent: &ev})
		})
	}
	if !started {
		start := final.Clone()
		start.Content = []llm.Content{}
		a.emit(&ext.MessageStart{Message: &start})
	}
	a.finalize(ctx, &final)
	a.appendMessage(final)
	a.emit(&ext.MessageEnd{Message: &final})
	return final
}

// finalize lets the MessageEnd hook replace a message before it joins the context and its
// message_end is emitted (events.md §4 row 11: a same-role replacement applied in place).
func (a *Agent) finalize(ctx context.Context, m *llm.Message) {
	cfg := a.Config()
	if cfg.Hooks.MessageEnd == nil {
		return
	}
	role := m.Role
	cfg.Hooks.MessageEnd(ctx, m)
	m.Role = role
}

// toolRun is one tool call of a batch as it moves through preflight and execution.
type toolRun struct {
	call   tool.Call
	tool   tool.Tool
	result tool.Result
	isErr  bool
	done   bool // finalised during preflight (not executed)
}

// runTools executes the calls of one assistant message per events.md §1.7 and returns the
// toolResult messages in source order and whether every result asked to terminate.
func (a *Agent) runTools(ctx context.Context, calls []llm.Content) ([]llm.Message, bool) {
	cfg := a.Config()
	byName := make(map[string]tool.Tool, len(cfg.Tools))
	for _, t := range cfg.Tools {
		byName[t.Name()] = t
	}
	runs := make([]*toolRun, len(calls))
	for i, c := range calls {
		args := c.Arguments
		if args == nil {
			args = map[string]any{}
		}
		r := &toolRun{call: tool.Call{ID: c.ID, Name: c.Name, Args: args}}
		runs[i] = r
		a.emit(&ext.ToolExecutionStart{ToolCallID: c.ID, ToolName: c.Name, Args: args})
		fail := func(msg string, terminate bool) {
			r.result = tool.Result{Content: []llm.Content{llm.Text(msg)}, Details: map[string]any{}, Terminate: terminate}
			r.isErr, r.done = true, true
			a.finishTool(r)
		}
		if ctx.Err() != nil {
			fail("Operation aborted", false)
			continue
		}
		t, ok := byName[c.Name]
		if !ok {
			fail(fmt.Sprintf("Tool %s not found", c.Name), false)
			continue
		}
		r.tool = t
		if c.ArgumentsError != "" {
			fail(c.ArgumentsError+"\nCall the tool again with a valid JSON object as its arguments.", false)
			continue
		}
		if p, ok := t.(tool.ArgumentPreparer); ok {
			args = p.PrepareArguments(args)
			r.call.Args = args
		}
		if msg := validateArgs(c.Name, t.Parameters(), args); msg != "" {
			fail(msg, false)
			continue
		}
		if cfg.Hooks.BeforeToolCall != nil {
			block, err := safeBeforeToolCall(ctx, cfg.Hooks.BeforeToolCall, &r.call)
			if err != nil {
				fail(fmt.Sprintf("Tool call blocked: %v", err), false)
				continue
			}
			if block != nil {
				reason := block.Reason
				if reason == "" {
					reason = "Tool execution was blocked"
				}
				fail(reason, block.Terminate)
				continue
			}
			if !sameMap(args, r.call.Args) {
				// A hook replaced the input: validate it again (events.md §4 row 8).
				if msg := validateArgs(c.Name, t.Parameters(), r.call.Args); msg != "" {
					fail(msg, false)
					continue
				}
			}
		}
	}

	sequential := cfg.Sequential
	for _, r := range runs {
		if s, ok := r.tool.(tool.Sequencer); ok && !r.done && s.Sequential() {
			sequential = true // pi's executionMode "sequential"
		}
	}
	var wg sync.WaitGroup
	for _, r := range runs {
		if r.done {
			continue
		}
		if sequential {
			a.execute(ctx, cfg, r)
			continue
		}
		wg.Add(1)
		sr, ok := r.tool.(tool.StartReporter)
		if !ok || !sr.ReportsStart() {
			go func() {
				defer wg.Done()
				a.execute(ctx, cfg, r)
			}()
			continue
		}
		// The next call starts once this one reached its executor (tool.StartReporter).
		started := make(chan struct{})
		var once sync.Once
		mark := func() { once.Do(func() { close(started) }) }
		go func() {
			defer wg.Done()
			defer mark()
			a.execute(tool.WithStarted(ctx, mark), cfg, r)
		}()
		<-started
	}
	wg.Wait()

	now := a.cfg.Now().UnixMilli()
	out := make([]llm.Message, len(runs))
	terminate := len(runs) > 0
	for i, r := range runs {
		content := r.result.Content
		if content == nil {
			content = []llm.Content{}
		}
		out[i] = llm.Message{
			Role:       llm.RoleToolResult,
			ToolCallID: r.call.ID,
			ToolName:   r.call.Name,
			Content:    content,
			Details:    r.result.Details,
			IsError:    r.isErr,
			Timestamp:  now,
		}
		terminate = terminate && r.result.Terminate
	}
	return out, terminate
}

// sameMap reports whether a and b are the same map (not merely equal).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func safeBeforeToolCall(ctx context.Context, fn func(context.Context, *tool.Call) (*Block, error), call *tool.Call) (b *Block, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("the tool_call handler panicked: %v", p)
		}
	}()
	return fn(ctx, call)
}

// execute runs one preflighted call, applies AfterToolCall and emits tool_execution_end.
func (a *Agent) execute(ctx context.Context, cfg Config, r *toolRun) {
	update := func(p tool.Result) {
		a.emit(&ext.ToolExecutionUpdate{ToolCallID: r.call.ID, ToolName: r.call.Name, Args: r.call.Args, PartialResult: ext.NewToolOutput(&p)})
	}
	execCtx := ctx
	if cfg.Hooks.ToolContext != nil {
		execCtx = cfg.Hooks.ToolContext(ctx)
	}
	res, err := safeExecute(execCtx, r.tool, r.call, update)
	if err != nil {
		res = tool.Result{Content: []llm.Content{llm.Text(err.Error())}, Details: map[string]any{}}
		r.isErr = true
	} else if res.IsError {
		r.isErr = true
	}
	if cfg.Hooks.AfterToolCall != nil {
		res.IsError = r.isErr
		res = cfg.Hooks.AfterToolCall(ctx, r.call, res)
		r.isErr = res.IsError
	}
	r.result = res
	a.finishTool(r)
}

func safeExecute(ctx context.Context, t tool.Tool, call tool.Call, update func(tool.Result)) (res tool.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool %s crashed: %v", call.Name, p)
		}
	}()
	if ctx.Err() != nil {
		return res, errors.New("Operation aborted")
	}
	return t.Execute(ctx, call, update)
}

func (a *Agent) finishTool(r *toolRun) {
	res := r.result
	a.emit(&ext.ToolExecutionEnd{ToolCallID: r.call.ID, ToolName: r.call.Name, Result: ext.NewToolOutput(&res), IsError: r.isErr})
}
