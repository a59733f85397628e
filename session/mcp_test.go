package session_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mcp"
	"github.com/atomic-cli/atomic/session"
)

// mcpFixture returns the MCP fixture server (mcp/testdata/tsserver) or skips.
func mcpFixture(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	server := filepath.Join(filepath.Dir(file), "..", "mcp", "testdata", "tsserver", "server.mjs")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(server), "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the MCP fixture is not installed: npm ci --prefix mcp/testdata/tsserver")
	}
	return server
}

func mcpManager(t *testing.T, entries string) *mcp.Manager {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {`+entries+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, errs := mcp.Load(mcp.LoadOptions{Cwd: dir, ProjectTrusted: true, AgentDir: filepath.Join(dir, "agent")})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return mcp.New(cfg, mcp.Options{AgentDir: filepath.Join(dir, "agent")})
}

// MCP tools are in getAllTools with their sourceInfo and obey setActiveTools.
func TestMCPToolsInGetAllToolsAndSetActiveTools(t *testing.T) {
	m := mcpManager(t, `"fx": {"command": "node", "args": ["never-started.js"], "directTools": ["echo"]}`)
	var api ext.API
	p := xtProvider()
	h := xtStart(t, p, []ext.Factory{func(a ext.API) error { api = a; return nil }}, func(o *session.Options) { o.MCP = m })
	src := map[string]ext.SourceInfo{}
	for _, ti := range api.GetAllTools() {
		src[ti.Name] = ti.SourceInfo
	}
	if s := src["mcp"]; s.Path != "mcp" || s.Source != "mcp" {
		t.Errorf("mcp sourceInfo = %+v", s)
	}
	if s := src["fx_echo"]; s.Path != "mcp:fx" || s.Source != "mcp" {
		t.Errorf("fx_echo sourceInfo = %+v", s)
	}
	if err := h.rt.Prompt(context.Background(), "one", nil); err != nil {
		t.Fatal(err)
	}
	if err := api.SetActiveTools([]string{"read", "fx_echo"}); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Prompt(context.Background(), "two", nil); err != nil {
		t.Fatal(err)
	}
	reqs := p.requests()
	names := func(i int) string {
		var n []string
		for _, tl := range reqs[i].Tools {
			n = append(n, tl.Name)
		}
		return strings.Join(n, ",")
	}
	if !strings.Contains(names(0), "mcp,fx_echo") {
		t.Errorf("request 0 tools = %s", names(0))
	}
	if names(1) != "fx_echo" && names(1) != "read,fx_echo" {
		t.Errorf("request 1 tools = %s, want the active set", names(1))
	}
}

// directTools true with nothing cached: the first prompt waits for the server's listing and
// offers its tools; the connection survives /new.
func TestMCPDirectToolsWarmAndSurviveNew(t *testing.T) {
	server := mcpFixture(t)
	logf := filepath.Join(t.TempDir(), "fixture.log")
	m := mcpManager(t, `"fx": {"command": "node", "args": ["`+server+`"], "env": {"MCP_FIXTURE_LOG": "`+logf+`"}, "directTools": true}`)
	p := xtProvider(xtCalls([3]string{"c1", "fx_echo", `{"text":"warm"}`}), xtSay("done"))
	h := xtStart(t, p, nil, func(o *session.Options) { o.MCP = m })
	if err := h.rt.Prompt(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	reqs := p.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var offered bool
	for _, tl := range reqs[0].Tools {
		offered = offered || tl.Name == "fx_echo"
	}
	if !offered {
		t.Fatal("the first request did not offer fx_echo")
	}
	if got := llm.TextOf(reqs[1].Msgs[len(reqs[1].Msgs)-1].Content, ""); got != "echo:warm" {
		t.Fatalf("tool result = %q", got)
	}
	if _, err := h.rt.NewSession(context.Background(), ext.NewSessionOptions{}); err != nil {
		t.Fatal(err)
	}
	if st := m.Status(); st[0].State != "connected" {
		t.Fatalf("after /new: %+v", st)
	}
	data, _ := os.ReadFile(logf)
	if n := strings.Count(string(data), "start "); n != 1 {
		t.Fatalf("%d starts:\n%s", n, data)
	}
}
