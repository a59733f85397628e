package node

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/host"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// TestBundleCurrent fails when dist/ (host.js, the vendor files, SHA256SUMS) differs from what
// build.mjs makes of src/ and the locked packages. It needs node_modules (npm ci in exthost/node).
func TestBundleCurrent(t *testing.T) {
	if _, err := os.Stat(filepath.Join("node_modules", "esbuild")); err != nil {
		t.Skip("exthost/node/node_modules is absent: run `npm ci` in exthost/node to check the bundle")
	}
	nodePath := needNode(t)
	out := t.TempDir()
	cmd := exec.Command(nodePath, "build.mjs", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node build.mjs: %v\n%s", err, b)
	}
	names := func(ents []fs.DirEntry) (out []string) {
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	freshEnts, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	embeddedEnts, _ := dist.ReadDir("dist")
	fresh, embedded := names(freshEnts), names(embeddedEnts)
	if !slices.Equal(fresh, embedded) {
		t.Fatalf("dist/ holds %q, a fresh build %q: run `npm ci && npm run build` in exthost/node and rebuild atomic", embedded, fresh)
	}
	for _, name := range fresh {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if have, _ := dist.ReadFile("dist/" + name); !bytes.Equal(b, have) {
			t.Errorf("dist/%s is not the build of src/ (%d bytes, fresh build %d): run `npm ci && npm run build` in exthost/node and rebuild atomic", name, len(have), len(b))
		}
	}
}

// TestDistSums: SHA256SUMS, which names the directory the host runs from, lists every embedded
// script with its content's hash (a hand-edited script would otherwise run from a stale copy).
func TestDistSums(t *testing.T) {
	sums, err := dist.ReadFile("dist/" + sumsFile)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("%s: malformed line %q", sumsFile, line)
		}
		b, err := dist.ReadFile("dist/" + name)
		if err != nil {
			t.Fatalf("%s lists %s: %v", sumsFile, name, err)
		}
		if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
			t.Errorf("dist/%s does not match its SHA-256 in %s: run `npm run build` in exthost/node", name, sumsFile)
		}
		listed = append(listed, name)
	}
	if files := distFiles(); !slices.Equal(listed, files) {
		t.Errorf("%s lists %q, dist/ holds %q", sumsFile, listed, files)
	}
	if !slices.Contains(listed, "host.js") {
		t.Error("dist/ has no host.js")
	}
}

func needNode(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		tb.Skip("node is not on PATH")
	}
	return p
}

// writeExt writes a TypeScript extension into dir and returns its path.
func writeExt(tb testing.TB, dir, name, src string) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// loaded starts a Node host for paths and loads them into a runner without a session.
func loaded(tb testing.TB, paths ...string) (*ext.Runner, *host.Supervisor) {
	tb.Helper()
	needNode(tb)
	var log bytes.Buffer
	sup := New(paths, host.Options{Stderr: &log}, Options{CacheDir: tb.TempDir()})
	tb.Cleanup(func() { _ = sup.Close() })
	r := ext.NewRunner(nil)
	if es := r.Load(nil, paths, sup.Factories()); len(es) > 0 {
		tb.Fatalf("load: %v\n%s", es, log.String())
	}
	return r, sup
}

const gateTS = `
import type { ExtensionAPI } from "@bastani/atomic";
export default function (pi: ExtensionAPI) {
	pi.on("tool_call", (event) => {
		if (event.input.command === "block me") return { block: true, reason: "no" };
	});
}
`

func TestToolCallRoundTrip(t *testing.T) {
	r, _ := loaded(t, writeExt(t, t.TempDir(), "gate.ts", gateTS))
	ctx := context.Background()
	_, res, err := ext.Emit[*ext.ToolCallResult](r, ctx, ext.ToolCall{ToolCallID: "1", ToolName: "bash", Input: map[string]any{"command": "block me"}})
	if err != nil || res == nil || !res.Block || res.Reason != "no" {
		t.Fatalf("block: res %+v, err %v", res, err)
	}
	_, res, err = ext.Emit[*ext.ToolCallResult](r, ctx, ext.ToolCall{ToolCallID: "2", ToolName: "bash", Input: map[string]any{"command": "ls"}})
	if err != nil || res != nil {
		t.Fatalf("pass: res %+v, err %v", res, err)
	}
}

