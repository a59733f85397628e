package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fixtureDir is the TypeScript fixture server (testdata/tsserver), built on the official
// TypeScript SDK; its dependencies are installed by `npm ci` there (.ci/run does it).
func fixtureDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "testdata", "tsserver")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skipf("the MCP fixture's dependencies are not installed: run npm ci --prefix %s", dir)
	}
	return dir
}

// FixtureServerJSON returns the mcpServers entry body that runs the fixture server, logging to
// logFile, with extra fields (already JSON, e.g. `"timeoutMs": 500`).
func fixtureEntry(t testing.TB, logFile, extra string) string {
	dir := fixtureDir(t)
	e := `{"command": "node", "args": [` + quote(filepath.Join(dir, "server.mjs")) + `], "env": {"MCP_FIXTURE_LOG": ` + quote(logFile) + `}`
	if extra != "" {
		e += ", " + extra
	}
	return e + "}"
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// logLines returns the fixture log's lines starting with prefix.
func logLines(t testing.TB, logFile, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile(logFile)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// writeConfig writes an mcp.json with the given mcpServers body into dir/name.
func writeConfig(t testing.TB, path, servers string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": {`+servers+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

// managerFor loads the project config in dir (trusted) and returns a manager closed at cleanup.
func managerFor(t testing.TB, dir string) *Manager {
	t.Helper()
	cfg, errs := Load(LoadOptions{AgentDir: filepath.Join(dir, "agent"), Cwd: dir, ProjectTrusted: true})
	for _, e := range errs {
		t.Fatalf("config: %v", e)
	}
	m := New(cfg, Options{AgentDir: filepath.Join(dir, "agent")})
	t.Cleanup(m.Close)
	return m
}

// waitFor waits (bounded) for cond, for facts that settle on another goroutine.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
