package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
)

// shutdownRequested is the runtime's ctx.shutdown() hook: it wakes the loop, which quits at its
// next idle point (shutdownDue).
func (x *extUI) shutdownRequested() {
	go x.send(extMsg(func(*model) tea.Cmd { return nil }))
}

// shutdownDue reports whether an extension asked for a shutdown (ctx.shutdown()) and the screen
// is idle: no run, compaction or retry in progress and not already quitting (seed 004: "at the
// next idle point").
func (m *model) shutdownDue() bool {
	return m.rt != nil && !m.quitting && !m.working() && m.rt.ShutdownRequested()
}

// SetWorkingMessage implements ext.WorkingUI: "" restores the default message (tui.md §1.4).
func (x *extUI) SetWorkingMessage(message string) {
	x.send(extMsg(func(m *model) tea.Cmd { m.workingMsg = message; return nil }))
}

// SetWorkingVisible implements ext.WorkingUI.
func (x *extUI) SetWorkingVisible(visible bool) {
	x.send(extMsg(func(m *model) tea.Cmd { m.workingHidden = !visible; return nil }))
}

// SetWorkingIndicator implements ext.WorkingUI: frames are printed verbatim, an empty list hides
// the glyph, nil restores the default spinner.
func (x *extUI) SetWorkingIndicator(ind *ext.WorkingIndicator) {
	var frames []string
	var every time.Duration
	if ind != nil {
		frames = append([]string(nil), ind.Frames...)
		if ind.Frames != nil && frames == nil {
			frames = []string{}
		}
		every = ind.Interval
	}
	x.send(extMsg(func(m *model) tea.Cmd {
		m.spinFrames, m.spinEvery = spinnerFrames, spinnerInterval
		if frames != nil {
			m.spinFrames = frames
		}
		if every > 0 {
			m.spinEvery = every
		}
		m.stopSpinner() // the next update starts it again with the new indicator
		return nil
	}))
}

// SetWidgetAt implements ext.WidgetPlacementUI: belowEditor puts the lines under the editor.
func (x *extUI) SetWidgetAt(key string, lines []string, placement string) {
	lines = append([]string(nil), lines...)
	below := placement == ext.WidgetBelowEditor
	x.send(extMsg(func(m *model) tea.Cmd {
		m.setWidget(key, lines, below)
		return nil
	}))
}

var (
	_ ext.WorkingUI         = (*extUI)(nil)
	_ ext.WidgetPlacementUI = (*extUI)(nil)
)
