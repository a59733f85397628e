package tool

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Replacement is one exact-text replacement of the edit tool (tools.md §6.2).
type Replacement struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// EditOutcome is the result of ApplyReplacements.
type EditOutcome struct {
	// Content is the new file content: BOM and line endings as in the original, every byte outside
	// the replaced spans unchanged.
	Content string
	// Before and After are the old and new content without BOM and with LF line endings, the
	// texts the display diff is computed on.
	Before, After string
}

// ApplyReplacements applies edits to the file content raw, as the edit tool does (tools.md §6.2
// with this project's contract): the BOM and line-ending style are remembered and content and
// texts compared with LF endings; every OldText is located in the original content, exactly
// when it occurs there (and must occur once), else in the fuzzy-normalised content (NFKC,
// trailing whitespace, quotes, dashes and Unicode spaces normalised; again exactly once); the
// matched spans must not overlap. Only the matched spans are rewritten; NewText gets the file's
// dominant line ending. path is only used in error messages, which are the texts of §6.2 (empty
// oldText, not found, K occurrences, overlap, no change).
func ApplyReplacements(raw string, edits []Replacement, path string) (EditOutcome, error) {
	bom := ""
	if strings.HasPrefix(raw, "\uFEFF") {
		bom, raw = "\uFEFF", raw[len("\uFEFF"):]
	}
	eol := "\n"
	if i := strings.IndexByte(raw, '\n'); i > 0 && raw[i-1] == '\r' {
		eol = "\r\n"
	}
	content, crlf := normalizeEOL(raw, true)
	multi := len(edits) > 1
	name := func(i int) string {
		if multi {
			return fmt.Sprintf("edits[%d]", i)
		}
		return "the text"
	}

	type match struct {
		edit       int
		start, end int // in content
		newText    string
	}
	matches := make([]match, 0, len(edits))
	var fz *fuzzyIndex
	for i, e := range edits {
		oldText, _ := normalizeEOL(e.OldText, false)
		newText, _ := normalizeEOL(e.NewText, false)
		if oldText == "" {
			if multi {
				return EditOutcome{}, fmt.Errorf("edits[%d].oldText must not be empty in %s.", i, path)
			}
			return EditOutcome{}, fmt.Errorf("oldText must not be empty in %s.", path)
		}
		start, end, count := -1, -1, strings.Count(content, oldText)
		if count == 1 {
			start = strings.Index(content, oldText)
			end = start + len(oldText)
		} else if count == 0 {
			if fz == nil {
				fz = newFuzzyIndex(content)
			}
			start, end, count = fz.find(fuzzyNormalize(oldText))
		}
		switch {
		case count == 0 && multi:
			return EditOutcome{}, fmt.Errorf("Could not find edits[%d] in %s. The oldText must match exactly including all whitespace and newlines.", i, path)
		case count == 0:
			return EditOutcome{}, fmt.Errorf("Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines.", path)
		case count > 1 && multi:
			return EditOutcome{}, fmt.Errorf("Found %d occurrences of %s in %s. Each oldText must be unique. Please provide more context to make it unique.", count, name(i), path)
		case count > 1:
			return EditOutcome{}, fmt.Errorf("Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", count, path)
		}
		matches = append(matches, match{edit: i, start: start, end: end, newText: newText})
	}
	sort.Slice(matches, func(i, j int) bool { return matches[i].start < matches[j].start })
	for i := 1; i < len(matches); i++ {
		prev, cur := matches[i-1], matches[i]
		if prev.end > cur.start {
			return EditOutcome{}, fmt.Errorf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit or target disjoint regions.", prev.edit, cur.edit, path)
		}
	}

	// origOffset maps an offset of content to raw: every CRLF before it adds one byte.
	origOffset := func(p int) int { return p + sort.SearchInts(crlf, p) }
	var after, out strings.Builder
	after.Grow(len(content))
	out.Grow(len(bom) + len(raw))
	out.WriteString(bom)
	prevN, prevO := 0, 0
	for _, m := range matches {
		after.WriteString(content[prevN:m.start])
		after.WriteString(m.newText)
		o0, o1 := origOffset(m.start), origOffset(m.end)
		out.WriteString(raw[prevO:o0])
		if eol == "\n" {
			out.WriteString(m.newText)
		} else {
			out.WriteString(strings.ReplaceAll(m.newText, "\n", eol))
		}
		prevN, prevO = m.end, o1
	}
	after.WriteString(content[prevN:])
	out.WriteString(raw[prevO:])
	if after.String() == content {
		if multi {
			return EditOutcome{}, fmt.Errorf("No changes made to %s. The replacements produced identical content.", path)
		}
		return EditOutcome{}, fmt.Errorf("No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", path)
	}
	return EditOutcome{Content: out.String(), Before: content, After: after.String()}, nil
}

