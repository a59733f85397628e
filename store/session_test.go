package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// fixedClock makes timestamps deterministic: each call advances one second from t0.
func fixedClock(s *Session) {
	t := time.Date(2026, 5, 1, 9, 30, 12, 345e6, time.UTC)
	s.now = func() time.Time { t = t.Add(time.Second); return t }
}

// must returns a checker for the (id, error) results of an append.
func must(t *testing.T) func(string, error) string {
	return func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestLazyFirstWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "--p--")
	s, err := Create("/p", dir, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	file := s.SessionFile()
	if filepath.Dir(file) != dir || !strings.HasSuffix(file, "_"+s.SessionID()+".jsonl") {
		t.Fatalf("file %q", file)
	}
	must(t)(s.AppendModelChange("fakellm", "fake-model"))
	must(t)(s.AppendThinkingLevelChange("off"))
	must(t)(s.AppendMessage(llm.UserText("hi", nil, 1)))
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("directory or file exists before the first assistant message: %v", err)
	}
	must(t)(s.AppendMessage(assistantMsg("hello", 2)))
	lines := readLines(t, file)
	if len(lines) != 5 {
		t.Fatalf("first write has %d lines, want header + 4", len(lines))
	}
	if !strings.HasPrefix(lines[0], `{"type":"session","version":3,"id":"`+s.SessionID()+`"`) {
		t.Errorf("header %s", lines[0])
	}
	s.SetSyncWrites(true)
	must(t)(s.AppendMessage(llm.UserText("more", nil, 3)))
	if got := len(readLines(t, file)); got != 6 {
		t.Errorf("after one more append %d lines, want 6", got)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != fileMode {
		t.Errorf("file mode %v", st.Mode().Perm())
	}
}

func TestInMemoryNeverWrites(t *testing.T) {
	s := InMemory("/p")
	must(t)(s.AppendMessage(llm.UserText("hi", nil, 1)))
	must(t)(s.AppendMessage(assistantMsg("hello", 2)))
	if s.SessionFile() != "" || s.SessionDir() != "" || s.IsPersisted() {
		t.Errorf("in-memory session: file %q dir %q persisted %v", s.SessionFile(), s.SessionDir(), s.IsPersisted())
	}
	if len(s.BuildContext().Messages) != 2 {
		t.Error("context")
	}
	if p, _ := s.NewSession(CreateOptions{}); p != "" {
		t.Errorf("NewSession in memory returned %q", p)
	}
}

