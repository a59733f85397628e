// Package dialog holds the dialogs that take the editor slot (tui.md §7.2, §10): the extension
// select/confirm/input/editor dialogs, and the selectors built on them. Each is a
// component.Dialog: it renders lines for a width, takes every key while shown, reports Done, and
// hands its result to the callback it was made with exactly once (also when cancelled).
//
// dialog imports mode/tui/component, mode/tui/keys and mode/tui/theme. Dialogs are owned by the
// Bubble Tea goroutine.
package dialog

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

// Frame draws the dialog frame of tui.md §7.2: a rule, blank, title (accent, bold), blank, the
// body, blank, the hint line (dim), blank, a rule.
func Frame(th *theme.Theme, width int, title string, body []string, hint string) []string {
	rule := th.Fg("border", strings.Repeat("─", width))
	out := []string{rule, ""}
	for _, l := range component.Wrap(title, max(width-1, 1)) {
		out = append(out, " "+theme.Bold(th.Fg("accent", l)))
	}
	out = append(out, "")
	out = append(out, body...)
	out = append(out, "", " "+th.Fg("dim", hint), "", rule)
	return component.Lines(out).Render(width)
}

// Select is a list of options; Enter picks the highlighted one, Escape or Ctrl+C cancels.
type Select struct {
	th      *theme.Theme
	km      *keys.Map
	title   string
	options []string
	sel     int
	done    bool
	onDone  func(choice string, ok bool)
}

// NewSelect returns a select dialog; onDone receives the chosen option, or ok false when
// cancelled.
func NewSelect(th *theme.Theme, km *keys.Map, title string, options []string, onDone func(choice string, ok bool)) *Select {
	return &Select{th: th, km: km, title: title, options: options, onDone: onDone}
}

// SetTitle replaces the title (a countdown updates it).
func (s *Select) SetTitle(t string) { s.title = t }

// Render implements component.Component.
func (s *Select) Render(width int) []string {
	var body []string
	for i, o := range s.options {
		o = strings.ReplaceAll(o, "\n", " ")
		if i == s.sel {
			body = append(body, s.th.Fg("accent", "→ "+o))
		} else {
			body = append(body, "  "+s.th.Fg("text", o))
		}
	}
	return Frame(s.th, width, s.title, body, "↑↓ navigate  "+s.km.Hint(keys.SelectConfirm)+" select  esc cancel")
}

// HandleKey implements component.Dialog.
func (s *Select) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if s.done {
		return nil
	}
	switch {
	case s.km.Matches(k, keys.SelectUp) || k.Text == "k":
		if len(s.options) > 0 {
			s.sel = (s.sel - 1 + len(s.options)) % len(s.options)
		}
	case s.km.Matches(k, keys.SelectDown) || k.Text == "j":
		if len(s.options) > 0 {
			s.sel = (s.sel + 1) % len(s.options)
		}
	case s.km.Matches(k, keys.SelectConfirm) || keys.Press(k) == "ctrl+j":
		if len(s.options) == 0 {
			s.finish("", false)
		} else {
			s.finish(s.options[s.sel], true)
		}
	case s.km.Matches(k, keys.SelectCancel):
		s.finish("", false)
	}
	return nil
}

func (s *Select) finish(choice string, ok bool) {
	if s.done {
		return
	}
	s.done = true
	if s.onDone != nil {
		s.onDone(choice, ok)
	}
}

// Cancel implements component.Canceller.
func (s *Select) Cancel() { s.finish("", false) }

// Done implements component.Dialog.
func (s *Select) Done() bool { return s.done }

// Input is a single-line text input; Enter submits, Escape or Ctrl+C cancels.
type Input struct {
	th          *theme.Theme
	km          *keys.Map
	title       string
	placeholder string
	value       []rune
	cur         int
	done        bool
	onDone      func(text string, ok bool)
}

// NewInput returns an input dialog prefilled with value; onDone receives the text, or ok false
// when cancelled. The placeholder shows dim while the input is empty.
func NewInput(th *theme.Theme, km *keys.Map, title, placeholder, value string, onDone func(text string, ok bool)) *Input {
	v := []rune(value)
	return &Input{th: th, km: km, title: title, placeholder: placeholder, value: v, cur: len(v), onDone: onDone}
}

// SetTitle replaces the title (a countdown updates it).
func (in *Input) SetTitle(t string) { in.title = t }

// Render implements component.Component.
func (in *Input) Render(width int) []string {
	line := " " + string(in.value)
	if len(in.value) == 0 && in.placeholder != "" {
		line = " " + in.th.Fg("dim", in.placeholder)
	}
	return Frame(in.th, width, in.title, []string{component.Truncate(line, width, "")}, in.km.Hint(keys.Submit)+" submit  esc cancel")
}

// Cursor implements component.Cursor: the cell after the typed text on the body row.
func (in *Input) Cursor() (int, int, bool) {
	return 4, 1 + component.Width(string(in.value[:in.cur])), true
}

// HandleKey implements component.Dialog.
func (in *Input) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if in.done {
		return nil
	}
	switch {
	case in.km.Matches(k, keys.Submit):
		in.finish(string(in.value), true)
	case in.km.Matches(k, keys.SelectCancel):
		in.finish("", false)
	case in.km.Matches(k, keys.DeleteCharBackward):
		if in.cur > 0 {
			in.value = append(in.value[:in.cur-1], in.value[in.cur:]...)
			in.cur--
		}
	case in.km.Matches(k, keys.CursorLeft):
		if in.cur > 0 {
			in.cur--
		}
	case in.km.Matches(k, keys.CursorRight):
		if in.cur < len(in.value) {
			in.cur++
		}
	case k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0:
		r := []rune(k.Text)
		in.value = append(in.value[:in.cur], append(r, in.value[in.cur:]...)...)
		in.cur += len(r)
	}
	return nil
}

// HandlePaste implements component.Paster (newlines become spaces).
func (in *Input) HandlePaste(text string) tea.Cmd {
	r := []rune(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(text))
	in.value = append(in.value[:in.cur], append(r, in.value[in.cur:]...)...)
	in.cur += len(r)
	return nil
}

func (in *Input) finish(text string, ok bool) {
	if in.done {
		return
	}
	in.done = true
	if in.onDone != nil {
		in.onDone(text, ok)
	}
}

// Cancel implements component.Canceller.
func (in *Input) Cancel() { in.finish("", false) }

// Done implements component.Dialog.
func (in *Input) Done() bool { return in.done }
