package tui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/dialog"
)

// extMsg runs on the Bubble Tea goroutine: the way extension UI calls reach the model.
type extMsg func(m *model) tea.Cmd

// extUI is ctx.ui in interactive mode (tui.md §7.1). Its methods are called from extension
// goroutines; each becomes an extMsg for the Bubble Tea loop, so a slow or hung extension never
// holds the UI, and the UI never holds an extension longer than the loop takes to receive the
// message. Dialogs block their caller (not the UI) until answered, cancelled by the caller's
// context, or the UI ends.
type extUI struct {
	u *UI

	mu      sync.Mutex // guards everything below
	prog    *tea.Program
	early   []tea.Msg // messages sent before the program existed
	ended   bool
	endedCh chan struct{}
	text    string // mirror of the editor text for GetEditorText
}

func newExtUI(u *UI) *extUI { return &extUI{u: u, endedCh: make(chan struct{})} }

func (x *extUI) attach(p *tea.Program) {
	x.mu.Lock()
	x.prog = p
	x.mu.Unlock()
}

// flushCmd delivers the messages sent before the program started, in order.
func (x *extUI) flushCmd() tea.Cmd {
	x.mu.Lock()
	early := x.early
	x.early = nil
	x.mu.Unlock()
	if len(early) == 0 {
		return nil
	}
	return func() tea.Msg {
		return extMsg(func(m *model) tea.Cmd {
			var cmds []tea.Cmd
			for _, e := range early {
				if f, ok := e.(extMsg); ok {
					cmds = append(cmds, f(m))
				}
			}
			return tea.Batch(cmds...)
		})
	}
}

func (x *extUI) detach() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.ended {
		x.ended = true
		close(x.endedCh)
	}
	x.prog = nil
}

// send hands msg to the program (blocking until its loop receives it, or returns at once when
// the program has ended); before the program exists it is kept for the first frame.
func (x *extUI) send(msg tea.Msg) {
	x.mu.Lock()
	if x.ended {
		x.mu.Unlock()
		return
	}
	p := x.prog
	if p == nil {
		x.early = append(x.early, msg)
		x.mu.Unlock()
		return
	}
	x.mu.Unlock()
	p.Send(msg)
}

func (x *extUI) setMirror(text string) {
	x.mu.Lock()
	x.text = text
	x.mu.Unlock()
}

// ask shows the dialog build makes and waits for its answer, ctx's end (the dialog is cancelled
// and closed), or the end of the UI.
func ask[T any](ctx context.Context, x *extUI, def T, build func(m *model, answer func(T)) component.Dialog) T {
	res := make(chan T, 1)
	var shown component.Dialog
	var once sync.Once
	answer := func(v T) { once.Do(func() { res <- v }) }
	var dmu sync.Mutex
	x.send(extMsg(func(m *model) tea.Cmd {
		d := build(m, answer)
		dmu.Lock()
		shown = d
		dmu.Unlock()
		if ctx.Err() != nil {
			return nil
		}
		m.ShowDialog(d)
		return nil
	}))
	select {
	case v := <-res:
		return v
	case <-ctx.Done():
		x.send(extMsg(func(m *model) tea.Cmd {
			dmu.Lock()
			d := shown
			dmu.Unlock()
			if c, ok := d.(component.Canceller); ok {
				c.Cancel()
			}
			m.popDone()
			return nil
		}))
		return def
	case <-x.endedCh:
		return def
	}
}

// Select implements ext.UI.
func (x *extUI) Select(ctx context.Context, title string, options []string) (string, bool) {
	type r struct {
		s  string
		ok bool
	}
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		return dialog.NewSelect(m.th, m.km, title, options, func(c string, ok bool) { answer(r{c, ok}) })
	})
	return v.s, v.ok
}

// Confirm implements ext.UI: Yes / No, true only for Yes (tui.md §7.1).
func (x *extUI) Confirm(ctx context.Context, title, message string) bool {
	t := title
	if message != "" {
		t += "\n" + message
	}
	return ask(ctx, x, false, func(m *model, answer func(bool)) component.Dialog {
		return dialog.NewSelect(m.th, m.km, t, []string{"Yes", "No"}, func(c string, ok bool) { answer(ok && c == "Yes") })
	})
}

// Input implements ext.UI.
func (x *extUI) Input(ctx context.Context, title, placeholder string) (string, bool) {
	type r struct {
		s  string
		ok bool
	}
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		return dialog.NewInput(m.th, m.km, title, placeholder, "", func(s string, ok bool) { answer(r{s, ok}) })
	})
	return v.s, v.ok
}

// Editor implements ext.UI (a single-line input prefilled until the multi-line dialog lands).
func (x *extUI) Editor(ctx context.Context, title, prefill string) (string, bool) {
	type r struct {
		s  string
		ok bool
	}
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		return dialog.NewInput(m.th, m.km, title, "", prefill, func(s string, ok bool) { answer(r{s, ok}) })
	})
	return v.s, v.ok
}

// Notify implements ext.UI (tui.md §1.5).
func (x *extUI) Notify(message, level string) {
	if level == "" {
		level = "info"
	}
	x.send(extMsg(func(m *model) tea.Cmd { m.notice(level, message); return nil }))
}

// SetStatus implements ext.UI: text "" clears the key (tui.md §1.3).
func (x *extUI) SetStatus(key, text string) {
	x.send(extMsg(func(m *model) tea.Cmd {
		if text == "" {
			delete(m.statuses, key)
		} else {
			m.statuses[key] = sanitizeStatus(text)
		}
		return nil
	}))
}

// SetWidget implements ext.UI: lines above the editor; nil or empty removes the widget.
func (x *extUI) SetWidget(key string, lines []string) {
	lines = append([]string(nil), lines...)
	x.send(extMsg(func(m *model) tea.Cmd {
		m.setWidget(key, lines, false)
		return nil
	}))
}

// SetTitle implements ext.UI (the terminal title, OSC 0).
func (x *extUI) SetTitle(title string) {
	x.send(extMsg(func(m *model) tea.Cmd { m.title = title; return nil }))
}

// SetEditorText implements ext.UI.
func (x *extUI) SetEditorText(text string) {
	x.send(extMsg(func(m *model) tea.Cmd { m.ed.SetText(text); return nil }))
}

// GetEditorText implements ext.UI: the text as of the last update (never waits for the UI).
func (x *extUI) GetEditorText() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.text
}

var _ ext.UI = (*extUI)(nil)

// setWidget replaces, adds (at the end) or removes a widget.
func (m *model) setWidget(key string, lines []string, below bool) {
	for i, w := range m.widgets {
		if w.key == key {
			if len(lines) == 0 {
				m.widgets = append(m.widgets[:i], m.widgets[i+1:]...)
			} else {
				m.widgets[i] = widget{key: key, lines: lines, below: below}
			}
			return
		}
	}
	if len(lines) > 0 {
		m.widgets = append(m.widgets, widget{key: key, lines: lines, below: below})
	}
}
