package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/tool"
)

// Factory is a Go extension: it receives the API once per runtime (again after reload or
// session replacement) and registers handlers, tools, commands and the rest. An error aborts
// loading this extension and is reported.
type Factory func(api API) error

// Extension is one loaded extension.
type Extension struct {
	// Path identifies the extension in errors and sourceInfo (a file path, or a Go name).
	Path  string
	index int
}

// Host is what the session provides to extensions: every session-bound API method ends here.
// The session implements it; a runner without a host answers those methods with ErrNoSession.
type Host interface {
	SendMessage(ctx context.Context, msgs []CustomMessage, opts SendOptions) error
	SendUserMessage(ctx context.Context, content []llm.Content, opts SendOptions) error
	AppendEntry(customType string, data any) error
	SetSessionName(name string) error
	SessionName() string
	SetLabel(entryID, label string) error
	SetModel(m *llm.Model) error
	ThinkingLevel() string
	SetThinkingLevel(level string) error
	// ToolsChanged tells the session that the registered tools or the active set changed.
	ToolsChanged()
	// BuiltinTools are every built-in tool the session can offer, for getAllTools and
	// setActiveTools; ActiveBuiltinTools are the ones active by default.
	BuiltinTools() []tool.Tool
	ActiveBuiltinTools() []tool.Tool
	// ModelRegistry is the registry that providers registered by extensions join (nil: none).
	ModelRegistry() *model.Registry
}

// SendOptions are the options of sendMessage, sendMessages and sendUserMessage (seed 004).
type SendOptions struct {
	// DeliverAs is steer (default while streaming), followUp, nextTurn or interrupt.
	DeliverAs string
	// TriggerTurn starts a turn when the agent is idle.
	TriggerTurn bool
	// ExcludeFromContext persists and shows the message without sending it to the model.
	ExcludeFromContext bool
}

// API is ExtensionAPI (seed 004, "ExtensionAPI Methods"). Subscribe with the generic On.
type API interface {
	// Extension is the extension this API belongs to.
	Extension() *Extension
	// OnName subscribes an untyped handler by event name or alias (for protocol hosts, whose
	// payloads are JSON). It fails for an unknown name.
	OnName(name string, fn Handler) (unsubscribe func(), err error)

	RegisterTool(def ToolDefinition) error
	RegisterCommand(name string, cmd Command) error
	RegisterShortcut(key string, sc Shortcut) error
	RegisterFlag(name string, f Flag) error
	GetFlag(name string) (any, bool)
	RegisterMessageRenderer(customType string, renderer any)
	RegisterEntryRenderer(customType string, renderer any)

	SendMessage(msg CustomMessage, opts SendOptions) error
	SendMessages(msgs []CustomMessage, opts SendOptions) error
	SendUserMessage(content []llm.Content, opts SendOptions) error
	AppendEntry(customType string, data any) error
	SetSessionName(name string) error
	GetSessionName() string
	SetLabel(entryID, label string) error
	GetCommands() []CommandInfo
	Exec(ctx context.Context, command string, args []string, opts ExecOptions) (ExecOutput, error)
	GetActiveTools() []string
	GetAllTools() []ToolInfo
	SetActiveTools(names []string) error
	SetModel(m *llm.Model) error
	GetThinkingLevel() string
	SetThinkingLevel(level string) error
	// Events is the bus shared by all extensions of the runtime (pi.events).
	Events() *Bus

	// RegisterProvider registers or overrides a model provider (provider.go); queued during the
	// factory and applied when the runner binds, immediate afterwards.
	RegisterProvider(name string, cfg ProviderConfig) error
	// UnregisterProvider removes a provider registered with RegisterProvider (provider.go).
	UnregisterProvider(name string) error
	// ModelRegistry is the model registry of the runtime (nil: none); StreamModel calls a model
	// on the extension's behalf with the runtime's credentials (modelcall.go).
	ModelRegistry() *model.Registry
	StreamModel(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message
	// RegisterWorkflowActivityPublisher makes a new publisher the source of the runner's workflow
	// activity hub, fencing the previous one (workflow.go).
	RegisterWorkflowActivityPublisher() *WorkflowActivityPublisher

	on(id EventID, fn Handler) func()
}

// On subscribes a typed handler to the event whose payload type is E (events.md §1.1). The
// handler's result type R is fixed by the event: a notification handler returns (nil, err);
// see each payload type for its result. It returns a function that removes the handler.
func On[R any, E any, PE interface {
	*E
	Event[R]
}](api API, fn func(ctx Context, e PE) (R, error)) (unsubscribe func()) {
	var probe PE
	return api.on(probe.eventID(), func(c Context, payload any) (any, error) {
		r, err := fn(c, payload.(PE))
		return r, err
	})
}

// Load runs factories in order as extensions of r, named by paths (len(paths) may be shorter:
// missing names become "go:extension-<n>"). A failing factory is reported and its partial
// registrations are removed; loading continues with the next.
func (r *Runner) Load(host Host, paths []string, factories []Factory) []error {
	var errs []error
	for i, f := range factories {
		path := fmt.Sprintf("go:extension-%d", i+1)
		if i < len(paths) && paths[i] != "" {
			path = paths[i]
		}
		e := &Extension{Path: path}
		r.addExtension(e)
		a := &api{ext: e, runner: r}
		r.setHost(host)
		if err := safeFactory(f, a); err != nil {
			a.unregisterAll()
			err = fmt.Errorf("extension %s failed to load: %w", path, err)
			r.report(&Error{ExtensionPath: path, Event: "load", Err: err, Message: err.Error()})
			errs = append(errs, err)
		}
	}
	return errs
}

func safeFactory(f Factory, a API) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f(a)
}

