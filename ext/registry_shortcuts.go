package ext

import "sort"

// ShortcutInfo describes a registered shortcut (RPC get_shortcuts).
type ShortcutInfo struct {
	Key         string `json:"key"`
	Description string `json:"description,omitempty"`
}

// Shortcuts lists the shortcuts extensions registered, sorted by key.
func (r *Runner) Shortcuts() []ShortcutInfo {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	out := make([]ShortcutInfo, 0, len(r.reg.shortcuts))
	for k, s := range r.reg.shortcuts {
		out = append(out, ShortcutInfo{Key: k, Description: s.sc.Description})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Shortcut returns the shortcut bound to key.
func (r *Runner) Shortcut(key string) (Shortcut, bool) {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	s, ok := r.reg.shortcuts[key]
	return s.sc, ok
}
