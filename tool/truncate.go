package tool

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Output limits of the pi tools (tools.md §3).
const (
	// DefaultMaxBytes is the byte budget of a tool output: 50 KiB.
	DefaultMaxBytes = 50 * 1024
	// DefaultMaxLines is the line budget of a tool output (pi: 2000).
	DefaultMaxLines = 2000
	// GrepMaxLineLength is the length, in characters (runes), beyond which a grep output line is
	// cut (pi: 500).
	GrepMaxLineLength = 500
)

// noLineLimit disables the line cap of a truncation. It is JavaScript's Number.MAX_SAFE_INTEGER,
// the value pi passes for byte-only truncation, so details.truncation.maxLines matches pi.
const noLineLimit = 1<<53 - 1

// TruncatedBy says which limit stopped a truncation. The zero value means "not truncated" and
// marshals as JSON null.
type TruncatedBy string

// Values of TruncatedBy.
const (
	TruncatedByLines TruncatedBy = "lines"
	TruncatedByBytes TruncatedBy = "bytes"
)

// MarshalJSON writes "lines", "bytes" or null for the zero value.
func (t TruncatedBy) MarshalJSON() ([]byte, error) {
	if t == "" {
		return []byte("null"), nil
	}
	return []byte(strconv.Quote(string(t))), nil
}

// TruncateOptions are the limits of TruncateHead and TruncateTail. A zero or negative field takes
// its default (DefaultMaxLines, DefaultMaxBytes).
type TruncateOptions struct {
	MaxLines int // lines, counted as pi does (see Truncation)
	MaxBytes int // UTF-8 bytes
}