// api implements API for one extension.
type api struct {
	ext    *Extension
	runner *Runner
	mu     sync.Mutex
	unsubs []func()
}

func (a *api) Extension() *Extension { return a.ext }

func (a *api) on(id EventID, fn Handler) func() {
	u := a.runner.subscribe(a.ext, id, fn)
	a.mu.Lock()
	a.unsubs = append(a.unsubs, u)
	a.mu.Unlock()
	return u
}

func (a *api) OnName(name string, fn Handler) (func(), error) {
	id, ok := byName[name]
	if !ok {
		return nil, fmt.Errorf("ext: unknown event %q (see atomic events --json)", name)
	}
	return a.on(id, fn), nil
}

func (a *api) unregisterAll() {
	a.mu.Lock()
	us := a.unsubs
	a.unsubs = nil
	a.mu.Unlock()
	for _, u := range us {
		u()
	}
	a.runner.reg.removeExtension(a.ext)
}

func (a *api) host() (Host, error) {
	if a.runner.stale.Load() {
		return nil, &StaleContextError{Op: "pi"}
	}
	h := a.runner.getHost()
	if h == nil {
		return nil, ErrNoSession
	}
	return h, nil
}

// liveHost is host for getters that return no error: nil when the API is stale or has no
// session, so a stale getter returns its zero value instead of crashing an extension's own
// goroutine (its methods that return an error fail with the *StaleContextError).
func (a *api) liveHost() Host {
	h, err := a.host()
	if err != nil {
		return nil
	}
	return h
}

func (a *api) RegisterTool(def ToolDefinition) error {
	if err := def.validate(); err != nil {
		return fmt.Errorf("extension %s: registerTool: %w", a.ext.Path, err)
	}
	a.runner.reg.addTool(a.ext, def)
	if h := a.runner.getHost(); h != nil {
		h.ToolsChanged()
	}
	return nil
}

func (a *api) RegisterCommand(name string, cmd Command) error {
	if name == "" || strings.ContainsAny(name, " \t\n/") {
		return fmt.Errorf("extension %s: registerCommand: invalid name %q (no spaces or slashes)", a.ext.Path, name)
	}
	if cmd.Handler == nil {
		return fmt.Errorf("extension %s: registerCommand %q: no handler", a.ext.Path, name)
	}
	a.runner.reg.addCommand(a.ext, name, cmd)
	return nil
}

func (a *api) RegisterShortcut(key string, sc Shortcut) error {
	if key == "" || sc.Handler == nil {
		return fmt.Errorf("extension %s: registerShortcut: a key and a handler are required", a.ext.Path)
	}
	a.runner.reg.addShortcut(a.ext, key, sc)
	return nil
}

func (a *api) RegisterFlag(name string, f Flag) error {
	if name == "" {
		return fmt.Errorf("extension %s: registerFlag: empty name", a.ext.Path)
	}
	return a.runner.reg.addFlag(a.ext, name, f)
}

func (a *api) GetFlag(name string) (any, bool) { return a.runner.reg.flag(name) }

func (a *api) RegisterMessageRenderer(customType string, renderer any) {
	a.runner.reg.setRenderer(true, customType, renderer)
}

func (a *api) RegisterEntryRenderer(customType string, renderer any) {
	a.runner.reg.setRenderer(false, customType, renderer)
}

func (a *api) SendMessage(msg CustomMessage, opts SendOptions) error {
	return a.SendMessages([]CustomMessage{msg}, opts)
}

