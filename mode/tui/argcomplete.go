package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/atomic-cli/atomic/resource"

	"github.com/atomic-cli/atomic/ext"
)

// extArgCompletion asks an extension command for the completions of its argument (tui.md §2.2,
// getArgumentCompletions) off the UI goroutine — a TypeScript command answers over the host
// protocol, bounded there — and opens the list when the answer arrives, if the text before the
// cursor has not changed meanwhile.
func (m *model) extArgCompletion(complete func(prefix string) []ext.AutocompleteItem, before, prefix string) {
	x := m.ext
	go func() {
		c := argCompletion(complete(prefix), prefix)
		if c == nil {
			return
		}
		x.send(extMsg(func(m *model) tea.Cmd {
			if m.ed.BeforeCursor() == before && m.keyDialog() == nil {
				m.complete = c
			}
			return nil
		}))
	}()
}

// AgentDir is <agentDir> (the optional Host capability /trust uses to find trust.json).
func (m *model) AgentDir() string { return m.opts.AgentDir }

// saveSetting keeps a choice made with a key (model or thinking-level cycling) in the global
// settings.json for the next run, as pi does; a failure is a warning notice.
func (m *model) saveSetting(key string, v any) {
	if m.opts.AgentDir == "" {
		return
	}
	if err := resource.SaveGlobalSetting(m.opts.AgentDir, key, v); err != nil {
		m.notice("warning", "Not saved for the next run: "+err.Error())
	}
}
