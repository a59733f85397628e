package slot

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Dialog is a component shown in the editor slot in place of the editor (tui.md §0), the shape of
// mode/tui/component.Dialog: Render turns a width into lines of at most width cells; HandleKey
// gets every key press while shown (Escape and Ctrl+C included); Done reports that the result
// was delivered and the editor can come back. Slots that run timers also implement Update, those
// that take pastes HandlePaste, those an extension can dismiss Cancel.
type Dialog interface {
	Render(width int) []string
	HandleKey(k tea.KeyPressMsg) tea.Cmd
	Done() bool
}

// Fit truncates every line of lines to width cells (ANSI-aware), in place, and returns lines.
func Fit(lines []string, width int) []string {
	for i, l := range lines {
		if width > 0 && ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return lines
}

// Frame lays a dialog out as tui.md §7.2 does: top border, blank, title, blank, body, blank, hint,
// blank, bottom border. An empty title or hint leaves out its line and the blank after it.
func Frame(th Theme, width int, title string, body []string, hint string) []string {
	rule := th.Border(strings.Repeat("─", max(width, 1)))
	out := []string{rule, ""}
	if title != "" {
		for _, l := range strings.Split(title, "\n") {
			out = append(out, th.Accent(l))
		}
		out = append(out, "")
	}
	out = append(out, body...)
	if hint != "" {
		out = append(out, "", hint)
	}
	return append(out, "", rule)
}

// Hint formats hint pairs "key desc" joined by two spaces: keys dim, descriptions muted
// (tui.md §4.6). pairs alternate key, description; an empty key drops its pair.
func Hint(th Theme, pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] == "" {
			continue
		}
		parts = append(parts, th.Dim(pairs[i])+" "+th.Muted(pairs[i+1]))
	}
	return strings.Join(parts, "  ")
}
