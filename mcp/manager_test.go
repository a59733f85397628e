package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// proxy returns the manager's "mcp" tool.
func proxy(t testing.TB, m *Manager) tool.Tool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.Name() == ProxyToolName {
			return tl
		}
	}
	t.Fatal("no mcp tool")
	return nil
}

func run(t testing.TB, tl tool.Tool, args map[string]any) (tool.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return tl.Execute(ctx, tool.Call{ID: "c1", Name: tl.Name(), Args: args}, func(tool.Result) {})
}

func textOf(r tool.Result) string { return llm.TextOf(r.Content, "\n") }

func TestLazyProxyCallAndCache(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "fixture.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"), `"fx": `+fixtureEntry(t, logf, ""))
	m := managerFor(t, dir)
	m.Start()
	tools := m.Tools()
	if len(tools) != 1 || tools[0].Name() != "mcp" {
		t.Fatalf("tools = %v", tools)
	}
	if got := logLines(t, logf, "start"); len(got) != 0 {
		t.Fatalf("a lazy server started before use: %v", got)
	}
	res, err := run(t, tools[0], map[string]any{"tool": "fx_echo", "args": `{"text": "hello"}`})
	if err != nil || textOf(res) != "echo:hello" || res.IsError {
		t.Fatalf("call = %q, %v", textOf(res), err)
	}
	// The server's own name with server set, args as an object.
	res, err = run(t, tools[0], map[string]any{"tool": "echo", "server": "fx", "args": map[string]any{"text": "again"}})
	if err != nil || textOf(res) != "echo:again" {
		t.Fatalf("call = %q, %v", textOf(res), err)
	}
	if got := logLines(t, logf, "start"); len(got) != 1 {
		t.Fatalf("starts = %v, want one", got)
	}
	// The resource is a tool too.
	res, err = run(t, tools[0], map[string]any{"tool": "fx_read_read_me"})
	if err != nil || textOf(res) != "fixture read-me text" {
		t.Fatalf("resource = %q, %v", textOf(res), err)
	}

	// A second manager (a later run) searches and describes from the cache without starting.
	m.Close()
	m2 := managerFor(t, dir)
	p := proxy(t, m2)
	res, err = run(t, p, map[string]any{"search": "echo text"})
	if err != nil || !strings.Contains(textOf(res), "fx_echo") {
		t.Fatalf("search = %q, %v", textOf(res), err)
	}
	res, err = run(t, p, map[string]any{"describe": "fx_echo"})
	if err != nil || !strings.Contains(textOf(res), `"text"`) || !strings.Contains(textOf(res), "Echo the text back") {
		t.Fatalf("describe = %q, %v", textOf(res), err)
	}
	res, err = run(t, p, map[string]any{"server": "fx"})
	if err != nil || !strings.Contains(textOf(res), "fx_hang") {
		t.Fatalf("server listing = %q, %v", textOf(res), err)
	}
	if got := logLines(t, logf, "start"); len(got) != 1 {
		t.Fatalf("search/describe from the cache started the server: %v", got)
	}
	st := m2.Status()
	if len(st) != 1 || st[0].State != "cached" || st[0].Tools != 6 {
		t.Fatalf("status = %+v", st)
	}
}

// Calls racing to use a stopped server share one start.
func TestConcurrentCallsShareOneStart(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "fixture.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"), `"fx": `+fixtureEntry(t, logf, ""))
	m := managerFor(t, dir)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := m.CallTool(context.Background(), "fx", "echo", map[string]any{"text": strconv.Itoa(i)})
			if err == nil && res.IsError {
				err = errors.New("error result")
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := logLines(t, logf, "start"); len(got) != 1 {
		t.Fatalf("starts = %v, want one", got)
	}
	if got := logLines(t, logf, "call echo"); len(got) != 6 {
		t.Fatalf("calls = %v", got)
	}
}