// newPersisted returns a session already written to disk with a user and an assistant message.
func newPersisted(t *testing.T) (*Session, string) {
	t.Helper()
	s, err := Create("/p", t.TempDir(), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fixedClock(s)
	must(t)(s.AppendMessage(llm.UserText("hi", nil, 1)))
	must(t)(s.AppendMessage(assistantMsg("hello", 2)))
	return s, s.SessionFile()
}

func TestTornLastLine(t *testing.T) {
	s, path := newPersisted(t)
	leaf := s.LeafID()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"message","id":"deadbeef","parentId":"` + leaf + `","timestamp":"2026-05-01T09:31:00.000Z","message":{"role":"user","con`)
	f.Close()

	r, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.SkippedLines() != 1 || len(r.Entries()) != 2 || r.LeafID() != leaf {
		t.Fatalf("skipped %d entries %d leaf %q", r.SkippedLines(), len(r.Entries()), r.LeafID())
	}
	id := must(t)(r.AppendMessage(llm.UserText("after crash", nil, 3)))
	lines := readLines(t, path)
	if len(lines) != 5 || !strings.HasSuffix(lines[3], `"con`) || !strings.Contains(lines[4], id) {
		t.Fatalf("the new line must start on a fresh line:\n%s", strings.Join(lines, "\n"))
	}
	again, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.SkippedLines() != 1 || len(again.Entries()) != 3 || again.LeafID() != id {
		t.Errorf("reload: skipped %d entries %d leaf %q", again.SkippedLines(), len(again.Entries()), again.LeafID())
	}
	if again.Entry(id).Parent() != leaf {
		t.Error("the appended entry must chain onto the last good entry")
	}
}

func TestGarbageLinesSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	content := "not json\n" + // before the header: skipped, the header is the first parsed object
		`{"type":"session","version":3,"id":"abc","timestamp":"2026-05-01T09:30:12.345Z","cwd":"/p"}` + "\n\n  \n" +
		`{"type":"model_change","id":"aaaaaaaa","parentId":null,"timestamp":"2026-05-01T09:30:13.000Z","provider":"x","modelId":"y"}` + "\n" +
		"{\"broken\": \x01}\n" + "[1,2]\n"
	os.WriteFile(path, []byte(content), 0o600)
	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.SkippedLines() != 3 || len(s.Entries()) != 1 || s.SessionID() != "abc" {
		t.Errorf("skipped %d entries %d id %q", s.SkippedLines(), len(s.Entries()), s.SessionID())
	}
}

func TestInvalidFileRefused(t *testing.T) {
	for name, content := range map[string]string{
		"garbage":     "hello world\n",
		"entry first": `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user"}}` + "\n",
		"id not str":  `{"type":"session","version":3,"id":7,"timestamp":"t","cwd":"/p"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			os.WriteFile(path, []byte(content), 0o600)
			_, err := Open(path, "")
			if !errors.Is(err, ErrNotSession) || !strings.Contains(err.Error(), "not a valid session file: "+path) {
				t.Fatalf("err = %v", err)
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Error("invalid file was modified")
			}
		})
	}
}

func TestZeroByteFileInitialised(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(path, nil, 0o600)
	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.SessionFile() != path || len(s.Entries()) != 0 {
		t.Fatalf("file %q entries %d", s.SessionFile(), len(s.Entries()))
	}
	must(t)(s.AppendMessage(llm.UserText("hi", nil, 1)))
	must(t)(s.AppendMessage(assistantMsg("hello", 2)))
	r, err := Open(path, "")
	if err != nil || r.SessionID() != s.SessionID() || len(r.Entries()) != 2 {
		t.Fatalf("reload: %v", err)
	}
}

func TestMissingPathKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "new.jsonl")
	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.SessionFile() != path || s.SessionDir() != filepath.Dir(path) {
		t.Fatalf("file %q dir %q", s.SessionFile(), s.SessionDir())
	}
	must(t)(s.AppendMessage(assistantMsg("hello", 2)))
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.jsonl")
	v1 := `{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}
{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"one"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}
{"type":"message","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"second","timestamp":3}}
{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"S","firstKeptEntryIndex":3,"tokensBefore":100}
{"type":"some_future_kind","timestamp":"2025-01-01T00:00:05.000Z","x":1}
`
	os.WriteFile(path, []byte(v1), 0o600)
	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	es := s.Entries()
	if len(es) != 5 || s.Header().Version != 3 {
		t.Fatalf("%d entries version %d", len(es), s.Header().Version)
	}
	hexID := regexp.MustCompile(`^[0-9a-f]{8}$`)
	for i, e := range es {
		if !hexID.MatchString(e.ID) {
			t.Errorf("entry %d id %q", i, e.ID)
		}
		want := ""
		if i > 0 {
			want = es[i-1].ID
		}
		if e.Parent() != want {
			t.Errorf("entry %d parent %q, want %q (linear chain)", i, e.Parent(), want)
		}
	}
	c := es[3]
	if c.FirstKeptEntryID == nil || *c.FirstKeptEntryID != es[2].ID || len(c.Extra) != 0 {
		t.Errorf("firstKeptEntryIndex 3 must become the id of the 3rd entry %q: %+v", es[2].ID, c)
	}
	lines := readLines(t, path)
	if !strings.Contains(lines[0], `"version":3`) || strings.Contains(string(strings.Join(lines, "\n")), "firstKeptEntryIndex") {
		t.Errorf("file not rewritten:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.HasPrefix(lines[5], `{"type":"some_future_kind","id":"`+es[4].ID+`","parentId":"`+es[3].ID+`","timestamp"`) {
		t.Errorf("unknown entry not given an id: %s", lines[5])
	}
	ctx := s.BuildContext()
	if len(ctx.Messages) != 2 || ctx.Messages[0].Role != llm.RoleCompactionSummary || llm.TextOf(ctx.Messages[1].Content, "") != "second" {
		t.Errorf("context after migration: %+v", ctx.Messages)
	}
	r, err := Open(path, "")
	if err != nil || r.SkippedLines() != 0 || len(r.Entries()) != 5 || r.Entries()[2].ID != es[2].ID {
		t.Fatalf("reload after migration: %v", err)
	}
}

func TestMigrateV2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.jsonl")
	line2 := `{"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`
	v2 := `{"type":"session","version":2,"id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"hookMessage","customType":"x","content":"hook says","display":true,"timestamp":1}}
` + line2 + "\n"
	os.WriteFile(path, []byte(v2), 0o600)
	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Entry("aaaaaaaa").Message; m.Role != llm.RoleCustom || m.CustomType != "x" {
		t.Errorf("hookMessage not renamed: %+v", m)
	}
	lines := readLines(t, path)
	if !strings.Contains(lines[0], `"version":3`) || strings.Contains(lines[1], "hookMessage") || !strings.Contains(lines[1], `"role":"custom"`) {
		t.Errorf("file not migrated:\n%s", strings.Join(lines, "\n"))
	}
	if lines[2] != line2 {
		t.Errorf("untouched entry rewritten:\n%s\n%s", lines[2], line2)
	}
}

func TestNewerVersionRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.jsonl")
	content := `{"type":"session","version":4,"id":"new","timestamp":"2027-01-01T00:00:00.000Z","cwd":"/p"}` + "\n"
	os.WriteFile(path, []byte(content), 0o600)
	_, err := Open(path, "")
	var ve *VersionError
	if !errors.As(err, &ve) || !errors.Is(err, ErrUnsupportedVersion) || ve.Version != 4 || ve.Supported != 3 {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{path, "version 4", "supported version 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Error("newer file was modified")
	}
	if _, err := ForkFrom(path, "/p", t.TempDir()); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("fork of a newer file: %v", err)
	}
}

func TestBranchTreeLabels(t *testing.T) {
	s := InMemory("/p")
	fixedClock(s)
	u1 := must(t)(s.AppendMessage(llm.UserText("q1", nil, 1)))
	a1 := must(t)(s.AppendMessage(assistantMsg("a1", 2)))
	u2 := must(t)(s.AppendMessage(llm.UserText("q2", nil, 3)))
	a2 := must(t)(s.AppendMessage(assistantMsg("a2", 4)))

	if err := s.SetLeaf(a1); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLeaf("nope"); !errors.Is(err, ErrEntryNotFound) {
		t.Errorf("SetLeaf unknown: %v", err)
	}
	u3 := must(t)(s.AppendMessage(llm.UserText("q2 again", nil, 5)))
	if s.Entry(u3).Parent() != a1 {
		t.Fatal("append after SetLeaf must branch from the new leaf")
	}
	ids := func(es []*Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.ID)
		}
		return
	}
	if got := ids(s.Branch("")); strings.Join(got, ",") != strings.Join([]string{u1, a1, u3}, ",") {
		t.Errorf("branch %v", got)
	}
	if got := ids(s.Branch(a2)); strings.Join(got, ",") != strings.Join([]string{u1, a1, u2, a2}, ",") {
		t.Errorf("branch(a2) %v", got)
	}
	if got := ids(s.Children(a1)); strings.Join(got, ",") != u2+","+u3 {
		t.Errorf("children %v", got)
	}
	if got := ids(s.Children("")); len(got) != 1 || got[0] != u1 {
		t.Errorf("roots %v", got)
	}

	must(t)(s.AppendLabelChange(u1, "start"))
	must(t)(s.AppendLabelChange(a2, "old"))
	must(t)(s.AppendLabelChange(a2, ""))
	if _, err := s.AppendLabelChange("nope", "x"); !errors.Is(err, ErrEntryNotFound) {
		t.Errorf("label unknown target: %v", err)
	}
	if s.Label(u1) != "start" || s.Label(a2) != "" {
		t.Errorf("labels %q %q", s.Label(u1), s.Label(a2))
	}
	tree := s.Tree()
	if len(tree) != 1 || tree[0].Entry.ID != u1 || tree[0].Label != "start" {
		t.Fatalf("tree roots %+v", tree)
	}
	kids := tree[0].Children[0].Children // children of a1, sorted by timestamp
	if len(kids) != 2 || kids[0].Entry.ID != u2 || kids[1].Entry.ID != u3 {
		t.Errorf("tree children of a1: %v", kids)
	}

	s.ResetLeaf()
	if s.LeafID() != "" || s.LeafEntry() != nil || len(s.BuildContext().Messages) != 0 {
		t.Error("ResetLeaf")
	}
	root2 := must(t)(s.AppendMessage(llm.UserText("edited first", nil, 9)))
	if s.Entry(root2).ParentID != nil || len(s.Tree()) != 2 {
		t.Error("append after ResetLeaf must make a new root")
	}
}

func TestSessionName(t *testing.T) {
	s := InMemory("/p")
	if s.SessionName() != "" {
		t.Error("unnamed")
	}
	must(t)(s.AppendSessionInfo("  Refactor auth  "))
	if s.SessionName() != "Refactor auth" {
		t.Errorf("name %q", s.SessionName())
	}
	if e := s.LeafEntry(); e.Type != TypeSessionInfo || *e.Name != "Refactor auth" {
		t.Errorf("entry %+v", e)
	}
	must(t)(s.AppendSessionInfo(""))
	if s.SessionName() != "" {
		t.Error("an empty name clears it (the newest session_info decides)")
	}
}

func TestBuildContext(t *testing.T) {
	s := InMemory("/p")
	fixedClock(s)
	must(t)(s.AppendModelChange("prov", "m1"))
	must(t)(s.AppendThinkingLevelChange("high"))
	u1 := must(t)(s.AppendMessage(llm.UserText("q1", nil, 1)))
	must(t)(s.AppendMessage(assistantMsg("a1", 2)))
	u2 := must(t)(s.AppendMessage(llm.UserText("q2", nil, 3)))
	must(t)(s.AppendMessage(assistantMsg("a2", 4)))
	must(t)(s.AppendCustomEntry("state", map[string]int{"n": 1}))
	must(t)(s.AppendCustomMessageEntry(CustomMessage{CustomType: "note", Content: []llm.Content{llm.Text("ext says")},
		ContentIsString: true, Display: false, Details: map[string]bool{"k": true}}))
	roles := func(c Context) string {
		var r []string
		for _, m := range c.Messages {
			r = append(r, m.Role)
		}
		return strings.Join(r, ",")
	}
	ctx := s.BuildContext()
	if roles(ctx) != "user,assistant,user,assistant,custom" || ctx.ThinkingLevel != "high" ||
		*ctx.Model != (ModelRef{"test", "test-model"}) {
		t.Fatalf("context %s %s %+v", roles(ctx), ctx.ThinkingLevel, ctx.Model)
	}
	cm := ctx.Messages[4]
	if cm.CustomType != "note" || !cm.ContentIsString || cm.Display || string(cm.Details.(json.RawMessage)) != `{"k":true}` || cm.Timestamp == 0 {
		t.Errorf("custom message %+v", cm)
	}

	if _, err := s.AppendCompaction("sum", "nope", 10, nil, false); !errors.Is(err, ErrEntryNotFound) {
		t.Errorf("compaction with unknown first kept: %v", err)
	}
	must(t)(s.AppendCompaction("summary of q1", u2, 5000, map[string][]string{"readFiles": {"a"}}, false))
	must(t)(s.AppendMessage(llm.UserText("q3", nil, 5)))
	ctx = s.BuildContext()
	if roles(ctx) != "compactionSummary,user,assistant,custom,user" || ctx.Messages[0].Summary != "summary of q1" ||
		ctx.Messages[0].TokensBefore != 5000 {
		t.Fatalf("after compaction: %s %+v", roles(ctx), ctx.Messages[0])
	}

	must(t)(s.AppendCompaction("everything", "", 6000, nil, true))
	ctx = s.BuildContext()
	if roles(ctx) != "compactionSummary" || ctx.Messages[0].Summary != "everything" {
		t.Errorf("null firstKeptEntryId keeps nothing before: %s", roles(ctx))
	}

	bs := must(t)(s.BranchWithSummary(u1, "tried things", nil, false))
	if e := s.Entry(bs); e.Parent() != u1 || e.FromID != u1 || s.LeafID() != bs {
		t.Fatalf("branch summary %+v", e)
	}
	ctx = s.BuildContext()
	if roles(ctx) != "user,branchSummary" || ctx.Messages[1].FromID != u1 || ctx.Messages[1].Summary != "tried things" {
		t.Errorf("after branch with summary: %s", roles(ctx))
	}
	root := must(t)(s.BranchWithSummary("", "from the top", nil, false))
	if e := s.Entry(root); e.ParentID != nil || e.FromID != "root" {
		t.Errorf("branch from root %+v", e)
	}
	if _, err := s.BranchWithSummary("nope", "x", nil, false); !errors.Is(err, ErrEntryNotFound) || s.LeafID() != root {
		t.Errorf("branch from unknown: %v, leaf moved to %q", err, s.LeafID())
	}
}

// TestNewEntryLines pins the bytes written for new entries: pi's member order, optional members
// omitted.
func TestNewEntryLines(t *testing.T) {
	s := InMemory("/p")
	fixedClock(s)
	ids := []string{}
	add := func(id string, err error) { ids = append(ids, must(t)(id, err)) }
	add(s.AppendModelChange("fakellm", "fake-model"))
	add(s.AppendThinkingLevelChange("off"))
	add(s.AppendCustomEntry("st", nil))
	add(s.AppendCustomEntry("st", map[string]string{"a": "<b>"}))
	add(s.AppendCustomMessageEntry(CustomMessage{CustomType: "ct", Content: []llm.Content{llm.Text("x")}, Display: true}))
	add(s.AppendCustomMessageEntry(CustomMessage{CustomType: "ct", Content: []llm.Content{llm.Text("y")}, ContentIsString: true,
		Details: []int{1}, ExcludeFromContext: true}))
	add(s.AppendLabelChange(ids[0], "L"))
	add(s.AppendLabelChange(ids[0], ""))
	add(s.AppendSessionInfo("n"))
	add(s.AppendCompaction("S", ids[0], 12, nil, false))
	add(s.AppendSessionSummary("one line", ids[0], nil))
	add(s.BranchWithSummary(ids[0], "B", json.RawMessage(`{"readFiles":[],"modifiedFiles":[]}`), true))
	want := []string{
		`{"type":"model_change","id":"#0","parentId":null,"timestamp":"2026-05-01T09:30:13.345Z","provider":"fakellm","modelId":"fake-model"}`,
		`{"type":"thinking_level_change","id":"#1","parentId":"#0","timestamp":"2026-05-01T09:30:14.345Z","thinkingLevel":"off"}`,
		`{"type":"custom","customType":"st","id":"#2","parentId":"#1","timestamp":"2026-05-01T09:30:15.345Z"}`,
		`{"type":"custom","customType":"st","data":{"a":"<b>"},"id":"#3","parentId":"#2","timestamp":"2026-05-01T09:30:16.345Z"}`,
		`{"type":"custom_message","customType":"ct","content":[{"type":"text","text":"x"}],"display":true,"id":"#4","parentId":"#3","timestamp":"2026-05-01T09:30:17.345Z"}`,
		`{"type":"custom_message","customType":"ct","content":"y","display":false,"details":[1],"excludeFromContext":true,"id":"#5","parentId":"#4","timestamp":"2026-05-01T09:30:18.345Z"}`,
		`{"type":"label","id":"#6","parentId":"#5","timestamp":"2026-05-01T09:30:19.345Z","targetId":"#0","label":"L"}`,
		`{"type":"label","id":"#7","parentId":"#6","timestamp":"2026-05-01T09:30:20.345Z","targetId":"#0"}`,
		`{"type":"session_info","id":"#8","parentId":"#7","timestamp":"2026-05-01T09:30:21.345Z","name":"n"}`,
		`{"type":"compaction","id":"#9","parentId":"#8","timestamp":"2026-05-01T09:30:22.345Z","summary":"S","firstKeptEntryId":"#0","tokensBefore":12,"fromHook":false}`,
		`{"type":"session_summary","id":"#10","parentId":"#9","timestamp":"2026-05-01T09:30:23.345Z","summary":"one line","summarizedThroughId":"#0"}`,
		`{"type":"branch_summary","id":"#11","parentId":"#0","timestamp":"2026-05-01T09:30:24.345Z","fromId":"#0","summary":"B","details":{"readFiles":[],"modifiedFiles":[]},"fromHook":true}`,
	}
	for i, e := range s.Entries() {
		got, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		w := want[i]
		for j := len(ids) - 1; j >= 0; j-- {
			w = strings.ReplaceAll(w, "#"+strconv.Itoa(j), ids[j])
		}
		if string(got) != w {
			t.Errorf("entry %d:\n got %s\nwant %s", i, got, w)
		}
		var back Entry
		if err := json.Unmarshal(got, &back); err != nil || back.Opaque() {
			t.Errorf("entry %d does not read back: %v", i, err)
		}
		if again, _ := back.MarshalJSON(); !bytes.Equal(again, got) {
			t.Errorf("entry %d round trip:\n got %s\nwant %s", i, again, got)
		}
	}
}

func TestAppendRollbackOnWriteFailure(t *testing.T) {
	s, path := newPersisted(t)
	before, _ := os.ReadFile(path)
	leaf, n := s.LeafID(), len(s.Entries())
	s.w.write = func(f *os.File, b []byte) (int, error) {
		f.Write(b[:len(b)/2]) // a partial write, then the disk fills up
		return len(b) / 2, errors.New("no space left on device")
	}
	if _, err := s.AppendMessage(llm.UserText("lost", nil, 9)); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("err = %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("file not truncated back:\n%s", after)
	}
	if s.LeafID() != leaf || len(s.Entries()) != n {
		t.Error("in-memory state not rolled back")
	}
	s.w.write = nil
	id := must(t)(s.AppendMessage(llm.UserText("kept", nil, 10)))
	if r, err := Open(path, ""); err != nil || r.LeafID() != id || r.SkippedLines() != 0 {
		t.Errorf("after recovery: %v", err)
	}
}

func TestFirstWriteFailureRemovesFile(t *testing.T) {
	s, err := Create("/p", t.TempDir(), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	must(t)(s.AppendMessage(llm.UserText("hi", nil, 1)))
	s.w.write = func(f *os.File, b []byte) (int, error) { return 0, errors.New("EIO") }
	if _, err := s.AppendMessage(assistantMsg("hello", 2)); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(s.SessionFile()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file left behind: %v", err)
	}
	s.w.write = nil
	must(t)(s.AppendMessage(assistantMsg("hello", 2)))
	if got := len(readLines(t, s.SessionFile())); got != 3 {
		t.Errorf("%d lines after retry", got)
	}
}

func TestVanishedFileRewritten(t *testing.T) {
	s, path := newPersisted(t)
	os.Remove(path)
	must(t)(s.AppendMessage(llm.UserText("again", nil, 3)))
	if r, err := Open(path, ""); err != nil || len(r.Entries()) != 3 {
		t.Fatalf("reload: %v", err)
	}
}

func TestUnknownEntriesPreserved(t *testing.T) {
	unknown := `{"type":"context_compaction","id":"cccccccc","parentId":"aaaaaaaa","timestamp":"2026-05-01T09:30:14.000Z","promptVersion":1,"deletedTargets":[]}`
	badKnown := `{"type":"model_change","id":"dddddddd","parentId":"cccccccc","timestamp":"2026-05-01T09:30:15.000Z","provider":42,"modelId":"m"}`
	extra := `{"type":"custom_message","customType":"x","content":[],"display":true,"id":"eeeeeeee","parentId":"dddddddd","timestamp":"2026-05-01T09:30:16.000Z","stageAdmissionKey":"k","protectedReconciliation":{"delivery":"steer"}}`
	content := `{"type":"session","version":3,"id":"src","timestamp":"2026-05-01T09:30:12.345Z","cwd":"/p","internal":true,"workflow":{"runId":"r","stageId":"s","stageName":"n"}}
{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2026-05-01T09:30:13.000Z","message":{"role":"user","content":"hi","timestamp":1,"weird":[1]}}
` + unknown + "\n" + badKnown + "\n" + extra + "\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "src.jsonl")
	os.WriteFile(path, []byte(content), 0o600)
	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if wf, ok := s.Header().Internal(); !ok || wf.RunID != "r" {
		t.Error("internal workflow header not recognised")
	}
	es := s.Entries()
	if !es[1].Opaque() || string(es[1].Raw()) != unknown || !es[2].Opaque() || es[2].Provider != "" {
		t.Errorf("opaque entries: %+v %+v", es[1], es[2])
	}
	if es[3].Opaque() || len(es[3].Extra) != 2 || es[3].Extra[0].Key != "stageAdmissionKey" {
		t.Errorf("extra members: %+v", es[3])
	}
	if got, _ := es[3].MarshalJSON(); string(got) != extra {
		t.Errorf("extra members round trip:\n got %s\nwant %s", got, extra)
	}
	if es[0].Message.Extra["weird"] == nil {
		t.Error("unknown message member lost")
	}
	if len(s.Branch("")) != 4 || s.BuildContext().Model != nil {
		t.Error("opaque entries are tree nodes without meaning")
	}
	f, err := ForkFrom(path, "/q", filepath.Join(dir, "fork"))
	if err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, f.SessionFile())
	if strings.Join(lines[1:], "\n")+"\n" != strings.SplitN(content, "\n", 2)[1] {
		t.Errorf("fork did not copy lines byte for byte:\n%s", strings.Join(lines, "\n"))
	}
	h := f.Header()
	if h.Cwd != "/q" || h.ParentSession != path || h.ID == "src" || len(h.Extra) != 0 || f.Cwd() != "/q" {
		t.Errorf("fork header %+v", h)
	}
	if f.LeafID() != "eeeeeeee" {
		t.Errorf("fork leaf %q", f.LeafID())
	}
}

func TestForkFromEmptySource(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, []byte(`{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/p"}`+"\n"), 0o600)
	if _, err := ForkFrom(path, "/q", dir); err == nil {
		t.Error("fork of a session without entries must fail")
	}
	if _, err := ForkFrom(filepath.Join(dir, "missing.jsonl"), "/q", dir); err == nil {
		t.Error("fork of a missing file must fail")
	}
}

func TestCreateBranchedSession(t *testing.T) {
	s, oldPath := newPersisted(t)
	es := s.Entries()
	u1, a1 := es[0].ID, es[1].ID
	must(t)(s.AppendLabelChange(u1, "start"))
	u2 := must(t)(s.AppendMessage(llm.UserText("q2", nil, 3)))
	must(t)(s.AppendLabelChange(u2, "off-path"))
	oldID := s.SessionID()

	p, err := s.CreateBranchedSession(a1)
	if err != nil {
		t.Fatal(err)
	}
	if p == oldPath || s.SessionFile() != p || s.SessionID() == oldID || s.Header().ParentSession != oldPath {
		t.Fatalf("new session: %q %q parent %q", p, s.SessionID(), s.Header().ParentSession)
	}
	got := s.Entries()
	if len(got) != 3 || got[0].ID != u1 || got[1].ID != a1 || got[2].Type != TypeLabel || got[2].Parent() != a1 || s.Label(u1) != "start" {
		t.Fatalf("branched entries %+v", got)
	}
	lines := readLines(t, p)
	old := readLines(t, oldPath)
	if len(lines) != 4 || lines[1] != old[1] || lines[2] != old[2] {
		t.Errorf("path entries not copied byte for byte:\n%s", strings.Join(lines, "\n"))
	}
}

func TestConcurrentReadersAndAppender(t *testing.T) {
	s, _ := newPersisted(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = s.BuildContext()
				for _, e := range s.Entries() {
					_ = e.Role()
				}
				_ = s.Tree()
			}
		})
	}
	for i := range 200 {
		must(t)(s.AppendMessage(llm.UserText("x", nil, int64(i))))
	}
	close(stop)
	wg.Wait()
	if len(s.Entries()) != 202 {
		t.Error("entries lost")
	}
}

