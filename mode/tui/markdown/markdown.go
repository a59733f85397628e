// Package markdown renders the markdown of assistant messages to styled terminal lines (tui.md
// §6.1) with the theme's md* tokens: headings, paragraphs (line breaks kept), emphasis, strong,
// strike-through, code spans, links, bullet and ordered lists (nested), block quotes, fenced
// code blocks (highlighted by mode/tui/highlight), tables and rules.
//
// It is a small line-oriented renderer for the markdown models write, not a CommonMark
// implementation. Every output line carries its own complete styles (a style never spans two
// lines), so any subset of lines can be shown. It costs nothing at process start and renders a
// screenful in microseconds, which is what streaming needs.
//
// markdown imports mode/tui/component, mode/tui/highlight and mode/tui/theme. Safe for
// concurrent use.
package markdown

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/highlight"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

var (
	reHeading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	reRule     = regexp.MustCompile(`^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$`)
	reItem     = regexp.MustCompile(`^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$`)
	reTask     = regexp.MustCompile(`^\[([ xX])\]\s+(.*)$`)
	reTableSep = regexp.MustCompile(`^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$`)
)

// Render renders text for width cells.
func Render(th *theme.Theme, text string, width int) []string {
	if width < 4 {
		width = 4
	}
	r := &renderer{th: th, width: width}
	r.blocks(strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), 0)
	out := r.out
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

type renderer struct {
	th    *theme.Theme
	width int
	out   []string
}

// gap adds one blank line between blocks (never two, never at the start).
func (r *renderer) gap() {
	if len(r.out) > 0 && r.out[len(r.out)-1] != "" {
		r.out = append(r.out, "")
	}
}

// blocks renders lines as block-level markdown, indented by indent cells.
func (r *renderer) blocks(lines []string, indent int) {
	w := r.width - indent
	if w < 4 {
		w = 4
	}
	pad := strings.Repeat(" ", indent)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			r.gap()
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence := t[:3]
			info := strings.TrimSpace(strings.TrimLeft(t, fence[:1]))
			var code []string
			j := i + 1
			for ; j < len(lines); j++ {
				if strings.HasPrefix(strings.TrimSpace(lines[j]), fence) {
					break
				}
				code = append(code, lines[j])
			}
			r.code(info, code, pad, w)
			i = j
		case reHeading.MatchString(t):
			m := reHeading.FindStringSubmatch(t)
			r.gap()
			level := len(m[1])
			txt := m[2]
			if level >= 3 {
				txt = m[1] + " " + txt
			}
			open := r.th.FgSeq("mdHeading") + "\x1b[1m"
			if level == 1 {
				open += "\x1b[4m"
			}
			for _, ln := range r.inline(txt, w, open) {
				r.out = append(r.out, pad+ln)
			}
			r.gap()
		case reRule.MatchString(l):
			r.gap()
			r.out = append(r.out, pad+r.th.Fg("mdHr", strings.Repeat("─", min(w, 80))))
			r.gap()
		case strings.HasPrefix(t, ">"):
			var inner []string
			j := i
			for ; j < len(lines); j++ {
				tj := strings.TrimSpace(lines[j])
				if !strings.HasPrefix(tj, ">") {
					break
				}
				inner = append(inner, strings.TrimPrefix(strings.TrimPrefix(tj, ">"), " "))
			}
			sub := &renderer{th: r.th, width: w - 2}
			sub.blocks(inner, 0)
			for len(sub.out) > 0 && sub.out[len(sub.out)-1] == "" {
				sub.out = sub.out[:len(sub.out)-1]
			}
			for _, ln := range sub.out {
				r.out = append(r.out, pad+r.th.Fg("mdQuoteBorder", "│ ")+r.th.FgSeq("mdQuote")+"\x1b[3m"+ln+"\x1b[23m\x1b[39m")
			}
			i = j - 1
		case reItem.MatchString(l):
			i = r.list(lines, i, indent) - 1
		case strings.HasPrefix(t, "|") && i+1 < len(lines) && reTableSep.MatchString(lines[i+1]):
			j := i + 2
			rows := [][]string{cells(t)}
			for ; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|"); j++ {
				rows = append(rows, cells(strings.TrimSpace(lines[j])))
			}
			r.table(rows, pad, w)
			i = j - 1
		default:
			for _, ln := range r.inline(t, w, "") {
				r.out = append(r.out, pad+ln)
			}
		}
	}
}

