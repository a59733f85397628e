package slot

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// FormField is one field of a Form (ctx.ui.hostInputForm's field, seed 004 "Host-native input
// form"): Type is string, text (multi-line), number, integer, boolean or select; an unknown type
// edits as string. Values are raw strings.
type FormField struct {
	Name, Type, Description, Placeholder string
	Required                             bool
	Choices                              []string
	InitialValue                         string
}

// Form is the host-native input form: a rounded panel with Heading on its top border, Title and
// the field count, one block per field (name with a required/optional badge, its control, its
// description, its error), and the submit button. Tab / Shift+Tab move between fields and the
// button (wrapping); up/down move too, except inside a multi-line text field; Enter moves to the
// next field (a newline in a text field) and, on the button, submits; a select cycles its choices
// with up/down/left/right/space, a boolean toggles with the same keys; Escape and Ctrl+C cancel.
// Submitting checks required fields, select choices and numbers; the first invalid field takes
// the focus and every invalid one shows why.
type Form struct {
	th      Theme
	keys    Keys
	title   string
	heading string
	submit  string
	fields  []FormField
	values  []string
	inputs  []*Input      // single-line fields
	texts   []*TextEditor // multi-line fields
	focus   int           // len(fields): the submit button
	invalid map[int]bool
	done    bool
	onDone  func(values map[string]string, ok bool) tea.Cmd
}

// NewForm builds a form; onDone is called once with the values by field name, or ok false.
func NewForm(th Theme, keys Keys, title, heading, submit string, fields []FormField, onDone func(values map[string]string, ok bool) tea.Cmd) *Form {
	f := &Form{th: th, keys: keys, title: title, heading: heading, submit: submit, onDone: onDone, invalid: map[int]bool{}}
	for _, fl := range fields {
		fl.Choices = append([]string(nil), fl.Choices...)
		f.fields = append(f.fields, fl)
		f.values = append(f.values, fl.InitialValue)
		var in *Input
		var te *TextEditor
		switch fl.Type {
		case "select", "boolean":
		case "text":
			te = NewTextEditor(th, keys, "", fl.InitialValue, nil)
		default:
			in = &Input{}
			in.SetValue(fl.InitialValue)
		}
		f.inputs = append(f.inputs, in)
		f.texts = append(f.texts, te)
	}
	f.focus = 0
	for i := range f.fields {
		if f.reason(i) != "" {
			f.focus = i
			break
		}
	}
	return f
}

// Done implements Dialog.
func (f *Form) Done() bool { return f.done }

// Cancel closes the form without values; a no-op once done.
func (f *Form) Cancel() { f.finish(nil, false) }

func (f *Form) finish(values map[string]string, ok bool) tea.Cmd {
	if f.done {
		return nil
	}
	f.done = true
	if f.onDone != nil {
		return f.onDone(values, ok)
	}
	return nil
}

// value is field i's current raw value.
func (f *Form) value(i int) string {
	switch {
	case f.inputs[i] != nil:
		return f.inputs[i].Value()
	case f.texts[i] != nil:
		return f.texts[i].Value()
	}
	return f.values[i]
}

// Values are the current raw values by field name.
func (f *Form) Values() map[string]string {
	out := make(map[string]string, len(f.fields))
	for i, fl := range f.fields {
		out[fl.Name] = f.value(i)
	}
	return out
}

