package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpFixture is an MCP server built with the Go SDK, served over loopback.
type httpFixture struct {
	srv       *httptest.Server
	calls     atomic.Int64  // tools/call requests that reached a handler
	cancelled chan struct{} // closed when the hang handler sees its context end
}

type echoIn struct {
	Text string `json:"text"`
}

type slowIn struct {
	Steps   int `json:"steps"`
	DelayMs int `json:"delayMs"`
}

func newHTTPFixture(t *testing.T, sse bool, token string) *httpFixture {
	t.Helper()
	f := &httpFixture{cancelled: make(chan struct{})}
	server := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "Echo the text back"}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		f.calls.Add(1)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "web:" + in.Text}}}, nil, nil
	})
	sdk.AddTool(server, &sdk.Tool{Name: "hang", Description: "Never answers"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		f.calls.Add(1)
		<-ctx.Done()
		close(f.cancelled)
		return nil, nil, ctx.Err()
	})
	sdk.AddTool(server, &sdk.Tool{Name: "slow", Description: "Reports progress"}, func(ctx context.Context, req *sdk.CallToolRequest, in slowIn) (*sdk.CallToolResult, any, error) {
		f.calls.Add(1)
		for i := 1; i <= in.Steps; i++ {
			select {
			case <-time.After(time.Duration(in.DelayMs) * time.Millisecond):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: float64(in.Steps)})
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("slow done after %d steps", in.Steps)}}}, nil, nil
	})
	sdk.AddTool(server, &sdk.Tool{Name: "crash", Description: "Takes the server down"}, func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		f.calls.Add(1)
		go f.srv.CloseClientConnections()
		select {}
	})
	var h http.Handler
	if sse {
		h = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil)
	} else {
		h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	}
	if token != "" {
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

func httpManager(t *testing.T, servers string, env map[string]string) *Manager {
	t.Helper()
	dir := t.TempDir()
	writeConfig(t, filepath.Join(dir, ".mcp.json"), servers)
	cfg, errs := Load(LoadOptions{AgentDir: filepath.Join(dir, "agent"), Cwd: dir, ProjectTrusted: true, Getenv: func(k string) string { return env[k] }})
	for _, e := range errs {
		t.Fatal(e)
	}
	m := New(cfg, Options{AgentDir: filepath.Join(dir, "agent")})
	t.Cleanup(m.Close)
	return m
}

// The proxy and direct tools, timeoutMs with progress, cancellation and notifications work the
// same against a streamable HTTP server on loopback, with a bearer token from the environment.
func TestStreamableHTTP(t *testing.T) {
	f := newHTTPFixture(t, false, "s3cret")
	m := httpManager(t, `"web": {"url": "`+f.srv.URL+`", "auth": "bearer", "bearerTokenEnv": "WEB_TOKEN", "timeoutMs": 300, "directTools": true}`,
		map[string]string{"WEB_TOKEN": "s3cret"})
	notes := make(chan Notification, 16)
	m.BindNotifications(func(n Notification) { notes <- n })
	if f.calls.Load() != 0 {
		t.Fatal("the server was called before use")
	}
	res, err := run(t, proxy(t, m), map[string]any{"tool": "web_echo", "args": `{"text": "over http"}`})
	if err != nil || textOf(res) != "web:over http" {
		t.Fatalf("proxy = %q, %v", textOf(res), err)
	}
	// directTools: true, now that the tools are known.
	var direct bool
	for _, tl := range m.Tools() {
		if tl.Name() == "web_echo" {
			direct = true
			res, err := run(t, tl, map[string]any{"text": "direct"})
			if err != nil || textOf(res) != "web:direct" {
				t.Fatalf("direct = %q, %v", textOf(res), err)
			}
		}
	}
	if !direct {
		t.Fatal("no web_echo direct tool")
	}
	// Progress keeps a call past timeoutMs alive, and every progress notification is also
	// queued for mcp_notification.
	r, err := m.CallTool(context.Background(), "web", "slow", map[string]any{"steps": 4, "delayMs": 150})
	if err != nil || textOf(toResult(ToolMeta{}, r)) != "slow done after 4 steps" {
		t.Fatalf("slow: %v", err)
	}
	n := <-notes
	if n.Server != "web" || n.Method != "notifications/progress" || !strings.Contains(string(n.Params), `"progress"`) {
		t.Fatalf("notification = %+v %s", n, n.Params)
	}
	// No answer and no progress: cut by timeoutMs, and the server sees the request cancelled.
	_, err = m.CallTool(context.Background(), "web", "hang", nil)
	if err == nil || !strings.Contains(err.Error(), "timeoutMs") {
		t.Fatalf("hang: %v", err)
	}
	<-f.cancelled
}

// A caller's cancellation cancels the request on the HTTP server.
func TestHTTPCancel(t *testing.T) {
	f := newHTTPFixture(t, false, "")
	m := httpManager(t, `"web": {"url": "`+f.srv.URL+`"}`, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := m.CallTool(ctx, "web", "hang", nil); done <- err }()
	// The handler runs once the call reached it; cancel then.
	for f.calls.Load() == 0 {
		select {
		case err := <-done:
			t.Fatalf("hang returned early: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	<-f.cancelled
}

// A server that goes away gives a clear error; the other server keeps working.
func TestHTTPCrashAndOthers(t *testing.T) {
	bad := newHTTPFixture(t, false, "")
	good := newHTTPFixture(t, false, "")
	m := httpManager(t, `"bad": {"url": "`+bad.srv.URL+`"}, "good": {"url": "`+good.srv.URL+`"}`, nil)
	_, err := m.CallTool(context.Background(), "bad", "crash", nil)
	if err == nil || !strings.Contains(err.Error(), `server "bad"`) || !strings.Contains(err.Error(), "calling tool crash") {
		t.Fatalf("crash: %v", err)
	}
	bad.srv.Close()
	_, err = m.CallTool(context.Background(), "bad", "echo", map[string]any{"text": "x"})
	if err == nil || !strings.Contains(err.Error(), bad.srv.URL) {
		t.Fatalf("after the server went away: %v", err)
	}
	r, err := m.CallTool(context.Background(), "good", "echo", map[string]any{"text": "fine"})
	if err != nil || textOf(toResult(ToolMeta{}, r)) != "web:fine" {
		t.Fatalf("good: %v", err)
	}
}

// An endpoint that speaks only the older HTTP+SSE transport is reached by the fallback.
func TestSSEFallback(t *testing.T) {
	f := newHTTPFixture(t, true, "")
	m := httpManager(t, `"old": {"url": "`+f.srv.URL+`"}`, nil)
	r, err := m.CallTool(context.Background(), "old", "echo", map[string]any{"text": "sse"})
	if err != nil || textOf(toResult(ToolMeta{}, r)) != "web:sse" {
		t.Fatalf("sse: %v", err)
	}
}

// A wrong bearer token is a clear connection error.
func TestHTTPBearerRejected(t *testing.T) {
	f := newHTTPFixture(t, false, "right")
	m := httpManager(t, `"web": {"url": "`+f.srv.URL+`", "auth": "bearer", "bearerToken": "wrong"}`, nil)
	err := m.Connect(context.Background(), "web")
	if err == nil || !strings.Contains(err.Error(), `connecting to server "web"`) {
		t.Fatalf("err = %v", err)
	}
	if st := m.Status(); st[0].State != "failed" || st[0].Error == "" {
		t.Fatalf("status = %+v", st)
	}
}
