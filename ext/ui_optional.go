package ext

import "time"

// The optional capabilities of ctx.ui (style.md "small required interfaces, optional
// capabilities"): a mode's UI implements them when it can draw them — the interactive mode
// does — and extensions reach them through the helper functions below, which do nothing on a UI
// without the capability (print, JSON and RPC mode, tui.md §7.1).

// WorkingIndicator is setWorkingIndicator's {frames, intervalMs} (tui.md §1.4): Frames are
// printed verbatim, one per Interval; an empty, non-nil Frames hides the glyph; nil Frames or a
// zero Interval keep the default of that part.
type WorkingIndicator struct {
	Frames   []string
	Interval time.Duration
}

// WorkingUI is the working line of the interactive mode (ctx.ui.setWorkingMessage /
// setWorkingVisible / setWorkingIndicator).
type WorkingUI interface {
	// SetWorkingMessage replaces the message of the working line; "" restores the default.
	SetWorkingMessage(message string)
	// SetWorkingVisible shows or hides the working line.
	SetWorkingVisible(visible bool)
	// SetWorkingIndicator replaces the spinner; nil restores the default.
	SetWorkingIndicator(ind *WorkingIndicator)
}

// Widget placements of setWidget's {placement} (tui.md §7.3).
const (
	WidgetAboveEditor = "aboveEditor"
	WidgetBelowEditor = "belowEditor"
)

// WidgetPlacementUI places string widgets above or below the editor (ctx.ui.setWidget with
// {placement}); UI.SetWidget places them above.
type WidgetPlacementUI interface {
	// SetWidgetAt sets (nil lines: removes) widget key at placement, WidgetAboveEditor or
	// WidgetBelowEditor.
	SetWidgetAt(key string, lines []string, placement string)
}

// SetWorkingMessage calls ui's SetWorkingMessage when it has one.
func SetWorkingMessage(ui UI, message string) {
	if w, ok := ui.(WorkingUI); ok {
		w.SetWorkingMessage(message)
	}
}

// SetWorkingVisible calls ui's SetWorkingVisible when it has one.
func SetWorkingVisible(ui UI, visible bool) {
	if w, ok := ui.(WorkingUI); ok {
		w.SetWorkingVisible(visible)
	}
}

// SetWorkingIndicator calls ui's SetWorkingIndicator when it has one.
func SetWorkingIndicator(ui UI, ind *WorkingIndicator) {
	if w, ok := ui.(WorkingUI); ok {
		w.SetWorkingIndicator(ind)
	}
}

// SetWidgetAt places a string widget when ui can, else (placement aside) sets it with SetWidget.
func SetWidgetAt(ui UI, key string, lines []string, placement string) {
	if w, ok := ui.(WidgetPlacementUI); ok {
		w.SetWidgetAt(key, lines, placement)
		return
	}
	ui.SetWidget(key, lines)
}
