package selector

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/store"
)

var (
	th   = slot.Plain()
	keys = slot.DefaultKeys()
)

func ctrl(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }

func testModels() []*llm.Model {
	return []*llm.Model{
		{ID: "claude-sonnet-4-5", Name: "Claude Sonnet 4.5", Provider: "anthropic"},
		{ID: "gpt-4o", Name: "GPT-4o", Provider: "openai"},
		{ID: "gpt-4o-mini", Name: "GPT-4o mini", Provider: "openai"},
		{ID: "gemini-2.5-pro", Name: "Gemini 2.5 Pro", Provider: "google"},
	}
}

func TestModelsSearchAndPick(t *testing.T) {
	ms := testModels()
	var got *llm.Model
	s := NewModels(th, keys, ms, nil, ms[1], "", func(m *llm.Model) tea.Cmd { got = m; return nil })
	golden(t, "models_80", view(s, 80))
	typeText(s, "mini")
	golden(t, "models_filtered_80", view(s, 80))
	s.HandleKey(key("enter"))
	if got == nil || got.ID != "gpt-4o-mini" {
		t.Fatalf("picked %v, want gpt-4o-mini", got)
	}
}

func TestModelsScopedTab(t *testing.T) {
	ms := testModels()
	var got *llm.Model
	s := NewModels(th, keys, ms, ms[2:], ms[1], "", func(m *llm.Model) tea.Cmd { got = m; return nil })
	golden(t, "models_scoped_60", view(s, 60))
	s.HandleKey(tea.KeyPressMsg{Code: tea.KeyTab})
	s.HandleKey(key("down"))
	s.HandleKey(key("enter"))
	if got == nil || got.ID != "claude-sonnet-4-5" {
		t.Fatalf("after tab to all and one down: %v", got)
	}
}

func TestModelsNoMatch(t *testing.T) {
	s := NewModels(th, keys, testModels(), nil, nil, "zzz", nil)
	if !strings.Contains(view(s, 60), "No matching models") {
		t.Fatal("no 'No matching models' line")
	}
	s.HandleKey(key("enter")) // nothing to pick: stays open
	if s.Done() {
		t.Fatal("enter on an empty list closed the selector")
	}
}

// treeStore builds: u1 → a1 → u2 → a2 (old branch), and a1 → u3 → a3 (the leaf), with a label on u2.
func treeStore(t *testing.T) (*store.Session, map[string]string) {
	t.Helper()
	st := store.InMemory("/w")
	ids := map[string]string{}
	add := func(name string, m llm.Message) {
		id, err := st.AppendMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	asst := func(text string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(text)}, StopReason: llm.StopStop}
	}
	add("u1", llm.UserText("list the files", nil, 1))
	add("a1", asst("There are three files."))
	add("u2", llm.UserText("delete the big one", nil, 2))
	add("a2", asst("Deleted big.bin"))
	if _, err := st.AppendLabelChange(ids["u2"], "risky"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetLeaf(ids["a1"]); err != nil {
		t.Fatal(err)
	}
	add("u3", llm.UserText("keep them all", nil, 3))
	add("a3", asst("Keeping all files."))
	return st, ids
}

func TestTreeRendersBranchesAndPicks(t *testing.T) {
	st, ids := treeStore(t)
	var got *store.Entry
	tr := NewTree(th, keys, st.Tree(), st.LeafID(), 30, func(e *store.Entry) tea.Cmd { got = e; return nil })
	golden(t, "tree_80x30", view(tr, 80))
	// The leaf is selected; two up is the branch point's first child u2 (old branch order: u2 subtree first).
	tr.HandleKey(key("up"))
	tr.HandleKey(key("up"))
	tr.HandleKey(key("up"))
	golden(t, "tree_moved_80x30", view(tr, 80))
	tr.HandleKey(key("enter"))
	if got == nil || got.ID != ids["u2"] {
		t.Fatalf("picked %v, want u2 %s", got, ids["u2"])
	}
}

func TestTreeFiltersAndSearch(t *testing.T) {
	st, _ := treeStore(t)
	tr := NewTree(th, keys, st.Tree(), st.LeafID(), 30, nil)
	tr.HandleKey(ctrl('u'))
	v := view(tr, 80)
	if strings.Contains(v, "assistant:") || !strings.Contains(v, "Filter: user-only") {
		t.Fatalf("user-only filter shows assistants:\n%s", v)
	}
	tr.HandleKey(ctrl('a'))
	if !strings.Contains(view(tr, 80), "[label: risky]") {
		t.Fatal("the all filter hides the label entry")
	}
	tr.HandleKey(ctrl('d'))
	typeText(tr, "keep")
	v = view(tr, 80)
	if !strings.Contains(v, "keep them all") || strings.Contains(v, "delete the big one") {
		t.Fatalf("search 'keep':\n%s", v)
	}
	golden(t, "tree_search_80x30", v)
}