// list renders the list starting at lines[i] and returns the index after it.
func (r *renderer) list(lines []string, i, indent int) int {
	m := reItem.FindStringSubmatch(lines[i])
	base := len(m[1])
	for i < len(lines) {
		l := lines[i]
		m := reItem.FindStringSubmatch(l)
		if m == nil {
			if strings.TrimSpace(l) == "" {
				// A blank line ends the list unless the next line continues it.
				if i+1 < len(lines) && reItem.MatchString(lines[i+1]) && len(reItem.FindStringSubmatch(lines[i+1])[1]) >= base {
					i++
					continue
				}
				return i
			}
			return i
		}
		lead := len(m[1])
		if lead < base {
			return i
		}
		if lead > base {
			// A nested list: render it indented under the current item.
			i = r.list(lines, i, indent+2)
			continue
		}
		marker := "• "
		if m[2] != "-" && m[2] != "*" && m[2] != "+" {
			marker = m[2] + " "
		}
		body := m[3]
		if tm := reTask.FindStringSubmatch(body); tm != nil {
			box := "☐ "
			if tm[1] != " " {
				box = "☑ "
			}
			body = box + tm[2]
		}
		// Continuation lines: indented, not items.
		j := i + 1
		for ; j < len(lines); j++ {
			lj := lines[j]
			if strings.TrimSpace(lj) == "" || reItem.MatchString(lj) || len(lj)-len(strings.TrimLeft(lj, " ")) <= base {
				break
			}
			body += "\n" + strings.TrimSpace(lj)
		}
		mw := ansi.StringWidth(marker)
		pad := strings.Repeat(" ", indent)
		first := true
		for _, para := range strings.Split(body, "\n") {
			for _, ln := range r.inline(para, r.width-indent-mw, "") {
				if first {
					r.out = append(r.out, pad+r.th.Fg("mdListBullet", marker)+ln)
					first = false
				} else {
					r.out = append(r.out, pad+strings.Repeat(" ", mw)+ln)
				}
			}
		}
		i = j
	}
	return i
}

func (r *renderer) code(info string, code []string, pad string, w int) {
	border := r.th.Fg("mdCodeBlockBorder", "```"+info)
	r.out = append(r.out, pad+border)
	lang := strings.Fields(info + " ")[0]
	src := strings.ReplaceAll(strings.Join(code, "\n"), "\t", "    ")
	for _, ln := range highlight.Lines(r.th, lang, src, "mdCodeBlock") {
		if ansi.StringWidth(ln) > w-2 {
			for _, part := range strings.Split(ansi.Hardwrap(ln, w-2, true), "\n") {
				r.out = append(r.out, pad+"  "+part)
			}
			continue
		}
		r.out = append(r.out, pad+"  "+ln)
	}
	r.out = append(r.out, pad+r.th.Fg("mdCodeBlockBorder", "```"))
}

