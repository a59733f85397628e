package editor

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

func typeText(e *Editor, s string) {
	for _, r := range s {
		e.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func key(code rune, mod tea.KeyMod) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code, Mod: mod} }

// TestLargePasteMarker checks a paste over 10 lines becomes one marker that moves and deletes as
// one character, and expands on Value (tui.md §3.3).
func TestLargePasteMarker(t *testing.T) {
	e := New(keys.Default())
	typeText(e, "see ")
	e.Paste(strings.Repeat("line\n", 11) + "end")
	typeText(e, " ok")
	if got := e.Text(); got != "see [paste #1 +12 lines] ok" {
		t.Fatalf("Text = %q", got)
	}
	if got := e.Value(); !strings.HasPrefix(got, "see line\nline") || !strings.HasSuffix(got, "end ok") {
		t.Fatalf("Value = %q", got)
	}
	for i := 0; i < 3; i++ {
		e.HandleKey(key(tea.KeyLeft, 0))
	}
	e.HandleKey(key(tea.KeyBackspace, 0))
	if got := e.Text(); got != "see  ok" {
		t.Fatalf("after deleting the marker: %q", got)
	}
	e.Paste(strings.Repeat("x", 1001))
	if got := e.Text(); got != "see [paste #1 1001 chars] ok" {
		t.Fatalf("renumbered marker: %q", got)
	}
}

// TestKillYankUndo exercises ctrl+w, ctrl+y and undo.
func TestKillYankUndo(t *testing.T) {
	e := New(keys.Default())
	typeText(e, "hello world")
	e.HandleKey(key('w', tea.ModCtrl))
	if e.Text() != "hello " {
		t.Fatalf("ctrl+w: %q", e.Text())
	}
	e.HandleKey(key('y', tea.ModCtrl))
	if e.Text() != "hello world" {
		t.Fatalf("ctrl+y: %q", e.Text())
	}
	e.HandleKey(key('-', tea.ModCtrl))
	if e.Text() != "hello " {
		t.Fatalf("undo: %q", e.Text())
	}
}

// TestHistoryPersisted checks prompts are browsed with Up on an empty editor, newest first, and
// survive a new editor reading the same file.
func TestHistoryPersisted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	e := New(keys.Default())
	if err := e.LoadHistory(path); err != nil {
		t.Fatal(err)
	}
	e.AddHistory("first")
	e.AddHistory("second")
	e.AddHistory("second")
	e2 := New(keys.Default())
	if err := e2.LoadHistory(path); err != nil {
		t.Fatal(err)
	}
	e2.HandleKey(key(tea.KeyUp, 0))
	if e2.Text() != "second" {
		t.Fatalf("Up: %q", e2.Text())
	}
	e2.HandleKey(key(tea.KeyUp, 0))
	if e2.Text() != "first" {
		t.Fatalf("Up Up: %q", e2.Text())
	}
	e2.HandleKey(key(tea.KeyDown, 0))
	e2.HandleKey(key(tea.KeyDown, 0))
	if e2.Text() != "" {
		t.Fatalf("back to the draft: %q", e2.Text())
	}
}

// TestRenderWrapsAndScrolls renders at a fixed size: long text wraps, the view scrolls to the
// cursor and the rules say how much is hidden.
func TestRenderWrapsAndScrolls(t *testing.T) {
	e := New(keys.Default())
	e.MaxRows = 2
	typeText(e, "abcdefghij")
	e.HandleKey(key('j', tea.ModCtrl))
	typeText(e, "klm")
	e.HandleKey(key('j', tea.ModCtrl))
	typeText(e, "nop")
	lines := e.Render(theme.Dark(), 8)
	var plain []string
	for _, l := range lines {
		plain = append(plain, ansi.Strip(l))
	}
	want := []string{"─── ↑ 2 ", "klm", "nop", "────────"}
	if strings.Join(plain, "|") != strings.Join(want, "|") {
		t.Fatalf("render = %q; want %q", plain, want)
	}
	if r, c, _ := e.Cursor(); r != 2 || c != 3 {
		t.Fatalf("cursor = %d,%d", r, c)
	}
}

// rowsAt renders e at width and returns its text rows (without the rules).
func rowsAt(e *Editor, width int) []string {
	out := e.Render(theme.Dark(), width)
	var rows []string
	for _, l := range out[1 : len(out)-1] {
		rows = append(rows, ansi.Strip(l))
	}
	return rows
}

// TestWordWrap checks long lines wrap at word boundaries within the width (one column kept for
// the cursor), words longer than a row break by character, and Up/Down move between the wrapped
// rows keeping the column.
func TestWordWrap(t *testing.T) {
	e := New(keys.Default())
	e.MaxRows = 10
	typeText(e, "the quick brown fox jumps over the lazy dog")
	got := rowsAt(e, 17) // 16 text columns
	want := []string{"the quick brown ", "fox jumps over ", "the lazy dog"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows = %q, want %q", got, want)
	}
	for _, r := range got {
		if ansi.StringWidth(r) > 16 {
			t.Fatalf("row %q wider than 16", r)
		}
	}
	// The cursor is at the end: row 3 (after the top rule), column 12.
	if r, c, _ := e.Cursor(); r != 3 || c != 12 {
		t.Fatalf("cursor = %d,%d", r, c)
	}
	// Up keeps the column on the wrapped row above: "fox jumps ov|er".
	e.HandleKey(key(tea.KeyUp, 0))
	rowsAt(e, 17)
	if r, c, _ := e.Cursor(); r != 2 || c != 12 {
		t.Fatalf("after up: cursor = %d,%d", r, c)
	}
	typeText(e, "X")
	if got := e.Text(); got != "the quick brown fox jumps ovXer the lazy dog" {
		t.Fatalf("insert after up: %q", got)
	}
	e.HandleKey(key(tea.KeyDown, 0))
	rowsAt(e, 17)
	if r, _, _ := e.Cursor(); r != 3 {
		t.Fatalf("after down: row %d", r)
	}

	// A word wider than the row breaks by character.
	e.SetText(strings.Repeat("x", 20) + " end")
	if got := rowsAt(e, 9); strings.Join(got, "|") != "xxxxxxxx|xxxxxxxx|xxxx end" {
		t.Fatalf("long word rows = %q", got)
	}
}
