package node

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/host"
)

// footerUI keeps the footer factories an extension sets (a UI with the component capability).
type footerUI struct {
	ext.NoUI
	mu      sync.Mutex
	footers []ext.ComponentFactory
}

func (u *footerUI) Custom(context.Context, ext.ComponentFactory, ext.CustomOptions) (any, bool) {
	return nil, false
}
func (u *footerUI) SetWidgetComponent(string, ext.ComponentFactory, string) {}
func (u *footerUI) SetHeaderComponent(ext.ComponentFactory)                 {}
func (u *footerUI) SetFooterComponent(f ext.ComponentFactory) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.footers = append(u.footers, f)
}

// signalHandle reports RequestRender on a channel.
type signalHandle struct{ rendered chan struct{} }

func (h signalHandle) RequestRender() {
	select {
	case h.rendered <- struct{}{}:
	default:
	}
}
func (signalHandle) Done(any)         {}
func (signalHandle) Size() (int, int) { return 80, 24 }

// TestRenderOfClosedComponentIsQuiet: a render the core asks for after the host closed the
// component (here: the footer was replaced before the core drew it; over RPC, a dismissed custom
// component) is answered as closed and dropped without a warning; the component reads as ended.
func TestRenderOfClosedComponentIsQuiet(t *testing.T) {
	needNode(t)
	p := writeExt(t, t.TempDir(), "footer.ts", `
export default function (pi) {
	pi.on("tool_call", async (_event, ctx) => {
		ctx.ui.setFooter(() => ({ render: (w) => ["FOOTER " + w], invalidate() {} }));
		ctx.ui.setFooter(undefined);
	});
}`)
	var mu sync.Mutex
	var warnings []string
	var stderr bytes.Buffer
	sup := New([]string{p}, host.Options{Stderr: &stderr, Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, fmt.Sprintf(format, args...))
	}}, Options{CacheDir: t.TempDir()})
	defer sup.Close()
	ui := &footerUI{}
	r := ext.NewRunner(func(ctx context.Context) ext.Context {
		return &dialogCtx{NoSession: ext.NoSession{Ctx: ctx}, ui: ui}
	})
	if errs := r.Load(nil, []string{p}, sup.Factories()); len(errs) > 0 {
		t.Fatalf("load: %v\n%s", errs, stderr.String())
	}
	if _, _, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolName: "bash", Input: map[string]any{"command": "ls"}}); err != nil {
		t.Fatal(err)
	}
	ui.mu.Lock()
	footers := append([]ext.ComponentFactory(nil), ui.footers...)
	ui.mu.Unlock()
	if len(footers) != 2 || footers[0] == nil || footers[1] != nil {
		t.Fatalf("footer factories %d (first nil %v), want a factory then nil", len(footers), len(footers) > 0 && footers[0] == nil)
	}
	h := signalHandle{rendered: make(chan struct{}, 1)}
	c := footers[0](h)
	c.Render(40)
	ender, ok := c.(ext.Ender)
	if !ok {
		t.Fatalf("a host component is an ext.Ender")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !ender.Ended() {
		if time.Now().After(deadline) {
			t.Fatalf("the closed component never read as ended; warnings %q", warnings)
		}
		select {
		case <-h.rendered:
		case <-time.After(10 * time.Millisecond):
		}
	}
	if d, ok := c.(ext.Disposer); ok {
		d.Dispose()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) > 0 {
		t.Fatalf("warnings for a render of a closed component: %q", warnings)
	}
}

// TestUnsupportedUICallsSayDebug: ctx.ui calls atomic cannot honour (onTerminalInput, a member it
// does not have) do nothing but name themselves in a debug diagnostic when ATOMIC_DEBUG is set.
func TestUnsupportedUICallsSayDebug(t *testing.T) {
	needNode(t)
	p := writeExt(t, t.TempDir(), "term.ts", `
export default function (pi) {
	pi.on("tool_call", async (_event, ctx) => {
		const off = ctx.ui.onTerminalInput(() => undefined);
		off();
		ctx.ui.setHiddenThinkingLabel("hidden");
	});
}`)
	var stderr syncBuffer
	sup := New([]string{p}, host.Options{Stderr: &stderr, Env: append(os.Environ(), "ATOMIC_DEBUG=1")}, Options{CacheDir: t.TempDir()})
	defer sup.Close()
	r := ext.NewRunner(func(ctx context.Context) ext.Context {
		return &dialogCtx{NoSession: ext.NoSession{Ctx: ctx}, ui: ext.NoUI{}}
	})
	if errs := r.Load(nil, []string{p}, sup.Factories()); len(errs) > 0 {
		t.Fatalf("load: %v\n%s", errs, stderr.String())
	}
	if _, _, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolName: "bash", Input: map[string]any{"command": "ls"}}); err != nil {
		t.Fatal(err)
	}
	_ = sup.Close() // the host's stderr is complete once it has exited
	out := stderr.String()
	for _, want := range []string{"atomic: debug: ctx.ui.onTerminalInput: ", "atomic: debug: ctx.ui.setHiddenThinkingLabel: "} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the host's stderr copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
