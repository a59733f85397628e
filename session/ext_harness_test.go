package session_test

// Harness of the extension behaviour tests (ext_api_test.go, ext_events_test.go,
// ext_context_test.go): a scripted provider that records every request, a Runtime built with Go
// extension factories, and helpers to inspect requests, entries and reported extension errors.
// Every name here starts with xt so it cannot clash with other test files of the package.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

// xtTurn plays one provider response through the builder.
type xtTurn func(ctx context.Context, b *llm.Builder, m *llm.Model) llm.Message

// xtReq is a snapshot of one provider request.
type xtReq struct {
	System   string
	Msgs     []llm.Message
	Tools    []llm.ToolSpec
	Thinking string
}

// xtLLM is a provider that plays turns in order (then answers "ok") and records each request.
type xtLLM struct {
	mu    sync.Mutex
	turns []xtTurn
	reqs  []xtReq
}

func xtProvider(turns ...xtTurn) *xtLLM { return &xtLLM{turns: turns} }

func (f *xtLLM) Stream(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
	snap := xtReq{System: req.SystemPrompt, Thinking: req.ThinkingLevel, Tools: append([]llm.ToolSpec(nil), req.Tools...)}
	for i := range req.Messages {
		snap.Msgs = append(snap.Msgs, req.Messages[i].Clone())
	}
	f.mu.Lock()
	i := len(f.reqs)
	f.reqs = append(f.reqs, snap)
	var t xtTurn
	if i < len(f.turns) {
		t = f.turns[i]
	}
	f.mu.Unlock()
	b := llm.NewBuilder(req.Model, emit)
	if t == nil {
		t = xtSay("ok")
	}
	return t(ctx, b, req.Model)
}

func (f *xtLLM) requests() []xtReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]xtReq(nil), f.reqs...)
}

func (f *xtLLM) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// xtSay answers text.
func xtSay(text string) xtTurn {
	return func(_ context.Context, b *llm.Builder, m *llm.Model) llm.Message {
		i := b.StartText()
		b.AppendText(i, text)
		return b.Finish(llm.StopStop, m)
	}
}

// xtCalls answers with tool calls, each {id, name, argsJSON}.
func xtCalls(calls ...[3]string) xtTurn {
	return func(_ context.Context, b *llm.Builder, m *llm.Model) llm.Message {
		for _, c := range calls {
			i := b.StartToolCall(c[0], c[1])
			b.AppendToolArgs(i, c[2])
			b.End(i)
		}
		return b.Finish(llm.StopToolUse, m)
	}
}

// xtFail answers with a provider error.
func xtFail(msg string) xtTurn {
	return func(_ context.Context, b *llm.Builder, m *llm.Model) llm.Message {
		return b.Fail(msg, false, m)
	}
}

// xtBlock streams a text delta, signals started, then holds the stream until release is closed
// (then plays next, or finishes with the text) or the run is aborted.
func xtBlock(started chan<- struct{}, release <-chan struct{}, next xtTurn) xtTurn {
	return func(ctx context.Context, b *llm.Builder, m *llm.Model) llm.Message {
		i := b.StartText()
		b.AppendText(i, "partial")
		close(started)
		select {
		case <-release:
		case <-ctx.Done():
			return b.Fail("", true, m)
		}
		if next != nil {
			return next(ctx, b, m)
		}
		return b.Finish(llm.StopStop, m)
	}
}

func xtModel() *llm.Model {
	return &llm.Model{ID: "fake-model", Provider: "fake", API: "fake-api", Reasoning: true, ContextWindow: 1000}
}

// xtH is a running Runtime with its provider and the extension errors it reported.
type xtH struct {
	t   *testing.T
	llm *xtLLM
	rt  *session.Runtime
	dir string

	mu   sync.Mutex
	errs []*ext.Error
}