func (o TruncateOptions) limits() (maxLines, maxBytes int) {
	maxLines, maxBytes = o.MaxLines, o.MaxBytes
	if maxLines <= 0 {
		maxLines = DefaultMaxLines
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return maxLines, maxBytes
}

// Truncation is the outcome of TruncateHead or TruncateTail, stored as details.truncation by the
// tools (tools.md §3, TruncationResult). Lines are counted as pi counts them: the number of
// "\n"-separated pieces, so "" is one line and a trailing newline adds an empty last line.
type Truncation struct {
	// Content is the kept text: whole lines, except the partial last line of a tail truncation.
	Content   string `json:"content"`
	Truncated bool   `json:"truncated"`
	// TruncatedBy is the limit that stopped the output; empty (null) when not truncated.
	TruncatedBy TruncatedBy `json:"truncatedBy"`
	TotalLines  int         `json:"totalLines"`
	TotalBytes  int         `json:"totalBytes"`
	OutputLines int         `json:"outputLines"`
	OutputBytes int         `json:"outputBytes"`
	// LastLinePartial is set by TruncateTail when the last line alone exceeded MaxBytes and only
	// its final bytes were kept.
	LastLinePartial bool `json:"lastLinePartial"`
	// FirstLineExceedsLimit is set by TruncateHead when the first line alone exceeds MaxBytes; the
	// content is then empty.
	FirstLineExceedsLimit bool `json:"firstLineExceedsLimit"`
	MaxLines              int  `json:"maxLines"`
	MaxBytes              int  `json:"maxBytes"`
}

// measure starts the truncation of content within opts' limits: totals and limits are set, and
// when content fits (fits is true) the result is final, the whole content kept. Otherwise
// Truncated is set and the caller decides what to keep.
func measure(content string, opts TruncateOptions) (t Truncation, fits bool) {
	maxLines, maxBytes := opts.limits()
	totalBytes := len(content)
	totalLines := strings.Count(content, "\n") + 1
	t = Truncation{
		TotalLines: totalLines, TotalBytes: totalBytes,
		MaxLines: maxLines, MaxBytes: maxBytes,
	}
	if totalLines <= maxLines && totalBytes <= maxBytes {
		t.Content, t.OutputLines, t.OutputBytes = content, totalLines, totalBytes
		return t, true
	}
	t.Truncated = true
	return t, false
}

// TruncateHead keeps whole lines from the start of content while at most opts.MaxLines lines and
// opts.MaxBytes bytes (newlines between kept lines included) fit (tools.md §3, truncateHead). It
// is used for file reads and listings. When the first line alone is over the byte limit the
// result is empty with FirstLineExceedsLimit set.
func TruncateHead(content string, opts TruncateOptions) Truncation {
	t, fits := measure(content, opts)
	if fits {
		return t
	}
	maxLines, maxBytes := t.MaxLines, t.MaxBytes
	first := content
	if i := strings.IndexByte(content, '\n'); i >= 0 {
		first = content[:i]
	}
	if len(first) > maxBytes {
		t.TruncatedBy = TruncatedByBytes
		t.FirstLineExceedsLimit = true
		return t
	}
	// end is the byte offset just past the last kept line; n counts kept lines.
	end, n := 0, 0
	t.TruncatedBy = TruncatedByLines
	rest := content
	for n < maxLines {
		line := rest
		i := strings.IndexByte(rest, '\n')
		if i >= 0 {
			line = rest[:i]
		}
		size := len(line)
		if n > 0 {
			size++
		}
		if end+size > maxBytes {
			t.TruncatedBy = TruncatedByBytes
			break
		}
		end += size
		n++
		if i < 0 {
			break
		}
		rest = rest[i+1:]
	}
	if n >= maxLines && end <= maxBytes {
		t.TruncatedBy = TruncatedByLines
	}
	t.Content = content[:end]
	t.OutputLines, t.OutputBytes = n, end
	return t
}

// TruncateTail keeps whole lines from the end of content within opts.MaxLines lines and
// opts.MaxBytes bytes (tools.md §3, truncateTail); it is used for command output. When the last
// line alone is over the byte limit, its final MaxBytes bytes are kept (cut on a UTF-8 boundary)
// and LastLinePartial is set.
func TruncateTail(content string, opts TruncateOptions) Truncation {
	t, fits := measure(content, opts)
	if fits {
		return t
	}
	maxLines, maxBytes := t.MaxLines, t.MaxBytes
	t.TruncatedBy = TruncatedByLines
	// start is the byte offset of the first kept line; kept bytes are content[start:].
	start, n, size := len(content), 0, 0
	rest := content
	for n < maxLines {
		i := strings.LastIndexByte(rest, '\n')
		line := rest[i+1:]
		add := len(line)
		if n > 0 {
			add++
		}
		if size+add > maxBytes {
			t.TruncatedBy = TruncatedByBytes
			if n == 0 {
				kept := tailBytes(line, maxBytes)
				t.Content = kept
				t.OutputLines, t.OutputBytes = 1, len(kept)
				t.LastLinePartial = true
				return t
			}
			break
		}
		size += add
		n++
		start = i + 1
		if i < 0 {
			break
		}
		rest = rest[:i]
	}
	if n >= maxLines && size <= maxBytes {
		t.TruncatedBy = TruncatedByLines
	}
	t.Content = content[start:]
	t.OutputLines, t.OutputBytes = n, len(t.Content)
	return t
}

// tailBytes returns the last at most max bytes of s, starting on a UTF-8 character boundary.
func tailBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := len(s) - max
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// TruncateLine cuts line to max characters (runes) and appends "... [truncated]" (tools.md §3,
// truncateLine). A max of zero or less means GrepMaxLineLength. It reports whether it cut.
func TruncateLine(line string, max int) (string, bool) {
	if max <= 0 {
		max = GrepMaxLineLength
	}
	if len(line) <= max {
		return line, false
	}
	n := 0
	for i := range line {
		if n == max {
			return line[:i] + "... [truncated]", true
		}
		n++
	}
	return line, false
}

// FormatSize renders a byte count as pi does (tools.md §3, formatSize): "512B" below 1 KiB,
// "1.5KB" below 1 MiB, else "2.0MB"; one decimal, rounded half up.
func FormatSize(bytes int) string {
	switch {
	case bytes < 1024:
		return strconv.Itoa(bytes) + "B"
	case bytes < 1024*1024:
		return tenths(bytes, 1024) + "KB"
	default:
		return tenths(bytes, 1024*1024) + "MB"
	}
}

// tenths formats n/unit with one decimal, rounding half up in integer arithmetic, which is what
// JavaScript's toFixed(1) does for these exactly representable quotients.
func tenths(n, unit int) string {
	t := (n*10 + unit/2) / unit
	return strconv.Itoa(t/10) + "." + strconv.Itoa(t%10)
}
