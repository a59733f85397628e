//go:build linux

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// alive reports whether pid is a live process (a zombie waiting for its reaper counts as dead).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// waitFor polls cond every 10 ms for at most 20 s (a bound, not a timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPID waits for a file holding a process id and returns it.
func readPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

// lifetimeEnv sets up a project, an agent dir whose models.json points at srv, and returns the
// environment of an atomic run.
func lifetimeEnv(t *testing.T, srv *fakellm.Server) (proj string, env []string) {
	tmp := t.TempDir()
	proj, agent, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "agent"), filepath.Join(tmp, "home")
	for _, d := range []string{proj, agent, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(agent, "models.json"), modelsJSON("fake", llm.APIAnthropicMessages, srv.URL()), 0o644); err != nil {
		t.Fatal(err)
	}
	return proj, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "ATOMIC_CODING_AGENT_DIR=" + agent}
}

// After atomic is killed with SIGKILL in the middle of a bash tool call, the command's processes
// (here a background sleep the shell waits for) are gone too (issue 10 item 13).
func TestBashToolDiesWithAtomic(t *testing.T) {
	bin, err := exec.LookPath("atomic")
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "sleep 300 & echo $! > child.pid; wait"})}},
		{Text: "never reached"},
	}})
	defer srv.Close()
	proj, env := lifetimeEnv(t, srv)
	cmd := exec.Command(bin, "--no-session", "-p", "run it")
	cmd.Dir, cmd.Env = proj, env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	defer func() { _ = cmd.Process.Kill() }()

	child := readPID(t, filepath.Join(proj, "child.pid"))
	if !alive(child) {
		t.Fatalf("the bash tool's child %d is not running", child)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	waitFor(t, "the bash tool's child to die with atomic", func() bool { return !alive(child) })
}

const spawnExtension = `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";

export default function (pi) {
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  writeFileSync("host-child.pid", String(child.pid) + "\n");
  pi.on("tool_call", async () => {
    await new Promise(() => {}); // hold the run until atomic is killed
  });
}
`

// The extension host's non-detached children end when atomic exits normally, and when atomic is
// killed with SIGKILL (issue 10 item 13).
func TestExtensionHostChildrenDieWithAtomic(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin, err := exec.LookPath("atomic")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"exit", "kill"} {
		t.Run(mode, func(t *testing.T) {
			turns := []fakellm.Turn{{Text: "done"}}
			if mode == "kill" {
				turns = []fakellm.Turn{{ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "true"})}}, {Text: "never"}}
			}
			srv := fakellm.New(fakellm.Script{Turns: turns})
			defer srv.Close()
			proj, env := lifetimeEnv(t, srv)
			if err := os.WriteFile(filepath.Join(proj, "spawn.ts"), []byte(spawnExtension), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "--no-session", "-e", "spawn.ts", "-p", "hi")
			cmd.Dir, cmd.Env = proj, env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() { _ = cmd.Process.Kill() }()
			child := readPID(t, filepath.Join(proj, "host-child.pid"))
			if mode == "kill" {
				waitFor(t, "the tool call to reach the extension", func() bool { return len(srv.Requests()) >= 1 })
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				<-done
			} else if err := <-done; err != nil {
				t.Fatalf("atomic: %v\n%s", err, stderr.String())
			}
			waitFor(t, "the extension host's child to end with atomic", func() bool { return !alive(child) })
		})
	}
}
