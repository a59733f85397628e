package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// TestCustomBinary builds examples/custom-binary as a module outside the checkout (a temp
// directory whose go.mod replaces github.com/atomic-cli/atomic with this checkout), then runs
// the binary in -p mode against the fake LLM: the word_count tool compiled into it counts a
// file and its result reaches the model (issue 9 item 4). Offline: the module cache must hold
// atomic's dependencies, as it does once this module's tests have been built.
func TestCustomBinary(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go toolchain")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	example := filepath.Join(root, "examples", "custom-binary")
	goEnv := append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "GOSUMDB=off")

	// As the README says: go build in the example's directory, its go.mod and go.sum as they are.
	inPlace := exec.Command(goBin, "build", "-mod=readonly", "-o", os.DevNull, ".")
	inPlace.Dir = example
	inPlace.Env = goEnv
	if out, err := inPlace.CombinedOutput(); err != nil {
		t.Fatalf("go build in examples/custom-binary: %v\n%s\n(after a dependency change: cd examples/custom-binary && cat ../../go.sum >> go.sum && GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off go mod tidy)", err, out)
	}

	// As a module outside the checkout, with a replace pointing at it.
	mod := t.TempDir()
	for _, name := range []string{"main.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(example, name))
		if err != nil {
			t.Fatal(err)
		}
		switch name {
		case "go.mod":
			if !bytes.Contains(b, []byte("=> ../..")) {
				t.Fatalf("%s/go.mod has no replace of atomic with ../..", example)
			}
			b = bytes.ReplaceAll(b, []byte("=> ../.."), []byte("=> "+root))
		case "go.sum":
			// The checkout's own sums too, so a dependency atomic added since the example's
			// go.sum was written needs no checksum database.
			rootSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, rootSum...)
		}
		if err := os.WriteFile(filepath.Join(mod, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(t.TempDir(), "custom-atomic")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	build.Dir = mod
	build.Env = append(goEnv, "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the custom binary: %v\n%s", err, out)
	}

	srv, err := fakellm.Listen("127.0.0.1:0", fakellm.Script{Match: fakellm.MatchAssistantCount, Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("word_count", map[string]any{"path": "notes.txt"})}},
		{Text: "Counted."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	agent, home, work := filepath.Join(dir, "agent"), filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for _, d := range []string{agent, home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	api := llm.APIAnthropicMessages
	if err := os.WriteFile(filepath.Join(agent, "models.json"), modelsJSON("fake", api, baseURL(srv, api)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("one two three\nfour five\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(bin, "--no-session", "-p", "count the words in notes.txt")
	run.Dir = work
	run.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+agent, "HOME="+home)
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("custom binary: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if stdout.String() != "Counted.\n" {
		t.Fatalf("stdout %q; stderr:\n%s", stdout.String(), stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}
	if !bytes.Contains(reqs[0].Body, []byte(`"name":"word_count"`)) {
		t.Fatalf("the first request offers no word_count tool:\n%s", reqs[0].Body)
	}
	if want := "notes.txt: 2 lines, 5 words, 24 bytes"; !strings.Contains(string(reqs[1].Body), want) {
		t.Fatalf("the second request has no tool result %q:\n%s", want, reqs[1].Body)
	}
}
