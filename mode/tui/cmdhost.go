package tui

import (
	"strings"

	"github.com/atomic-cli/atomic/mode/tui/chat"
)

// ShowMarkdown adds a bordered markdown block to the transcript: a border line, the title in
// bold accent, the markdown rendered at the current width, a border line (/changelog's "What's
// New", pi's changelog view). It implements command's markdownHost.
func (m *model) ShowMarkdown(title, text string) {
	m.chat.Append(&chat.CustomBlock{Draw: func(env *chat.Env, width int) ([]string, bool) {
		th := env.Theme
		border := th.Fg("border", strings.Repeat("─", max(width, 1)))
		out := []string{border, "", " " + th.Fg("accent", "\x1b[1m"+title+"\x1b[22m"), ""}
		out = append(out, env.MD.Render(text, width)...)
		return append(out, "", border), true
	}})
}
