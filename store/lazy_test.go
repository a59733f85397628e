package store

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// loadAs loads path read-only, parsing message entries lazily or eagerly.
func loadAs(t *testing.T, path string, lazy bool) *Session {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := parseSession(data, lazy)
	if err != nil {
		t.Fatal(err)
	}
	if lazy && len(fd.entries) > 0 && fd.lazy == nil && fd.header.Version >= CurrentVersion {
		t.Fatalf("%s: a lazy parse left no entry lazy", path)
	}
	s := newSession("", filepath.Dir(path), true)
	s.readOnly = true
	s.install(path, fd)
	return s
}

// lazyEdgeSession writes a v3 file with what the lazy path must treat exactly as the eager one:
// a parentId cycle among messages, an orphan, a duplicated id, a message whose members have
// unexpected types (opaque), one with an escaped key (declined by the fast decoder), the legacy
// hookMessage role, an unknown top-level member, a model change after an assistant message, a
// session name, a label, a torn last line, and a second branch off an earlier entry.
func lazyEdgeSession(t *testing.T) string {
	t.Helper()
	lines := []string{
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/p"}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`,
		`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"yo\n\u00e9"}],"api":"anthropic-messages","provider":"p\u0031","model":"m1","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`,
		`{"type":"message","id":"c1","parentId":"c2","timestamp":"2026-05-01T00:00:03.000Z","message":{"role":"user","content":"cycle one","timestamp":3}}`,
		`{"type":"message","id":"c2","parentId":"c1","timestamp":"2026-05-01T00:00:04.000Z","message":{"role":"user","content":"cycle two","timestamp":4}}`,
		`{"type":"message","id":"o1","parentId":"nowhere","timestamp":"2026-05-01T00:00:05.000Z","message":{"role":"user","content":"orphan","timestamp":5}}`,
		`{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-05-01T00:00:06.000Z","message":{"role":"user","content":[{"type":"text","text":"bad"}],"timestamp":"not a number"}}`,
		`{"type":"message","id":"a4","parentId":"a3","timestamp":"2026-05-01T00:00:07.000Z","message":{"role":"user","con\u0074ent":"escaped key","timestamp":7}}`,
		`{"type":"message","id":"a5","parentId":"a4","timestamp":"2026-05-01T00:00:08.000Z","message":{"role":"hookMessage","customType":"x","content":"hook","display":true,"timestamp":8},"extra":[1,2]}`,
		`{"type":"model_change","id":"a6","parentId":"a5","timestamp":"2026-05-01T00:00:09.000Z","provider":"p2","modelId":"m2"}`,
		`{"type":"message","id":"a1","parentId":"a6","timestamp":"2026-05-01T00:00:10.000Z","message":{"role":"user","content":"duplicate id","timestamp":10}}`,
		`{"type":"session_info","id":"n1","parentId":"a1","timestamp":"2026-05-01T00:00:11.000Z","name":"  edge  "}`,
		`{"type":"label","id":"l1","parentId":"n1","timestamp":"2026-05-01T00:00:12.000Z","targetId":"a2","label":"mark"}`,
		`{"type":"message","id":"b1","parentId":"a2","timestamp":"2026-05-01T00:00:13.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"s"},{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"x"}}],"provider":"p3","model":"m3","stopReason":"toolUse","timestamp":13}}`,
		`{"type":"message","id":"b2","parentId":"b1","timestamp":"2026-05-01T00:00:14.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":14}}`,
		`{"type":"message","id":"l2","parentId":"l1","timestamp":"2026-05-01T00:00:15.000Z","message":{"role":"user","content":"last","timestamp":15}}`,
		`{"type":"message","id":"torn","parentId":"l2","timestamp":"2026-05-0`,
	}
	path := filepath.Join(t.TempDir(), "edge.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLazyMatchesEager: a session whose message entries stay lazy answers every read exactly as
// one whose entries were all decoded at load: context, model and thinking level, leaf, name,
// warnings, skipped lines, branches from every entry, children, tree and the entries themselves,
// whatever order the reads come in.
func TestLazyMatchesEager(t *testing.T) {
	paths := []string{lazyEdgeSession(t)}
	for _, src := range fixtureSessions(t) {
		paths = append(paths, copyFixture(t, src))
	}
	p, _ := writeRealisticSession(t, t.TempDir(), 3000)
	paths = append(paths, p)
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			eager, lazy := loadAs(t, path, false), loadAs(t, path, true)
			same := func(what string, a, b any) {
				t.Helper()
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%s differs:\nlazy  %#v\neager %#v", what, a, b)
				}
			}
			li, le := lazy.ContextInfo()
			ei, ee := eager.ContextInfo()
			same("ContextInfo", []any{li, le}, []any{ei, ee})
			same("BuildContext", lazy.BuildContext(), eager.BuildContext())
			same("LeafID", lazy.LeafID(), eager.LeafID())
			same("SessionName", lazy.SessionName(), eager.SessionName())
			same("LoadWarnings", lazy.LoadWarnings(), eager.LoadWarnings())
			same("SkippedLines", lazy.SkippedLines(), eager.SkippedLines())
			// Every entry of a small file, a sample of a long one (each read walks a path).
			var ids []string
			all := eager.Entries()
			for i := 0; i < len(all); i += max(1, len(all)/40) {
				ids = append(ids, all[i].ID)
			}
			if lazy.LeafID() != "" && path == paths[0] && len(lazy.LoadWarnings()) != 2 {
				t.Fatalf("edge session: want two cycle warnings (c1-c2, and a2 through the duplicated id a1), got %q", lazy.LoadWarnings())
			}
			for _, id := range ids {
				same("Branch("+id+")", lazy.Branch(id), eager.Branch(id))
				same("Label("+id+")", lazy.Label(id), eager.Label(id))
			}
			// Moving the leaf materializes only the path; the context must not change with it.
			for _, id := range ids {
				if err := lazy.SetLeaf(id); err != nil {
					t.Fatal(err)
				}
				if err := eager.SetLeaf(id); err != nil {
					t.Fatal(err)
				}
				same("BuildContext at "+id, lazy.BuildContext(), eager.BuildContext())
			}
			same("Children(root)", lazy.Children(""), eager.Children(""))
			same("Tree", lazy.Tree(), eager.Tree())
			same("Entries", lazy.Entries(), eager.Entries())
		})
	}
}

