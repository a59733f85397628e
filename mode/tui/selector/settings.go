package selector

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/fuzzy"
	"github.com/atomic-cli/atomic/mode/tui/slot"
)

// Setting is one row of the /settings list: Enter or Space moves Value to the next of Values.
type Setting struct {
	ID, Label, Description string
	Values                 []string
	Value                  string
}

// Settings is the /settings list (tui.md §10.5): one row per setting with its value on the
// right; Enter/Space cycle the selected one and apply it at once through onChange (which returns
// the value now in effect and a command for slow work, or an error shown under the list);
// Escape closes.
type Settings struct {
	th       slot.Theme
	keys     slot.Keys
	items    []Setting
	list     slot.List
	errText  string
	onChange func(id, value string) (string, tea.Cmd, error)
	onClose  func()
	done     bool
}

// NewSettings builds the list; onClose is called once when it closes.
func NewSettings(th slot.Theme, keys slot.Keys, items []Setting, onChange func(id, value string) (string, tea.Cmd, error), onClose func()) *Settings {
	s := &Settings{th: th, keys: keys, items: items, onChange: onChange, onClose: onClose}
	s.list.Visible = 12
	s.list.SetLen(len(items))
	return s
}

// Done implements slot.Dialog.
func (s *Settings) Done() bool { return s.done }

// Cancel closes the list.
func (s *Settings) Cancel() {
	if !s.done {
		s.done = true
		if s.onClose != nil {
			s.onClose()
		}
	}
}

// HandleKey implements slot.Dialog.
func (s *Settings) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case s.done:
	case s.keys.Is(k, slot.SelectCancel):
		s.Cancel()
	case s.keys.Is(k, slot.SelectConfirm) || k.String() == "space":
		if len(s.items) == 0 {
			return nil
		}
		it := &s.items[s.list.Cursor()]
		next := it.Values[0]
		for i, v := range it.Values {
			if v == it.Value {
				next = it.Values[(i+1)%len(it.Values)]
			}
		}
		s.errText = ""
		var cmd tea.Cmd
		if s.onChange != nil {
			v, c, err := s.onChange(it.ID, next)
			if err != nil {
				s.errText = err.Error()
				return nil
			}
			next, cmd = v, c
		}
		it.Value = next
		return cmd
	default:
		s.list.Move(k, s.keys)
	}
	return nil
}

// Render implements slot.Dialog.
func (s *Settings) Render(width int) []string {
	th := s.th
	labelW := 0
	for _, it := range s.items {
		labelW = max(labelW, ansi.StringWidth(it.Label))
	}
	var body []string
	from, to := s.list.Window()
	for i := from; i < to; i++ {
		it := s.items[i]
		label := it.Label + strings.Repeat(" ", labelW-ansi.StringWidth(it.Label))
		if i == s.list.Cursor() {
			body = append(body, th.Accent("→ "+label)+"  "+th.Accent(it.Value))
		} else {
			body = append(body, "  "+label+"  "+th.Muted(it.Value))
		}
	}
	if p := s.list.Position(); p != "" {
		body = append(body, th.Muted("  "+p))
	}
	if len(s.items) > 0 && s.items[s.list.Cursor()].Description != "" {
		body = append(body, "", th.Muted("  "+s.items[s.list.Cursor()].Description))
	}
	if s.errText != "" {
		body = append(body, "", th.Error(s.errText))
	}
	hint := slot.Hint(th, "↑↓", "navigate", s.keys.Label(slot.SelectConfirm)+"/space", "change", s.keys.Label(slot.SelectCancel), "close")
	return slot.Fit(slot.Frame(th, width, "Settings", body, hint), width)
}

// ScopedModels is /scoped-models (tui.md §10.4): every usable model with ✓ on the enabled ones;
// Enter toggles, ctrl+a enables all (of the filtered ones), ctrl+x clears, alt+up/alt+down
// reorder enabled models, ctrl+s saves. Every change applies at once through onChange; onSave
// persists; Escape closes.
type ScopedModels struct {
	th       slot.Theme
	keys     slot.Keys
	models   []*llm.Model
	enabled  []*llm.Model // in cycle order
	search   slot.Input
	shown    []*llm.Model
	list     slot.List
	dirty    bool
	status   string
	onChange func(enabled []*llm.Model)
	onSave   func(enabled []*llm.Model) error
	done     bool
}

// NewScopedModels builds the list over models with enabled switched on (nil or empty: none).
func NewScopedModels(th slot.Theme, keys slot.Keys, models, enabled []*llm.Model, onChange func([]*llm.Model), onSave func([]*llm.Model) error) *ScopedModels {
	s := &ScopedModels{th: th, keys: keys, models: models, enabled: append([]*llm.Model(nil), enabled...), onChange: onChange, onSave: onSave}
	s.list.Visible = 10
	s.refilter()
	return s
}

