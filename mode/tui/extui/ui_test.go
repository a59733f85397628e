package extui

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/slot"
)

// loop stands in for the Bubble Tea goroutine: it owns a Host and applies every posted message.
type loop struct {
	msgs chan tea.Msg
	host *Host
	done chan struct{}
}

func newLoop() *loop {
	return &loop{msgs: make(chan tea.Msg, 16), host: NewHost(slot.Plain(), slot.DefaultKeys()), done: make(chan struct{})}
}

func (l *loop) ui() *UI { return New(func(m tea.Msg) { l.msgs <- m }, l.done) }

// next applies one posted message on the test goroutine (the "UI goroutine").
func (l *loop) next(t *testing.T) tea.Msg {
	t.Helper()
	select {
	case m := <-l.msgs:
		l.host.Update(m)
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message was posted")
		return nil
	}
}

func press(code rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code} }

func TestSelectAnsweredWithArrowsAndEnter(t *testing.T) {
	l := newLoop()
	got := make(chan string, 1)
	go func() {
		v, ok := l.ui().Select(context.Background(), "Deploy to", []string{"staging", "production"})
		if !ok {
			v = "<dismissed>"
		}
		got <- v
	}()
	l.next(t)
	d := l.host.Dialog()
	if d == nil {
		t.Fatal("no dialog in the slot after the select request")
	}
	d.HandleKey(press(tea.KeyDown))
	d.HandleKey(press(tea.KeyEnter))
	if v := <-got; v != "production" {
		t.Fatalf("Select returned %q, want production", v)
	}
	if l.host.Dialog() != nil {
		t.Fatal("the answered dialog is still in the slot")
	}
}

func TestTimedConfirmExpiresToFalse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLoop()
		got := make(chan bool, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			got <- l.ui().Confirm(ctx, "Allow rm -rf?", "in /tmp/x")
		}()
		l.next(t)
		d := l.host.Dialog()
		if d == nil {
			t.Fatal("no confirm dialog")
		}
		if view := strings.Join(d.Render(40), "\n"); !strings.Contains(view, "in /tmp/x (3s)") {
			t.Fatalf("countdown missing from the title:\n%s", view)
		}
		time.Sleep(3 * time.Second) // the caller's deadline passes; it dismisses the dialog
		synctest.Wait()
		if m, ok := l.next(t).(DismissMsg); !ok {
			t.Fatalf("after the deadline the UI posted %#v, want a DismissMsg", m)
		}
		if yes := <-got; yes {
			t.Fatal("an expired confirm answered yes")
		}
		if l.host.Dialog() != nil {
			t.Fatal("the expired dialog is still shown")
		}
	})
}

func TestAbortedContextShowsNothing(t *testing.T) {
	l := newLoop()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := l.ui().Input(ctx, "Name", ""); ok {
		t.Fatal("an aborted input returned text")
	}
	select {
	case m := <-l.msgs:
		t.Fatalf("an already-aborted dialog posted %#v", m)
	default:
	}
}

func TestAbortWhileOpenDismisses(t *testing.T) {
	l := newLoop()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan bool, 1)
	go func() {
		_, ok := l.ui().Editor(ctx, "Notes", "draft")
		got <- ok
	}()
	l.next(t)
	if l.host.Dialog() == nil {
		t.Fatal("no editor dialog")
	}
	cancel()
	if ok := <-got; ok {
		t.Fatal("an aborted editor returned text")
	}
	l.next(t) // the DismissMsg
	if l.host.Dialog() != nil {
		t.Fatal("the aborted dialog is still shown")
	}
}

func TestProgramEndResolvesDialogs(t *testing.T) {
	l := newLoop()
	got := make(chan bool, 1)
	go func() {
		_, ok := l.ui().Select(context.Background(), "t", []string{"a"})
		got <- ok
	}()
	l.next(t)
	close(l.done)
	if <-got {
		t.Fatal("a dialog answered after the program ended")
	}
	if s := l.ui().GetEditorText(); s != "" {
		t.Fatalf("GetEditorText after the end = %q", s)
	}
}

func TestStackedDialogsShowNewestFirst(t *testing.T) {
	l := newLoop()
	first, second := make(chan string, 1), make(chan string, 1)
	go func() { v, _ := l.ui().Select(context.Background(), "first", []string{"1"}); first <- v }()
	l.next(t)
	go func() { v, _ := l.ui().Select(context.Background(), "second", []string{"2"}); second <- v }()
	l.next(t)
	l.host.Dialog().HandleKey(press(tea.KeyEnter))
	if v := <-second; v != "2" {
		t.Fatalf("second = %q", v)
	}
	l.host.Dialog().HandleKey(press(tea.KeyEnter))
	if v := <-first; v != "1" {
		t.Fatalf("first = %q", v)
	}
}

func TestGetEditorTextAsksTheLoop(t *testing.T) {
	l := newLoop()
	got := make(chan string, 1)
	go func() { got <- l.ui().GetEditorText() }()
	m := <-l.msgs
	q, ok := m.(EditorTextQuery)
	if !ok {
		t.Fatalf("posted %#v, want EditorTextQuery", m)
	}
	q.Reply <- "half a prompt"
	if s := <-got; s != "half a prompt" {
		t.Fatalf("GetEditorText = %q", s)
	}
}

func TestStatusesAndWidgets(t *testing.T) {
	l := newLoop()
	u := l.ui()
	u.SetStatus("b-build", "build:\tok\n")
	u.SetStatus("a-git", "git  clean")
	u.SetStatus("gone", "x")
	u.SetStatus("gone", "")
	u.SetWidget("todo", []string{"[ ] write tests", "[x] land"})
	lines := make([]string, 12)
	for i := range lines {
		lines[i] = "line"
	}
	u.SetWidget("long", lines)
	u.SetWidget("todo", []string{"[x] write tests"}) // replaces, moves to the end
	for range 7 {
		l.next(t)
	}
	h := l.host
	if got := strings.Join(h.Statuses(), "|"); got != "git clean|build: ok" {
		t.Fatalf("statuses %q", got)
	}
	if got := h.StatusLine(12); got != "git clean..." {
		t.Fatalf("truncated status line %q", got)
	}
	w := h.Widgets(false, 30)
	if len(w) != 13 || w[10] != " ... (widget truncated)" || w[11] != "" || w[12] != " [x] write tests" {
		t.Fatalf("widgets:\n%s", strings.Join(w, "\n"))
	}
	if len(h.Widgets(true, 30)) != 0 {
		t.Fatal("no widget was placed below")
	}
}