// TestUnsubscribedEventSendsNothing: only the events a host subscribed to cross the process
// boundary (architecture §3).
func TestUnsubscribedEventSendsNothing(t *testing.T) {
	r, sup := loaded(t, writeExt(t, t.TempDir(), "gate.ts", gateTS))
	before := sup.Sent()
	for i := 0; i < 100; i++ {
		ext.Emit[ext.None](r, context.Background(), ext.TurnStart{TurnIndex: i})
		ext.Emit[*ext.ToolResultPatch](r, context.Background(), ext.ToolResult{ToolName: "bash"})
	}
	if got := sup.Sent() - before; got != 0 {
		t.Fatalf("%d messages were sent to the host for events it did not subscribe to", got)
	}
	if !r.Has(ext.IDToolCall) || r.Has(ext.IDTurnStart) {
		t.Fatal("the runner's subscriptions do not match the host's")
	}
}

func TestToolExecuteStreamsUpdates(t *testing.T) {
	src := `
import { Type } from "typebox";
export default function (pi) {
	pi.registerTool({
		name: "count", label: "Count", description: "counts",
		parameters: Type.Object({ n: Type.Number() }),
		async execute(_id, params, _signal, onUpdate) {
			for (let i = 1; i <= params.n; i++) onUpdate({ content: [{ type: "text", text: "step " + i }] });
			return { content: [{ type: "text", text: "counted " + params.n }], details: { n: params.n } };
		},
	});
}`
	r, _ := loaded(t, writeExt(t, t.TempDir(), "count.ts", src))
	tools := r.Tools(nil, nil)
	if len(tools) != 1 || tools[0].Name() != "count" || !strings.Contains(string(tools[0].Parameters()), `"n"`) {
		t.Fatalf("tools: %v", tools)
	}
	var updates []string
	res, err := tools[0].Execute(context.Background(), tool.Call{ID: "c1", Name: "count", Args: map[string]any{"n": 3}}, func(u tool.Result) {
		updates = append(updates, u.Content[0].Text)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(updates, ","); got != "step 1,step 2,step 3" {
		t.Errorf("updates %q", got)
	}
	if res.Content[0].Text != "counted 3" || fmt.Sprint(res.Details) != "map[n:3]" {
		t.Errorf("result %+v", res)
	}
}

func TestTranspileSourceMapNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	writeExt(t, dir, "util.ts", "export const fail = (): never => { throw new Error(\"deep failure\"); };\n")
	p := writeExt(t, dir, "main.ts", "import { fail } from \"./util\";\nexport default function (pi: any) {\n\tpi.on(\"turn_start\", () => fail());\n}\n")
	r, _ := loaded(t, p)
	var got *ext.Error
	r.OnError(func(e *ext.Error) { got = e })
	ext.Emit[ext.None](r, context.Background(), ext.TurnStart{})
	// turn_start is queued: its failure reaches the runner by the agent_settled barrier.
	ext.Emit[ext.None](r, context.Background(), ext.AgentSettled{})
	if got == nil || !strings.Contains(got.Message, "deep failure") || !strings.Contains(got.Message, "util.ts:1:") {
		t.Fatalf("error %+v; want the message and the .ts location of the throw", got)
	}
}

// TestQueuedEvents: the agent-loop notifications are queued on the host without a reply, run in
// order, and the awaited events after them (tool_call, agent_settled) see them all handled; a
// failing queued handler reaches the runner's error listeners with its event and location.
func TestQueuedEvents(t *testing.T) {
	src := `
const seen: string[] = [];
export default function (pi) {
	pi.on("message_update", async (e) => {
		if (e.assistantMessageEvent.delta === "slow") await new Promise((r) => setTimeout(r, 30));
		seen.push(e.assistantMessageEvent.delta);
	});
	pi.on("turn_end", () => {
		throw new Error("turn_end exploded");
	});
	pi.on("message_start", (e) => {
		if (e.message.role === "boom") throw new Error("message_start exploded");
	});
	pi.on("tool_call", (e) => {
		if (seen.join(",") !== "a,slow,b") return { block: true, reason: "saw " + seen.join(",") };
	});
	pi.on("agent_settled", () => {});
}`
	r, sup := loaded(t, writeExt(t, t.TempDir(), "queued.ts", src))
	var mu sync.Mutex
	var errs []*ext.Error
	r.OnError(func(e *ext.Error) { mu.Lock(); errs = append(errs, e); mu.Unlock() })
	ctx := context.Background()
	before := sup.Sent()
	for _, d := range []string{"a", "slow", "b"} {
		ext.Emit[ext.None](r, ctx, ext.MessageUpdate{AssistantMessageEvent: &llm.Event{Type: "text_delta", Delta: d}})
	}
	// Three notifications, no reply awaited: the tool_call below must wait for the slow one.
	if got := sup.Sent() - before; got != 3 {
		t.Errorf("%d messages for 3 queued events, want 3 notifications", got)
	}
	_, res, err := ext.Emit[*ext.ToolCallResult](r, ctx, ext.ToolCall{ToolCallID: "1", ToolName: "bash", Input: map[string]any{}})
	if err != nil || res != nil {
		t.Fatalf("tool_call ran before the queued message_update handlers: %+v, %v", res, err)
	}
	ext.Emit[ext.None](r, ctx, ext.TurnEnd{})
	ext.Emit[ext.None](r, ctx, ext.MessageStart{Message: &llm.Message{Role: "boom"}})
	ext.Emit[ext.None](r, ctx, ext.AgentSettled{})
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, e := range errs {
		got = append(got, e.Event+": "+e.Message)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"turn_end handler: turn_end exploded (at ", "message_start handler: message_start exploded (at ", "queued.ts:"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors %q lack %q", all, want)
		}
	}
}

