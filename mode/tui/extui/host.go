package extui

import (
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/mode/tui/slot"
)

// maxWidgetLines is the line limit of a string widget (tui.md §7.1).
const maxWidgetLines = 10

// Host is the UI-goroutine side of ctx.ui: the extension dialogs (newest on top; closing one
// shows the one under it), statuses, widgets and title. The zero value is not usable; use
// NewHost.
type Host struct {
	th      slot.Theme
	keys    slot.Keys
	open    []openDialog
	status  map[string]string
	widgets []widget
	title   string
}

type openDialog struct {
	id   int64
	slot slot.Dialog
}

type widget struct {
	key   string
	lines []string
	below bool
}

// NewHost returns a Host drawing with th and keys.
func NewHost(th slot.Theme, keys slot.Keys) *Host {
	return &Host{th: th, keys: keys, status: map[string]string{}}
}

// SetTheme changes the colours of dialogs opened from now on.
func (h *Host) SetTheme(th slot.Theme) { h.th = th }

// Update consumes the messages of this package (UI's posts and the open dialogs' timers);
// handled is false for any other message. NotifyMsg, SetEditorTextMsg and EditorTextQuery are
// the root's to handle and are left unhandled here.
func (h *Host) Update(msg tea.Msg) (handled bool, cmd tea.Cmd) {
	switch m := msg.(type) {
	case DialogMsg:
		slot, init := h.build(m)
		h.open = append(h.open, openDialog{id: m.ID, slot: slot})
		return true, init
	case DismissMsg:
		for _, d := range h.open {
			if d.id == m.ID {
				if c, ok := d.slot.(interface{ Cancel() }); ok {
					c.Cancel()
				}
			}
		}
		h.prune()
		return true, nil
	case StatusMsg:
		if m.Text == "" {
			delete(h.status, m.Key)
		} else {
			h.status[m.Key] = m.Text
		}
		return true, nil
	case WidgetMsg:
		for i, w := range h.widgets {
			if w.key == m.Key {
				h.widgets = append(h.widgets[:i], h.widgets[i+1:]...)
				break
			}
		}
		if m.Lines != nil {
			h.widgets = append(h.widgets, widget{key: m.Key, lines: m.Lines, below: m.Below})
		}
		return true, nil
	case TitleMsg:
		h.title = m.Title
		return true, nil // the root puts Title() into its View's WindowTitle
	}
	// Timer ticks of the open dialogs.
	var cmds []tea.Cmd
	for _, d := range h.open {
		if u, ok := d.slot.(interface{ Update(tea.Msg) tea.Cmd }); ok {
			cmds = append(cmds, u.Update(msg))
		}
	}
	h.prune()
	return false, tea.Batch(cmds...)
}

func (h *Host) build(m DialogMsg) (slot.Dialog, tea.Cmd) {
	reply := m.reply
	answer := func(a Answer) {
		select {
		case reply <- a:
		default:
		}
	}
	switch m.Kind {
	case KindConfirm:
		d := slot.NewConfirm(h.th, h.keys, m.Title, m.Message, m.Timeout, func(yes bool) tea.Cmd { answer(Answer{OK: true, Confirm: yes}); return nil })
		return d, d.Init()
	case KindInput:
		d := slot.NewPrompt(h.th, h.keys, m.Title, m.Placeholder, m.Timeout, func(s string, ok bool) tea.Cmd { answer(Answer{OK: ok, Text: s}); return nil })
		return d, d.Init()
	case KindEditor:
		d := slot.NewTextEditor(h.th, h.keys, m.Title, m.Prefill, func(s string, ok bool) tea.Cmd { answer(Answer{OK: ok, Text: s}); return nil })
		d.SetMaxLines(12)
		return d, nil
	default:
		opts := m.Options
		d := slot.NewSelect(h.th, h.keys, m.Title, opts, m.Timeout, func(i int, ok bool) tea.Cmd {
			if ok && i < len(opts) {
				answer(Answer{OK: true, Text: opts[i]})
			} else {
				answer(Answer{})
			}
			return nil
		})
		return d, d.Init()
	}
}

func (h *Host) prune() {
	kept := h.open[:0]
	for _, d := range h.open {
		if !d.slot.Done() {
			kept = append(kept, d)
		}
	}
	clear(h.open[len(kept):])
	h.open = kept
}

// Dialog returns the dialog to show in the editor slot, nil when none is open. The root sends it
// keys and pastes; closed dialogs drop out by themselves.
func (h *Host) Dialog() slot.Dialog {
	h.prune()
	if len(h.open) == 0 {
		return nil
	}
	return h.open[len(h.open)-1].slot
}

// CancelAll dismisses every open dialog with its default (shutdown, session replacement).
func (h *Host) CancelAll() {
	for _, d := range h.open {
		if c, ok := d.slot.(interface{ Cancel() }); ok {
			c.Cancel()
		}
	}
	h.prune()
}

// Reset clears statuses and widgets (tui.md §7.3 resetExtensionUI: reload, session switch).
func (h *Host) Reset() {
	clear(h.status)
	h.widgets = nil
}

// Title is the last title an extension set ("" when none).
func (h *Host) Title() string { return h.title }

// Statuses returns the extension statuses sorted by key, each sanitised (CR, LF, TAB → space,
// runs of spaces collapsed, trimmed; tui.md §1.3 line 3).
func (h *Host) Statuses() []string {
	keys := make([]string, 0, len(h.status))
	for k := range h.status {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, strings.Join(strings.Fields(h.status[k]), " "))
	}
	return out
}

// StatusLine is the footer's status line: Statuses joined with one space, truncated to width
// with a dim "..."; "" when there are none.
func (h *Host) StatusLine(width int) string {
	s := strings.Join(h.Statuses(), " ")
	if s == "" || ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, max(width-3, 0), "") + h.th.Dim("...")
}

// Widgets renders the widgets of one placement in insertion order: each line padded by one
// column, at most 10 lines then "... (widget truncated)" (muted), a blank line between widgets.
func (h *Host) Widgets(below bool, width int) []string {
	var out []string
	for _, w := range h.widgets {
		if w.below != below {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		for i, l := range w.lines {
			if i == maxWidgetLines {
				out = append(out, " "+h.th.Muted("... (widget truncated)"))
				break
			}
			l = " " + strings.NewReplacer("\r", "", "\n", " ", "\t", "   ").Replace(l)
			if ansi.StringWidth(l) > width {
				l = ansi.Truncate(l, width, "")
			}
			out = append(out, l)
		}
	}
	return out
}