func (s *ScopedModels) refilter() {
	s.shown = fuzzy.Filter(s.models, s.search.Value(), func(m *llm.Model) string { return m.ID + " " + m.Provider + " " + m.Name })
	s.list.SetLen(len(s.shown))
}

func (s *ScopedModels) index(m *llm.Model) int {
	for i, e := range s.enabled {
		if same(e, m) {
			return i
		}
	}
	return -1
}

func (s *ScopedModels) changed() {
	s.dirty = true
	s.status = ""
	if s.onChange != nil {
		s.onChange(append([]*llm.Model(nil), s.enabled...))
	}
}

// Done implements slot.Dialog.
func (s *ScopedModels) Done() bool { return s.done }

// Cancel closes the list (changes stay applied to the session).
func (s *ScopedModels) Cancel() { s.done = true }

// HandleKey implements slot.Dialog.
func (s *ScopedModels) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if s.done {
		return nil
	}
	var cur *llm.Model
	if len(s.shown) > 0 {
		cur = s.shown[s.list.Cursor()]
	}
	switch {
	case s.keys.Is(k, slot.SelectCancel):
		s.Cancel()
	case s.keys.Is(k, slot.SelectConfirm):
		if cur == nil {
			return nil
		}
		if i := s.index(cur); i >= 0 {
			s.enabled = append(s.enabled[:i], s.enabled[i+1:]...)
		} else {
			s.enabled = append(s.enabled, cur)
		}
		s.changed()
	case s.keys.Is(k, "app.models.enableAll"):
		for _, m := range s.shown {
			if s.index(m) < 0 {
				s.enabled = append(s.enabled, m)
			}
		}
		s.changed()
	case s.keys.Is(k, "app.models.clearAll"):
		for _, m := range s.shown {
			if i := s.index(m); i >= 0 {
				s.enabled = append(s.enabled[:i], s.enabled[i+1:]...)
			}
		}
		s.changed()
	case s.keys.Is(k, "app.models.reorderUp"), s.keys.Is(k, "app.models.reorderDown"):
		i := -1
		if cur != nil {
			i = s.index(cur)
		}
		j := i - 1
		if s.keys.Is(k, "app.models.reorderDown") {
			j = i + 1
		}
		if i >= 0 && j >= 0 && j < len(s.enabled) {
			s.enabled[i], s.enabled[j] = s.enabled[j], s.enabled[i]
			s.changed()
		}
	case s.keys.Is(k, "app.models.save"):
		if s.onSave != nil {
			if err := s.onSave(s.enabled); err != nil {
				s.status = "Save failed: " + err.Error()
				return nil
			}
		}
		s.dirty = false
		s.status = "Saved"
	case s.list.Move(k, s.keys):
	default:
		if s.search.Update(k) {
			s.refilter()
		}
	}
	return nil
}

// Render implements slot.Dialog.
func (s *ScopedModels) Render(width int) []string {
	th := s.th
	body := []string{"> " + s.search.View(th, max(width-2, 1), true, ""), ""}
	from, to := s.list.Window()
	for i := from; i < to; i++ {
		m := s.shown[i]
		mark := "  "
		if n := s.index(m); n >= 0 {
			mark = th.Success("✓ ")
		}
		row := mark + m.ID + " " + th.Muted("["+m.Provider+"]")
		if i == s.list.Cursor() {
			row = th.Accent("→ ") + row
		} else {
			row = "  " + row
		}
		body = append(body, row)
	}
	if len(s.shown) == 0 {
		body = append(body, th.Muted("  No matching models"))
	}
	count := fmt.Sprintf("%d/%d enabled", len(s.enabled), len(s.models))
	if len(s.enabled) == 0 {
		count = "all enabled"
	}
	footer := slot.Hint(th, s.keys.Label(slot.SelectConfirm), "Toggle", s.keys.Label("app.models.enableAll"), "All",
		s.keys.Label("app.models.clearAll"), "Clear", s.keys.Label("app.models.reorderUp")+"/"+s.keys.Label("app.models.reorderDown"), "Reorder",
		s.keys.Label("app.models.save"), "Save") + "  " + th.Muted(count)
	if s.dirty {
		footer += " " + th.Warning("(unsaved)")
	}
	if s.status != "" {
		body = append(body, "", th.Muted(s.status))
	}
	return slot.Fit(slot.Frame(th, width, "Scoped models (Ctrl+P cycling)", body, footer), width)
}
