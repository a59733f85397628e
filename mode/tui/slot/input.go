package slot

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Input is a single-line text input: printable keys insert, backspace/delete, left/right,
// home/end (ctrl+a/ctrl+e), ctrl+u / ctrl+k delete to the line start / end, ctrl+w and
// alt+backspace delete a word, and bracketed paste inserts its first line. The zero value is an
// empty input. It has no timers (no blinking cursor).
type Input struct {
	text   []rune
	cursor int
}

// SetValue replaces the text and puts the cursor at its end.
func (in *Input) SetValue(s string) { in.text = []rune(s); in.cursor = len(in.text) }

// Value returns the text.
func (in *Input) Value() string { return string(in.text) }

// Paste inserts the first line of text, without control characters.
func (in *Input) Paste(text string) {
	s, _, _ := strings.Cut(text, "\n")
	in.insert(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s))
}

// Update applies a key or paste; handled is false for keys the input does not use (enter, esc,
// up, down…), which the owner interprets.
func (in *Input) Update(msg any) (handled bool) {
	switch m := msg.(type) {
	case tea.PasteMsg:
		s := m.Content
		in.insert(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, s))
		return true
	case tea.KeyPressMsg:
		switch m.String() {
		case "backspace", "ctrl+h":
			if in.cursor > 0 {
				in.text = append(in.text[:in.cursor-1], in.text[in.cursor:]...)
				in.cursor--
			}
		case "delete", "ctrl+d":
			if in.cursor < len(in.text) {
				in.text = append(in.text[:in.cursor], in.text[in.cursor+1:]...)
			}
		case "left", "ctrl+b":
			in.cursor = max(in.cursor-1, 0)
		case "right", "ctrl+f":
			in.cursor = min(in.cursor+1, len(in.text))
		case "home", "ctrl+a":
			in.cursor = 0
		case "end", "ctrl+e":
			in.cursor = len(in.text)
		case "ctrl+u":
			in.text = in.text[in.cursor:]
			in.cursor = 0
		case "ctrl+k":
			in.text = in.text[:in.cursor]
		case "ctrl+w", "alt+backspace":
			i := in.cursor
			for i > 0 && in.text[i-1] == ' ' {
				i--
			}
			for i > 0 && in.text[i-1] != ' ' {
				i--
			}
			in.text = append(in.text[:i], in.text[in.cursor:]...)
			in.cursor = i
		case "space":
			in.insert(" ")
		default:
			if m.Text == "" || m.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
				return false
			}
			in.insert(m.Text)
		}
		return true
	}
	return false
}

func (in *Input) insert(s string) {
	r := []rune(s)
	in.text = append(in.text[:in.cursor], append(r, in.text[in.cursor:]...)...)
	in.cursor += len(r)
}

// View renders the text in width columns with the cursor as a reverse-video cell when focused,
// scrolled so the cursor stays visible; an empty unfocused input shows placeholder (dim).
func (in *Input) View(th Theme, width int, focused bool, placeholder string) string {
	if len(in.text) == 0 && placeholder != "" {
		if focused {
			return Inverse(" ") + th.Dim(ansi.Truncate(placeholder, max(width-1, 0), "…"))
		}
		return th.Dim(ansi.Truncate(placeholder, width, "…"))
	}
	start := 0
	for start < in.cursor && ansi.StringWidth(string(in.text[start:in.cursor]))+1 > width {
		start++
	}
	var b strings.Builder
	w := 0
	for i := start; i <= len(in.text); i++ {
		cell := " "
		if i < len(in.text) {
			cell = string(in.text[i])
		} else if !focused || i != in.cursor {
			break
		}
		cw := ansi.StringWidth(cell)
		if w+cw > width {
			break
		}
		w += cw
		if focused && i == in.cursor {
			b.WriteString(Inverse(cell))
		} else {
			b.WriteString(th.Text(cell))
		}
	}
	return b.String()
}