func TestIDs(t *testing.T) {
	id := NewSessionID()
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("session id %q is not a UUID v7", id)
	}
	taken := map[string]bool{}
	for range 10000 {
		e := newEntryID(func(s string) bool { return taken[s] })
		if len(e) != 8 || taken[e] {
			t.Fatalf("entry id %q", e)
		}
		taken[e] = true
	}
	if got := newEntryID(func(string) bool { return true }); len(got) != 36 {
		t.Errorf("fallback id %q", got)
	}
	if _, err := Create("/p", t.TempDir(), CreateOptions{ID: "bad id"}); !errors.Is(err, ErrInvalidID) {
		t.Errorf("invalid caller id: %v", err)
	}
	s, err := Create("/p", t.TempDir(), CreateOptions{ID: "my.session-1"})
	if err != nil || s.SessionID() != "my.session-1" || !strings.HasSuffix(s.SessionFile(), "_my.session-1.jsonl") {
		t.Errorf("caller id: %v", err)
	}
}

func TestPaths(t *testing.T) {
	for cwd, want := range map[string]string{
		"/home/ann/proj":   "--home-ann-proj--",
		"/home/ann/proj/":  "--home-ann-proj--",
		"/a/b/../c":        "--a-c--",
		"/x:y/z":           "--x-y-z--",
		"/":                "----",
		"/srv/my-app/code": "--srv-my-app-code--",
		`C:\src\app`:       "--C--src-app--",
	} {
		if got := EncodeCwd(cwd); got != want {
			t.Errorf("EncodeCwd(%q) = %q, want %q", cwd, got, want)
		}
	}
	if got := DefaultSessionDir("/home/ann/.atomic/agent", "/home/ann/proj"); got != "/home/ann/.atomic/agent/sessions/--home-ann-proj--" {
		t.Errorf("DefaultSessionDir = %q", got)
	}
	if got := FileName("2026-05-01T09:30:12.345Z", "0196"); got != "2026-05-01T09-30-12-345Z_0196.jsonl" {
		t.Errorf("FileName = %q", got)
	}
	if got := isoTime(time.Date(2026, 5, 1, 9, 30, 12, 5e6, time.FixedZone("x", 3600))); got != "2026-05-01T08:30:12.005Z" {
		t.Errorf("isoTime = %q", got)
	}
}

