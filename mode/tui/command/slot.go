package command

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/slot"
)

// opTimeout bounds a session operation a command starts (replacement, navigation, export):
// they end on their own, the bound only keeps a wedged extension handler from holding the
// command's goroutine forever.
const opTimeout = 10 * time.Minute

// opContext is the context of one command's session operation.
func opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), opTimeout)
}

// slotTheme adapts the host's theme for the editor-slot components.
func slotTheme(h Host) slot.Theme {
	th := h.Theme()
	return slot.Theme{Fg: th.Fg, Bg: th.Bg}
}

// slotKeys adapts the host's keybindings for the editor-slot components.
func slotKeys(h Host) slot.Keys {
	km := h.Keys()
	return slot.Keys{Match: km.Matches, Hint: km.Hint}
}

// later runs fn on the Bubble Tea goroutine (from a tea.Cmd's goroutine).
func later(fn func(h Host) tea.Cmd) tea.Msg { return Do(fn) }

// notify is a Do message adding one notice.
func notify(level, text string) tea.Msg {
	return Do(func(h Host) tea.Cmd { h.Notify(level, text); return nil })
}
