package command

import (
	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic"
)

func init() {
	add(Command{Name: "changelog", Description: "Show changelog entries", Run: runChangelog})
}

// markdownHost is the optional Host capability /changelog draws with: a titled markdown block
// between borders in the transcript.
type markdownHost interface{ ShowMarkdown(title, text string) }

// runChangelog is /changelog: the whole of CHANGELOG.md (compiled in) under "What's New".
func runChangelog(h Host, _ string) tea.Cmd {
	if mh, ok := h.(markdownHost); ok {
		mh.ShowMarkdown("What's New", atomic.Changelog)
		return nil
	}
	h.Notify("info", "What's New\n\n"+atomic.Changelog)
	return nil
}