// BenchmarkEventRoundTrip measures one awaited event (tool_call) to a TypeScript handler and
// back; p50-µs is the median (target < 100 µs).
func BenchmarkEventRoundTrip(b *testing.B) {
	r, _ := loaded(b, writeExt(b, b.TempDir(), "gate.ts", gateTS))
	ctx := context.Background()
	e := ext.ToolCall{ToolCallID: "1", ToolName: "bash", Input: map[string]any{"command": "ls -la"}}
	for i := 0; i < 200; i++ { // warm up the JIT on both sides
		ext.Emit[*ext.ToolCallResult](r, ctx, e)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, _, err := ext.Emit[*ext.ToolCallResult](r, ctx, e); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkNotificationRoundTrip is BenchmarkEventRoundTrip for a notification event
// (turn_start). turn_start is a queued event (docs/extension-protocol.md "Queued events"): the
// dispatch only writes the notification, so this measures what the agent loop waits for.
func BenchmarkNotificationRoundTrip(b *testing.B) {
	r, _ := loaded(b, writeExt(b, b.TempDir(), "turn.ts", `export default function (pi) { pi.on("turn_start", () => {}); }`))
	ctx := context.Background()
	for i := 0; i < 200; i++ {
		ext.Emit[ext.None](r, ctx, ext.TurnStart{})
	}
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		ext.Emit[ext.None](r, ctx, ext.TurnStart{TurnIndex: i})
		durations = append(durations, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "p50-µs")
}

// BenchmarkStartup10Extensions measures what 10 TypeScript extensions add to startup: starting
// the host, transpiling and loading them (target < 150 ms).
func BenchmarkStartup10Extensions(b *testing.B) { benchStartup(b, 10) }

// BenchmarkStartup1Extension is BenchmarkStartup10Extensions with one extension: the fixed cost
// of starting a host.
func BenchmarkStartup1Extension(b *testing.B) { benchStartup(b, 1) }

// benchStartup starts a host and loads n extensions (each a tool, a command and two handlers)
// per iteration, from a warm bundle and code cache.
func benchStartup(b *testing.B, n int) {
	needNode(b)
	dir := b.TempDir()
	var paths []string
	for i := 0; i < n; i++ {
		paths = append(paths, writeExt(b, dir, fmt.Sprintf("ext%d.ts", i), fmt.Sprintf(`
import type { ExtensionAPI } from "@bastani/atomic";
import { Type } from "typebox";
export default function (pi: ExtensionAPI) {
	pi.on("tool_call", (e) => { if (e.toolName === "never%d") return { block: true }; });
	pi.on("session_start", () => {});
	pi.registerTool({ name: "tool%d", label: "T", description: "d", parameters: Type.Object({ a: Type.String() }),
		async execute() { return { content: [{ type: "text", text: "x" }], details: {} }; } });
	pi.registerCommand("cmd%d", { description: "c", handler: async () => {} });
}`, i, i, i)))
	}
	cache := b.TempDir()
	// The first start writes the bundle and its V8 code cache, as atomic's first run does.
	warm := New(paths, host.Options{}, Options{CacheDir: cache})
	ext.NewRunner(nil).Load(nil, paths, warm.Factories())
	time.Sleep(300 * time.Millisecond)
	_ = warm.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sup := New(paths, host.Options{}, Options{CacheDir: cache})
		sup.Start()
		r := ext.NewRunner(nil)
		if errs := r.Load(nil, paths, sup.Factories()); len(errs) > 0 {
			b.Fatal(errs)
		}
		if len(r.Tools(nil, nil)) != n {
			b.Fatal("not every tool registered")
		}
		b.StopTimer()
		_ = sup.Close()
		b.StartTimer()
	}
}

// BenchmarkUnsubscribedEvent emits an event no extension subscribed to while a TypeScript
// extension is loaded: no message, no allocation.
func BenchmarkUnsubscribedEvent(b *testing.B) {
	r, sup := loaded(b, writeExt(b, b.TempDir(), "gate.ts", gateTS))
	ctx := context.Background()
	before := sup.Sent()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ext.Emit[ext.None](r, ctx, ext.TurnStart{TurnIndex: i})
	}
	b.StopTimer()
	if sup.Sent() != before {
		b.Fatal("an unsubscribed event reached the host")
	}
}