// timeoutMs cuts a call that gets neither an answer nor progress; progress keeps a slow call
// alive past it.
func TestTimeoutIsInactivity(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "fixture.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"), `"fx": `+fixtureEntry(t, logf, `"timeoutMs": 400`))
	m := managerFor(t, dir)
	_, err := m.CallTool(context.Background(), "fx", "hang", nil)
	if err == nil || !strings.Contains(err.Error(), "timeoutMs") || !strings.Contains(err.Error(), `"fx"`) {
		t.Fatalf("hang: err = %v", err)
	}
	// Six steps of 150 ms (900 ms in all, over the 400 ms limit), each reporting progress.
	res, err := m.CallTool(context.Background(), "fx", "slow", map[string]any{"steps": 6, "delayMs": 150})
	if err != nil {
		t.Fatalf("slow with progress: %v", err)
	}
	if got := toResult(ToolMeta{}, res); textOf(got) != "slow done after 6 steps" {
		t.Fatalf("slow = %q", textOf(got))
	}
}

// Cancelling the caller's context cancels the MCP request at once.
func TestCancelStopsTheCall(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "fixture.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"), `"fx": `+fixtureEntry(t, logf, ""))
	m := managerFor(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "fx", "hang", nil)
		done <- err
	}()
	waitFor(t, "the hang call to reach the server", func() bool { return len(logLines(t, logf, "call hang")) == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The connection is still good.
	if _, err := m.CallTool(context.Background(), "fx", "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
}

// A crashing server gives a clear error naming the exit and stderr; the next call starts it
// again.
func TestCrashIsClearAndRecovers(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "fixture.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"), `"fx": `+fixtureEntry(t, logf, ""))
	m := managerFor(t, dir)
	_, err := m.CallTool(context.Background(), "fx", "crash", nil)
	if err == nil {
		t.Fatal("no error from a crashing server")
	}
	for _, want := range []string{`"fx"`, "crash", "exit status 3", "crashing on purpose"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	res, err := m.CallTool(context.Background(), "fx", "echo", map[string]any{"text": "back"})
	if err != nil || textOf(toResult(ToolMeta{}, res)) != "echo:back" {
		t.Fatalf("after crash: %v", err)
	}
	if got := logLines(t, logf, "start"); len(got) != 2 {
		t.Fatalf("starts = %v, want two", got)
	}
}

// Every notification is queued for the listener, buffered (100, drop-oldest) until it binds.
func TestNotificationsReachTheListener(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "fixture.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"), `"fx": `+fixtureEntry(t, logf, ""))
	m := managerFor(t, dir)
	if _, err := m.CallTool(context.Background(), "fx", "notify", map[string]any{"value": "before-bind"}); err != nil {
		t.Fatal(err)
	}
	got := make(chan Notification, 10)
	m.BindNotifications(func(n Notification) {
		if n.Method == "notifications/fixture_custom" {
			got <- n
		}
	})
	n := <-got
	var p map[string]any
	if err := json.Unmarshal(n.Params, &p); err != nil || n.Server != "fx" || p["value"] != "before-bind" {
		t.Fatalf("notification = %+v (%s)", n, n.Params)
	}
	if _, err := m.CallTool(context.Background(), "fx", "notify", map[string]any{"value": "after"}); err != nil {
		t.Fatal(err)
	}
	n = <-got
	if err := json.Unmarshal(n.Params, &p); err != nil || p["value"] != "after" {
		t.Fatalf("notification = %s", n.Params)
	}
}

func TestNotificationBufferDropsOldest(t *testing.T) {
	var q noteQueue
	for i := range NotificationBuffer + 5 {
		q.push(Notification{Method: strconv.Itoa(i)})
	}
	var got []string
	done := make(chan struct{})
	q.bind(func(n Notification) {
		got = append(got, n.Method)
		if len(got) == NotificationBuffer {
			close(done)
		}
	})
	<-done
	if got[0] != "5" || got[len(got)-1] != strconv.Itoa(NotificationBuffer+4) {
		t.Fatalf("delivered %s..%s", got[0], got[len(got)-1])
	}
}

