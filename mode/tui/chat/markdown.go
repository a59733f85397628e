package chat

import (
	"strings"

	"github.com/atomic-cli/atomic/mode/tui/markdown"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

// Markdown renders markdown text to styled lines with the theme's md* and syntax* tokens
// (mode/tui/markdown). Streaming text is rendered in two parts: the stable prefix (everything
// before the last blank line outside a code fence), cached by the block, and the tail, rendered
// again on each change — so a growing answer costs its last paragraph per frame, not its length.
type Markdown struct {
	th *theme.Theme
}

// NewMarkdown returns a renderer for th.
func NewMarkdown(th *theme.Theme) *Markdown { return &Markdown{th: th} }

// Render renders text at width cells; leading and trailing blank lines are dropped.
func (m *Markdown) Render(text string, width int) []string {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return trimBlank(markdown.Render(m.th, text, width))
}

// splitStable returns the length of the prefix of text that later deltas cannot change: up to
// and including the last blank line that is outside a fenced code block.
func splitStable(text string) int {
	cut := 0
	inFence := false
	pos := 0
	for pos < len(text) {
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 {
			break
		}
		line := text[pos : pos+nl]
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		pos += nl + 1
		if !inFence && t == "" {
			cut = pos
		}
	}
	return cut
}

func trimBlank(lines []string) []string {
	isBlank := func(l string) bool { return strings.TrimSpace(stripSGR(l)) == "" }
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func stripSGR(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
