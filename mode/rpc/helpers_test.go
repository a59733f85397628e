package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

// capture collects the lines a Server writes, decoded. mu guards all fields.
type capture struct {
	mu sync.Mutex
	// lean counts responses by id in counts and keeps only the responses whose id has the
	// prefix keep (soak tests measure the server's memory, not the capture's).
	lean   bool
	keep   string
	counts map[string]int
	buf    []byte
	lines  []map[string]any
	raw    []string
	bad    []string
	notify chan struct{}
}

func newCapture() *capture { return &capture{notify: make(chan struct{}, 1)} }

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			break
		}
		line := string(c.buf[:i])
		c.buf = c.buf[i+1:]
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			c.bad = append(c.bad, line)
			continue
		}
		if c.lean {
			if m["type"] != "response" {
				continue
			}
			id := fmt.Sprint(m["id"])
			if c.counts == nil {
				c.counts = map[string]int{}
			}
			c.counts[id]++
			if !strings.HasPrefix(id, c.keep) {
				continue
			}
		}
		c.lines = append(c.lines, m)
		c.raw = append(c.raw, line)
	}
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (c *capture) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lines)
}

func (c *capture) snapshot() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.lines...)
}

// harness drives a Server over pipes against a runtime on the fake LLM.
type harness struct {
	t    *testing.T
	srv  *fakellm.Server
	rt   *session.Runtime
	s    *Server
	in   *io.PipeWriter
	out  *capture
	dir  string
	code chan int
	once sync.Once
}

type harnessOptions struct {
	exts  []ext.Factory
	tools []string
	lean  string // capture.lean with this keep prefix; "" keeps every line
	// shellPath and shellPrefix are session.Options.ShellPath and ShellCommandPrefix.
	shellPath, shellPrefix string
}

// newHarness starts a fake LLM playing script, a runtime in a temporary project whose agent dir
// has models "fake-model" and "fake-reasoner", and a Server serving it.
func newHarness(t *testing.T, script fakellm.Script, o harnessOptions) *harness {
	t.Helper()
	h := &harness{t: t, srv: fakellm.New(script), out: newCapture(), dir: t.TempDir(), code: make(chan int, 1)}
	h.out.lean, h.out.keep = o.lean != "", o.lean
	t.Cleanup(h.srv.Close)
	agentDir := filepath.Join(h.dir, "agent")
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	models := fmt.Sprintf(`{"providers":{"fakellm":{"baseUrl":%q,"api":"openai-completions","apiKey":"k","models":[
		{"id":"fake-model","name":"Fake Model","contextWindow":100000,"maxTokens":4096},
		{"id":"fake-reasoner","name":"Fake Reasoner","reasoning":true,"contextWindow":100000,"maxTokens":4096}]}}}`, h.srv.URL()+"/v1")
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, _ := model.Load(agentDir)
	m := reg.Find("fakellm", "fake-model")
	if m == nil {
		t.Fatal("fake-model not in the registry")
	}
	st, err := store.Create(h.dir, filepath.Join(h.dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := o.tools
	if names == nil {
		names = []string{"bash", "read"}
	}
	all := tool.Builtins(h.dir, tool.Options{})
	pr, pw := io.Pipe()
	h.in = pw
	h.s = NewServer(Config{In: pr, Out: h.out, Err: io.Discard})
	paths := make([]string, len(o.exts))
	for i := range paths {
		paths[i] = fmt.Sprintf("go:test-%d", i+1)
	}
	h.rt, err = session.NewRuntime(context.Background(), session.Options{
		Store: st, Registry: reg, Model: m, Tools: tool.Select(all, names), AllBuiltins: tool.Select(all, tool.AllNames),
		SystemPrompt: "You are a test.", HTTPClient: h.srv.Client(), Mode: "rpc", UI: h.s.UI(),
		OnExtensionError: h.s.ExtensionError, Extensions: o.exts, ExtensionPaths: paths, Cwd: h.dir,
		ShellPath: o.shellPath, ShellCommandPrefix: o.shellPrefix,
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() { h.code <- h.s.Serve(context.Background(), h.rt) }()
	t.Cleanup(func() { h.close() })
	return h
}

// close ends the input and waits for Serve.
func (h *harness) close() int {
	code := -1
	h.once.Do(func() {
		h.in.Close()
		select {
		case code = <-h.code:
		case <-time.After(10 * time.Second):
			h.t.Errorf("Serve did not return 10 s after EOF")
		}
		h.rt.Shutdown(context.Background())
	})
	return code
}

// send writes one frame: a string as is, anything else JSON-encoded.
func (h *harness) send(v any) {
	h.t.Helper()
	var b []byte
	switch v := v.(type) {
	case string:
		b = []byte(v)
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			h.t.Fatal(err)
		}
	}
	if !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	if _, err := h.in.Write(b); err != nil {
		h.t.Fatal(err)
	}
}

// waitFrom waits up to 10 s for a line at index ≥ from that matches pred and returns its index
// and the line.
func (h *harness) waitFrom(from int, what string, pred func(m map[string]any) bool) (int, map[string]any) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		lines := h.out.snapshot()
		for i := from; i < len(lines); i++ {
			if pred(lines[i]) {
				return i, lines[i]
			}
		}
		select {
		case <-h.out.notify:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; output:\n%s", what, h.dump())
		}
	}
}

func (h *harness) dump() string {
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	var b strings.Builder
	for _, l := range h.out.raw {
		if len(l) > 300 {
			l = l[:300] + "…"
		}
		b.WriteString(l + "\n")
	}
	for _, l := range h.out.bad {
		b.WriteString("NOT JSON: " + l + "\n")
	}
	return b.String()
}

// response waits for the response to id.
func (h *harness) response(id string) map[string]any {
	h.t.Helper()
	_, m := h.waitFrom(0, "the response to "+id, func(m map[string]any) bool { return m["type"] == "response" && m["id"] == id })
	return m
}

// call sends a command with id and returns its response.
func (h *harness) call(id string, cmd map[string]any) map[string]any {
	h.t.Helper()
	cmd["id"] = id
	h.send(cmd)
	return h.response(id)
}

// ok calls and fails the test unless the response is a success; it returns its data.
func (h *harness) ok(id string, cmd map[string]any) any {
	h.t.Helper()
	r := h.call(id, cmd)
	if r["success"] != true {
		h.t.Fatalf("%v: %v", cmd["type"], r["error"])
	}
	return r["data"]
}

// event waits for an event of typ at index ≥ from.
func (h *harness) event(from int, typ string) (int, map[string]any) {
	h.t.Helper()
	return h.waitFrom(from, typ, func(m map[string]any) bool { return m["type"] == typ })
}

// countResponses returns how many responses carry id.
func (h *harness) countResponses(id string) int {
	n := 0
	for _, m := range h.out.snapshot() {
		if m["type"] == "response" && m["id"] == id {
			n++
		}
	}
	return n
}

func textTurn(text string) fakellm.Turn { return fakellm.Turn{Text: text} }

// slowTurn streams text in many chunks, slowly enough to interrupt.
func slowTurn(text string) fakellm.Turn {
	return fakellm.Turn{Text: text, Chunks: 40, DelayMS: 50}
}

func script(turns ...fakellm.Turn) fakellm.Script { return fakellm.Script{Turns: turns} }

func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 {
				k += len(a)
			}
			if k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}