func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	parts := strings.Split(row, "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// table renders rows (the first is the header) as aligned columns, or one row per line when it
// does not fit.
func (r *renderer) table(rows [][]string, pad string, w int) {
	n := 0
	for _, row := range rows {
		n = max(n, len(row))
	}
	widths := make([]int, n)
	styled := make([][]string, len(rows))
	for ri, row := range rows {
		styled[ri] = make([]string, n)
		for ci := 0; ci < n; ci++ {
			c := ""
			if ci < len(row) {
				c = row[ci]
			}
			s := strings.Join(r.inline(c, 1<<20, ""), " ")
			if ri == 0 {
				s = theme.Bold(s)
			}
			styled[ri][ci] = s
			widths[ci] = max(widths[ci], ansi.StringWidth(s))
		}
	}
	total := 0
	for _, cw := range widths {
		total += cw + 3
	}
	sep := r.th.Fg("mdCodeBlockBorder", "│")
	if total+1 > w {
		for _, row := range styled {
			for _, ln := range component.Wrap(strings.Join(row, " "+sep+" "), w) {
				r.out = append(r.out, pad+ln)
			}
		}
		return
	}
	for ri, row := range styled {
		var b strings.Builder
		b.WriteString(sep)
		for ci, c := range row {
			b.WriteString(" " + component.Pad(c, widths[ci]) + " " + sep)
		}
		r.out = append(r.out, pad+b.String())
		if ri == 0 {
			var s strings.Builder
			s.WriteString("├")
			for ci, cw := range widths {
				s.WriteString(strings.Repeat("─", cw+2))
				if ci < len(widths)-1 {
					s.WriteString("┼")
				}
			}
			s.WriteString("┤")
			r.out = append(r.out, pad+r.th.Fg("mdCodeBlockBorder", s.String()))
		}
	}
}

// span is a run of text with one style.
type span struct {
	text  string
	style string // SGR sequences opening the style ("" plain)
}

// inline renders one paragraph line's inline markdown, word-wrapped to w cells; base is a style
// applied under everything (headings).
func (r *renderer) inline(s string, w int, base string) []string {
	return wrapSpans(r.parseInline(s, base), w)
}

// parseInline splits s into styled spans: `code`, **strong**, __strong__, *em*, _em_,
// ~~strike~~, [text](url) and bare http(s) URLs. It walks s once by byte offset.
func (r *renderer) parseInline(s string, base string) []span {
	var out []span
	var cur strings.Builder
	bold, italic, strike := false, false, false
	style := func() string {
		st := base
		if bold {
			st += "\x1b[1m"
		}
		if italic {
			st += "\x1b[3m"
		}
		if strike {
			st += "\x1b[9m"
		}
		return st
	}
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, span{cur.String(), style()})
			cur.Reset()
		}
	}
	isWord := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	wordBefore := func(i int) bool { return i > 0 && isWord(s[i-1]) }
	wordAfter := func(i int) bool { return i < len(s) && isWord(s[i]) }
	for i := 0; i < len(s); i++ {
		c := s[i]
		rest := s[i:]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!~|>", s[i+1]) >= 0:
			cur.WriteByte(s[i+1])
			i++
		case c == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			ticks := rest[:n]
			end := strings.Index(s[i+n:], ticks)
			if end < 0 {
				cur.WriteString(ticks)
				i += n - 1
				continue
			}
			flush()
			code := s[i+n : i+n+end]
			out = append(out, span{strings.TrimSpace(code), base + r.th.FgSeq("mdCode")})
			i += n + end + n - 1
		case strings.HasPrefix(rest, "**") || strings.HasPrefix(rest, "__") && (bold || !wordBefore(i)):
			mark := rest[:2]
			if !bold && !strings.Contains(s[i+2:], mark) {
				cur.WriteString(mark)
				i++
				continue
			}
			flush()
			bold = !bold
			i++
		case strings.HasPrefix(rest, "~~"):
			if !strike && !strings.Contains(s[i+2:], "~~") {
				cur.WriteString("~~")
				i++
				continue
			}
			flush()
			strike = !strike
			i++
		case (c == '*' || c == '_') && italic && !(c == '_' && wordAfter(i+1)):
			flush()
			italic = false
		case (c == '*' || c == '_') && !italic && i+1 < len(s) && s[i+1] != ' ' && strings.IndexByte(s[i+1:], c) >= 0 && !(c == '_' && wordBefore(i)):
			flush()
			italic = true
		case c == '[':
			closeB := strings.Index(rest, "](")
			if closeB > 0 {
				if endP := strings.IndexByte(rest[closeB:], ')'); endP > 0 {
					text := rest[1:closeB]
					url := rest[closeB+2 : closeB+endP]
					flush()
					out = append(out, span{text, style() + r.th.FgSeq("mdLink") + "\x1b[4m"})
					if url != text {
						out = append(out, span{" (" + url + ")", style() + r.th.FgSeq("mdLinkUrl")})
					}
					i += closeB + endP
					continue
				}
			}
			cur.WriteByte(c)
		case (strings.HasPrefix(rest, "https://") || strings.HasPrefix(rest, "http://")) && !wordBefore(i):
			j := strings.IndexAny(rest, " \t)>\"'")
			if j < 0 {
				j = len(rest)
			}
			flush()
			out = append(out, span{rest[:j], style() + r.th.FgSeq("mdLink") + "\x1b[4m"})
			i += j - 1
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}

// wrapSpans word-wraps spans to w cells; each output line re-opens the styles it uses and resets
// them at its end.
func wrapSpans(spans []span, w int) []string {
	if w < 1 {
		w = 1
	}
	var lines []string
	var b strings.Builder
	col := 0
	lineHasText := false
	newline := func() {
		lines = append(lines, b.String())
		b.Reset()
		col = 0
		lineHasText = false
	}
	put := func(text, style string) {
		if text == "" {
			return
		}
		if style != "" {
			b.WriteString(style)
			b.WriteString(text)
			b.WriteString("\x1b[0m")
		} else {
			b.WriteString(text)
		}
		col += textWidth(text)
		lineHasText = true
	}
	for _, sp := range spans {
		// Split into words keeping the spaces before each word.
		words := splitWords(sp.text)
		for _, wd := range words {
			ww := textWidth(wd)
			if col+ww > w && lineHasText {
				trimmed := strings.TrimLeft(wd, " ")
				newline()
				wd, ww = trimmed, textWidth(trimmed)
			}
			for ww > w {
				// A word longer than the line: cut it.
				head := ansi.Truncate(wd, w-col, "")
				if head == "" {
					newline()
					continue
				}
				put(head, sp.style)
				wd = strings.TrimPrefix(wd, head)
				ww = textWidth(wd)
				newline()
			}
			put(wd, sp.style)
		}
	}
	if b.Len() > 0 || len(lines) == 0 {
		lines = append(lines, b.String())
	}
	return lines
}

// splitWords splits s into pieces that each start with the spaces before a word.
func splitWords(s string) []string {
	var out []string
	start := 0
	inSpace := true
	for i, c := range s {
		if c == ' ' {
			if !inSpace {
				out = append(out, s[start:i])
				start = i
			}
			inSpace = true
			continue
		}
		inSpace = false
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// textWidth is the cell width of plain text (no escape sequences), with a fast path for ASCII.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}
