package chat

import (
	"strings"
	"sync"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"

	"github.com/atomic-cli/atomic/mode/tui/theme"
)

// Markdown renders markdown text to styled lines with glamour, styled from the theme's md*
// and syntax* tokens (tui.md §5.1, §6.1). Renderers are built once per width. Streaming text is
// rendered in two parts: the stable prefix (everything before the last blank line outside a code
// fence), cached, and the tail, rendered again on each change — so a growing answer costs the
// size of its last paragraph per frame, not its whole length.
//
// A Markdown is owned by the Bubble Tea goroutine.
type Markdown struct {
	th        *theme.Theme
	mu        sync.Mutex
	renderers map[int]*glamour.TermRenderer
}

// NewMarkdown returns a renderer for th.
func NewMarkdown(th *theme.Theme) *Markdown {
	return &Markdown{th: th, renderers: map[int]*glamour.TermRenderer{}}
}

func ptr[T any](v T) *T { return &v }

func (m *Markdown) color(tok string) *string {
	if v := m.th.Value(tok); v != "" {
		return ptr(v)
	}
	return nil
}

func (m *Markdown) style() gansi.StyleConfig {
	c := m.color
	prim := func(tok string) gansi.StylePrimitive { return gansi.StylePrimitive{Color: c(tok)} }
	zero := ptr(uint(0))
	return gansi.StyleConfig{
		Document:       gansi.StyleBlock{Margin: zero},
		BlockQuote:     gansi.StyleBlock{StylePrimitive: prim("mdQuote"), Indent: ptr(uint(1)), IndentToken: ptr("│ ")},
		Paragraph:      gansi.StyleBlock{},
		List:           gansi.StyleList{LevelIndent: 2},
		Heading:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: c("mdHeading"), Bold: ptr(true), BlockSuffix: "\n"}},
		H1:             gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "# ", Underline: ptr(true)}},
		H2:             gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "## "}},
		H3:             gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "### "}},
		H4:             gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "#### "}},
		H5:             gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "##### "}},
		H6:             gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "###### "}},
		Strikethrough:  gansi.StylePrimitive{CrossedOut: ptr(true)},
		Emph:           gansi.StylePrimitive{Italic: ptr(true)},
		Strong:         gansi.StylePrimitive{Bold: ptr(true)},
		HorizontalRule: gansi.StylePrimitive{Color: c("mdHr"), Format: "\n────────\n"},
		Item:           gansi.StylePrimitive{BlockPrefix: "• "},
		Enumeration:    gansi.StylePrimitive{BlockPrefix: ". "},
		Task:           gansi.StyleTask{Ticked: "[✓] ", Unticked: "[ ] "},
		Link:           gansi.StylePrimitive{Color: c("mdLinkUrl"), Underline: ptr(true)},
		LinkText:       gansi.StylePrimitive{Color: c("mdLink"), Bold: ptr(true)},
		Image:          gansi.StylePrimitive{Color: c("mdLinkUrl")},
		ImageText:      gansi.StylePrimitive{Color: c("mdLink"), Format: "Image: {{.text}} →"},
		Code:           gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: c("mdCode")}},
		CodeBlock: gansi.StyleCodeBlock{
			StyleBlock: gansi.StyleBlock{StylePrimitive: prim("mdCodeBlock"), Margin: ptr(uint(2))},
			Chroma: &gansi.Chroma{
				Text:                prim("mdCodeBlock"),
				Comment:             prim("syntaxComment"),
				CommentPreproc:      prim("syntaxKeyword"),
				Keyword:             prim("syntaxKeyword"),
				KeywordReserved:     prim("syntaxKeyword"),
				KeywordNamespace:    prim("syntaxKeyword"),
				KeywordType:         prim("syntaxType"),
				Operator:            prim("syntaxOperator"),
				Punctuation:         prim("syntaxPunctuation"),
				Name:                prim("syntaxVariable"),
				NameBuiltin:         prim("syntaxFunction"),
				NameClass:           prim("syntaxType"),
				NameFunction:        prim("syntaxFunction"),
				NameConstant:        prim("syntaxVariable"),
				LiteralNumber:       prim("syntaxNumber"),
				LiteralString:       prim("syntaxString"),
				LiteralStringEscape: prim("syntaxString"),
				GenericDeleted:      prim("toolDiffRemoved"),
				GenericInserted:     prim("toolDiffAdded"),
			},
		},
		Table: gansi.StyleTable{CenterSeparator: ptr("┼"), ColumnSeparator: ptr("│"), RowSeparator: ptr("─")},
	}
}

func (m *Markdown) renderer(width int) *glamour.TermRenderer {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.renderers[width]; ok {
		return r
	}
	r, err := glamour.NewTermRenderer(glamour.WithStyles(m.style()), glamour.WithWordWrap(width), glamour.WithPreservedNewLines())
	if err != nil {
		return nil
	}
	if len(m.renderers) > 8 {
		m.renderers = map[int]*glamour.TermRenderer{}
	}
	m.renderers[width] = r
	return r
}

// Render renders text at width cells; trailing spaces and leading/trailing blank lines are
// dropped. On a renderer failure the text is returned wrapped, unstyled.
func (m *Markdown) Render(text string, width int) []string {
	if width < 4 {
		width = 4
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	r := m.renderer(width)
	if r == nil {
		return plainWrap(text, width)
	}
	out, err := r.Render(text)
	if err != nil {
		return plainWrap(text, width)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = trimRightSpaces(l)
	}
	return trimBlank(lines)
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

// trimRightSpaces drops trailing plain spaces, also those followed only by SGR sequences.
func trimRightSpaces(s string) string {
	for {
		t := strings.TrimRight(s, " ")
		if strings.HasSuffix(t, "m") {
			if i := strings.LastIndex(t, "\x1b["); i >= 0 && !strings.ContainsAny(t[i+2:len(t)-1], "\x1b") && isSGR(t[i:]) {
				inner := strings.TrimRight(t[:i], " ")
				if inner != t[:i] {
					s = inner + t[i:]
					continue
				}
			}
		}
		return t
	}
}

func isSGR(s string) bool {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' || s[len(s)-1] != 'm' {
		return false
	}
	for _, c := range s[2 : len(s)-1] {
		if (c < '0' || c > '9') && c != ';' {
			return false
		}
	}
	return true
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