// TestBusBetweenGoAndTypeScript: pi.events is one bus per runtime, shared by Go and TypeScript
// extensions in both directions.
func TestBusBetweenGoAndTypeScript(t *testing.T) {
	needNode(t)
	p := writeExt(t, t.TempDir(), "bus.ts", `
export default function (pi) {
	let pong = "none";
	pi.events.on("pong", (d) => { pong = String(d.text); });
	pi.on("turn_start", () => { pi.events.emit("ping", { n: 7 }); });
	pi.on("tool_call", () => ({ block: true, reason: "pong=" + pong }));
}`)
	sup := New([]string{p}, host.Options{}, Options{CacheDir: t.TempDir()})
	defer sup.Close()
	pings := make(chan any, 1)
	var bus *ext.Bus
	goExt := func(api ext.API) error {
		bus = api.Events()
		bus.On("ping", func(d any) { pings <- d })
		return nil
	}
	r := ext.NewRunner(nil)
	if errs := r.Load(nil, []string{"go:bus", p}, append([]ext.Factory{goExt}, sup.Factories()...)); len(errs) > 0 {
		t.Fatal(errs)
	}
	ext.Emit[ext.None](r, context.Background(), ext.TurnStart{})
	select {
	case d := <-pings:
		if fmt.Sprint(d) != "map[n:7]" {
			t.Fatalf("ping %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the TypeScript emit did not reach the Go subscriber")
	}
	bus.Emit("pong", map[string]any{"text": "from go"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, res, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolName: "x", Input: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Reason == "pong=from go" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Go emit did not reach the TypeScript subscriber: %q", res.Reason)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestToolCancellation: aborting a tool call aborts the AbortSignal the TypeScript tool got.
func TestToolCancellation(t *testing.T) {
	src := `
export default function (pi) {
	pi.registerTool({
		name: "wait", label: "Wait", description: "waits for abort", parameters: { type: "object", properties: {} },
		execute(_id, _params, signal) {
			return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted by signal"))));
		},
	});
}`
	r, _ := loaded(t, writeExt(t, t.TempDir(), "wait.ts", src))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := r.Tools(nil, nil)[0].Execute(ctx, tool.Call{ID: "w", Name: "wait", Args: map[string]any{}}, func(tool.Result) {})
	if err == nil || !strings.Contains(err.Error(), "aborted by signal") {
		t.Fatalf("err %v", err)
	}
}

// TestMutablePayloads: edits a handler makes in place to tool_call.input and
// before_provider_headers.headers reach the Go payload (the headers map is updated in place);
// before_provider_request's result replaces the payload.
func TestMutablePayloads(t *testing.T) {
	src := `
export default function (pi) {
	pi.on("tool_call", (e) => { e.input.command = "echo safe"; });
	pi.on("before_provider_headers", (e) => { e.headers["x-ts"] = "1"; delete e.headers["x-remove-me"]; });
	pi.on("before_provider_request", (e) => ({ ...e.payload, temperature: 0 }));
}`
	r, _ := loaded(t, writeExt(t, t.TempDir(), "mut.ts", src))
	ctx := context.Background()
	out, _, err := ext.Emit[*ext.ToolCallResult](r, ctx, ext.ToolCall{ToolName: "bash", Input: map[string]any{"command": "rm -rf /"}})
	if err != nil || out.Input["command"] != "echo safe" {
		t.Fatalf("tool_call input %v, err %v", out.Input, err)
	}
	headers := map[string]string{"x-remove-me": "1", "x-keep": "2"}
	ext.Emit[ext.None](r, ctx, ext.BeforeProviderHeaders{Headers: headers})
	if fmt.Sprint(headers) != "map[x-keep:2 x-ts:1]" {
		t.Fatalf("headers %v", headers)
	}
	req, _, _ := ext.Emit[*ext.PayloadResult](r, ctx, ext.BeforeProviderRequest{Payload: map[string]any{"model": "m"}})
	if fmt.Sprint(req.Payload) != "map[model:m temperature:0]" {
		t.Fatalf("payload %v", req.Payload)
	}
}

// TestInPlaceEditsOfContextAndPayload: edits of context.messages and before_provider_request.payload
// made in place (no returned value) take effect, as pi applies them; the fields are the table's
// Editable column, sent in initialize.
func TestInPlaceEditsOfContextAndPayload(t *testing.T) {
	src := `
export default function (pi) {
	pi.on("context", (e) => { e.messages[0].content[0].text = "edited"; e.messages.push({ role: "user", content: [{ type: "text", text: "added" }], timestamp: 2 }); });
	pi.on("before_provider_request", (e) => { e.payload.temperature = 0.5; delete e.payload.drop; });
}`
	r, _ := loaded(t, writeExt(t, t.TempDir(), "inplace.ts", src))
	ctx := context.Background()
	msgs := []llm.Message{llm.UserText("original", nil, 1)}
	out, _, _ := ext.Emit[*ext.ContextResult](r, ctx, ext.ContextEvent{Messages: msgs})
	if len(out.Messages) != 2 || llm.TextOf(out.Messages[0].Content, "") != "edited" || llm.TextOf(out.Messages[1].Content, "") != "added" {
		t.Fatalf("context messages after in-place edits: %+v", out.Messages)
	}
	req, _, _ := ext.Emit[*ext.PayloadResult](r, ctx, ext.BeforeProviderRequest{Payload: map[string]any{"model": "m", "drop": true}})
	if fmt.Sprint(req.Payload) != "map[model:m temperature:0.5]" {
		t.Fatalf("payload after in-place edits: %v", req.Payload)
	}
}

// TestEventSignalAborts: cancelling a dispatch aborts ctx.signal in the TypeScript handler.
func TestEventSignalAborts(t *testing.T) {
	needNode(t)
	p := writeExt(t, t.TempDir(), "sig.ts", `
export default function (pi) {
	pi.on("tool_call", (_e, ctx) => new Promise((resolve) => {
		ctx.signal.addEventListener("abort", () => { pi.events.emit("aborted", String(ctx.signal.reason?.message)); resolve(undefined); });
	}));
}`)
	sup := New([]string{p}, host.Options{}, Options{CacheDir: t.TempDir()})
	defer sup.Close()
	aborted := make(chan any, 1)
	goExt := func(api ext.API) error {
		api.Events().On("aborted", func(d any) { aborted <- d })
		return nil
	}
	r := ext.NewRunner(nil)
	if errs := r.Load(nil, []string{"go:sig", p}, append([]ext.Factory{goExt}, sup.Factories()...)); len(errs) > 0 {
		t.Fatal(errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, _, err := ext.Emit[*ext.ToolCallResult](r, ctx, ext.ToolCall{ToolName: "bash", Input: map[string]any{}}); err == nil {
		t.Fatal("an aborted tool_call must block")
	}
	select {
	case d := <-aborted:
		if d != "cancelled by atomic" {
			t.Fatalf("reason %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's ctx.signal was not aborted")
	}
}

// BenchmarkMessageUpdate2000 measures what one TypeScript message_update subscriber adds to a
// 2,000-delta assistant stream: 2,000 dispatches as the agent loop makes them (the partial
// message growing by each delta), then the agent_settled barrier that waits for the host to have
// handled them all (target < 200 ms in all, i.e. < 100 µs a delta). ms/stream is the time of
// one stream.
func BenchmarkMessageUpdate2000(b *testing.B) { benchMessageUpdate(b, 1, 2000) }

// BenchmarkMessageUpdate2000x100 is the same stream with 100 message_update handlers in the
// extension (issue 14 item 2).
func BenchmarkMessageUpdate2000x100(b *testing.B) { benchMessageUpdate(b, 100, 2000) }

// BenchmarkMessageUpdate20000 is a 20,000-delta stream with one subscriber: the cost of a delta
// must not grow with the message (issue 14 item 3).
func BenchmarkMessageUpdate20000(b *testing.B) { benchMessageUpdate(b, 1, 20000) }

func benchMessageUpdate(b *testing.B, handlers, deltas int) {
	p := writeExt(b, b.TempDir(), "stream.ts", fmt.Sprintf(`
let n = 0, chars = 0;
export default function (pi) {
	for (let k = 0; k < %d; k++) pi.on("message_update", (event) => { n++; chars += event.message.content[0].text.length; });
	pi.on("agent_settled", () => ({}));
}`, handlers))
	r, _ := loaded(b, p)
	ctx := context.Background()
	full := strings.Repeat("tok ", deltas)
	stream := func() {
		msg := &llm.Message{Role: "assistant", Content: []llm.Content{{Type: llm.ContentText}}}
		for i := 0; i < deltas; i++ {
			msg.Content[0].Text = full[:4*(i+1)]
			ext.Emit[ext.None](r, ctx, ext.MessageUpdate{AssistantMessageEvent: &llm.Event{Type: "text_delta", Delta: "tok "}, Message: msg})
		}
		ext.Emit[ext.None](r, ctx, ext.AgentSettled{})
	}
	stream() // warm up the JIT on both sides
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		stream()
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds())/1e3/float64(b.N), "ms/stream")
	b.ReportMetric(float64(time.Since(t0).Nanoseconds())/1e3/float64(b.N*deltas), "µs/delta")
}

// TestBuiltinDelegate: createBashTool without operations runs atomic's Go bash through the core
// (builtin.execute): its partial results stream back, a non-zero exit is thrown and aborting the
// call kills the command.
func TestBuiltinDelegate(t *testing.T) {
	dir := t.TempDir()
	src := `
import { createBashTool } from "@bastani/atomic";
export default function (pi) {
	pi.registerTool({ ...createBashTool(process.cwd()), name: "gobash" });
}`
	r, _ := loaded(t, writeExt(t, dir, "gobash.ts", src))
	bash := r.Tools(nil, nil)[0]
	if !strings.Contains(string(bash.Parameters()), `"command"`) {
		t.Fatalf("parameters %s", bash.Parameters())
	}
	var updates []string
	res, err := bash.Execute(context.Background(), tool.Call{ID: "b1", Name: "gobash", Args: map[string]any{"command": "echo one; sleep 0.3; echo two; exit 2"}}, func(u tool.Result) {
		updates = append(updates, u.Content[0].Text)
	})
	// A non-zero exit is thrown, as pi's bash tool does (a returned value never sets isError).
	if err == nil {
		t.Fatalf("no error for exit 2: result %+v", res)
	}
	if got := err.Error(); !strings.Contains(got, "one\ntwo") || !strings.HasSuffix(got, "Command exited with code 2") {
		t.Fatalf("error %q", got)
	}
	if len(updates) == 0 || !strings.Contains(updates[0], "one") {
		t.Errorf("updates %q", updates)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err = bash.Execute(ctx, tool.Call{ID: "b2", Name: "gobash", Args: map[string]any{"command": "echo started; sleep 20"}}, func(tool.Result) {})
	if err == nil || !strings.Contains(err.Error(), "Command aborted") || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

// TestCustomOperationsAndHelpers: createEditTool and createLsTool with custom operations run in
// TypeScript on those operations; the small helpers answer without a TUI (no key is bound there,
// so keyHintIfBound and keyText are empty).
func TestCustomOperationsAndHelpers(t *testing.T) {
	src := `
import { createEditTool, createLsTool, getLanguageFromPath, highlightCode, keyHintIfBound, keyText, CustomEditor } from "@bastani/atomic";
const files = new Map([["/v/a.txt", "alpha beta"], ["/v/sub", null]]);
const ops = {
	access: async (p) => { if (!files.has(p)) throw Object.assign(new Error("no"), { code: "ENOENT" }); },
	readFile: async (p) => Buffer.from(files.get(p)),
	writeFile: async (p, c) => { files.set(p, c); },
	exists: async (p) => p === "/v" || files.has(p),
	stat: async (p) => ({ isDirectory: () => p === "/v" || files.get(p) === null }),
	readdir: async () => ["sub", "a.txt"],
};
export default function (pi) {
	const edit = createEditTool("/v", { operations: ops });
	const ls = createLsTool("/v", { operations: ops });
	pi.registerTool({
		name: "probe", label: "Probe", description: "probe", parameters: { type: "object", properties: {} },
		async execute(id, params, signal) {
			const e = await edit.execute(id, { path: "a.txt", edits: [{ oldText: "beta", newText: "gamma" }] }, signal);
			const l = await ls.execute(id, {}, signal);
			let editorError = "";
			editorError = typeof CustomEditor === "function" && typeof CustomEditor.prototype.handleInput === "function" ? "CustomEditor is an Editor" : "no CustomEditor";
			return [e.content[0].text, files.get("/v/a.txt"), l.content[0].text.replace("\n", ","), getLanguageFromPath("/x/main.rs"),
				highlightCode("x", "rust"), keyHintIfBound("app.tools.expand", "to expand"), keyText("app.tools.expand"), editorError].join("|");
		},
	});
}`
	r, _ := loaded(t, writeExt(t, t.TempDir(), "probe.ts", src))
	res, err := r.Tools(nil, nil)[0].Execute(context.Background(), tool.Call{ID: "p", Name: "probe", Args: map[string]any{}}, func(tool.Result) {})
	if err != nil {
		t.Fatal(err)
	}
	want := "Successfully replaced 1 block(s) in a.txt.|alpha gamma|a.txt,sub/|rust|x|||CustomEditor is an Editor"
	if got := res.Content[0].Text; !strings.HasPrefix(got, want) {
		t.Fatalf("got  %q\nwant %q…", got, want)
	}
}

// dialogCtx is a handler context without a session whose UI is slowUI.
type dialogCtx struct {
	ext.NoSession
	ui ext.UI
}

func (c *dialogCtx) UI() ext.UI { return c.ui }

// slowUI is a user who takes wait to answer every confirmation, and says no.
type slowUI struct {
	ext.NoUI
	wait time.Duration
}

func (u slowUI) Confirm(ctx context.Context, _, _ string) bool {
	select {
	case <-time.After(u.wait):
	case <-ctx.Done():
	}
	return false
}

// TestDialogTimeIsNotTheHandlers: a handler waiting for the user's answer to ctx.ui.confirm is not
// timed out by the handler timeout (extensionHandlerTimeoutMs) meanwhile, so the user's "no"
// still blocks the call with the handler's own reason.
func TestDialogTimeIsNotTheHandlers(t *testing.T) {
	needNode(t)
	p := writeExt(t, t.TempDir(), "ask.ts", `
export default function (pi) {
	pi.on("tool_call", async (event, ctx) => {
		const ok = await ctx.ui.confirm("Run?", String(event.input.command));
		if (!ok) return { block: true, reason: "the user said no" };
	});
}`)
	// The limit must hold the handler's own work (two host round trips) even on a loaded machine;
	// the user answers only after a limit and a half, so a dialog counted as handler time fails.
	const limit = 2 * time.Second
	var log bytes.Buffer
	sup := New([]string{p}, host.Options{HandlerTimeout: limit, Stderr: &log}, Options{CacheDir: t.TempDir()})
	defer sup.Close()
	r := ext.NewRunner(func(ctx context.Context) ext.Context {
		return &dialogCtx{NoSession: ext.NoSession{Ctx: ctx}, ui: slowUI{wait: limit + limit/2}}
	})
	if errs := r.Load(nil, []string{p}, sup.Factories()); len(errs) > 0 {
		t.Fatalf("load: %v\n%s", errs, log.String())
	}
	var reported []string
	r.OnError(func(e *ext.Error) { reported = append(reported, e.Message) })
	_, res, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolName: "bash", Input: map[string]any{"command": "ls"}})
	if err != nil || res == nil || !res.Block || res.Reason != "the user said no" {
		t.Fatalf("result %+v, err %v, reported %v; want the user's block", res, err, reported)
	}
}
