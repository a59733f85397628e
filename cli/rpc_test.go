package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// rpcUIExtension (ATOMIC_TEST_EXTENSIONS=rpcui) exercises the extension UI of RPC mode:
//
//	/ask <question>   asks the client with ctx.ui.confirm, then reports
//	                  "confirmed=<bool> hasUI=<bool> mode=<mode>" with ctx.ui.notify
//	/quit             calls ctx.shutdown()
//
// compat/pi's RpcClient test and the rpc_*.txtar scripts use it.
func rpcUIExtension(api ext.API) error {
	if err := api.RegisterCommand("ask", ext.Command{Description: "ask the user to confirm", Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
		ok := c.UI().Confirm(ctx, "Confirm", args)
		c.UI().Notify(fmt.Sprintf("confirmed=%v hasUI=%v mode=%s", ok, c.HasUI(), c.Mode()), "info")
		return nil
	}}); err != nil {
		return err
	}
	return api.RegisterCommand("quit", ext.Command{Description: "shut atomic down", Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
		c.Shutdown()
		return nil
	}})
}

// rpcProcess is `atomic --mode rpc` run from the test binary (testscript.Main put it on PATH
// as "atomic"), with a pipe for commands and a reader of its output lines.
type rpcProcess struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
}

func startRPC(t *testing.T, env ...string) *rpcProcess {
	t.Helper()
	return startRPCIn(t, t.TempDir(), env, nil)
}

// startRPCIn runs `atomic --mode rpc --no-session <args…>` in dir with env added, against a
// fake server that answers once.
func startRPCIn(t *testing.T, dir string, env, args []string) *rpcProcess {
	t.Helper()
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{{Text: "unused"}}})
	t.Cleanup(srv.Close)
	agent := t.TempDir()
	if err := os.WriteFile(filepath.Join(agent, "models.json"), modelsJSON("fake", llm.APIOpenAICompletions, baseURL(srv, llm.APIOpenAICompletions)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("atomic", append([]string{"--mode", "rpc", "--no-session"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"ATOMIC_CODING_AGENT_DIR=" + agent, "HOME=" + agent}, env...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &rpcProcess{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 100)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.lines <- m
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

func (p *rpcProcess) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// next returns the next output line that matches pred, waiting at most 30 s (a bound for a
// machine shared by many test processes; a healthy run answers in well under a second).
func (p *rpcProcess) next(pred func(map[string]any) bool) map[string]any {
	p.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatal("atomic closed its output")
			}
			if pred(m) {
				return m
			}
		case <-timeout:
			p.t.Fatal("timed out reading atomic's output")
		}
	}
}

func (p *rpcProcess) wait() int {
	p.t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.t.Fatal("atomic did not exit")
	}
	return p.cmd.ProcessState.ExitCode()
}

// The binary's exit codes in RPC mode (rpc-and-json.md §2.2): 0 at EOF, 143 on SIGTERM, 129 on
// SIGHUP.
func TestRPCExitCodes(t *testing.T) {
	for _, c := range []struct {
		name string
		stop func(p *rpcProcess)
		code int
	}{
		{"eof", func(p *rpcProcess) { p.in.Close() }, 0},
		{"sigterm", func(p *rpcProcess) { p.cmd.Process.Signal(syscall.SIGTERM) }, 143},
		{"sighup", func(p *rpcProcess) { p.cmd.Process.Signal(syscall.SIGHUP) }, 129},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startRPC(t)
			p.send(`{"id":"s","type":"get_state"}`)
			p.next(func(m map[string]any) bool { return m["id"] == "s" })
			c.stop(p)
			if code := p.wait(); code != c.code {
				t.Fatalf("exit code %d, want %d", code, c.code)
			}
		})
	}
}

// An extension's ctx.ui.confirm reaches the client as an extension_ui_request and its answer
// comes back, through the real binary.
func TestRPCConfirmAnsweredByClient(t *testing.T) {
	p := startRPC(t, "ATOMIC_TEST_EXTENSIONS=rpcui")
	p.send(`{"id":"a","type":"prompt","message":"/ask Ship it?"}`)
	req := p.next(func(m map[string]any) bool { return m["method"] == "confirm" })
	if req["type"] != "extension_ui_request" || req["title"] != "Confirm" || req["message"] != "Ship it?" {
		t.Fatalf("request %v", req)
	}
	b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": true})
	p.send(string(b))
	note := p.next(func(m map[string]any) bool { return m["method"] == "notify" })
	if note["message"] != "confirmed=true hasUI=true mode=rpc" {
		t.Fatalf("notify %v", note)
	}
	if r := p.next(func(m map[string]any) bool { return m["id"] == "a" }); r["success"] != true {
		t.Fatalf("response %v", r)
	}
	p.send(`{"id":"q","type":"prompt","message":"/quit"}`)
	p.next(func(m map[string]any) bool { return m["id"] == "q" })
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d after ctx.shutdown()", code)
	}
}
