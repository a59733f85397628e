package command

import (
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/fuzzy"
	"github.com/atomic-cli/atomic/mode/tui/selector"
)

func init() {
	add(
		Command{Name: "model", ArgumentHint: "[provider/model]", Description: "Select model (opens selector UI)", Run: runModel, Complete: completeModel},
		Command{Name: "scoped-models", Description: "Enable/disable models for Ctrl+P cycling", Run: runScopedModels},
	)
}

// findModel returns the model term names exactly: "provider/id" or "id" (tui.md §2.1 /model).
func findModel(models []*llm.Model, term string) *llm.Model {
	for _, m := range models {
		if term == m.Provider+"/"+m.ID {
			return m
		}
	}
	var hit *llm.Model
	for _, m := range models {
		if strings.EqualFold(term, m.ID) {
			if hit != nil {
				return nil // ambiguous across providers
			}
			hit = m
		}
	}
	return hit
}

// setModel switches the live session's model off the UI goroutine (model_select handlers may
// take their time) and says so.
func setModel(h Host, m *llm.Model) tea.Cmd {
	s := h.Runtime().Session()
	return func() tea.Msg {
		if err := s.SetModel(m); err != nil {
			return notify("error", "Failed to set model: "+err.Error())
		}
		// No rebuild: the footer follows the model_changed event, and the transcript (notices
		// included) stays as it is, as with Ctrl+P and in pi.
		return later(func(h Host) tea.Cmd {
			h.Notify("info", "Model: "+m.ID)
			if warn := saveSettings(h, "defaultProvider", m.Provider, "defaultModel", m.ID); warn != "" {
				h.Notify("warning", warn)
			}
			return nil
		})
	}
}

// runModel is /model [term]: with an exact term (scoped models first, then all) it switches at
// once; otherwise it opens the selector, pre-filtered with the term.
func runModel(h Host, args string) tea.Cmd {
	rt := h.Runtime()
	s := rt.Session()
	all := s.UsableModels()
	scoped := rt.ScopedModels()
	if args != "" {
		if m := findModel(scoped, args); m != nil {
			return setModel(h, m)
		}
		if m := findModel(all, args); m != nil {
			return setModel(h, m)
		}
	}
	h.ShowDialog(selector.NewModels(slotTheme(h), slotKeys(h), all, scoped, s.Model(), args, func(m *llm.Model) tea.Cmd {
		if m == nil {
			return nil
		}
		return setModel(h, m)
	}))
	return nil
}

// completeModel completes /model's argument: value provider/id, label id, description provider,
// fuzzy on "id provider" (tui.md §2.2).
func completeModel(h Host, prefix string) []Completion {
	models := fuzzy.Filter(h.Runtime().Session().UsableModels(), prefix, func(m *llm.Model) string { return m.ID + " " + m.Provider })
	out := make([]Completion, 0, len(models))
	for _, m := range models {
		out = append(out, Completion{Value: m.Provider + "/" + m.ID, Label: m.ID, Description: m.Provider})
	}
	return out
}

// runScopedModels is /scoped-models: changes apply to the runtime at once (Ctrl+P cycles them).
func runScopedModels(h Host, _ string) tea.Cmd {
	rt := h.Runtime()
	h.ShowDialog(selector.NewScopedModels(slotTheme(h), slotKeys(h), rt.Session().UsableModels(), rt.ScopedModels(),
		func(enabled []*llm.Model) { rt.SetScopedModels(enabled) },
		func([]*llm.Model) error { return errScopeNotSaved }))
	return nil
}

// errScopeNotSaved answers ctrl+s in /scoped-models: atomic does not write settings.json yet.
var errScopeNotSaved = errors.New("writing enabledModels to settings.json is not available yet; the scope applies to this run")
