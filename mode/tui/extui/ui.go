package extui

import (
	"context"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
)

// Dialog kinds of DialogMsg.
const (
	KindSelect  = "select"
	KindConfirm = "confirm"
	KindInput   = "input"
	KindEditor  = "editor"
)

// DialogMsg asks Host to open a dialog (tui.md §7.2). Timeout is the time left until the
// caller's deadline (0: untimed), shown as the countdown. The answer goes to the reply channel
// (buffered, written once).
type DialogMsg struct {
	ID                                   int64
	Kind                                 string
	Title, Message, Placeholder, Prefill string
	Options                              []string
	Timeout                              time.Duration
	reply                                chan<- Answer
}

// Answer is a dialog's result: OK false means dismissed (escape, timeout, abort).
type Answer struct {
	OK      bool
	Text    string // select: the option; input, editor: the text
	Confirm bool
}

// DismissMsg closes dialog ID with its default result (the caller's ctx ended: timeout or
// AbortSignal).
type DismissMsg struct{ ID int64 }

// NotifyMsg is ctx.ui.notify: Level is info, warning or error (tui.md §1.5). The root shows it in
// the transcript.
type NotifyMsg struct{ Message, Level string }

// StatusMsg is ctx.ui.setStatus: an empty Text clears Key.
type StatusMsg struct{ Key, Text string }

// WidgetMsg is ctx.ui.setWidget with string lines: nil Lines removes Key; Below places it under
// the editor.
type WidgetMsg struct {
	Key   string
	Lines []string
	Below bool
}

// TitleMsg is ctx.ui.setTitle.
type TitleMsg struct{ Title string }

// SetEditorTextMsg is ctx.ui.setEditorText: the root replaces the editor's text.
type SetEditorTextMsg struct{ Text string }

// EditorTextQuery is ctx.ui.getEditorText: the root answers with the editor's expanded text on
// Reply (buffered, written once).
type EditorTextQuery struct{ Reply chan<- string }

// UI is ext.UI for the interactive mode. Construct it with New before the program runs; it is
// safe for concurrent use.
type UI struct {
	send func(tea.Msg)
	done <-chan struct{}
}

var ids atomic.Int64

// New returns the UI posting to send (tea.Program.Send) until done is closed (the program ended;
// pending and later dialogs then resolve to their defaults).
func New(send func(tea.Msg), done <-chan struct{}) *UI { return &UI{send: send, done: done} }

var _ ext.UI = (*UI)(nil)

func (u *UI) post(msg tea.Msg) bool {
	select {
	case <-u.done:
		return false
	default:
	}
	u.send(msg)
	return true
}

// ask opens a dialog and waits for its answer, ctx's end or the program's end.
func (u *UI) ask(ctx context.Context, m DialogMsg) Answer {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		return Answer{}
	}
	if dl, ok := ctx.Deadline(); ok {
		if m.Timeout = time.Until(dl); m.Timeout <= 0 {
			return Answer{}
		}
	}
	reply := make(chan Answer, 1)
	m.ID, m.reply = ids.Add(1), reply
	if !u.post(m) {
		return Answer{}
	}
	select {
	case a := <-reply:
		return a
	case <-ctx.Done():
		u.post(DismissMsg{ID: m.ID})
	case <-u.done:
	}
	return Answer{}
}

// Select implements ext.UI.
func (u *UI) Select(ctx context.Context, title string, options []string) (string, bool) {
	a := u.ask(ctx, DialogMsg{Kind: KindSelect, Title: title, Options: options})
	return a.Text, a.OK
}

// Confirm implements ext.UI: true only for Yes.
func (u *UI) Confirm(ctx context.Context, title, message string) bool {
	a := u.ask(ctx, DialogMsg{Kind: KindConfirm, Title: title, Message: message})
	return a.OK && a.Confirm
}

// Input implements ext.UI.
func (u *UI) Input(ctx context.Context, title, placeholder string) (string, bool) {
	a := u.ask(ctx, DialogMsg{Kind: KindInput, Title: title, Placeholder: placeholder})
	return a.Text, a.OK
}

// Editor implements ext.UI. The editor dialog shows no countdown (pi's has none) but ctx still
// closes it.
func (u *UI) Editor(ctx context.Context, title, prefill string) (string, bool) {
	a := u.ask(ctx, DialogMsg{Kind: KindEditor, Title: title, Prefill: prefill})
	return a.Text, a.OK
}

// Notify implements ext.UI.
func (u *UI) Notify(message, level string) { u.post(NotifyMsg{Message: message, Level: level}) }

// SetStatus implements ext.UI.
func (u *UI) SetStatus(key, text string) { u.post(StatusMsg{Key: key, Text: text}) }

// SetWidget implements ext.UI: the lines go above the editor; nil removes the widget.
func (u *UI) SetWidget(key string, lines []string) { u.post(WidgetMsg{Key: key, Lines: lines}) }

// SetTitle implements ext.UI.
func (u *UI) SetTitle(title string) { u.post(TitleMsg{Title: title}) }

// SetEditorText implements ext.UI.
func (u *UI) SetEditorText(text string) { u.post(SetEditorTextMsg{Text: text}) }

// editorTextWait bounds GetEditorText when the UI loop does not answer (it is stopping).
const editorTextWait = 2 * time.Second

// GetEditorText implements ext.UI: the editor's text as the UI loop last had it; "" once the
// program ended. Never call it from the UI goroutine.
func (u *UI) GetEditorText() string {
	reply := make(chan string, 1)
	if !u.post(EditorTextQuery{Reply: reply}) {
		return ""
	}
	t := time.NewTimer(editorTextWait)
	defer t.Stop()
	select {
	case s := <-reply:
		return s
	case <-u.done:
	case <-t.C:
	}
	return ""
}
