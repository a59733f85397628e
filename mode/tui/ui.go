package tui

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/slot"
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
	branch  string // mirror of the footer's git branch for FooterFacts
	// branchDir is the session's folder (the branch watch reads its repository); branchSubs are
	// the OnBranchChange subscribers.
	branchDir      string
	branchSubs     map[int]func()
	branchSeq      int
	branchWatching bool
	branchRead     bool              // setBranch ran once
	status         map[string]string // mirror of the extension statuses for FooterFacts
	surf           surfMirror

	pacer      renderPacer  // coalesces components' redraws (custom.go)
	cols, rows atomic.Int64 // the terminal size components see
}

func newExtUI(u *UI) *extUI {
	x := &extUI{u: u, endedCh: make(chan struct{})}
	x.cols.Store(80)
	x.rows.Store(24)
	return x
}

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
		if sd, ok := d.(startedDialog); ok {
			return sd.Start()
		}
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

// dialogTimeout is the time left until ctx's deadline, shown as the dialog's countdown (tui.md
// §7.2); 0 when ctx has none.
func dialogTimeout(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Until(dl), time.Millisecond)
	}
	return 0
}

// slotStyle adapts the model's theme and keys for the mode/tui/slot dialogs.
func (m *model) slotStyle() (slot.Theme, slot.Keys) {
	return slot.Theme{Fg: m.th.Fg, Bg: m.th.Bg}, slot.Keys{Match: m.km.Matches, Hint: m.km.Hint}
}

// Select implements ext.UI: a list in the editor slot with the countdown of ctx's deadline.
func (x *extUI) Select(ctx context.Context, title string, options []string) (string, bool) {
	type r struct {
		s  string
		ok bool
	}
	timeout := dialogTimeout(ctx)
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		th, km := m.slotStyle()
		d := slot.NewSelect(th, km, title, options, timeout, func(i int, ok bool) tea.Cmd {
			if ok && i < len(options) {
				answer(r{options[i], true})
			} else {
				answer(r{})
			}
			return nil
		})
		return started(d, d.Init())
	})
	return v.s, v.ok
}

// Confirm implements ext.UI: Yes / No, true only for Yes (tui.md §7.1).
func (x *extUI) Confirm(ctx context.Context, title, message string) bool {
	timeout := dialogTimeout(ctx)
	return ask(ctx, x, false, func(m *model, answer func(bool)) component.Dialog {
		th, km := m.slotStyle()
		d := slot.NewConfirm(th, km, title, message, timeout, func(yes bool) tea.Cmd { answer(yes); return nil })
		return started(d, d.Init())
	})
}

// Input implements ext.UI.
func (x *extUI) Input(ctx context.Context, title, placeholder string) (string, bool) {
	type r struct {
		s  string
		ok bool
	}
	timeout := dialogTimeout(ctx)
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		th, km := m.slotStyle()
		d := slot.NewPrompt(th, km, title, placeholder, timeout, func(s string, ok bool) tea.Cmd { answer(r{s, ok}); return nil })
		return started(d, d.Init())
	})
	return v.s, v.ok
}

// Editor implements ext.UI: multi-line text (no countdown, as pi's; ctx still closes it).
func (x *extUI) Editor(ctx context.Context, title, prefill string) (string, bool) {
	type r struct {
		s  string
		ok bool
	}
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		th, km := m.slotStyle()
		d := slot.NewTextEditor(th, km, title, prefill, func(s string, ok bool) tea.Cmd { answer(r{s, ok}); return nil })
		d.SetMaxLines(max(m.height/3, 3))
		return d
	})
	return v.s, v.ok
}

// startedDialog is a dialog whose first command (a countdown's tick) the host runs when it
// shows it.
type startedDialog interface {
	component.Dialog
	Start() tea.Cmd
}

// withStart pairs a dialog with its first command.
type withStart struct {
	slot.Dialog
	init tea.Cmd
}

func (w withStart) Start() tea.Cmd { return w.init }

// Update forwards timer ticks to the dialog.
func (w withStart) Update(msg tea.Msg) tea.Cmd {
	if u, ok := w.Dialog.(interface{ Update(tea.Msg) tea.Cmd }); ok {
		return u.Update(msg)
	}
	return nil
}