// TestContextInfo checks that ContextInfo agrees with BuildContext (thinking level, model, and
// whether any message is sent) at every step of a session, including opaque and undecodable
// message lines, a compaction and a branch back to the root.
func TestContextInfo(t *testing.T) {
	s := InMemory("/p")
	fixedClock(s)
	check := func(step string) {
		t.Helper()
		full := s.BuildContext()
		info, empty := s.ContextInfo()
		if info.ThinkingLevel != full.ThinkingLevel || (info.Model == nil) != (full.Model == nil) ||
			(info.Model != nil && *info.Model != *full.Model) || empty != (len(full.Messages) == 0) ||
			info.Messages != nil || info.EntryIDs != nil {
			t.Errorf("%s: ContextInfo %+v empty %v, BuildContext %s %+v with %d messages", step, info, empty,
				full.ThinkingLevel, full.Model, len(full.Messages))
		}
	}
	check("new session")
	must(t)(s.AppendModelChange("prov", "m1"))
	must(t)(s.AppendThinkingLevelChange("high"))
	must(t)(s.AppendCustomEntry("state", map[string]int{"n": 1}))
	check("no message yet")
	u1 := must(t)(s.AppendMessage(llm.UserText("q1", nil, 1)))
	check("one user message")
	must(t)(s.AppendMessage(assistantMsg("a1", 2)))
	check("assistant")
	must(t)(s.AppendCompaction("everything", "", 6000, nil, true))
	check("compaction")
	must(t)(s.BranchWithSummary("", "", nil, false))
	check("empty branch summary at the root")
	must(t)(s.BranchWithSummary(u1, "tried things", nil, false))
	check("branch summary")

	// A loaded file whose first message line does not decode, then a good one.
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	lines := `{"type":"session","version":3,"id":"x","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-05-01T00:00:00.000Z","message":{"role":"user","content":7}}
{"type":"thinking_level_change","id":"00000002","parentId":"00000001","timestamp":"2026-05-01T00:00:00.000Z","thinkingLevel":"low"}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	var err error
	if s, err = OpenReadOnly(path); err != nil {
		t.Fatal(err)
	}
	check("undecodable message only")
	if info, empty := s.ContextInfo(); !empty || info.ThinkingLevel != "low" {
		t.Errorf("undecodable message only: %+v empty %v", info, empty)
	}
}