func testInfos(now time.Time) []store.SessionInfo {
	return []store.SessionInfo{
		{Path: "/s/3.jsonl", ID: "c3", Cwd: "/w", Modified: now.Add(-2 * time.Minute), MessageCount: 4, FirstMessage: "fix the failing test", AllMessagesText: "fix the failing test in store"},
		{Path: "/s/2.jsonl", ID: "b2", Cwd: "/w", Name: "release notes", Modified: now.Add(-5 * time.Hour), MessageCount: 12, FirstMessage: "draft the notes", AllMessagesText: "draft the notes for v2"},
		{Path: "/s/1.jsonl", ID: "a1", Cwd: "/w", Modified: now.Add(-9 * 24 * time.Hour), MessageCount: 2, FirstMessage: "hello\nworld", AllMessagesText: "hello world"},
	}
}

func TestSessionsPickerSearchDeleteOpen(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var deleted string
	var got *store.SessionInfo
	s := NewSessions(th, keys, testInfos(now), nil, "/s/3.jsonl", func() time.Time { return now },
		func(p string) error { deleted = p; return nil }, func(in *store.SessionInfo) tea.Cmd { got = in; return nil })
	golden(t, "sessions_80", view(s, 80))
	s.HandleKey(key("down"))
	s.HandleKey(key("down"))
	s.HandleKey(ctrl('d'))
	golden(t, "sessions_confirm_delete_80", view(s, 80))
	s.HandleKey(key("enter"))
	if deleted != "/s/1.jsonl" {
		t.Fatalf("deleted %q", deleted)
	}
	typeText(s, "notes")
	s.HandleKey(key("enter"))
	if got == nil || got.Path != "/s/2.jsonl" {
		t.Fatalf("opened %v", got)
	}
}

func TestSessionsDeleteCurrentRefusedAndErrorsShown(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := NewSessions(th, keys, testInfos(now), nil, "/s/3.jsonl", func() time.Time { return now },
		func(string) error { return errors.New("permission denied") }, nil)
	s.HandleKey(ctrl('d'))
	if !strings.Contains(view(s, 80), "Cannot delete the current session") {
		t.Fatal("deleting the current session was not refused")
	}
	s.HandleKey(key("down"))
	s.HandleKey(ctrl('d'))
	s.HandleKey(key("enter"))
	if v := view(s, 80); !strings.Contains(v, "permission denied") || !strings.Contains(v, "release notes") {
		t.Fatalf("a failed delete must keep the row and show the error:\n%s", v)
	}
}

