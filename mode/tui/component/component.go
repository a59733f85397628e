// Package component holds the small interfaces every piece of the interactive screen implements
// (tui.md §0) and the line helpers they share. A component turns a width into styled lines; one
// that takes input also handles key presses. Dialogs, selectors and extension UIs occupy the
// editor slot through Dialog.
//
// component imports Bubble Tea and charmbracelet/x/ansi only. Components are owned by the Bubble
// Tea goroutine: their methods are called from Update and View only, never concurrently.
package component

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Component renders itself for a width in terminal cells. Every returned line must be at most
// width cells wide (the host clips longer lines rather than failing, tui.md §8.1); a line holds
// SGR styling but no newline.
type Component interface {
	Render(width int) []string
}

// Dialog is a component that takes the editor slot and the keyboard until it is done: selectors,
// extension select/confirm/input/editor dialogs, the trust dialog (tui.md §7.2, §10).
//
// HandleKey receives every key press while the dialog is shown, Escape and Ctrl+C included; it
// returns a command to run (nil for none). Done reports whether the dialog has finished: the host
// checks it after every HandleKey and Update and then puts the editor back, with its text kept.
// A dialog delivers its result through its own callback or channel before Done turns true.
type Dialog interface {
	Component
	HandleKey(k tea.KeyPressMsg) tea.Cmd
	Done() bool
}

// Updater is implemented by a dialog that wants non-key messages too (timers it started with
// tea.Tick, async results): the host passes every message that is not a key press or paste to the
// shown dialog's Update.
type Updater interface {
	Update(msg tea.Msg) tea.Cmd
}

// Paster is implemented by a dialog that accepts bracketed pastes.
type Paster interface {
	HandlePaste(text string) tea.Cmd
}

// Cursor is implemented by a component that shows the terminal cursor: row and col are relative
// to the lines of its last Render; ok false hides the cursor.
type Cursor interface {
	Cursor() (row, col int, ok bool)
}

// Canceller is implemented by a dialog that must be closed from outside (an extension's
// AbortSignal or timeout): Cancel makes it deliver its default result and become Done.
type Canceller interface {
	Cancel()
}

// Width is the visible width of s in cells (SGR and OSC sequences count zero).
func Width(s string) int {
	if w, ok := asciiWidth(s); ok {
		return w
	}
	return ansi.StringWidth(s)
}

// asciiWidth is the width of s when it is printable ASCII and complete CSI sequences (the styled
// lines of the transcript, mostly), counted without the grapheme segmentation ansi.StringWidth
// does; ok is false for anything else (another byte, another escape, a cut sequence), which
// Width leaves to ansi.StringWidth. Both agree wherever ok is true.
func asciiWidth(s string) (w int, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			w++
			continue
		}
		if c != 0x1b || i+1 >= len(s) || s[i+1] != '[' {
			return 0, false
		}
		// CSI: parameter and intermediate bytes (0x20-0x3f), then one final byte (0x40-0x7e).
		j := i + 2
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
			j++
		}
		if j >= len(s) || s[j] < 0x40 || s[j] > 0x7e {
			return 0, false
		}
		i = j
	}
	return w, true
}

// Truncate cuts s to at most w cells, appending tail (counted in w) when it cuts.
func Truncate(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, tail)
}

// Pad right-pads s with spaces to w cells (no-op when s is wider).
func Pad(s string, w int) string {
	if n := w - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Wrap word-wraps text to w cells (words longer than w are broken), keeping SGR styles open
// across the breaks, and returns the lines. Tabs become three spaces (tui.md §8.3).
func Wrap(text string, w int) []string {
	if w < 1 {
		w = 1
	}
	text = strings.ReplaceAll(text, "\t", "   ")
	out := make([]string, 0, 4)
	for _, line := range strings.Split(text, "\n") {
		if ansi.StringWidth(line) <= w {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, w, " -"), "\n")...)
	}
	return out
}

// Indent prefixes every line with n spaces (n ≥ 0).
func Indent(lines []string, n int) []string {
	if n <= 0 {
		return lines
	}
	p := strings.Repeat(" ", n)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}

// Lines is a Component of fixed lines, truncated to the width.
type Lines []string

// Render returns the lines, each cut to width.
func (l Lines) Render(width int) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = Truncate(s, width, "")
	}
	return out
}
