package tui

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-cli/atomic/mode/tui/chat"
	"github.com/atomic-cli/atomic/mode/tui/component"
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

// DebugLog builds /debug's report and says where it goes: <agentDir>/atomic-debug.log (pi writes
// pi-debug.log in its agent dir). The report holds the time, the terminal size, every line of
// the transcript at the current width and then every line of the current screen, each with its
// visible width in cells, then the session's context messages as JSON lines. It implements
// command's debugHost; path is "" when the screen has no agent dir.
func (m *model) DebugLog() (path string, report []byte) {
	if m.opts.AgentDir == "" {
		return "", nil
	}
	w := max(m.width, 10)
	var b strings.Builder
	fmt.Fprintf(&b, "Debug output at %s\nTerminal width: %d\nTerminal height: %d\n", time.Now().UTC().Format(time.RFC3339), m.width, m.height)
	section := func(title string, lines []string) {
		fmt.Fprintf(&b, "\n=== %s (%d lines, with visible widths) ===\n", title, len(lines))
		for i, l := range lines {
			q, _ := json.Marshal(l)
			fmt.Fprintf(&b, "[%d] (w=%d) %s\n", i, component.Width(l), q)
		}
	}
	section("Transcript lines", m.chat.ViewAll(w, math.MaxInt))
	section("Screen lines", m.frame().Lines)
	msgs := m.rt.Session().Messages()
	fmt.Fprintf(&b, "\n=== Messages (%d, JSONL) ===\n", len(msgs))
	for _, msg := range msgs {
		j, err := json.Marshal(msg)
		if err != nil {
			fmt.Fprintf(&b, "{\"error\":%q}\n", err.Error())
			continue
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return filepath.Join(m.opts.AgentDir, "atomic-debug.log"), []byte(b.String())
}
