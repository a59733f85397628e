package tui_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// TestE2EMCPCommand: /mcp shows the configured servers without starting them; /mcp connect
// starts one and /mcp tools lists its tools; /mcp disconnect stops it.
func TestE2EMCPCommand(t *testing.T) {
	server, _ := filepath.Abs(filepath.Join("..", "..", "mcp", "testdata", "tsserver", "server.mjs"))
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(server), "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the MCP fixture is not installed: npm ci --prefix mcp/testdata/tsserver")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fx": map[string]any{"command": "node", "args": []string{server}}}})
	env.WriteFile(t, filepath.Join(env.Agent, "mcp.json"), string(cfg))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/mcp")
	term.Press("enter")
	term.WaitFor("MCP servers (1):", "fx  stdio  lazy  not-connected")
	term.Type("/mcp connect fx")
	term.Press("enter")
	term.WaitFor("MCP server fx connected.", "fx  stdio  lazy  connected  6 tools")
	term.Type("/mcp tools fx")
	term.Press("enter")
	term.WaitFor("fx: fx_echo, fx_hang")
	term.Type("/mcp disconnect fx")
	term.Press("enter")
	term.WaitFor("MCP server fx disconnected.", "fx  stdio  lazy  cached  6 tools")
	quit(t, term)
}
