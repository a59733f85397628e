package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// tsProbe runs the binary with a probe extension of testdata/tsprobe (issue 13's seed-contract
// probes) against a fake LLM, in print mode and in RPC mode.
type tsProbe struct {
	t     *testing.T
	dir   string // the project directory (cwd of the runs), holding copies of the probe files
	agent string // ATOMIC_CODING_AGENT_DIR
	srv   *fakellm.Server
	env   []string
}

// newTSProbe copies the named files of testdata/tsprobe into a fresh project directory and
// starts a fake anthropic-messages server playing turns.
func newTSProbe(t *testing.T, turns []fakellm.Turn, files ...string) *tsProbe {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	p := &tsProbe{t: t, dir: t.TempDir(), agent: t.TempDir()}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("testdata", "tsprobe", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.srv = fakellm.New(fakellm.Script{Turns: turns})
	t.Cleanup(p.srv.Close)
	// The model takes images (item 13's image probe).
	models := strings.Replace(string(modelsJSON("fake", llm.APIAnthropicMessages, baseURL(p.srv, llm.APIAnthropicMessages))), `"contextWindow"`, `"input": ["text", "image"], "contextWindow"`, 1)
	if err := os.WriteFile(filepath.Join(p.agent, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.agent, "settings.json"), []byte(`{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *tsProbe) environ() []string {
	return append(os.Environ(), append([]string{"ATOMIC_CODING_AGENT_DIR=" + p.agent, "HOME=" + p.agent}, p.env...)...)
}

// print runs `atomic <args…>` to its end and returns its stdout and stderr; a non-zero exit
// fails the test.
func (p *tsProbe) print(args ...string) (stdout, stderr string) {
	p.t.Helper()
	cmd := exec.Command("atomic", args...)
	cmd.Dir = p.dir
	cmd.Env = p.environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		p.t.Fatalf("atomic %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// rpc starts `atomic --mode rpc <args…>`.
func (p *tsProbe) rpc(args ...string) *rpcProcess {
	p.t.Helper()
	cmd := exec.Command("atomic", append([]string{"--mode", "rpc"}, args...)...)
	cmd.Dir = p.dir
	cmd.Env = p.environ()
	in, err := cmd.StdinPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	r := &rpcProcess{t: p.t, cmd: cmd, in: in, lines: make(chan map[string]any, 1000)}
	go func() {
		defer close(r.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				r.lines <- m
			}
		}
	}()
	p.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if p.t.Failed() {
			p.t.Logf("rpc stderr:\n%s", errb.String())
		}
	})
	return r
}

// prompt sends a prompt command and waits for the run to settle.
func (r *rpcProcess) prompt(id, message string) {
	r.t.Helper()
	b, _ := json.Marshal(map[string]any{"id": id, "type": "prompt", "message": message})
	r.send(string(b))
	r.next(func(m map[string]any) bool { return m["type"] == "agent_settled" })
}

// notifyText waits for the next ctx.ui.notify whose message starts with prefix.
func (r *rpcProcess) notifyText(prefix string) string {
	r.t.Helper()
	m := r.next(func(m map[string]any) bool {
		s, _ := m["message"].(string)
		return m["method"] == "notify" && strings.HasPrefix(s, prefix)
	})
	return m["message"].(string)
}

// request returns the body of request i of the fake (negative counts from the end).
func (p *tsProbe) request(i int) string {
	p.t.Helper()
	reqs := p.srv.Requests()
	if i < 0 {
		i += len(reqs)
	}
	if i < 0 || i >= len(reqs) {
		p.t.Fatalf("no request %d: the fake received %d", i, len(reqs))
	}
	return string(reqs[i].Body)
}

// requestHas fails the test unless request i of the fake contains every text.
func (p *tsProbe) requestHas(i int, texts ...string) {
	p.t.Helper()
	body := p.request(i)
	for _, s := range texts {
		if !strings.Contains(body, s) {
			p.t.Fatalf("request %d does not contain %q:\n%s", i, s, body)
		}
	}
}

// requestLacks fails the test if request i of the fake contains any text.
func (p *tsProbe) requestLacks(i int, texts ...string) {
	p.t.Helper()
	body := p.request(i)
	for _, s := range texts {
		if strings.Contains(body, s) {
			p.t.Fatalf("request %d contains %q:\n%s", i, s, body)
		}
	}
}
