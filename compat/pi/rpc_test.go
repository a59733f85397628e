package pi

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
)

// buildAtomicTestBinary builds package cli's test binary under the name "atomic": run by that
// name it is atomic with the test extensions of cli/extensions_test.go compiled in
// (chosen by ATOMIC_TEST_EXTENSIONS), as testscript arranges for its scripts.
func buildAtomicTestBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "atomic")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, "../../cli").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	return bin
}

// TestRpcClientDrivesAtomic: pi 0.73.1's own RpcClient (rpc-driver.mjs) drives `atomic --mode
// rpc`: a prompt with a tool call, get_messages, get_state, get_session_stats, bash, steer and
// abort mid-run, an extension's ctx.ui.confirm answered by the client, and new_session.
func TestRpcClientDrivesAtomic(t *testing.T) {
	piCLI(t)
	bin := buildAtomicTestBinary(t)
	work := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(work, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{
		{Text: "I'll list the files.", ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "ls"})}},
		{Text: "There are two files."},
		{Text: "Running it.", ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "sleep 0.5; echo slow"})}},
		{Text: "Saw the steer."},
		{Text: "Once upon a time there was a story that went on and on and on without an end.", Chunks: 60, DelayMS: 40},
		{Text: "Spare."},
	}})
	defer srv.Close()
	agent := agentDir(t, srv)

	cmd := exec.Command("node", "rpc-driver.mjs")
	cmd.Env = append(os.Environ(), "ATOMIC_BIN="+bin, "ATOMIC_CODING_AGENT_DIR="+agent, "WORK="+work)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rpc-driver.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	var summary struct {
		OK          bool   `json:"ok"`
		SessionFile string `json:"sessionFile"`
		Events      int    `json:"events"`
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &summary); err != nil || !summary.OK {
		t.Fatalf("driver summary %q: %v\nstderr:\n%s", out, err, stderr.String())
	}

	// The session atomic wrote while the client drove it is a valid chain with every run in it.
	saved := readLines(t, summary.SessionFile)
	checkChain(t, saved)
	var roles []string
	for _, l := range saved[1:] {
		if l.Type != "message" {
			continue
		}
		var m struct {
			Role string `json:"role"`
		}
		_ = json.Unmarshal(l.Message, &m)
		roles = append(roles, m.Role)
	}
	want := "user,assistant,toolResult,assistant,bashExecution,user,assistant,toolResult,user,assistant,user,assistant"
	if got := strings.Join(roles, ","); got != want {
		t.Fatalf("saved messages %s\nwant %s", got, want)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Fatalf("%d model requests, want 5", n)
	}
}
