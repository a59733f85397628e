package compact

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parameters tune a compaction run (seed 004 "ctx.compact()"); they are recorded in the entry's
// details.parameters with these JSON names.
type Parameters struct {
	// CompressionRatio is the fraction of compactable lines to keep, in (0, 1].
	CompressionRatio float64 `json:"compression_ratio"`
	// PreserveRecent is the exact number of newest context-visible messages kept out of the
	// region (0: the whole transcript is compactable).
	PreserveRecent int `json:"preserve_recent"`
	// Query guides the planner's relevance choices; it is never context text.
	Query string `json:"query,omitempty"`
}

// Range is a span of deleted lines, 1-based and inclusive on both ends.
type Range struct {
	Start, End int
}

// Len is the number of lines in r.
func (r Range) Len() int { return r.End - r.Start + 1 }

// ErrBadAnswer is wrapped by every ParseRanges failure: the planner's answer does not follow
// the format or names lines that do not exist.
var ErrBadAnswer = errors.New("compact: invalid planner answer")

// PlannerSystemPrompt is the fixed system prompt of the planner request.
const PlannerSystemPrompt = `You select lines to delete from a coding-agent transcript so that it fits in less context.
You never rewrite, summarise or add text: you only name line numbers to delete. Keep what the agent still needs to continue the task: the user's requests and constraints, decisions, file paths, identifiers, error messages that are not yet fixed, and the most recent state of each piece of work. Delete repetition, noise, superseded attempts and long tool output whose content is no longer needed.

Answer with the deleted line ranges only, one per line, in ascending order, not overlapping:
START-END   (deletes lines START through END inclusive)
N           (deletes line N)
Answer NONE when nothing should be deleted. Write nothing else: no prose, no code fences.`

// PlannerPrompt returns the user message of the planner request for lines: the parameters,
// the target number of lines to delete, and the lines numbered from 1 as "N| text".
func PlannerPrompt(lines []string, p Parameters) string {
	var b strings.Builder
	b.Grow(len(lines) * 48)
	keep := TargetKept(len(lines), p.CompressionRatio)
	fmt.Fprintf(&b, "The transcript has %d lines. Keep about %d of them (compression_ratio %g): delete about %d lines.\n",
		len(lines), keep, p.CompressionRatio, len(lines)-keep)
	if q := strings.TrimSpace(p.Query); q != "" {
		fmt.Fprintf(&b, "Relevance guidance from the user (not transcript text): %s\n", q)
	}
	b.WriteString("\n<transcript>\n")
	var num [20]byte
	for i, l := range lines {
		b.Write(strconv.AppendInt(num[:0], int64(i+1), 10))
		b.WriteString("| ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("</transcript>\n\nAnswer with the deleted line ranges only.")
	return b.String()
}

// TargetKept is the number of lines a ratio keeps out of n (rounded, at least 0, at most n).
func TargetKept(n int, ratio float64) int {
	k := int(math.Round(float64(n) * ratio))
	return min(max(k, 0), n)
}

// ParseRanges reads a planner answer for a region of n lines. The format is strict: after
// trimming surrounding whitespace, the answer is "NONE" (any case) or one range per non-empty line, each
// "START-END" or "N" (decimal, optional spaces around the dash). Ranges must lie within 1..n,
// have START <= END, be in ascending order and not overlap. Any violation is an error wrapping
// ErrBadAnswer that names the offending answer line.
func ParseRanges(answer string, n int) ([]Range, error) {
	answer = strings.TrimSpace(answer)
	if answer == "" {
		return nil, fmt.Errorf("%w: the answer is empty (answer NONE to delete nothing)", ErrBadAnswer)
	}
	if strings.EqualFold(answer, "NONE") {
		return nil, nil
	}
	var out []Range
	prevEnd := 0
	lineNo := 0
	for len(answer) > 0 {
		var line string
		if i := strings.IndexByte(answer, '\n'); i >= 0 {
			line, answer = answer[:i], answer[i+1:]
		} else {
			line, answer = answer, ""
		}
		lineNo++
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		r, ok := parseRange(line)
		if !ok {
			return nil, fmt.Errorf("%w: answer line %d %q is not START-END or N", ErrBadAnswer, lineNo, line)
		}
		switch {
		case r.Start < 1 || r.End > n:
			return nil, fmt.Errorf("%w: range %d-%d on answer line %d is outside lines 1-%d", ErrBadAnswer, r.Start, r.End, lineNo, n)
		case r.Start > r.End:
			return nil, fmt.Errorf("%w: range %d-%d on answer line %d ends before it starts", ErrBadAnswer, r.Start, r.End, lineNo)
		case r.Start <= prevEnd:
			return nil, fmt.Errorf("%w: range %d-%d on answer line %d overlaps or precedes the previous range ending at %d", ErrBadAnswer, r.Start, r.End, lineNo, prevEnd)
		}
		prevEnd = r.End
		out = append(out, r)
	}
	return out, nil
}

func parseRange(s string) (Range, bool) {
	a, b, dash := strings.Cut(s, "-")
	start, ok := atoi(strings.TrimSpace(a))
	if !ok {
		return Range{}, false
	}
	if !dash {
		return Range{start, start}, true
	}
	end, ok := atoi(strings.TrimSpace(b))
	return Range{start, end}, ok
}

// atoi parses a non-empty run of ASCII digits (no sign) of at most 9 digits.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