// HandlePaste forwards pastes to the dialog.
func (w withStart) HandlePaste(text string) tea.Cmd {
	if p, ok := w.Dialog.(interface{ HandlePaste(string) tea.Cmd }); ok {
		return p.HandlePaste(text)
	}
	return nil
}

// Cancel forwards an outside close (ctx end) to the dialog.
func (w withStart) Cancel() {
	if c, ok := w.Dialog.(component.Canceller); ok {
		c.Cancel()
	}
}

func started(d slot.Dialog, init tea.Cmd) component.Dialog { return withStart{Dialog: d, init: init} }

// Notify implements ext.UI (tui.md §1.5).
func (x *extUI) Notify(message, level string) {
	if level == "" {
		level = "info"
	}
	x.send(extMsg(func(m *model) tea.Cmd { m.notice(level, message); return nil }))
}

// SetStatus implements ext.UI: text "" clears the key (tui.md §1.3).
func (x *extUI) SetStatus(key, text string) {
	x.mu.Lock()
	if text == "" {
		delete(x.status, key)
	} else {
		if x.status == nil {
			x.status = map[string]string{}
		}
		x.status[key] = sanitizeStatus(text)
	}
	x.mu.Unlock()
	x.send(extMsg(func(m *model) tea.Cmd {
		if text == "" {
			delete(m.statuses, key)
		} else {
			m.statuses[key] = sanitizeStatus(text)
		}
		m.refreshComps()
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

// FooterFacts implements ext.FooterFactsUI: the footer's git branch and the extension statuses
// as of the last update (never waits for the UI).
func (x *extUI) FooterFacts() ext.FooterFacts {
	x.mu.Lock()
	defer x.mu.Unlock()
	st := make(map[string]string, len(x.status))
	for k, v := range x.status {
		st[k] = v
	}
	return ext.FooterFacts{GitBranch: x.branch, Statuses: st}
}

// setBranch updates the git branch FooterFacts reports (and the folder whose repository the
// branch watch reads); a change calls the OnBranchChange subscribers.
func (x *extUI) setBranch(b string) {
	x.mu.Lock()
	// The first read is no change (pi fires only when HEAD changes).
	changed := x.branchRead && x.branch != b
	x.branch = b
	x.branchRead = true
	var subs []func()
	if changed {
		for _, fn := range x.branchSubs {
			subs = append(subs, fn)
		}
	}
	x.mu.Unlock()
	for _, fn := range subs {
		go fn()
	}
}

// branchPoll is how often the branch watch reads .git/HEAD while someone subscribed.
const branchPoll = time.Second

// OnBranchChange implements ext.BranchWatchUI: while there are subscribers a watcher reads the
// repository's HEAD every branchPoll (pi watches the .git folder); a change updates the footer
// and calls them.
func (x *extUI) OnBranchChange(fn func()) func() {
	if fn == nil {
		return func() {}
	}
	x.mu.Lock()
	if x.branchSubs == nil {
		x.branchSubs = map[int]func(){}
	}
	x.branchSeq++
	id := x.branchSeq
	x.branchSubs[id] = fn
	start := !x.branchWatching
	x.branchWatching = true
	x.mu.Unlock()
	if start {
		go x.watchBranch()
	}
	return func() {
		x.mu.Lock()
		delete(x.branchSubs, id)
		x.mu.Unlock()
	}
}

// watchBranch polls the branch until the UI ends or nobody listens.
func (x *extUI) watchBranch() {
	t := time.NewTicker(branchPoll)
	defer t.Stop()
	for {
		select {
		case <-x.endedCh:
			return
		case <-t.C:
		}
		x.mu.Lock()
		if len(x.branchSubs) == 0 {
			x.branchWatching = false
			x.mu.Unlock()
			return
		}
		dir, cur := x.branchDir, x.branch
		x.mu.Unlock()
		if dir == "" {
			continue
		}
		if b := gitBranch(dir); b != cur {
			x.send(extMsg(func(m *model) tea.Cmd {
				m.gitBranch = b
				x.setBranch(b)
				return nil
			}))
		}
	}
}

var _ ext.UI = (*extUI)(nil)
var _ ext.FooterFactsUI = (*extUI)(nil)
var _ ext.BranchWatchUI = (*extUI)(nil)
