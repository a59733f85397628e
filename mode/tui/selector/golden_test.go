package selector

import (
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/mode/tui/slot"
)

// golden compares got (one rendered screen) with testdata/<name>.golden; -update rewrites it.
// Trailing spaces are kept: the width contract is part of the picture.
func golden(t *testing.T, name, got string) {
	t.Helper()
	tuitest.Golden(t, name+".golden", got)
}

// key builds a key press from its Bubble Tea name ("enter", "down", "x").
var key = tuitest.Key

func typeText(s slot.Dialog, text string) {
	for _, r := range text {
		s.HandleKey(key(string(r)))
	}
}

// view renders s at width as one string.
func view(s slot.Dialog, width int) string { return strings.Join(s.Render(width), "\n") }

// checkWidth fails when a rendered line is wider than width (the width contract, tui.md §8.1).
func checkWidth(t *testing.T, view string, width int) {
	t.Helper()
	for i, l := range strings.Split(view, "\n") {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d columns wide, more than %d: %q", i, w, width, l)
		}
	}
}
