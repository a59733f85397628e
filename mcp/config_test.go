package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadPrecedenceAndTrust(t *testing.T) {
	home, agent, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	writeConfig(t, filepath.Join(home, ".config", "mcp", "mcp.json"), `"a": {"command": "global-a"}, "b": {"command": "global-b"}, "c": {"command": "global-c"}, "d": {"command": "global-d"}`)
	writeConfig(t, filepath.Join(agent, "mcp.json"), `"b": {"command": "agent-b"}, "c": {"command": "agent-c"}, "d": {"command": "agent-d"}`)
	writeConfig(t, filepath.Join(cwd, ".mcp.json"), `"c": {"command": "project-c"}, "d": {"command": "project-d"}`)
	writeConfig(t, filepath.Join(cwd, ".pi", "mcp.json"), `"d": {"command": "legacy-d"}, "e": {"command": "legacy-e"}`)
	writeConfig(t, filepath.Join(cwd, ".atomic", "mcp.json"), `"d": {"command": "atomic-d"}`)

	cfg, errs := Load(LoadOptions{Home: home, AgentDir: agent, Cwd: cwd, ProjectTrusted: true})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := map[string]string{"a": "global-a", "b": "agent-b", "c": "project-c", "d": "atomic-d", "e": "legacy-e"}
	for n, c := range want {
		if s := cfg.Server(n); s == nil || s.Command != c {
			t.Errorf("server %s = %+v, want command %s", n, s, c)
		}
	}
	if len(cfg.Files) != 5 {
		t.Errorf("files = %v", cfg.Files)
	}

	cfg, _ = Load(LoadOptions{Home: home, AgentDir: agent, Cwd: cwd, ProjectTrusted: false})
	if s := cfg.Server("d"); s == nil || s.Command != "agent-d" {
		t.Errorf("untrusted: d = %+v, want the agent-level entry", s)
	}
	if cfg.Server("e") != nil {
		t.Error("untrusted: the project's legacy .pi/mcp.json was read")
	}
}

func TestLoadFieldsAndInterpolation(t *testing.T) {
	cwd := t.TempDir()
	writeConfig(t, filepath.Join(cwd, ".mcp.json"), `
		"s": {"command": "${BIN}/srv", "args": ["--token", "$env:TOK", "{env:TOK}"], "env": {"K": "v-${TOK}"}, "cwd": "sub",
		      "lifecycle": "keep-alive", "idleTimeout": 2, "timeoutMs": 1500, "directTools": ["x", "y"],
		      "excludeTools": ["bad_*"], "exposeResources": false, "debug": true},
		"h": {"url": "http://127.0.0.1:9/${PATH_PART}", "headers": {"X-Key": "${TOK}"}, "auth": "bearer", "bearerTokenEnv": "TOK"}`)
	env := map[string]string{"BIN": "/opt/bin", "TOK": "secret", "PATH_PART": "mcp"}
	cfg, errs := Load(LoadOptions{Cwd: cwd, ProjectTrusted: true, Getenv: func(k string) string { return env[k] }})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s := cfg.Server("s")
	if s.Command != "/opt/bin/srv" || strings.Join(s.Args, " ") != "--token secret secret" || s.Env["K"] != "v-secret" {
		t.Errorf("interpolation: %+v", s)
	}
	if s.Cwd != filepath.Join(cwd, "sub") || s.Lifecycle != KeepAlive || s.IdleTimeout != 2*time.Minute || s.Timeout != 1500*time.Millisecond {
		t.Errorf("fields: %+v", s)
	}
	if s.DirectAll || strings.Join(s.DirectNames, ",") != "x,y" || s.ExposeResources || !s.Debug || s.ExcludeTools[0] != "bad_*" {
		t.Errorf("tool fields: %+v", s)
	}
	h := cfg.Server("h")
	if h.URL != "http://127.0.0.1:9/mcp" || h.Headers["X-Key"] != "secret" || h.BearerToken != "secret" {
		t.Errorf("http: %+v", h)
	}
	if got := (&server{cfg: h}).httpHeaders()["Authorization"]; got != "Bearer secret" {
		t.Errorf("Authorization = %q", got)
	}
	if s.IdleTimeout == 0 || cfg.Server("h").IdleTimeout != DefaultIdleTimeout || !cfg.Server("h").ExposeResources {
		t.Error("defaults not applied")
	}
}

// One broken entry is reported with its file and key; the other servers load.
func TestLoadErrorsNameFileAndKey(t *testing.T) {
	cwd := t.TempDir()
	file := filepath.Join(cwd, ".mcp.json")
	writeConfig(t, file, `
		"good": {"command": "ok"},
		"badargs": {"command": "x", "args": "not-a-list"},
		"badlife": {"command": "x", "lifecycle": "sometimes"},
		"neither": {"env": {}},
		"badtimeout": {"command": "x", "timeoutMs": "soon"}`)
	broken := filepath.Join(cwd, ".atomic", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte(`{"mcpServers": `), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, errs := Load(LoadOptions{Cwd: cwd, ProjectTrusted: true})
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "good" {
		t.Fatalf("servers = %v", cfg.Servers)
	}
	var all []string
	for _, e := range errs {
		all = append(all, e.Error())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{
		file + ": mcpServers.badargs.args: want an array of strings",
		file + ": mcpServers.badlife.lifecycle",
		file + ": mcpServers.neither: needs command",
		file + ": mcpServers.badtimeout.timeoutMs",
		broken + ": not a JSON object",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors lack %q:\n%s", want, joined)
		}
	}
}

func TestToolNames(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"github", "create_issue", "github_create_issue"},
		{"github", "github_search", "github_search"},
		{"my.srv", "a.b", "my_2e_srv_a_b"},
		{"x-y", "t", "x-y_t"},
	} {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	if got := resourceToolName("Read Me!"); got != "read_me" {
		t.Errorf("resourceToolName = %q", got)
	}
	if !matchAny([]string{"bad_*"}, "bad_tool") || matchAny([]string{"bad_*"}, "good") || !globMatch("*_x_*", "a_x_b") {
		t.Error("glob matching")
	}
}
