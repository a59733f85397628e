package session

import "github.com/atomic-cli/atomic/llm"

// SetScopedModels sets the models model cycling goes through (Ctrl+P in the interactive mode,
// RPC cycle_model; pi's --models / enabledModels, tui.md §10.4), in cycle order; nil or empty
// means every usable model. The scope belongs to the runtime, so it survives /new, /resume and
// reload.
func (rt *Runtime) SetScopedModels(models []*llm.Model) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.scoped = append([]*llm.Model(nil), models...)
}

// ScopedModels returns the scoped models (nil when every usable model is in scope).
func (rt *Runtime) ScopedModels() []*llm.Model {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.scoped) == 0 {
		return nil
	}
	return append([]*llm.Model(nil), rt.scoped...)
}

// cycleModels is the list CycleModel walks: the runtime's scoped models when set, else every
// usable model.
func (s *Session) cycleModels() (models []*llm.Model, scoped bool) {
	if s.rt != nil {
		if sc := s.rt.ScopedModels(); len(sc) > 0 {
			return sc, true
		}
	}
	return s.UsableModels(), false
}