// reason is why field i's value is invalid, "" when it is valid.
func (f *Form) reason(i int) string {
	fl, v := f.fields[i], f.value(i)
	switch {
	case fl.Required && strings.TrimSpace(v) == "":
		return "required"
	case fl.Type == "select" && v != "" && !contains(fl.Choices, v):
		return "not in choices"
	case (fl.Type == "number" || fl.Type == "integer") && strings.TrimSpace(v) != "" && !isNumber(v):
		return "must be a number"
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isNumber reports whether v is a finite number (JavaScript's Number(v) being finite, for the
// decimal forms).
func isNumber(v string) bool {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return err == nil && n-n == 0
}

func (f *Form) move(delta int) {
	n := len(f.fields) + 1
	f.focus = ((f.focus+delta)%n + n) % n
}

func (f *Form) submitNow() tea.Cmd {
	f.invalid = map[int]bool{}
	first := -1
	for i := range f.fields {
		if f.reason(i) != "" {
			f.invalid[i] = true
			if first < 0 {
				first = i
			}
		}
	}
	if first >= 0 {
		f.focus = first
		return nil
	}
	return f.finish(f.Values(), true)
}

// HandlePaste types the paste into the focused text field (its first line in a one-line field).
func (f *Form) HandlePaste(text string) tea.Cmd {
	if f.done || f.focus >= len(f.fields) {
		return nil
	}
	switch {
	case f.inputs[f.focus] != nil:
		f.inputs[f.focus].Paste(text)
	case f.texts[f.focus] != nil:
		f.texts[f.focus].HandlePaste(text)
	}
	return nil
}

// HandleKey implements Dialog.
func (f *Form) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if f.done {
		return nil
	}
	s := k.String()
	switch {
	case s == "esc" || s == "ctrl+c" || f.keys.Is(k, SelectCancel):
		return f.finish(nil, false)
	case s == "shift+tab":
		f.move(-1)
		return nil
	case s == "tab":
		f.move(1)
		return nil
	}
	enter := s == "enter" || f.keys.Is(k, SelectConfirm)
	up := s == "up" || f.keys.Is(k, SelectUp)
	down := s == "down" || f.keys.Is(k, SelectDown)
	if f.focus >= len(f.fields) {
		switch {
		case up:
			f.move(-1)
		case down:
			f.move(1)
		case enter:
			return f.submitNow()
		}
		return nil
	}
	i := f.focus
	fl := f.fields[i]
	switch {
	case fl.Type == "select":
		if len(fl.Choices) == 0 {
			if enter {
				f.move(1)
			}
			return nil
		}
		cur := max(indexOf(fl.Choices, f.values[i]), 0)
		switch {
		case up || s == "left":
			f.values[i] = fl.Choices[(cur-1+len(fl.Choices))%len(fl.Choices)]
		case down || s == "right" || s == "space":
			f.values[i] = fl.Choices[(cur+1)%len(fl.Choices)]
		case enter:
			f.move(1)
		}
	case fl.Type == "boolean":
		switch {
		case up || down || s == "left" || s == "right" || s == "space":
			if f.values[i] == "true" {
				f.values[i] = "false"
			} else {
				f.values[i] = "true"
			}
		case enter:
			f.move(1)
		}
	case f.texts[i] != nil:
		te := f.texts[i]
		switch {
		case enter || s == "shift+enter" || s == "ctrl+j" || s == "alt+enter":
			te.newline()
		case up && te.row == 0:
			f.move(-1)
		case down && te.row == len(te.lines)-1:
			f.move(1)
		default:
			te.HandleKey(k)
		}
	default:
		switch {
		case up:
			f.move(-1)
		case down, enter:
			f.move(1)
		default:
			f.inputs[i].Update(k)
		}
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// Render implements Dialog.
func (f *Form) Render(width int) []string {
	th := f.th
	inner := max(width-2, 2) // between the side borders
	cw := max(inner-2, 8)    // content, one cell of padding each side
	const indent = "  "
	ctl := max(cw-len(indent), 1)
	var body []string
	count := strconv.Itoa(len(f.fields)) + " fields"
	if len(f.fields) == 1 {
		count = "1 field"
	}
	title := ansi.Truncate(f.title, max(cw-len(count)-5, 4), "…")
	body = append(body, th.Text(Bold(title))+th.Dim("  ·  "+count), "")
	for i, fl := range f.fields {
		active := i == f.focus
		badge := "optional"
		styleBadge := th.Dim
		if fl.Required {
			badge, styleBadge = "required", th.Warning
		}
		marker := " "
		name := ansi.Truncate(fl.Name, max(cw-len(badge)-3, 4), "…")
		styled := th.Text(name)
		if active {
			marker, styled = th.Accent("▸"), th.Accent(Bold(name))
		}
		gap := max(cw-2-ansi.StringWidth(name)-len(badge), 1)
		body = append(body, marker+" "+styled+strings.Repeat(" ", gap)+styleBadge(badge))
		for _, l := range f.control(i, ctl, active) {
			body = append(body, indent+l)
		}
		if fl.Description != "" {
			for _, l := range strings.Split(ansi.Wordwrap(fl.Description, ctl, ""), "\n") {
				body = append(body, indent+th.Muted(l))
			}
		}
		if f.invalid[i] {
			r := f.reason(i)
			if r == "" {
				r = "invalid"
			}
			body = append(body, indent+th.Error("✗ "+r))
		}
		body = append(body, "")
	}
	marker, pill := " ", th.Dim(f.submit)
	if f.focus == len(f.fields) {
		marker, pill = th.Accent("▸"), th.Selected(th.Accent(f.submit))
	}
	body = append(body, marker+" "+pill, "")
	sep := th.Dim("  ·  ")
	body = append(body, th.Accent("Tab")+" "+th.Dim("move")+sep+th.Accent("Enter")+" "+th.Dim("continue / run")+sep+th.Accent("Esc")+" "+th.Dim("cancel"))

	head := ""
	if f.heading != "" {
		head = " " + th.Accent(Bold(f.heading)) + " "
	}
	out := []string{th.Border("╭") + head + th.Border(strings.Repeat("─", max(inner-ansi.StringWidth(head), 0))) + th.Border("╮")}
	for _, l := range body {
		if ansi.StringWidth(l) > cw {
			l = ansi.Truncate(l, cw, "…")
		}
		out = append(out, th.Border("│")+" "+l+strings.Repeat(" ", max(cw-ansi.StringWidth(l), 0))+" "+th.Border("│"))
	}
	out = append(out, th.Border("╰")+th.Border(strings.Repeat("─", inner))+th.Border("╯"))
	return Fit(out, width)
}

// control is field i's input lines at width.
func (f *Form) control(i, width int, active bool) []string {
	fl := f.fields[i]
	th := f.th
	switch {
	case fl.Type == "select":
		var out []string
		for _, c := range fl.Choices {
			if c == f.values[i] {
				out = append(out, th.Accent("●")+" "+c)
			} else {
				out = append(out, th.Dim("○")+" "+c)
			}
		}
		return out
	case fl.Type == "boolean":
		on, off := "○ on", "○ off"
		if f.values[i] == "true" {
			on = th.Accent("● on")
		}
		if f.values[i] == "false" {
			off = th.Accent("● off")
		}
		return []string{on, off}
	case f.texts[i] != nil:
		te := f.texts[i]
		if te.Value() == "" && fl.Placeholder != "" && !active {
			return []string{th.Dim(ansi.Truncate(fl.Placeholder, width, "…"))}
		}
		var out []string
		for j := range te.lines {
			out = append(out, te.lines[j].View(th, width, active && j == te.row, ""))
		}
		return out
	}
	return []string{f.inputs[i].View(th, width, active, fl.Placeholder)}
}