// normalizeEOL turns CRLF and lone CR into LF. With record set it also returns, in increasing
// order, the offsets in the result of every LF that replaced a CRLF.
func normalizeEOL(s string, record bool) (string, []int) {
	if strings.IndexByte(s, '\r') < 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	var crlf []int
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\r' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(s) && s[i+1] == '\n' {
			if record {
				crlf = append(crlf, b.Len())
			}
			i++
		}
		b.WriteByte('\n')
	}
	return b.String(), crlf
}

// fuzzyRune maps the characters the fuzzy match treats as equivalent (tools.md §6.2 step 4).
func fuzzyRune(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F':
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return '-'
	case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009',
		'\u200A', '\u202F', '\u205F', '\u3000':
		return ' '
	}
	return r
}

// isTrailingSpace is JavaScript's trimEnd set: Unicode white space and U+FEFF, without U+0085.
func isTrailingSpace(r rune) bool {
	return r == '\uFEFF' || (r != '\u0085' && unicode.IsSpace(r))
}

// fuzzySpan maps a piece [o0,o1) of the original text to the piece [n0,n1) of its fuzzy form.
type fuzzySpan struct{ o0, o1, n0, n1 int }

// fuzzyIndex is the fuzzy-normalised form of a text with the map back to the original, at the
// granularity of Unicode normalisation segments.
type fuzzyIndex struct {
	text  string
	spans []fuzzySpan // increasing in both o and n
}

// fuzzyNormalize returns the fuzzy form of s: NFKC, trailing white space removed from every line,
// quote, dash and space variants replaced (tools.md §6.2 step 4).
func fuzzyNormalize(s string) string { return buildFuzzy(s, false).text }

func newFuzzyIndex(s string) *fuzzyIndex {
	fi := buildFuzzy(s, true)
	return &fi
}

func buildFuzzy(s string, withSpans bool) fuzzyIndex {
	var fi fuzzyIndex
	out := make([]byte, 0, len(s))
	var it norm.Iter
	lineStart := 0
	for {
		nl := strings.IndexByte(s[lineStart:], '\n')
		lineEnd := len(s)
		if nl >= 0 {
			lineEnd = lineStart + nl
		}
		outLine := len(out)
		firstSpan := len(fi.spans)
		it.InitString(norm.NFKC, s[lineStart:lineEnd])
		for pos := 0; !it.Done(); {
			seg := it.Next()
			n0 := len(out)
			for len(seg) > 0 {
				r, size := utf8.DecodeRune(seg)
				out = utf8.AppendRune(out, fuzzyRune(r))
				seg = seg[size:]
			}
			if withSpans {
				fi.spans = append(fi.spans, fuzzySpan{lineStart + pos, lineStart + it.Pos(), n0, len(out)})
			}
			pos = it.Pos()
		}
		trimmed := outLine + len(bytes.TrimRightFunc(out[outLine:], isTrailingSpace))
		out = out[:trimmed]
		for i := len(fi.spans) - 1; i >= firstSpan && fi.spans[i].n1 > trimmed; i-- {
			fi.spans[i].n1 = trimmed
			fi.spans[i].n0 = min(fi.spans[i].n0, trimmed)
		}
		if nl < 0 {
			break
		}
		if withSpans {
			fi.spans = append(fi.spans, fuzzySpan{lineEnd, lineEnd + 1, len(out), len(out) + 1})
		}
		out = append(out, '\n')
		lineStart = lineEnd + 1
	}
	fi.text = string(out)
	return fi
}

// find locates needle (already fuzzy-normalised) in the fuzzy text and maps the match back to the
// original: the span runs from the first original segment contributing to the match to the last.
// count is the number of non-overlapping occurrences; start and end are meaningful when it is 1.
func (fi *fuzzyIndex) find(needle string) (start, end, count int) {
	if needle == "" {
		return -1, -1, 0
	}
	count = strings.Count(fi.text, needle)
	if count != 1 {
		return -1, -1, count
	}
	fs := strings.Index(fi.text, needle)
	fe := fs + len(needle)
	first := sort.Search(len(fi.spans), func(i int) bool { return fi.spans[i].n1 > fs })
	last := sort.Search(len(fi.spans), func(i int) bool { return fi.spans[i].n0 >= fe }) - 1
	return fi.spans[first].o0, fi.spans[last].o1, 1
}
