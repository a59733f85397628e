package tui

import (
	"context"
	"testing"

	"github.com/atomic-cli/atomic/mode/tui/chat"
	"github.com/atomic-cli/atomic/mode/tui/command"
	"github.com/atomic-cli/atomic/mode/tui/keys"
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
