package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/host"
	"github.com/atomic-cli/atomic/llm"
)

// reportedErrors collects the handler errors a runner reports.
func reportedErrors(r *ext.Runner) func() []string {
	var mu sync.Mutex
	var got []string
	r.OnError(func(e *ext.Error) {
		mu.Lock()
		got = append(got, e.Message)
		mu.Unlock()
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

func texts(ms []llm.Message) string {
	var out []string
	for _, m := range ms {
		for _, c := range m.Content {
			out = append(out, c.Text)
		}
	}
	return strings.Join(out, ",")
}

// TestRequestBatchChains: an extension's handlers of a chained request event reach the host in
// one request up to the first handler that returns a result; each later handler sees the result
// of the earlier ones, and a failing handler is reported on its own while the rest still run.
func TestRequestBatchChains(t *testing.T) {
	p := writeExt(t, t.TempDir(), "chain.ts", `
const msg = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });
export default function (pi: any) {
	pi.on("context", (e: any) => ({ messages: [...e.messages, msg("h0 saw " + e.messages.length)] }));
	pi.on("context", () => { throw new Error("h1 failed"); });
	pi.on("context", (e: any) => { e.messages.push(msg("h2 saw " + e.messages.length)); });
	pi.on("context", () => undefined);
	pi.on("context", (e: any) => ({ messages: [...e.messages, msg("h4 saw " + e.messages.length)] }));
}`)
	r, sup := loaded(t, p)
	errs := reportedErrors(r)
	before := sup.Sent()
	out, _, _ := ext.Emit[*ext.ContextResult](r, context.Background(), ext.ContextEvent{Messages: []llm.Message{llm.UserText("first", nil, 0)}})
	if got, want := texts(out.Messages), "first,h0 saw 1,h2 saw 2,h4 saw 3"; got != want {
		t.Fatalf("messages %q, want %q", got, want)
	}
	if es := errs(); len(es) != 1 || !strings.HasPrefix(es[0], "h1 failed") {
		t.Fatalf("reported %q, want h1's error alone", es)
	}
	// h0 returned a result (one request), h1-h4 ran in the second.
	if n := sup.Sent() - before; n != 2 {
		t.Fatalf("%d requests for 5 handlers, want 2", n)
	}
}

// TestRequestBatchVeto: 100 tool_call handlers editing the input in place are one request; the
// first block ends the dispatch (later handlers do not run) with the edits made before it.
func TestRequestBatchVeto(t *testing.T) {
	p := writeExt(t, t.TempDir(), "veto.ts", `
export default function (pi: any) {
	for (let k = 0; k < 100; k++) {
		pi.on("tool_call", (e: any) => {
			e.input.n++;
			if (k === 60) return { block: true, reason: "n=" + e.input.n };
			if (k > 60) throw new Error("handler " + k + " ran after the block");
		});
	}
}`)
	r, sup := loaded(t, p)
	errs := reportedErrors(r)
	before := sup.Sent()
	_, res, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolCallID: "1", ToolName: "bash", Input: map[string]any{"n": 0}})
	if err != nil || res == nil || !res.Block || res.Reason != "n=61" {
		t.Fatalf("result %+v, err %v, reported %q; want the block of handler 60 with n=61", res, err, errs())
	}
	if n := sup.Sent() - before; n != 1 {
		t.Fatalf("%d requests for 100 handlers, want 1", n)
	}
	// Without a block, every handler's edit reaches the core.
	p2 := writeExt(t, t.TempDir(), "edit.ts", `
export default function (pi: any) {
	for (let k = 0; k < 100; k++) pi.on("tool_call", (e: any) => { e.input.n++; });
}`)
	r2, sup2 := loaded(t, p2)
	before = sup2.Sent()
	out, res, err := ext.Emit[*ext.ToolCallResult](r2, context.Background(), ext.ToolCall{ToolCallID: "1", ToolName: "bash", Input: map[string]any{"n": 0}})
	if err != nil || res != nil || fmt.Sprint(out.Input["n"]) != "100" {
		t.Fatalf("input %v, result %+v, err %v; want n=100 and no result", out.Input, res, err)
	}
	if n := sup2.Sent() - before; n != 1 {
		t.Fatalf("%d requests for 100 handlers, want 1", n)
	}
}

// TestRequestBatchFailClosed: a failing tool_call handler blocks the call; the handlers after it
// do not run.
func TestRequestBatchFailClosed(t *testing.T) {
	p := writeExt(t, t.TempDir(), "fc.ts", `
let after = 0;
export default function (pi: any) {
	pi.on("tool_call", () => undefined);
	pi.on("tool_call", (e: any) => { if (e.input.fail) throw new Error("gate broke"); });
	pi.on("tool_call", () => { after++; });
	pi.on("tool_call", (e: any) => { if (!e.input.fail) return { block: true, reason: "after=" + after }; });
}`)
	r, _ := loaded(t, p)
	errs := reportedErrors(r)
	_, _, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolName: "bash", Input: map[string]any{"fail": true}})
	if !errors.Is(err, ext.ErrBlocked) || !strings.Contains(err.Error(), "gate broke") {
		t.Fatalf("err %v, want blocked by the failing handler", err)
	}
	if es := errs(); len(es) != 1 || !strings.HasPrefix(es[0], "gate broke") {
		t.Fatalf("reported %q", es)
	}
	_, res, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolName: "bash", Input: map[string]any{"fail": false}})
	if err != nil || res == nil || res.Reason != "after=1" {
		t.Fatalf("result %+v, err %v; want after=1 (the third handler did not run in the failed call)", res, err)
	}
}

