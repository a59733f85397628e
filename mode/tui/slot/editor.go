package slot

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// TextEditor is ctx.ui.editor (tui.md §7.2): multi-line text under a title; enter submits,
// shift+enter / ctrl+j / alt+enter insert a newline, esc/ctrl+c cancel. Each line edits like
// Input; up/down move between lines; paste keeps its newlines.
type TextEditor struct {
	th       Theme
	keys     Keys
	title    string
	lines    []Input
	row      int
	maxLines int
	done     bool
	onDone   func(text string, ok bool) tea.Cmd
}

// NewTextEditor builds an editor dialog prefilled with prefill; onDone is called once with the
// text, or ok false.
func NewTextEditor(th Theme, keys Keys, title, prefill string, onDone func(text string, ok bool) tea.Cmd) *TextEditor {
	e := &TextEditor{th: th, keys: keys, title: title, onDone: onDone}
	for _, l := range strings.Split(prefill, "\n") {
		var in Input
		in.SetValue(l)
		e.lines = append(e.lines, in)
	}
	e.row = len(e.lines) - 1
	return e
}

// Done implements Dialog.
func (e *TextEditor) Done() bool { return e.done }

// Value is the text, lines joined with "\n".
func (e *TextEditor) Value() string {
	parts := make([]string, len(e.lines))
	for i := range e.lines {
		parts[i] = e.lines[i].Value()
	}
	return strings.Join(parts, "\n")
}

// Cancel closes the dialog without text; a no-op once done.
func (e *TextEditor) Cancel() { e.finish("", false) }

func (e *TextEditor) finish(text string, ok bool) tea.Cmd {
	if e.done {
		return nil
	}
	e.done = true
	if e.onDone != nil {
		return e.onDone(text, ok)
	}
	return nil
}

func (e *TextEditor) newline() {
	cur := &e.lines[e.row]
	rest := string(cur.text[cur.cursor:])
	cur.text = cur.text[:cur.cursor]
	var next Input
	next.SetValue(rest)
	next.cursor = 0
	e.lines = append(e.lines[:e.row+1], append([]Input{next}, e.lines[e.row+1:]...)...)
	e.row++
}

// HandlePaste inserts text, keeping its newlines.
func (e *TextEditor) HandlePaste(text string) tea.Cmd {
	for i, part := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if i > 0 {
			e.newline()
		}
		e.lines[e.row].Paste(part)
	}
	return nil
}

// HandleKey implements Dialog.
func (e *TextEditor) HandleKey(m tea.KeyPressMsg) tea.Cmd {
	if e.done {
		return nil
	}
	{
		switch s := m.String(); {
		case s == "shift+enter" || s == "ctrl+j" || s == "alt+enter":
			e.newline()
			return nil
		case e.keys.Is(m, SelectConfirm):
			return e.finish(e.Value(), true)
		case e.keys.Is(m, SelectCancel):
			return e.finish("", false)
		case s == "up" && e.row > 0:
			col := e.lines[e.row].cursor
			e.row--
			e.lines[e.row].cursor = min(col, len(e.lines[e.row].text))
			return nil
		case s == "down" && e.row < len(e.lines)-1:
			col := e.lines[e.row].cursor
			e.row++
			e.lines[e.row].cursor = min(col, len(e.lines[e.row].text))
			return nil
		case s == "backspace" && e.lines[e.row].cursor == 0 && e.row > 0:
			prev := &e.lines[e.row-1]
			at := len(prev.text)
			prev.text = append(prev.text, e.lines[e.row].text...)
			prev.cursor = at
			e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
			e.row--
			return nil
		}
	}
	e.lines[e.row].Update(m)
	return nil
}

// MaxLines bounds the text lines shown (0: all); the view scrolls to the cursor line.
func (e *TextEditor) SetMaxLines(n int) { e.maxLines = n }

// Render implements Dialog.
func (e *TextEditor) Render(width int) []string {
	from, to := 0, len(e.lines)
	if room := e.maxLines; room > 0 && to > room {
		from = max(e.row-room+1, 0)
		to = from + room
	}
	var body []string
	for i := from; i < to; i++ {
		body = append(body, e.lines[i].View(e.th, width, i == e.row, ""))
	}
	hint := Hint(e.th, e.keys.Label(SelectConfirm), "submit", "shift+enter", "newline", e.keys.Label(SelectCancel), "cancel")
	return Fit(Frame(e.th, width, e.title, body, hint), width)
}
