package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// writeSession creates a persisted session for cwd in dir with the given user prompts (each
// answered), and sets the file's mtime.
func writeSession(t *testing.T, cwd, dir string, mtime time.Time, prompts ...string) *Session {
	t.Helper()
	s, err := Create(cwd, dir, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range prompts {
		must(t)(s.AppendMessage(llm.UserText(p, nil, mtime.UnixMilli()+int64(2*i))))
		must(t)(s.AppendMessage(assistantMsg("re: "+p, mtime.UnixMilli()+int64(2*i+1))))
	}
	if err := os.Chtimes(s.SessionFile(), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestContinueRecentDefaultDir(t *testing.T) {
	agent := t.TempDir()
	cwd := "/home/ann/proj"
	dir := DefaultSessionDir(agent, cwd)
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	writeSession(t, cwd, dir, t0, "old")
	newer := writeSession(t, cwd, dir, t0.Add(time.Hour), "newer")
	os.WriteFile(filepath.Join(dir, "zz-garbage.jsonl"), []byte("garbage\n"), 0o600)
	os.Chtimes(filepath.Join(dir, "zz-garbage.jsonl"), t0.Add(2*time.Hour), t0.Add(2*time.Hour))
	v4 := filepath.Join(dir, "v4.jsonl")
	os.WriteFile(v4, []byte(`{"type":"session","version":4,"id":"v4","timestamp":"t","cwd":"/home/ann/proj"}`+"\n"), 0o600)
	os.Chtimes(v4, t0.Add(3*time.Hour), t0.Add(3*time.Hour))

	s, err := ContinueRecent(cwd, dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.SessionID() != newer.SessionID() || len(s.Entries()) != 2 {
		t.Errorf("continued %q, want the newest valid %q", s.SessionID(), newer.SessionID())
	}

	empty := DefaultSessionDir(agent, "/elsewhere")
	s, err = ContinueRecent("/elsewhere", empty)
	if err != nil || len(s.Entries()) != 0 || filepath.Dir(s.SessionFile()) != empty {
		t.Errorf("no sessions must give a new one: %v", err)
	}
}

func TestCustomDirIsFlat(t *testing.T) {
	flat := t.TempDir()
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	mine := writeSession(t, "/proj/a", flat, t0, "mine")
	writeSession(t, "/proj/b", flat, t0.Add(time.Hour), "theirs") // newer, other project
	internal := writeSession(t, "/proj/a", flat, t0.Add(2*time.Hour), "workflow stage")
	markInternal(t, internal.SessionFile())

	if filepath.Dir(mine.SessionFile()) != flat {
		t.Fatalf("a custom dir must hold files directly: %s", mine.SessionFile())
	}
	s, err := ContinueRecent("/proj/a", flat)
	if err != nil {
		t.Fatal(err)
	}
	if s.SessionID() != mine.SessionID() {
		t.Errorf("continued %q (%s), want this project's %q", s.SessionID(), s.Cwd(), mine.SessionID())
	}
	infos, err := List("/proj/a", flat)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 2 || infos[0].ID != internal.SessionID() || !infos[0].Internal || infos[1].ID != mine.SessionID() {
		t.Errorf("List in a flat dir: %+v", infos)
	}
	all, _ := ListAll(flat)
	if len(all) != 3 {
		t.Errorf("ListAll of a flat dir: %d sessions", len(all))
	}
}

// markInternal adds Atomic's workflow marker to a session header.
func markInternal(t *testing.T, path string) {
	t.Helper()
	lines := readLines(t, path)
	lines[0] = strings.TrimSuffix(lines[0], "}") + `,"internal":true,"workflow":{"runId":"r","stageId":"s","stageName":"n"}}`
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

func TestListInfo(t *testing.T) {
	agent := t.TempDir()
	dir := DefaultSessionDir(agent, "/p")
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	a := writeSession(t, "/p", dir, t0, "first question", "second question")
	must(t)(a.AppendSessionInfo("Named"))
	b := writeSession(t, "/p", dir, t0.Add(time.Hour), "later")
	c, _ := Create("/p", dir, CreateOptions{ParentSession: "/x.jsonl"})
	must(t)(c.AppendMessage(assistantMsg("", t0.Add(-time.Hour).UnixMilli())))
	writeSession(t, "/q", DefaultSessionDir(agent, "/q"), t0.Add(2*time.Hour), "other project")

	infos, err := List("/p", dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 3 || infos[0].ID != b.SessionID() || infos[1].ID != a.SessionID() || infos[2].ID != c.SessionID() {
		t.Fatalf("order by modified: %+v", infos)
	}
	in := infos[1]
	if in.Name != "Named" || in.MessageCount != 4 || in.FirstMessage != "first question" ||
		in.AllMessagesText != "first question re: first question second question re: second question" ||
		in.Cwd != "/p" || in.Path != a.SessionFile() || in.Version != 3 {
		t.Errorf("info %+v", in)
	}
	if !in.Modified.Equal(time.UnixMilli(t0.UnixMilli() + 3)) {
		t.Errorf("modified %v", in.Modified)
	}
	if created, _ := parseISO(a.Header().Timestamp); !in.Created.Equal(created) {
		t.Errorf("created %v", in.Created)
	}
	if infos[2].FirstMessage != "(no messages)" || infos[2].ParentSessionPath != "/x.jsonl" {
		t.Errorf("info without user messages %+v", infos[2])
	}
	all, err := ListAll(SessionsRoot(agent))
	if err != nil || len(all) != 4 || all[0].Cwd != "/q" {
		t.Errorf("ListAll: %v %+v", err, all)
	}
	if none, err := List("/nowhere", filepath.Join(agent, "missing")); err != nil || len(none) != 0 {
		t.Errorf("missing dir: %v %v", none, err)
	}
}

func TestFindSession(t *testing.T) {
	agent := t.TempDir()
	dir := DefaultSessionDir(agent, "/p")
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	mk := func(cwd, id string) string {
		s, err := Create(cwd, DefaultSessionDir(agent, cwd), CreateOptions{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		must(t)(s.AppendMessage(assistantMsg("x", t0.UnixMilli())))
		return s.SessionFile()
	}
	p1 := mk("/p", "0196aaaa-1111")
	mk("/p", "0196aaab-2222")
	p3 := mk("/q", "0196cccc-3333")
	mk("/q", "0196aaaa-1111x") // also starts with a local id, but the local project wins

	cases := []struct {
		arg   string
		path  string
		other bool
		err   error
	}{
		{"0196aaaa-1111", p1, false, nil},
		{"0196aaaa", p1, false, nil},
		{"0196cc", p3, true, nil},
		{"0196aa", "", false, ErrAmbiguous},
		{"ffff", "", false, ErrNoSession},
	}
	for _, c := range cases {
		m, err := FindSession("/p", dir, c.arg)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: err %v, want %v", c.arg, err, c.err)
			}
			continue
		}
		if err != nil || m.Path != c.path || m.OtherProject != c.other {
			t.Errorf("%s: %+v %v, want %s other=%v", c.arg, m, err, c.path, c.other)
		}
	}
	m, err := FindSession("/p", dir, "sub/x.jsonl")
	if err != nil || m.Path != "/p/sub/x.jsonl" {
		t.Errorf("relative path: %+v %v", m, err)
	}
	if m, _ := FindSession("/p", dir, "y.jsonl"); m.Path != "/p/y.jsonl" {
		t.Errorf(".jsonl name: %+v", m)
	}

	flat := t.TempDir()
	s, _ := Create("/q", flat, CreateOptions{ID: "flat-one"})
	must(t)(s.AppendMessage(assistantMsg("x", 1)))
	if m, err := FindSession("/p", flat, "flat"); err != nil || !m.OtherProject || m.Cwd != "/q" {
		t.Errorf("flat dir other project: %+v %v", m, err)
	}
}
