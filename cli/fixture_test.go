package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/internal/fixture"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// piFixtures holds session files written by pi 0.73.1.
var piFixtures = fixture.Dir()

// headerCwd matches the cwd member of a session header line.
var headerCwd = regexp.MustCompile(`"cwd":"(?:[^"\\]|\\.)*"`)

// copyFixture copies a pi session file to dst with its header cwd rewritten to cwd (pi and atomic
// refuse a session whose cwd does not exist); every other byte is kept.
func copyFixture(t *testing.T, src, dst, cwd string) []byte {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || !headerCwd.Match(first) {
		t.Fatalf("%s: no header with a cwd on line 1", src)
	}
	enc, _ := json.Marshal(cwd)
	first = headerCwd.ReplaceAllLiteral(first, append([]byte(`"cwd":`), enc...))
	out := append(append(first, '\n'), rest...)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPiFixtureContinue resumes every session pi wrote (fixtures/pi-0.73.1/*/session.jsonl) with
// `atomic --session <file> -p continue` against the fake, on each provider API: atomic appends to
// the file without touching a byte of it, the new entries chain onto pi's leaf, the file re-loads,
// and the request carries pi's conversation.
func TestPiFixtureContinue(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(piFixtures, "*", "session.jsonl"))
	if len(files) == 0 {
		t.Fatal("no pi fixtures at " + piFixtures)
	}
	bin, err := exec.LookPath("atomic")
	if err != nil {
		t.Fatalf("the atomic command is not on PATH (TestMain installs it): %v", err)
	}
	cases := []struct{ api, provider string }{
		{llm.APIAnthropicMessages, "fake"},
		// The fixtures were recorded with provider "fakellm" on Chat Completions: the same model,
		// so no model_change is appended.
		{llm.APIOpenAICompletions, "fakellm"},
		{llm.APIOpenAIResponses, "fake"},
	}
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		for _, c := range cases {
			t.Run(name+"/"+c.api, func(t *testing.T) {
				t.Parallel()
				testFixtureContinue(t, bin, file, c.api, c.provider)
			})
		}
	}
}

func testFixtureContinue(t *testing.T, bin, fixture, api, provider string) {
	tmp := t.TempDir()
	proj := filepath.Join(tmp, "proj")
	agent := filepath.Join(tmp, "agent")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{proj, agent, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sessionFile := filepath.Join(tmp, "sessions", "pi.jsonl")
	old := copyFixture(t, fixture, sessionFile, proj)

	before, err := store.OpenReadOnly(sessionFile)
	if err != nil {
		t.Fatalf("store.Open of the pi session: %v", err)
	}
	oldEntries := before.Entries()
	oldLeaf := before.LeafID()
	oldMsgs := before.BuildContext().Messages

	const answer = "Continuing from the fixture."
	srv, err := fakellm.Listen("127.0.0.1:0", fakellm.Script{Turns: []fakellm.Turn{{Text: answer, Chunks: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := srv.URL()
	if api != llm.APIAnthropicMessages {
		url += "/v1"
	}
	if err := os.WriteFile(filepath.Join(agent, "models.json"), modelsJSON(provider, api, url), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "--session", sessionFile, "-p", "continue")
	cmd.Dir = proj
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "ATOMIC_CODING_AGENT_DIR=" + agent}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("atomic: %v\nstderr:\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != answer+"\n" {
		t.Errorf("stdout = %q; want %q", got, answer+"\n")
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}

	// Appended only: pi's bytes are untouched.
	data, err := os.ReadFile(sessionFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, old) {
		t.Fatalf("the session file no longer starts with pi's bytes:\n%s", data)
	}
	// The file re-loads and chains (checkSession), and the new entries hang off pi's leaf.
	after, err := checkSession(sessionFile, false)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	entries := after.Entries()
	for i, e := range oldEntries {
		if entries[i].ID != e.ID || entries[i].Type != e.Type {
			t.Fatalf("entry %d is %s %s; pi wrote %s %s", i, entries[i].Type, entries[i].ID, e.Type, e.ID)
		}
	}
	added := entries[len(oldEntries):]
	if len(added) == 0 {
		t.Fatal("no entries were appended")
	}
	if got := added[0].Parent(); got != oldLeaf {
		t.Errorf("first new entry (%s) has parentId %q; want pi's leaf %q", added[0].Type, got, oldLeaf)
	}
	var kinds []string
	for _, e := range added {
		kinds = append(kinds, summarizeEntry(e))
	}
	want := []string{
		`message user text="continue"`,
		`message assistant stop=stop text="` + answer + `"`,
	}
	if provider != "fakellm" {
		want = append([]string{"model_change " + provider + "/fake-model"}, want...)
	}
	if strings.Join(kinds, "\n") != strings.Join(want, "\n") {
		t.Errorf("appended entries:\n%s\nwant:\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}

	// The request carried pi's conversation: every text of it, then the new prompt.
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; want 1", len(reqs))
	}
	r := reqs[0]
	if r.API != api {
		t.Errorf("request API %s; want %s", r.API, api)
	}
	for _, m := range oldMsgs {
		for _, c := range m.Content {
			var text string
			switch c.Type {
			case llm.ContentText:
				text = c.Text
			case llm.ContentToolCall:
				text = c.Name
			default:
				continue
			}
			if text != "" && !requestContains(r, text) {
				t.Errorf("the request lacks the %s %s %q of pi's session\nbody: %s", m.Role, c.Type, text, r.Body)
			}
		}
	}
	if !requestContains(r, "continue") {
		t.Errorf("the request lacks the new prompt")
	}
	if n, want := r.AssistantCount, countRole(oldMsgs, llm.RoleAssistant); n != want {
		t.Errorf("the request holds %d assistant turns; pi's session has %d", n, want)
	}
}

func countRole(msgs []llm.Message, role string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}
