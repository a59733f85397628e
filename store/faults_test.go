package store

// Damaged and unusual session files (issue 10 items 2, 3, 5): each test reproduces a case that
// lost history or repeated context before the fix.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// TestBranchedSessionReparentsAfterLabel: a fork or clone of a path that carries a label drops
// the label entry; the entry after it must point at the entry before it, or the new session has
// no history (pi#5669).
func TestBranchedSessionReparentsAfterLabel(t *testing.T) {
	s, oldPath := newPersisted(t)
	es := s.Entries()
	u1, a1 := es[0].ID, es[1].ID
	lbl := must(t)(s.AppendLabelChange(u1, "start"))
	u2 := must(t)(s.AppendMessage(llm.UserText("q2", nil, 3)))
	a2 := must(t)(s.AppendMessage(assistantMsg("a2", 4)))
	if s.Entry(u2).Parent() != lbl {
		t.Fatalf("setup: q2 must follow the label entry")
	}

	p, err := s.CreateBranchedSession(a2)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(p, "")
	if err != nil {
		t.Fatal(err)
	}
	got := r.Entries()
	if len(got) != 5 {
		t.Fatalf("branched session has %d entries, want u1 a1 q2 a2 label", len(got))
	}
	want := []struct{ id, parent string }{{u1, ""}, {a1, u1}, {u2, a1}, {a2, u2}}
	for i, w := range want {
		if got[i].ID != w.id || got[i].Parent() != w.parent {
			t.Errorf("entry %d: id %s parent %q; want id %s parent %q", i, got[i].ID, got[i].Parent(), w.id, w.parent)
		}
	}
	if got[4].Type != TypeLabel || got[4].Parent() != a2 || r.Label(u1) != "start" {
		t.Errorf("label entry %+v", got[4])
	}
	ctx := r.BuildContext()
	if len(ctx.Messages) != 4 || llm.TextOf(ctx.Messages[0].Content, "") != "hi" {
		t.Fatalf("the branched session lost its history: %d messages", len(ctx.Messages))
	}
	// The re-parented line keeps its other members and their order; untouched lines are copied.
	lines := readLines(t, p)
	old := readLines(t, oldPath)
	if lines[1] != old[1] || lines[2] != old[2] {
		t.Error("entries before the label must be copied byte for byte")
	}
	wantQ2 := strings.Replace(old[4], `"parentId":"`+lbl+`"`, `"parentId":"`+a1+`"`, 1)
	if lines[3] != wantQ2 {
		t.Errorf("re-parented line\n got %s\nwant %s", lines[3], wantQ2)
	}
}

// TestTrailingLineWithoutID: a last line that is a JSON object without an id (another tool's
// marker) must not become the leaf; the leaf is the last entry with an id.
func TestTrailingLineWithoutID(t *testing.T) {
	s, path := newPersisted(t)
	leaf := s.LeafID()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"x-marker","note":"written by another tool"}` + "\n")
	f.Close()

	r, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.LeafID() != leaf {
		t.Fatalf("leaf %q, want the last entry with an id %q", r.LeafID(), leaf)
	}
	if n := len(r.BuildContext().Messages); n != 2 {
		t.Fatalf("context has %d messages, want the 2 before the marker", n)
	}
	id := must(t)(r.AppendMessage(llm.UserText("next", nil, 3)))
	if p := r.Entry(id).Parent(); p != leaf {
		t.Errorf("new entry parent %q, want %q", p, leaf)
	}
	if lines := readLines(t, path); strings.Contains(lines[len(lines)-1], `"parentId":""`) {
		t.Errorf("new line has an empty parentId: %s", lines[len(lines)-1])
	}
	if len(r.Entries()) != 4 {
		t.Error("the marker line must be kept as an entry")
	}
}

// TestParentCycleBroken: entries whose parentIds form a cycle must not repeat messages in the
// context; the cycle is broken at its first entry in the file, with a warning.
func TestParentCycleBroken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	ts := `"timestamp":"2026-05-01T09:30:12.345Z"`
	msg := func(id, parent, role, text string) string {
		m := `{"role":"user","content":[{"type":"text","text":"` + text + `"}],"timestamp":1}`
		if role == "assistant" {
			m = `{"role":"assistant","content":[{"type":"text","text":"` + text + `"}],"api":"anthropic-messages","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}`
		}
		return `{"type":"message","id":"` + id + `","parentId":"` + parent + `",` + ts + `,"message":` + m + `}`
	}
	lines := []string{
		`{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T09:30:12.345Z","cwd":"/p"}`,
		msg("aaaaaaaa", "cccccccc", "user", "one"), // points forward: closes the cycle
		msg("bbbbbbbb", "aaaaaaaa", "assistant", "two"),
		msg("cccccccc", "bbbbbbbb", "user", "three"),
		msg("dddddddd", "cccccccc", "assistant", "four"),
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)

	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	w := s.LoadWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "cycle") || !strings.Contains(w[0], "aaaaaaaa") || !strings.Contains(w[0], path) {
		t.Fatalf("warnings %q", w)
	}
	var texts []string
	for _, m := range s.BuildContext().Messages {
		texts = append(texts, llm.TextOf(m.Content, ""))
	}
	if strings.Join(texts, ",") != "one,two,three,four" {
		t.Fatalf("context %q, want each message once in order", texts)
	}
	if s.Entry("aaaaaaaa").Parent() != "" {
		t.Error("the cycle's first entry must become a root")
	}
	if roots := s.Tree(); len(roots) != 1 || roots[0].Entry.ID != "aaaaaaaa" {
		t.Errorf("tree must have the one root aaaaaaaa, got %d roots", len(roots))
	}
	// A clone writes the repaired chain, not the cycle.
	p, err := s.CreateBranchedSession("dddddddd")
	if err != nil {
		t.Fatal(err)
	}
	if got := readLines(t, p); !strings.Contains(got[1], `"id":"aaaaaaaa","parentId":null`) {
		t.Errorf("clone wrote %s", got[1])
	}
	// A file without a cycle, including a self-parented root, warns about nothing.
	ok, _ := newPersisted(t)
	r, err := Open(ok.SessionFile(), "")
	if err != nil || r.LoadWarnings() != nil {
		t.Errorf("clean file: %v %q", err, r.LoadWarnings())
	}
}