// TestLazyResumeDecodesNoEntry: resuming (ContextInfo, BuildContext) materializes no message entry
// but the leaf; the messages are decoded straight into the context. Appending to the resumed
// session then keeps the file byte-identical plus the new lines, and a copy (a branched session)
// writes the lazy entries' lines as read.
func TestLazyResumeDecodesNoEntry(t *testing.T) {
	path, _ := writeRealisticSession(t, t.TempDir(), 2000)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ContextInfo()
	ctx := s.BuildContext()
	materialized, messages := 0, 0
	for i, e := range s.entries {
		if e != nil && e.Type == TypeMessage {
			materialized++
		}
		if e == nil || e.Type == TypeMessage {
			messages++
		}
		if e == nil && s.lazy[i].id == "" {
			t.Fatalf("lazy entry %d has no id", i)
		}
	}
	if materialized != 1 || messages < 1000 || len(ctx.Messages) == 0 {
		t.Fatalf("%d of %d message entries materialized (want only the leaf), context of %d", materialized, messages, len(ctx.Messages))
	}
	if _, err := s.AppendMessage(llm.UserText("more", nil, 1)); err != nil {
		t.Fatal(err)
	}
	a := assistantMsg("answer", 2)
	if _, err := s.AppendMessage(a); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, orig) || bytes.Count(after[len(orig):], []byte("\n")) != 2 {
		t.Fatalf("the file changed beyond two appended lines (%d -> %d bytes)", len(orig), len(after))
	}
	leaf := s.LeafID()
	if _, err := s.CreateBranchedSession(leaf); err != nil {
		t.Fatal(err)
	}
	copied, err := os.ReadFile(s.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	src := map[string][]byte{} // id → line as read
	for _, l := range splitLines(after)[1:] {
		var e Entry
		if err := e.UnmarshalJSON(l); err == nil {
			src[e.ID] = l
		}
	}
	same := 0
	for _, l := range splitLines(copied)[1:] {
		var c, o Entry
		if err := c.UnmarshalJSON(l); err != nil || c.Type != TypeMessage {
			continue
		}
		if err := o.UnmarshalJSON(src[c.ID]); err != nil {
			t.Fatalf("copied entry %s is not in the source", c.ID)
		}
		// An entry after a dropped label is re-parented; every other line is copied as read.
		if c.Parent() == o.Parent() {
			if !bytes.Equal(l, src[c.ID]) {
				t.Fatalf("copied entry %s differs from its line:\n got %s\nwant %s", c.ID, l, src[c.ID])
			}
			same++
		}
	}
	if same < 1000 {
		t.Fatalf("only %d message lines copied unchanged", same)
	}
}

// TestIDIndex: pi-form ids (8 lowercase hex digits) and every other id map to their indexes,
// and ids that differ only in case or length are different keys.
func TestIDIndex(t *testing.T) {
	x := newIDIndex(4)
	ids := []string{"0a1b2c3d", "0A1B2C3D", "0a1b2c3", "0a1b2c3d0", "root", "", "ffffffff", "00000000"}
	for i, id := range ids {
		x.set(id, int32(i))
	}
	x.set("0a1b2c3d", 42) // a later entry with the same id wins, as in a file with duplicates
	for i, id := range ids {
		want := int32(i)
		if id == "0a1b2c3d" {
			want = 42
		}
		if got, ok := x.get(id); !ok || got != want {
			t.Errorf("get(%q) = %d, %v; want %d", id, got, ok, want)
		}
	}
	if _, ok := x.get("0a1b2c3e"); ok {
		t.Error("an id never set was found")
	}
	if len(x.hex) != 3 || len(x.other) != 5 {
		t.Errorf("%d hex and %d other ids; want 3 and 5", len(x.hex), len(x.other))
	}
}
