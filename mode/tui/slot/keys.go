package slot

import (
	tea "charm.land/bubbletea/v2"
)

// Action ids the slot components consult (tui.md §4.3).
const (
	SelectUp       = "tui.select.up"
	SelectDown     = "tui.select.down"
	SelectPageUp   = "tui.select.pageUp"
	SelectPageDown = "tui.select.pageDown"
	SelectConfirm  = "tui.select.confirm"
	SelectCancel   = "tui.select.cancel"
)

// Keys matches key presses against action ids. The root passes its keybinding map's Matches
// and Hint; DefaultKeys knows the spec defaults of the ids above and any other id's default
// from Defaults.
type Keys struct {
	Match func(k tea.KeyPressMsg, id string) bool
	// Hint is the display form of id's keys ("enter", "esc", "ctrl+d"), "" when unbound.
	Hint func(id string) string
}

// Defaults are the default keys of the ids the components use (tui.md §4.3), as Bubble Tea
// key strings.
var Defaults = map[string][]string{
	SelectUp:                        {"up"},
	SelectDown:                      {"down"},
	SelectPageUp:                    {"pgup"},
	SelectPageDown:                  {"pgdown"},
	SelectConfirm:                   {"enter"},
	SelectCancel:                    {"esc", "ctrl+c"},
	"app.session.togglePath":        {"ctrl+p"},
	"app.session.toggleSort":        {"ctrl+s"},
	"app.session.toggleNamedFilter": {"ctrl+n"},
	"app.session.rename":            {"ctrl+r"},
	"app.session.delete":            {"ctrl+d"},
	"app.session.deleteNoninvasive": {"ctrl+backspace"},
	"app.tree.foldOrUp":             {"ctrl+left", "alt+left"},
	"app.tree.unfoldOrDown":         {"ctrl+right", "alt+right"},
	"app.tree.editLabel":            {"shift+l", "L"},
	"app.tree.toggleLabelTimestamp": {"shift+t", "T"},
	"app.tree.filter.default":       {"ctrl+d"},
	"app.tree.filter.noTools":       {"ctrl+t"},
	"app.tree.filter.userOnly":      {"ctrl+u"},
	"app.tree.filter.labeledOnly":   {"ctrl+l"},
	"app.tree.filter.all":           {"ctrl+a"},
	"app.tree.filter.cycleForward":  {"ctrl+o"},
	"app.tree.filter.cycleBackward": {"ctrl+shift+o"},
	"app.models.save":               {"ctrl+s"},
	"app.models.enableAll":          {"ctrl+a"},
	"app.models.clearAll":           {"ctrl+x"},
	"app.models.toggleProvider":     {"ctrl+p"},
	"app.models.reorderUp":          {"alt+up"},
	"app.models.reorderDown":        {"alt+down"},
}

// DefaultKeys matches Defaults.
func DefaultKeys() Keys {
	return Keys{
		Match: func(k tea.KeyPressMsg, id string) bool {
			s := k.String()
			for _, d := range Defaults[id] {
				if d == s {
					return true
				}
			}
			return false
		},
		Hint: func(id string) string {
			if d := Defaults[id]; len(d) > 0 {
				return d[0]
			}
			return ""
		},
	}
}

// Is reports whether k is bound to id.
func (ks Keys) Is(k tea.KeyPressMsg, id string) bool { return ks.Match != nil && ks.Match(k, id) }

// Label is the hint label of id ("" when unbound).
func (ks Keys) Label(id string) string {
	if ks.Hint == nil {
		return ""
	}
	return ks.Hint(id)
}
