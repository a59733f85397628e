package slot

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func TestSelectArrowsAndEnter(t *testing.T) {
	var got int = -1
	var gotOK bool
	s := NewSelect(Plain(), DefaultKeys(), "Pick a colour", []string{"red", "green", "blue"}, 0, func(i int, ok bool) tea.Cmd { got, gotOK = i, ok; return nil })
	golden(t, "select_initial_40", view(s, 40))
	s.HandleKey(key("down"))
	s.HandleKey(key("down"))
	s.HandleKey(key("down")) // wraps to the first
	s.HandleKey(key("j"))
	golden(t, "select_moved_40", view(s, 40))
	s.HandleKey(key("enter"))
	if !s.Done() || !gotOK || got != 1 {
		t.Fatalf("after enter: done %v ok %v choice %d, want done, ok, 1 (green)", s.Done(), gotOK, got)
	}
	s.HandleKey(key("enter")) // a second enter must not call onDone again
}

func TestSelectEscapeCancels(t *testing.T) {
	calls := 0
	s := NewSelect(Plain(), DefaultKeys(), "t", []string{"a"}, 0, func(i int, ok bool) tea.Cmd {
		calls++
		if ok {
			t.Errorf("escape gave a choice %d", i)
		}
		return nil
	})
	s.HandleKey(key("esc"))
	s.Cancel()
	if calls != 1 || !s.Done() {
		t.Fatalf("onDone called %d times, done %v; want once, done", calls, s.Done())
	}
}

func TestConfirmCountdownExpires(t *testing.T) {
	answered := false
	var yes bool
	c := NewConfirm(Plain(), DefaultKeys(), "Delete?", "This removes 3 files", 2500*time.Millisecond, func(y bool) tea.Cmd { answered, yes = true, y; return nil })
	if c.Init() == nil {
		t.Fatal("a timed dialog must start its countdown")
	}
	golden(t, "confirm_timed_50", view(c, 50))
	id := c.cd.id
	c.Update(tickMsg{id: id + 1000}) // another dialog's tick changes nothing
	if c.cd.left != 3 {
		t.Fatalf("a foreign tick moved the countdown to %d", c.cd.left)
	}
	if next := c.Update(tickMsg{id: id}); next == nil {
		t.Fatal("the countdown must re-arm while time is left")
	}
	golden(t, "confirm_timed_after_tick_50", view(c, 50))
	c.Update(tickMsg{id: id})
	if answered {
		t.Fatal("answered with 1s left")
	}
	c.Update(tickMsg{id: id})
	if !answered || yes || !c.Done() {
		t.Fatalf("after expiry: answered %v yes %v done %v; want answered false", answered, yes, c.Done())
	}
}

func TestConfirmYes(t *testing.T) {
	var yes bool
	c := NewConfirm(Plain(), DefaultKeys(), "Proceed?", "", 0, func(y bool) tea.Cmd { yes = y; return nil })
	c.HandleKey(key("enter"))
	if !yes {
		t.Fatal("enter on Yes must confirm")
	}
}

func TestPromptTypesAndSubmits(t *testing.T) {
	var text string
	var ok bool
	p := NewPrompt(Plain(), DefaultKeys(), "Your name", "e.g. Ada", 0, func(s string, o bool) tea.Cmd { text, ok = s, o; return nil })
	golden(t, "prompt_empty_40", view(p, 40))
	typeText(p, "Grace Hopx")
	p.HandleKey(key("backspace"))
	p.HandleKey(key("p"))
	golden(t, "prompt_typed_40", view(p, 40))
	p.HandleKey(key("enter"))
	if !ok || text != "Grace Hopp" {
		t.Fatalf("submitted %q ok %v", text, ok)
	}
}

func TestPromptScrollsLongText(t *testing.T) {
	p := NewPrompt(Plain(), DefaultKeys(), "t", "", 0, nil)
	typeText(p, "abcdefghijklmnopqrstuvwxyz0123456789")
	v := view(p, 20)
	checkWidth(t, v, 20)
	golden(t, "prompt_scrolled_20", v)
}

func TestTextEditorNewlinesAndSubmit(t *testing.T) {
	var text string
	e := NewTextEditor(Plain(), DefaultKeys(), "Commit message", "fix:", func(s string, ok bool) tea.Cmd { text = s; return nil })
	typeText(e, " bug")
	e.HandleKey(key("shift+enter"))
	typeText(e, "details")
	golden(t, "editor_two_lines_40", view(e, 40))
	e.HandleKey(key("enter"))
	if text != "fix: bug\ndetails" {
		t.Fatalf("editor text %q", text)
	}
}

func TestListWindowAndPosition(t *testing.T) {
	var l List
	l.Visible = 3
	l.SetLen(10)
	for range 4 {
		l.Move(key("down"), DefaultKeys())
	}
	if from, to := l.Window(); from != 2 || to != 5 || l.Cursor() != 4 {
		t.Fatalf("window %d..%d cursor %d; want 2..5 cursor 4", from, to, l.Cursor())
	}
	if l.Position() != "(5/10)" {
		t.Fatalf("position %q", l.Position())
	}
	l.Move(key("up"), DefaultKeys())
	l.SetCursor(0)
	l.Move(key("up"), DefaultKeys()) // wraps
	if l.Cursor() != 9 {
		t.Fatalf("up from 0 went to %d, want 9", l.Cursor())
	}
}
