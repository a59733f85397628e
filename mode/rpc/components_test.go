package rpc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/host"
	"github.com/atomic-cli/atomic/exthost/node"
)

// rpcComponentsExtension is an unchanged pi extension using the component surfaces.
const rpcComponentsExtension = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { matchesKey, Key, Text, truncateToWidth } from "@mariozechner/pi-tui";

class Counter {
	count = 0;
	constructor(private tui: any, private done: (v: unknown) => void) {}
	render(width: number): string[] {
		return ["COUNTER width=" + width, truncateToWidth("presses: " + this.count, width)];
	}
	handleInput(data: string) {
		if (matchesKey(data, Key.enter)) return this.done("counted " + this.count);
		this.count++;
		this.tui.requestRender();
	}
	invalidate() {}
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("count", {
		description: "a custom component",
		handler: async (_args, ctx) => {
			const v = await ctx.ui.custom((tui, _theme, _kb, done) => new Counter(tui, done), { overlay: true, overlayOptions: { anchor: "bottom-center", width: "50%" } });
			ctx.ui.notify("custom returned: " + v, "info");
		},
	});
	pi.registerCommand("chrome", {
		description: "a factory footer and placed widgets",
		handler: async (_args, ctx) => {
			ctx.ui.setFooter(() => ({ render: (w: number) => ["CUSTOM-FOOTER " + w], invalidate() {} }));
			ctx.ui.setWidget("lines", ["LINES-WIDGET"], { placement: "belowEditor" });
			ctx.ui.setWidget("fw", (tui) => {
				const t = new Text("FACTORY-WIDGET 0", 0, 0);
				let n = 0;
				const timer = setInterval(() => {
					n++;
					t.setText("FACTORY-WIDGET " + n);
					tui.requestRender();
					if (n >= 2) clearInterval(timer);
				}, 10);
				return t;
			}, { placement: "belowEditor" });
		},
	});
	pi.registerCommand("restore", {
		description: "built-in footer again",
		handler: async (_args, ctx) => {
			ctx.ui.setFooter(undefined);
		},
	});
}
`

func nodeExtensions(t *testing.T, source string) []ext.Factory {
	t.Helper()
	return nodeExtensionsLog(t, source, nil)
}

// nodeExtensionsLog is nodeExtensions with the host's warnings (host.Options.Logf) sent to logf.
func nodeExtensionsLog(t *testing.T, source string, logf func(format string, args ...any)) []ext.Factory {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "components.ts")
	if err := os.WriteFile(p, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	sup := node.New([]string{p}, host.Options{Dir: dir, Stderr: os.Stderr, AgentDir: filepath.Join(dir, "agent"), Logf: logf}, node.Options{})
	sup.Start()
	t.Cleanup(func() { _ = sup.Close() })
	return sup.Factories()
}

func lineList(m map[string]any, key string) []string {
	v, _ := m[key].([]any)
	out := make([]string, len(v))
	for i, l := range v {
		out[i] = fmt.Sprint(l)
	}
	return out
}

func hasLine(m map[string]any, key, want string) bool {
	for _, l := range lineList(m, key) {
		if strings.TrimRight(l, " ") == want {
			return true
		}
	}
	return false
}

// Over RPC a TypeScript extension's custom component reaches the client as lines: two key
// presses re-render it, Enter closes it and done's value returns to the extension; the client's
// size is the width; a dismissal resolves undefined.
func TestRPCCustomComponent(t *testing.T) {
	var logMu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}
	h := newHarness(t, script(), harnessOptions{exts: nodeExtensionsLog(t, rpcComponentsExtension, logf)})
	mark := h.out.count()
	h.send(`{"id":"c1","type":"prompt","message":"/count"}`)
	i, open := uiRequest(h, mark, "custom")
	id := open["id"]
	if !hasLine(open, "lines", "COUNTER width=80") || !hasLine(open, "lines", "presses: 0") || open["overlay"] != true {
		t.Fatalf("custom request %v", open)
	}
	if oo, _ := open["overlayOptions"].(map[string]any); oo["anchor"] != "bottom-center" || oo["width"] != "50%" {
		t.Fatalf("overlayOptions %v", open["overlayOptions"])
	}
	render := func(from int, want string) int {
		t.Helper()
		j, _ := h.waitFrom(from, "custom_render "+want, func(m map[string]any) bool {
			return m["method"] == "custom_render" && m["id"] == id && hasLine(m, "lines", want)
		})
		return j
	}
	h.send(map[string]any{"type": "extension_ui_input", "id": id, "data": "x"})
	i = render(i, "presses: 1")
	h.send(map[string]any{"type": "extension_ui_input", "id": id, "data": "\x1b[B"})
	i = render(i, "presses: 2")
	h.send(map[string]any{"type": "extension_ui_resize", "columns": 40, "rows": 12})
	i = render(i, "COUNTER width=40")
	h.send(map[string]any{"type": "extension_ui_input", "id": id, "data": "\r"})
	h.waitFrom(i, "custom_close", func(m map[string]any) bool { return m["method"] == "custom_close" && m["id"] == id })
	if got := notice(h, mark, "custom returned"); got != "custom returned: counted 2" {
		t.Fatalf("notice %q", got)
	}
	if r := h.response("c1"); r["success"] != true {
		t.Fatalf("/count response %v", r)
	}

	// Dismissed by the client.
	mark = h.out.count()
	h.send(`{"id":"c2","type":"prompt","message":"/count"}`)
	_, open = uiRequest(h, mark, "custom")
	h.send(map[string]any{"type": "extension_ui_response", "id": open["id"], "cancelled": true})
	h.waitFrom(mark, "custom_close", func(m map[string]any) bool { return m["method"] == "custom_close" && m["id"] == open["id"] })
	if got := notice(h, mark, "custom returned"); got != "custom returned: undefined" {
		t.Fatalf("notice after dismissal %q", got)
	}
	// A render that meets the closed component is dropped quietly (no "no component N" warning).
	h.send(map[string]any{"type": "extension_ui_input", "id": open["id"], "data": "x"})
	if r := h.call("c3", map[string]any{"type": "get_state"}); r["success"] != true {
		t.Fatalf("get_state after dismissal %v", r)
	}
	logMu.Lock()
	defer logMu.Unlock()
	for _, l := range logged {
		// The slow-load warning names the file (components.ts) on a loaded machine: not this.
		if strings.Contains(l, "component") && !strings.Contains(l, "has blocked the host") {
			t.Fatalf("host warning after the component closed: %q", l)
		}
	}
}

// A factory footer and placed widgets reach the client; the factory widget is re-sent when it
// re-renders; setFooter(undefined) restores the built-in footer (no footerLines).
func TestRPCFactoryFooterAndWidgets(t *testing.T) {
	h := newHarness(t, script(), harnessOptions{exts: nodeExtensions(t, rpcComponentsExtension)})
	mark := h.out.count()
	h.send(`{"id":"f1","type":"prompt","message":"/chrome"}`)
	h.waitFrom(mark, "setFooter with footerLines", func(m map[string]any) bool {
		return m["method"] == "setFooter" && hasLine(m, "footerLines", "CUSTOM-FOOTER 80")
	})
	h.waitFrom(mark, "placed lines widget", func(m map[string]any) bool {
		return m["method"] == "setWidget" && m["widgetKey"] == "lines" && m["widgetPlacement"] == "belowEditor" && hasLine(m, "widgetLines", "LINES-WIDGET")
	})
	h.waitFrom(mark, "factory widget re-rendered", func(m map[string]any) bool {
		return m["method"] == "setWidget" && m["widgetKey"] == "fw" && m["widgetPlacement"] == "belowEditor" && hasLine(m, "widgetLines", "FACTORY-WIDGET 2")
	})
	h.response("f1")
	mark = h.out.count()
	h.send(`{"id":"f2","type":"prompt","message":"/restore"}`)
	_, m := h.waitFrom(mark, "setFooter restore", func(m map[string]any) bool { return m["method"] == "setFooter" })
	if _, ok := m["footerLines"]; ok {
		t.Fatalf("restoring setFooter carries footerLines: %v", m)
	}
}

// goCounter is a Go extension's component: it counts keys and finishes on Enter.
type goCounter struct {
	h ext.ComponentHandle
	n int
}

func (c *goCounter) Render(width int) []string { return []string{fmt.Sprintf("go presses: %d", c.n)} }
func (c *goCounter) Invalidate()               {}
func (c *goCounter) HandleInput(data string) {
	if data == "\r" {
		c.h.Done(fmt.Sprintf("go counted %d", c.n))
		return
	}
	c.n++
	c.h.RequestRender()
}

// The same surfaces from a Go extension over RPC.
func TestRPCGoCustomComponent(t *testing.T) {
	goExt := func(api ext.API) error {
		return api.RegisterCommand("gocount", ext.Command{Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
			v, ok := ext.Custom(ctx, c.UI(), func(h ext.ComponentHandle) ext.Component { return &goCounter{h: h} }, ext.CustomOptions{})
			c.UI().Notify(fmt.Sprintf("go returned: %v %v", v, ok), "info")
			return nil
		}})
	}
	h := newHarness(t, script(), harnessOptions{exts: []ext.Factory{goExt}})
	mark := h.out.count()
	h.send(`{"id":"g1","type":"prompt","message":"/gocount"}`)
	i, open := uiRequest(h, mark, "custom")
	if !hasLine(open, "lines", "go presses: 0") || open["overlay"] != false {
		t.Fatalf("custom request %v", open)
	}
	for n := 1; n <= 2; n++ {
		h.send(map[string]any{"type": "extension_ui_input", "id": open["id"], "data": "k"})
		i, _ = h.waitFrom(i, "re-render", func(m map[string]any) bool {
			return m["method"] == "custom_render" && hasLine(m, "lines", fmt.Sprintf("go presses: %d", n))
		})
	}
	h.send(map[string]any{"type": "extension_ui_input", "id": open["id"], "data": "\r"})
	if got := notice(h, mark, "go returned"); !strings.HasPrefix(got, "go returned: go counted 2 true") {
		t.Fatalf("notice %q", got)
	}
}
