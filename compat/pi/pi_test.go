package pi

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
)

// piCLI returns the path of pi's CLI script, skipping the test when pi is not installed.
func piCLI(t *testing.T) string {
	t.Helper()
	cli, _ := filepath.Abs("node_modules/@mariozechner/pi-coding-agent/dist/cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Skip("pi is not installed: run `npm ci --prefix compat/pi` to run the pi interop tests")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	return cli
}

// buildAtomic builds cmd/atomic into a temp dir.
func buildAtomic(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "atomic")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/atomic").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// agentDir writes a models.json that points provider "fakellm" (model "fake-model") at srv.
func agentDir(t *testing.T, srv *fakellm.Server) string {
	t.Helper()
	dir := t.TempDir()
	models := `{"providers":{"fakellm":{"baseUrl":"` + srv.URL() + `/v1","api":"openai-completions","apiKey":"test-key","models":[{"id":"fake-model"}]}}}`
	if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

type line struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	ParentID *string         `json:"parentId"`
	Message  json.RawMessage `json:"message"`
}

func readLines(t *testing.T, path string) []line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: invalid line %q: %v", path, sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func sessionFile(t *testing.T, root string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file under %s, got %v", root, files)
	}
	return files[0]
}

// checkChain asserts that every entry's parent is an earlier entry (or null for the first).
func checkChain(t *testing.T, lines []line) {
	t.Helper()
	seen := map[string]bool{}
	for i, l := range lines[1:] {
		if l.ParentID == nil {
			if i != 0 {
				t.Errorf("entry %d (%s) is a second root", i, l.Type)
			}
		} else if !seen[*l.ParentID] {
			t.Errorf("entry %d (%s) has unknown parent %s", i, l.Type, *l.ParentID)
		}
		seen[l.ID] = true
	}
}

// TestAtomicSessionContinuesInPi: atomic runs a bash tool call and saves the session; pi opens
// the file with --session, sends the whole history and appends onto atomic's leaf.
func TestAtomicSessionContinuesInPi(t *testing.T) {
	cli := piCLI(t)
	bin := buildAtomic(t)
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "a.txt"), nil, 0o644)

	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{
		{Text: "Listing.", ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "ls"})}},
		{Text: "There is a.txt."},
		{Text: "pi continues."},
	}})
	defer srv.Close()
	atomicDir := agentDir(t, srv)
	cmd := exec.Command(bin, "-p", "list the files")
	cmd.Dir, cmd.Env = work, append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+atomicDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("atomic: %v\n%s", err, out)
	}
	file := sessionFile(t, atomicDir)
	before := readLines(t, file)

	cmd = exec.Command("node", cli, "--session", file, "--provider", "fakellm", "--model", "fake-model", "-p", "continue")
	cmd.Dir, cmd.Env = work, append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir(t, srv), "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "pi continues.") {
		t.Fatalf("pi printed %q", out)
	}
	after := readLines(t, file)
	if len(after) <= len(before) {
		t.Fatalf("pi appended nothing (%d lines before, %d after)", len(before), len(after))
	}
	if p := after[len(before)].ParentID; p == nil || *p != before[len(before)-1].ID {
		t.Fatalf("pi's first entry does not chain onto atomic's leaf %s: %v", before[len(before)-1].ID, p)
	}
	checkChain(t, after)
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{"list the files", "a.txt", "There is a.txt.", "continue"} {
		if !strings.Contains(last, want) {
			t.Errorf("pi's request lacks %q from atomic's history", want)
		}
	}
}

// TestPiSessionContinuesInAtomic: pi writes a session live, atomic continues it.
func TestPiSessionContinuesInAtomic(t *testing.T) {
	cli := piCLI(t)
	bin := buildAtomic(t)
	work := t.TempDir()
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{
		{Text: "Hello from pi."},
		{Text: "Hello from atomic."},
	}})
	defer srv.Close()
	piDir := agentDir(t, srv)
	cmd := exec.Command("node", cli, "--provider", "fakellm", "--model", "fake-model", "-p", "hi")
	cmd.Dir, cmd.Env = work, append(os.Environ(), "PI_CODING_AGENT_DIR="+piDir, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	file := sessionFile(t, piDir)
	before := readLines(t, file)

	cmd = exec.Command(bin, "--session", file, "-p", "and again")
	cmd.Dir, cmd.Env = work, append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+agentDir(t, srv))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("atomic: %v\n%s", err, out)
	}
	if strings.TrimSpace(string(out)) != "Hello from atomic." {
		t.Fatalf("atomic printed %q", out)
	}
	after := readLines(t, file)
	if p := after[len(before)].ParentID; p == nil || *p != before[len(before)-1].ID {
		t.Fatalf("atomic's first entry does not chain onto pi's leaf")
	}
	checkChain(t, after)
	if last := string(srv.Requests()[1].Body); !strings.Contains(last, "Hello from pi.") {
		t.Errorf("atomic's request lacks pi's history")
	}
}