// TestRequestBatchTimeout: a handler of a batch that does not settle within the handler timeout
// is reported as that handler's timeout, as a single handler's is, and the next handlers run.
func TestRequestBatchTimeout(t *testing.T) {
	needNode(t)
	p := writeExt(t, t.TempDir(), "slow.ts", `
const msg = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });
export default function (pi: any) {
	pi.on("context", () => new Promise(() => {}));
	pi.on("context", (e: any) => ({ messages: [...e.messages, msg("second")] }));
}`)
	const limit = 100 * time.Millisecond
	var log bytes.Buffer
	sup := New([]string{p}, host.Options{HandlerTimeout: limit, Stderr: &log}, Options{CacheDir: t.TempDir()})
	defer sup.Close()
	r := ext.NewRunner(nil)
	if es := r.Load(nil, []string{p}, sup.Factories()); len(es) > 0 {
		t.Fatalf("load: %v\n%s", es, log.String())
	}
	errs := reportedErrors(r)
	out, _, _ := ext.Emit[*ext.ContextResult](r, context.Background(), ext.ContextEvent{Messages: []llm.Message{llm.UserText("first", nil, 0)}})
	if got := texts(out.Messages); got != "first,second" {
		t.Fatalf("messages %q", got)
	}
	want := fmt.Sprintf("the context handler of %s did not settle within 100ms (extensionHandlerTimeoutMs)", p)
	if es := errs(); len(es) != 1 || es[0] != want {
		t.Fatalf("reported %q, want %q", es, want)
	}
}

// TestRequestBatchDialogTime: in a batch too, the time a handler waits for the user's answer is
// not counted against its handler timeout.
func TestRequestBatchDialogTime(t *testing.T) {
	needNode(t)
	p := writeExt(t, t.TempDir(), "ask2.ts", `
export default function (pi: any) {
	pi.on("tool_call", () => undefined);
	pi.on("tool_call", async (event: any, ctx: any) => {
		const ok = await ctx.ui.confirm("Run?", String(event.input.command));
		if (!ok) return { block: true, reason: "the user said no" };
	});
	pi.on("tool_call", () => undefined);
}`)
	const limit = 200 * time.Millisecond
	var log bytes.Buffer
	sup := New([]string{p}, host.Options{HandlerTimeout: limit, Stderr: &log}, Options{CacheDir: t.TempDir()})
	defer sup.Close()
	r := ext.NewRunner(func(ctx context.Context) ext.Context {
		return &dialogCtx{NoSession: ext.NoSession{Ctx: ctx}, ui: slowUI{wait: 3 * limit}}
	})
	if errs := r.Load(nil, []string{p}, sup.Factories()); len(errs) > 0 {
		t.Fatalf("load: %v\n%s", errs, log.String())
	}
	errs := reportedErrors(r)
	_, res, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolName: "bash", Input: map[string]any{"command": "ls"}})
	if err != nil || res == nil || !res.Block || res.Reason != "the user said no" {
		t.Fatalf("result %+v, err %v, reported %v; want the user's block", res, err, errs())
	}
}

// BenchmarkToolCall100: one tool_call dispatch to an extension with 100 handlers that only
// observe (one request with request batches; 100 without).
func BenchmarkToolCall100(b *testing.B) {
	p := writeExt(b, b.TempDir(), "many.ts", `
let seen = 0;
export default function (pi: any) {
	for (let k = 0; k < 100; k++) pi.on("tool_call", (e: any) => { seen += e.input.n; });
}`)
	r, _ := loaded(b, p)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := ext.Emit[*ext.ToolCallResult](r, ctx, ext.ToolCall{ToolName: "bash", Input: map[string]any{"n": i}}); err != nil {
			b.Fatal(err)
		}
	}
}
