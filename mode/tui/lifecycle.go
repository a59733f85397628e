package tui

import tea "charm.land/bubbletea/v2"

// shutdownRequested is the runtime's ctx.shutdown() hook: it wakes the loop, which quits at its
// next idle point (shutdownDue).
func (x *extUI) shutdownRequested() {
	go x.send(extMsg(func(*model) tea.Cmd { return nil }))
}

// shutdownDue reports whether an extension asked for a shutdown (ctx.shutdown()) and the screen
// is idle: no run, compaction or retry in progress and not already quitting (seed 004: "at the
// next idle point").
func (m *model) shutdownDue() bool {
	return !m.quitting && !m.working() && m.rt.ShutdownRequested()
}
