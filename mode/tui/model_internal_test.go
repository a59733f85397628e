package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/mode/tui/chat"
	"github.com/atomic-cli/atomic/mode/tui/command"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/mode/tui/theme"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// startingModel is a model before the runtime is attached (what UI.Start makes), painting nothing.
func startingModel(t *testing.T) *model {
	t.Helper()
	u := New(Options{})
	return newModel(context.Background(), nil, theme.Dark(), keys.Default(), command.Builtins(), Options{}, u.ext)
}

// TestNoticeStatusesCollapseBlocksStay: consecutive one-line statuses collapse into one row
// (tui.md §1.5), but a block of several lines (/hotkeys, /session) is kept when a status follows
// it, and does not replace the status before it.
func TestNoticeStatusesCollapseBlocksStay(t *testing.T) {
	m := startingModel(t)
	base := len(m.chat.Blocks())
	m.notice("info", "first status")
	m.notice("info", "second status")
	if n := len(m.chat.Blocks()) - base; n != 1 {
		t.Fatalf("two statuses made %d rows, want 1", n)
	}
	m.notice("info", "Navigation\n  ctrl+a  line start")
	m.notice("info", "Current model does not support thinking")
	var texts []string
	for _, b := range m.chat.Blocks()[base:] {
		if nb, ok := b.(*chat.NoticeBlock); ok {
			texts = append(texts, nb.Text)
		}
	}
	want := []string{"second status", "Navigation\n  ctrl+a  line start", "Current model does not support thinking"}
	if len(texts) != len(want) {
		t.Fatalf("notices %q, want %q", texts, want)
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Fatalf("notices %q, want %q", texts, want)
		}
	}
}

// TestSubmitFollowsTheEnd: a prompt sent while the transcript is scrolled up brings the view
// back to the end, where the prompt and its answer show.
func TestSubmitFollowsTheEnd(t *testing.T) {
	m := startingModel(t)
	for i := 0; i < 50; i++ {
		m.notice("warning", "row")
	}
	m.chat.View(80, 10)
	m.chat.Scroll(20)
	if m.chat.Following() {
		t.Fatal("the view did not scroll up")
	}
	m.ed.SetText("a prompt")
	m.onKey(tuitest.Key("enter"))
	if !m.chat.Following() {
		t.Fatal("the view stayed scrolled up after a prompt was sent")
	}
}

// TestTinyTerminalKeepsTheSlot: on a 20×5 terminal the editor slot comes before the footer, and
// a dialog taller than the screen shows the window holding its selected row, not its last rows
// (the hint line under the list).
func TestTinyTerminalKeepsTheSlot(t *testing.T) {
	m := startingModel(t)
	m.setSize(20, 5)
	plain := func() []string {
		var out []string
		for _, l := range m.frame().Lines {
			out = append(out, ansi.Strip(l))
		}
		return out
	}
	m.ed.SetText("draft")
	lines := plain()
	if len(lines) != 5 || !slices.Contains(lines, "draft") || !strings.HasPrefix(lines[0], "─") {
		t.Fatalf("the editor is not whole on a 20×5 screen: %q", lines)
	}
	var opts []string
	for i := range 12 {
		opts = append(opts, fmt.Sprintf("option %d", i))
	}
	d := slot.NewSelect(slot.Theme{Fg: m.th.Fg, Bg: m.th.Bg}, slot.Keys{Match: m.km.Matches, Hint: m.km.Hint}, "Pick", opts, 0, nil)
	m.ShowDialog(d)
	for i := range 8 {
		lines = plain()
		want := fmt.Sprintf("→ option %d", i)
		if len(lines) != 5 || !slices.Contains(lines, want) {
			t.Fatalf("selected row %q not on the 20×5 screen: %q", want, lines)
		}
		d.HandleKey(tuitest.Key("down"))
	}
}

// TestReloadUIReadsKeybindings: /reload's screen part reads keybindings.json again; the header,
// the editor and the hints use the new keys.
func TestReloadUIReadsKeybindings(t *testing.T) {
	dir := t.TempDir()
	u := New(Options{AgentDir: dir})
	m := newModel(context.Background(), nil, theme.Dark(), keys.Default(), command.Builtins(), Options{AgentDir: dir}, u.ext)
	if h := m.km.Hint(keys.ThinkingCycle); h != "shift+tab" {
		t.Fatalf("default thinking key %q", h)
	}
	if err := os.WriteFile(filepath.Join(dir, "keybindings.json"), []byte(`{"app.thinking.cycle": "f2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m.ReloadUI()
	if h := m.km.Hint(keys.ThinkingCycle); h != "f2" {
		t.Fatalf("after reload the thinking key is %q, want f2", h)
	}
	if !strings.Contains(ansi.Strip(strings.Join(m.header(), "\n")), "f2 to cycle thinking") {
		t.Fatalf("the header does not show the reloaded key: %q", m.header())
	}
}