func TestSessionsQueries(t *testing.T) {
	in := testInfos(time.Now())
	cases := map[string][]string{
		`re:fail.*store`: {"c3"},
		`"the notes"`:    {"b2"},
		`"the notes`:     {"b2"}, // unbalanced: plain tokens "the" and "notes"
		`hlo wrld`:       {"a1"},
	}
	for q, want := range cases {
		m := sessionMatcher(q)
		var got []string
		for _, x := range in {
			if _, ok := m(x); ok {
				got = append(got, x.ID)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("query %s matched %v, want %v", q, got, want)
		}
	}
}

func TestSessionsTabLoadsAll(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	other := store.SessionInfo{Path: "/o/9.jsonl", ID: "z9", Cwd: "/other", Modified: now.Add(-time.Hour), MessageCount: 1, FirstMessage: "elsewhere"}
	s := NewSessions(th, keys, testInfos(now), func() ([]store.SessionInfo, error) {
		return append(testInfos(now), other), nil
	}, "", func() time.Time { return now }, nil, nil)
	cmd := s.HandleKey(tea.KeyPressMsg{Code: tea.KeyTab})
	if cmd == nil {
		t.Fatal("tab to All must start the scan")
	}
	s.Update(cmd())
	golden(t, "sessions_all_90", view(s, 90))
}

func TestForkNewestPreselected(t *testing.T) {
	var got *ForkMessage
	f := NewFork(th, keys, []ForkMessage{{"e1", "first"}, {"e2", "second\nline"}, {"e3", "third"}}, func(m *ForkMessage) tea.Cmd { got = m; return nil })
	golden(t, "fork_60", view(f, 60))
	f.HandleKey(key("up"))
	f.HandleKey(key("enter"))
	if got == nil || got.EntryID != "e2" {
		t.Fatalf("forked from %v", got)
	}
}

func TestSettingsCycle(t *testing.T) {
	var changes []string
	s := NewSettings(th, keys, []Setting{
		{ID: "autoCompact", Label: "Auto-compact", Values: []string{"true", "false"}, Value: "true", Description: "Compact when the context nears the window"},
		{ID: "thinking", Label: "Thinking level", Values: []string{"off", "low", "high"}, Value: "low"},
	}, func(id, v string) (string, tea.Cmd, error) {
		changes = append(changes, id+"="+v)
		if v == "off" {
			return "", nil, errors.New("model has no thinking")
		}
		return v, nil, nil
	}, nil)
	s.HandleKey(key("enter"))
	s.HandleKey(key("down"))
	s.HandleKey(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	s.HandleKey(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	golden(t, "settings_60", view(s, 60))
	if strings.Join(changes, ",") != "autoCompact=false,thinking=high,thinking=off" {
		t.Fatalf("changes %v", changes)
	}
}

func TestScopedModelsToggleAndSave(t *testing.T) {
	ms := testModels()
	var last, saved []*llm.Model
	s := NewScopedModels(th, keys, ms, nil, func(e []*llm.Model) { last = e }, func(e []*llm.Model) error { saved = e; return nil })
	s.HandleKey(key("enter"))
	s.HandleKey(key("down"))
	s.HandleKey(key("down"))
	s.HandleKey(key("enter"))
	golden(t, "scoped_70", view(s, 70))
	if len(last) != 2 || last[1].ID != "gpt-4o-mini" {
		t.Fatalf("enabled %v", last)
	}
	s.HandleKey(ctrl('s'))
	if len(saved) != 2 || strings.Contains(view(s, 70), "(unsaved)") {
		t.Fatal("ctrl+s did not save")
	}
}

// TestSessionsRename: ctrl+r edits the selected session's name in place; Enter saves it through
// the rename callback and the row shows the new name; Escape cancels; an error is shown.
func TestSessionsRename(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := NewSessions(th, keys, testInfos(now), nil, "/s/3.jsonl", func() time.Time { return now }, nil, nil)
	if strings.Contains(view(s, 80), "rename") {
		t.Fatal("rename hint shown without a way to save")
	}
	var gotPath, gotName string
	s.SetRename(func(path, name string) error {
		if name == "bad" {
			return errors.New("rename session: locked by pid 7")
		}
		gotPath, gotName = path, name
		return nil
	})
	s.HandleKey(key("down")) // "release notes"
	s.HandleKey(ctrl('r'))
	if v := view(s, 80); !strings.Contains(v, "Rename session: release notes") {
		t.Fatalf("rename line missing:\n%s", v)
	}
	for range len("release notes") {
		s.HandleKey(key("backspace"))
	}
	typeText(s, "v2 notes")
	s.HandleKey(key("enter"))
	if gotPath != "/s/2.jsonl" || gotName != "v2 notes" {
		t.Fatalf("rename saved %q %q", gotPath, gotName)
	}
	if v := view(s, 80); !strings.Contains(v, "v2 notes") || strings.Contains(v, "release notes") || strings.Contains(v, "Rename session:") {
		t.Fatalf("renamed row not shown:\n%s", v)
	}
	if s.Done() {
		t.Fatal("saving a name closed the picker")
	}
	// Escape cancels only the rename; a failing save shows its error and keeps the old name.
	s.HandleKey(ctrl('r'))
	s.HandleKey(key("esc"))
	if s.Done() || strings.Contains(view(s, 80), "Rename session:") {
		t.Fatal("escape did not cancel the rename alone")
	}
	s.HandleKey(ctrl('r'))
	for range len("v2 notes") {
		s.HandleKey(key("backspace"))
	}
	typeText(s, "bad")
	s.HandleKey(key("enter"))
	if v := view(s, 80); !strings.Contains(v, "locked by pid 7") || !strings.Contains(v, "v2 notes") {
		t.Fatalf("failed rename:\n%s", v)
	}
}

// TestTreeFoldUnfold: ctrl+left on a branch start folds its subtree (⊞) and ctrl+right unfolds
// it (⊟); elsewhere they jump to the previous / next branch start; a search unfolds everything.
func TestTreeFoldUnfold(t *testing.T) {
	st, ids := treeStore(t)
	var got *store.Entry
	tr := NewTree(th, keys, st.Tree(), st.LeafID(), 30, func(e *store.Entry) tea.Cmd { got = e; return nil })
	left := tea.KeyPressMsg{Code: tea.KeyLeft, Mod: tea.ModCtrl}
	right := tea.KeyPressMsg{Code: tea.KeyRight, Mod: tea.ModCtrl}
	// The leaf a3 is not a branch start: ctrl+left jumps up to u3, the second one folds it.
	tr.HandleKey(left)
	if v := view(tr, 80); !strings.Contains(v, "⊟ • user: keep them all") || !strings.Contains(v, "Keeping all files") {
		t.Fatalf("first ctrl+left should only select u3:\n%s", v)
	}
	tr.HandleKey(left)
	v := view(tr, 80)
	if !strings.Contains(v, "⊞ • user: keep them all") || strings.Contains(v, "Keeping all files") || !strings.Contains(v, "Deleted big.bin") {
		t.Fatalf("u3 not folded:\n%s", v)
	}
	// Up jumps to the previous branch start, u2, which folds too.
	tr.HandleKey(left)
	tr.HandleKey(left)
	v = view(tr, 80)
	if strings.Contains(v, "Deleted big.bin") || !strings.Contains(v, "⊞   [risky] user: delete the big one") {
		t.Fatalf("u2 not folded:\n%s", v)
	}
	// ctrl+right unfolds u2; again jumps down to u3; again unfolds it.
	tr.HandleKey(right)
	tr.HandleKey(right)
	tr.HandleKey(right)
	v = view(tr, 80)
	if !strings.Contains(v, "Deleted big.bin") || !strings.Contains(v, "Keeping all files") || strings.Contains(v, "⊞") {
		t.Fatalf("not unfolded:\n%s", v)
	}
	// A search resets folds.
	tr.HandleKey(left)
	typeText(tr, "e")
	if strings.Contains(view(tr, 80), "⊞") {
		t.Fatal("a search kept a fold")
	}
	tr.HandleKey(key("enter"))
	if got == nil || got.ID != ids["u3"] {
		t.Fatalf("picked %v, want u3", got)
	}
}

// TestSessionsOwnerDeletes: an onDelete answering ErrKeepRow keeps the row silently; the owner's
// SetSessions then removes it (search and selection kept) and ShowError shows its message.
func TestSessionsOwnerDeletes(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var asked []string
	s := NewSessions(th, keys, testInfos(now), nil, "", func() time.Time { return now },
		func(p string) error { asked = append(asked, p); return ErrKeepRow }, nil)
	s.HandleKey(key("down"))
	s.HandleKey(ctrl('d'))
	s.HandleKey(key("enter"))
	if len(asked) != 1 || asked[0] != "/s/2.jsonl" || !strings.Contains(view(s, 80), "release notes") {
		t.Fatalf("owner deletion: asked %v, view:\n%s", asked, view(s, 80))
	}
	s.HandleKey(key("down")) // the cursor on /s/1
	rows := testInfos(now)
	s.SetSessions(append(rows[:1:1], rows[2]))
	v := view(s, 80)
	if strings.Contains(v, "release notes") || !strings.Contains(v, "› hello world") {
		t.Fatalf("after SetSessions the row must be gone and /s/1 still selected:\n%s", v)
	}
	s.ShowError("DISK FULL")
	if !strings.Contains(view(s, 80), "DISK FULL") {
		t.Fatal("ShowError shows nothing")
	}
}

// TestSessionsSummaryColorRenameHint: Atomic's host picker extras. A row's Summary opens a
// summary column (rows without one say "No summary available."; the summary is searched too);
// MessageColor colors the row's text unless it is being deleted or current; SetRenameHint names
// the rename key without a way to rename.
func TestSessionsSummaryColorRenameHint(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	rows := testInfos(now)
	rows[0].Summary = "SUMMARY-OF-THREE"
	rows[2].MessageColor = "success"
	colored := slot.Theme{Fg: func(token, s string) string {
		if token == "success" {
			return "\x1b[32m" + s + "\x1b[39m"
		}
		return s
	}}
	s := NewSessions(colored, keys, rows, nil, "", func() time.Time { return now }, nil, nil)
	v := view(s, 100)
	if !strings.Contains(v, "SUMMARY-OF-THREE") || strings.Count(v, "No summary available.") != 2 {
		t.Fatalf("summary column:\n%s", v)
	}
	if !strings.Contains(v, "\x1b[32mhello world\x1b[39m") {
		t.Fatalf("messageColor success not applied:\n%s", v)
	}
	if strings.Contains(v, "rename") {
		t.Fatalf("rename hint without SetRenameHint:\n%s", v)
	}
	s.SetRenameHint(true)
	if v = view(s, 100); !strings.Contains(v, "rename") {
		t.Fatalf("no rename hint after SetRenameHint(true):\n%s", v)
	}
	// Without summaries there is no column.
	plain := NewSessions(th, keys, testInfos(now), nil, "", func() time.Time { return now }, nil, nil)
	if strings.Contains(view(plain, 100), "No summary available.") {
		t.Fatalf("summary column without summaries:\n%s", view(plain, 100))
	}
	// The summary is searched.
	for _, r := range "SUMMARY-OF" {
		s.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if v = view(s, 100); !strings.Contains(v, "fix the failing test") || strings.Contains(v, "release notes") {
		t.Fatalf("search over the summary:\n%s", v)
	}
}