func (a *api) SendMessages(msgs []CustomMessage, opts SendOptions) error {
	h, err := a.host()
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.CustomType == "" {
			return fmt.Errorf("extension %s: sendMessage: customType is required", a.ext.Path)
		}
	}
	if opts.DeliverAs == "interrupt" && len(msgs) > 1 {
		return errors.New("sendMessages: interrupt delivery takes a single message")
	}
	return h.SendMessage(context.Background(), msgs, opts)
}

func (a *api) SendUserMessage(content []llm.Content, opts SendOptions) error {
	h, err := a.host()
	if err != nil {
		return err
	}
	return h.SendUserMessage(context.Background(), content, opts)
}

func (a *api) AppendEntry(customType string, data any) error {
	h, err := a.host()
	if err != nil {
		return err
	}
	return h.AppendEntry(customType, data)
}

func (a *api) SetSessionName(name string) error {
	h, err := a.host()
	if err != nil {
		return err
	}
	return h.SetSessionName(name)
}

func (a *api) GetSessionName() string {
	if h := a.liveHost(); h != nil {
		return h.SessionName()
	}
	return ""
}

func (a *api) SetLabel(entryID, label string) error {
	h, err := a.host()
	if err != nil {
		return err
	}
	return h.SetLabel(entryID, label)
}

func (a *api) GetCommands() []CommandInfo { return a.runner.reg.commandInfos() }

// ExecOptions are the options of pi.exec.
type ExecOptions struct {
	Cwd     string
	Timeout time.Duration // 0: none
}

// ExecOutput is the outcome of pi.exec.
type ExecOutput struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"code"`
	Killed bool   `json:"killed"`
}

func (a *api) Exec(ctx context.Context, command string, args []string, opts ExecOptions) (ExecOutput, error) {
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = opts.Cwd
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := ExecOutput{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		out.Killed, out.Code = true, -1
	case errors.As(err, &ee):
		out.Code = ee.ExitCode()
	default:
		return out, fmt.Errorf("exec %s: %w", command, err)
	}
	return out, nil
}

func (a *api) GetActiveTools() []string {
	var active []tool.Tool
	if h := a.liveHost(); h != nil {
		active = h.ActiveBuiltinTools()
	}
	return a.runner.reg.activeToolNames(active)
}

func (a *api) GetAllTools() []ToolInfo { return a.runner.reg.allTools(a.runner.builtins()) }

// SetActiveTools activates the named tools; names no tool has are ignored, as in pi.
func (a *api) SetActiveTools(names []string) error {
	known := map[string]bool{}
	for _, t := range a.GetAllTools() {
		known[t.Name] = true
	}
	kept := make([]string, 0, len(names))
	for _, n := range names {
		if known[n] {
			kept = append(kept, n)
		}
	}
	names = kept
	a.runner.reg.setActive(names)
	if h := a.runner.getHost(); h != nil {
		h.ToolsChanged()
	}
	return nil
}

func (a *api) SetModel(m *llm.Model) error {
	h, err := a.host()
	if err != nil {
		return err
	}
	return h.SetModel(m)
}

func (a *api) GetThinkingLevel() string {
	if h := a.liveHost(); h != nil {
		return h.ThinkingLevel()
	}
	return llm.ThinkingOff
}

func (a *api) SetThinkingLevel(level string) error {
	h, err := a.host()
	if err != nil {
		return err
	}
	return h.SetThinkingLevel(level)
}

func (a *api) Events() *Bus { return a.runner.bus() }

// Bus is the event bus extensions share (pi.events): Emit calls every handler of a channel in
// subscription order. Safe for concurrent use.
type Bus struct {
	mu   sync.Mutex
	subs map[string][]*busSub
}

type busSub struct{ fn func(data any) }

// On subscribes fn to channel and returns its remover.
func (b *Bus) On(channel string, fn func(data any)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[string][]*busSub{}
	}
	s := &busSub{fn: fn}
	b.subs[channel] = append(b.subs[channel], s)
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		list := b.subs[channel]
		for i, x := range list {
			if x == s {
				b.subs[channel] = append(list[:i:i], list[i+1:]...)
				return
			}
		}
	}
}

// Emit delivers data to the subscribers of channel; a panicking subscriber is skipped.
func (b *Bus) Emit(channel string, data any) {
	b.mu.Lock()
	list := append([]*busSub(nil), b.subs[channel]...)
	b.mu.Unlock()
	for _, s := range list {
		func() {
			defer func() { _ = recover() }()
			s.fn(data)
		}()
	}
}

// MarshalToolParams is a helper for tools defined with raw schemas.
func MarshalToolParams(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