// An idle server is disconnected after its idleTimeout; Close ends every server process.
func TestIdleTimeoutAndClose(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "fixture.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"),
		`"idle": `+fixtureEntry(t, logf, `"idleTimeout": 0.002`)+`, "stay": `+fixtureEntry(t, logf, `"idleTimeout": 0`))
	m := managerFor(t, dir)
	gone := make(chan string, 4)
	m.disconnected = func(n string) { gone <- n }
	for _, s := range []string{"idle", "stay"} {
		if _, err := m.CallTool(context.Background(), s, "echo", map[string]any{"text": s}); err != nil {
			t.Fatal(err)
		}
	}
	if n := <-gone; n != "idle" {
		t.Fatalf("%s disconnected first", n)
	}
	st := m.Status()
	if st[0].Name != "idle" || st[0].State != "cached" || st[1].State != "connected" {
		t.Fatalf("status = %+v", st)
	}
	starts := logLines(t, logf, "start")
	m.Close()
	for _, l := range starts {
		pid, _ := strconv.Atoi(strings.TrimPrefix(l, "start "))
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("server process %d still runs after Close", pid)
		}
	}
	if _, err := m.CallTool(context.Background(), "stay", "echo", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// Direct tools: listed names are offered before the server starts, and call it directly.
func TestDirectTools(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "fixture.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"), `"fx": `+fixtureEntry(t, logf, `"directTools": ["echo"]`))
	m := managerFor(t, dir)
	var echo tool.Tool
	for _, tl := range m.Tools() {
		if tl.Name() == "fx_echo" {
			echo = tl
		}
	}
	if echo == nil {
		t.Fatal("no fx_echo direct tool")
	}
	if p, src := echo.(tool.Sourced).Source(); p != "mcp:fx" || src != "mcp" {
		t.Errorf("source = %s %s", p, src)
	}
	if len(logLines(t, logf, "start")) != 0 {
		t.Fatal("registering a direct tool started the server")
	}
	res, err := run(t, echo, map[string]any{"text": "direct"})
	if err != nil || textOf(res) != "echo:direct" {
		t.Fatalf("direct = %q, %v", textOf(res), err)
	}
	// Now the schema is known.
	for _, tl := range m.Tools() {
		if tl.Name() == "fx_echo" && !strings.Contains(string(tl.Parameters()), `"text"`) {
			t.Errorf("schema = %s", tl.Parameters())
		}
	}
}

// Eager and keep-alive servers start in the background at Start; a keep-alive server that
// dies is started again; an eager one is not.
func TestEagerAndKeepAlive(t *testing.T) {
	old := reconnectDelay
	reconnectDelay = 10 * time.Millisecond
	t.Cleanup(func() { reconnectDelay = old })
	dir := t.TempDir()
	klog, elog := filepath.Join(dir, "keep.log"), filepath.Join(dir, "eager.log")
	writeConfig(t, filepath.Join(dir, ".mcp.json"),
		`"keep": `+fixtureEntry(t, klog, `"lifecycle": "keep-alive"`)+`, "eager": `+fixtureEntry(t, elog, `"lifecycle": "eager"`))
	m := managerFor(t, dir)
	m.Start()
	waitFor(t, "both servers to start", func() bool {
		st := m.Status()
		return st[0].State == "connected" && st[1].State == "connected"
	})
	for _, s := range []string{"eager", "keep"} {
		if _, err := m.CallTool(context.Background(), s, "crash", nil); err == nil {
			t.Fatalf("%s: no error from crash", s)
		}
	}
	waitFor(t, "the keep-alive server to come back", func() bool {
		return len(logLines(t, klog, "start")) == 2 && m.Status()[1].State == "connected"
	})
	if st := m.Status(); st[0].Name != "eager" || st[0].State != "failed" || !strings.Contains(st[0].Error, "exit status 3") {
		t.Fatalf("eager after crash: %+v", st[0])
	}
	if n := len(logLines(t, elog, "start")); n != 1 {
		t.Fatalf("the eager server started %d times", n)
	}
}