// xtStart builds a Runtime (session_start{startup} has run) whose extensions are factories,
// named go:ext-1, go:ext-2… in order. mod may adjust the options.
func xtStart(t *testing.T, p *xtLLM, factories []ext.Factory, mod func(*session.Options)) *xtH {
	t.Helper()
	dir := t.TempDir()
	h := &xtH{t: t, llm: p, dir: dir}
	paths := make([]string, len(factories))
	for i := range factories {
		paths[i] = fmt.Sprintf("go:ext-%d", i+1)
	}
	o := session.Options{
		Store: store.InMemory(dir), Model: xtModel(), Provider: p, Cwd: dir,
		Extensions: factories, ExtensionPaths: paths,
		OnExtensionError: func(e *ext.Error) {
			h.mu.Lock()
			h.errs = append(h.errs, e)
			h.mu.Unlock()
		},
	}
	if mod != nil {
		mod(&o)
	}
	rt, err := session.NewRuntime(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	h.rt = rt
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rt.Session().WaitIdle(ctx)
		rt.Shutdown(ctx)
	})
	return h
}

func (h *xtH) s() *session.Session { return h.rt.Session() }

func (h *xtH) errors() []*ext.Error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*ext.Error(nil), h.errs...)
}

// prompt runs a prompt through the Runtime (which also waits for extension-started turns).
func (h *xtH) prompt(text string) error {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.rt.Prompt(ctx, text, nil)
}

func (h *xtH) mustPrompt(text string) {
	h.t.Helper()
	if err := h.prompt(text); err != nil {
		h.t.Fatalf("prompt %q: %v", text, err)
	}
}

// promptAsync starts a prompt in the background; the returned channel yields its error.
func (h *xtH) promptAsync(text string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- h.prompt(text) }()
	return done
}

func (h *xtH) waitIdle() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.s().WaitIdle(ctx); err != nil {
		h.t.Fatalf("wait idle: %v", err)
	}
}

// xtRecv waits for ch (a closed channel or a value) with a timeout.
func xtRecv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// xtMsgs renders messages as role:text, with tool calls as call:name.
func xtMsgs(msgs []llm.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		var parts []string
		for _, c := range m.Content {
			switch c.Type {
			case llm.ContentText:
				parts = append(parts, c.Text)
			case llm.ContentToolCall:
				parts = append(parts, "call:"+c.Name)
			}
		}
		s := m.Role + ":" + strings.Join(parts, "|")
		if m.Role == llm.RoleCustom {
			s = "custom[" + m.CustomType + "]:" + strings.Join(parts, "|")
		}
		out = append(out, s)
	}
	return out
}

func xtToolNames(specs []llm.ToolSpec) []string {
	out := make([]string, 0, len(specs))
	for _, t := range specs {
		out = append(out, t.Name)
	}
	return out
}

// xtEntries renders entries as type[:role|customType].
func xtEntries(st *store.Session) []string {
	var out []string
	for _, e := range st.Entries() {
		s := e.Type
		switch {
		case e.Message != nil:
			s += ":" + e.Message.Role
		case e.Type == store.TypeCustom || e.Type == store.TypeCustomMessage:
			s += ":" + e.CustomType
		}
		out = append(out, s)
	}
	return out
}

func xtFindEntry(st *store.Session, pred func(*store.Entry) bool) *store.Entry {
	for _, e := range st.Entries() {
		if pred(e) {
			return e
		}
	}
	return nil
}

func xtContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func xtJoin(list []string) string { return strings.Join(list, " ; ") }

// xtLog is a goroutine-safe event log.
type xtLog struct {
	mu  sync.Mutex
	got []string
}

func (l *xtLog) add(format string, args ...any) {
	l.mu.Lock()
	l.got = append(l.got, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *xtLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.got...)
}

// xtTool is a fake built-in tool.
type xtTool struct {
	name, desc string
}

func (t xtTool) Name() string        { return t.name }
func (t xtTool) Description() string { return t.desc }
func (t xtTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (t xtTool) Execute(context.Context, tool.Call, func(tool.Result)) (tool.Result, error) {
	return tool.TextResult("builtin "+t.name, nil), nil
}

// xtEcho defines an extension tool that answers "echo <text>".
func xtEcho(name string) ext.ToolDefinition {
	return ext.ToolDefinition{
		Name: name, Description: "echoes " + name,
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		Execute: func(_ context.Context, _ ext.Context, call tool.Call, _ func(tool.Result)) (tool.Result, error) {
			s, _ := call.Args["text"].(string)
			return tool.TextResult(name+" "+s, nil), nil
		},
	}
}
