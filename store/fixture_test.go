package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/internal/fixture"
	"github.com/atomic-cli/atomic/llm"
)

// fixtureSessions returns the session files recorded from pi 0.73.1 (testdata/pi-0.73.1); the
// test fails without them.
func fixtureSessions(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(fixture.Path("*", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no pi session fixtures in " + fixture.Dir())
	}
	return paths
}

// copyFixture copies a fixture (read-only) into a fresh directory and returns the copy's path.
func copyFixture(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

func fixtureName(p string) string { return filepath.Base(filepath.Dir(p)) }

func splitLines(data []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func TestFixtureLoads(t *testing.T) {
	for _, src := range fixtureSessions(t) {
		t.Run(fixtureName(src), func(t *testing.T) {
			path := copyFixture(t, src)
			data, _ := os.ReadFile(path)
			lines := splitLines(data)
			s, err := Open(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if s.SkippedLines() != 0 {
				t.Errorf("skipped %d lines", s.SkippedLines())
			}
			var h Header
			if err := json.Unmarshal(lines[0], &h); err != nil {
				t.Fatal(err)
			}
			if s.SessionID() != h.ID || s.Cwd() != "/home/dev/project" || s.Header().Version != 3 {
				t.Errorf("header: id %q cwd %q version %d", s.SessionID(), s.Cwd(), s.Header().Version)
			}
			entries := s.Entries()
			if len(entries) != len(lines)-1 {
				t.Fatalf("%d entries, want %d", len(entries), len(lines)-1)
			}
			if s.LeafID() != entries[len(entries)-1].ID {
				t.Errorf("leaf %q, want last entry %q", s.LeafID(), entries[len(entries)-1].ID)
			}
			for _, e := range entries {
				if e.Opaque() {
					t.Errorf("entry %s (%s) is opaque", e.ID, e.Type)
				}
				if e.Type == TypeMessage && e.Message == nil {
					t.Errorf("entry %s: message not decoded", e.ID)
				}
			}
			if got := len(s.Branch("")); got != len(entries) {
				t.Errorf("branch has %d entries, want %d (the fixture is linear)", got, len(entries))
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, data) {
				t.Error("opening a v3 file changed it")
			}
		})
	}
}

// TestFixtureRoundTrip decodes every fixture line into typed values and encodes it again: the
// bytes must be identical, so entries we write for pi look like pi's own.
func TestFixtureRoundTrip(t *testing.T) {
	for _, src := range fixtureSessions(t) {
		t.Run(fixtureName(src), func(t *testing.T) {
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range splitLines(data) {
				var got []byte
				if i == 0 {
					var h Header
					if err := json.Unmarshal(line, &h); err != nil {
						t.Fatal(err)
					}
					got, _ = json.Marshal(h)
				} else {
					var e Entry
					if err := json.Unmarshal(line, &e); err != nil {
						t.Fatal(err)
					}
					if e.Type == TypeMessage && e.Message == nil {
						t.Fatalf("line %d: message not decoded", i+1)
					}
					got, err = e.MarshalJSON()
					if err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(got, line) {
					t.Errorf("line %d differs:\n got %s\nwant %s", i+1, got, line)
				}
			}
		})
	}
}

func TestFixtureBuildContext(t *testing.T) {
	for _, src := range fixtureSessions(t) {
		t.Run(fixtureName(src), func(t *testing.T) {
			s, err := Open(copyFixture(t, src), "")
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(src)
			var want []json.RawMessage
			for _, line := range splitLines(data)[1:] {
				var raw struct {
					Type    string          `json:"type"`
					Message json.RawMessage `json:"message"`
				}
				if err := json.Unmarshal(line, &raw); err != nil {
					t.Fatal(err)
				}
				if raw.Type == TypeMessage {
					want = append(want, raw.Message)
				}
			}
			ctx := s.BuildContext()
			if ctx.ThinkingLevel != "off" {
				t.Errorf("thinking level %q", ctx.ThinkingLevel)
			}
			if ctx.Model == nil || *ctx.Model != (ModelRef{Provider: "fakellm", ModelID: "fake-model"}) {
				t.Errorf("model %+v", ctx.Model)
			}
			if len(ctx.Messages) != len(want) {
				t.Fatalf("%d messages, want %d", len(ctx.Messages), len(want))
			}
			for i := range want {
				got, err := ctx.Messages[i].MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want[i]) {
					t.Errorf("message %d:\n got %s\nwant %s", i, got, want[i])
				}
			}
			if ctx.Messages[0].Role != llm.RoleUser || ctx.Messages[len(want)-1].Role != llm.RoleAssistant {
				t.Errorf("roles: first %s last %s", ctx.Messages[0].Role, ctx.Messages[len(want)-1].Role)
			}
		})
	}
}

// TestFixtureContinue appends to a pi file: the new entries chain onto pi's leaf, pi's lines
// stay untouched and the result loads again.
func TestFixtureContinue(t *testing.T) {
	for _, src := range fixtureSessions(t) {
		t.Run(fixtureName(src), func(t *testing.T) {
			path := copyFixture(t, src)
			before, _ := os.ReadFile(path)
			s, err := Open(path, "")
			if err != nil {
				t.Fatal(err)
			}
			oldLeaf := s.LeafID()
			n := len(s.Entries())
			uid, err := s.AppendMessage(llm.UserText("and now?", nil, 1795983500000))
			if err != nil {
				t.Fatal(err)
			}
			aid, err := s.AppendMessage(assistantMsg("all done", 1795983501000))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Entry(uid).Parent(); got != oldLeaf {
				t.Errorf("first new entry's parent %q, want old leaf %q", got, oldLeaf)
			}
			if got := s.Entry(aid).Parent(); got != uid {
				t.Errorf("second new entry's parent %q, want %q", got, uid)
			}
			after, _ := os.ReadFile(path)
			if !bytes.HasPrefix(after, before) {
				t.Fatal("appending rewrote existing lines")
			}
			if got := bytes.Count(after[len(before):], []byte("\n")); got != 2 {
				t.Errorf("appended %d lines, want 2", got)
			}
			r, err := Open(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Entries()) != n+2 || r.LeafID() != aid || r.SkippedLines() != 0 {
				t.Errorf("reload: %d entries leaf %q skipped %d", len(r.Entries()), r.LeafID(), r.SkippedLines())
			}
			ctx := r.BuildContext()
			last := ctx.Messages[len(ctx.Messages)-1]
			if llm.TextOf(last.Content, "") != "all done" || ctx.Model.Provider != "test" {
				t.Errorf("context after continue: last %+v model %+v", last, ctx.Model)
			}
		})
	}
}

func assistantMsg(text string, ts int64) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(text)}, API: "openai-completions",
		Provider: "test", Model: "test-model", StopReason: llm.StopStop, Timestamp: ts}
}
