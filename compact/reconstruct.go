package compact

import (
	"strconv"
	"strings"
)

// Stats describe one compaction (details.stats of the entry, rpc-and-json.md
// VerbatimCompactionResult). Token counts are estimates of the whole context.
type Stats struct {
	LinesBefore      int     `json:"linesBefore"`
	LinesDeleted     int     `json:"linesDeleted"`
	LinesKept        int     `json:"linesKept"`
	RangeCount       int     `json:"rangeCount"`
	TokensBefore     int64   `json:"tokensBefore"`
	TokensAfter      int64   `json:"tokensAfter"`
	PercentReduction float64 `json:"percentReduction"`
}

// Reconstruct rebuilds the retained text of lines after deleting ranges, which must have been
// validated by ParseRanges for len(lines): kept lines are copied verbatim, each deleted range
// becomes one line "(filtered N lines)" ("(filtered 1 line)" for one). Lines are joined with
// "\n", without a trailing newline. The returned stats have the line counts filled in.
func Reconstruct(lines []string, ranges []Range) (string, Stats) {
	st := Stats{LinesBefore: len(lines), RangeCount: len(ranges)}
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	var b strings.Builder
	b.Grow(size)
	next := 0 // index of the next line to copy
	first := true
	nl := func() {
		if !first {
			b.WriteByte('\n')
		}
		first = false
	}
	for _, r := range ranges {
		for ; next < r.Start-1; next++ {
			nl()
			b.WriteString(lines[next])
		}
		nl()
		b.WriteString(FilteredMarker(r.Len()))
		st.LinesDeleted += r.Len()
		next = r.End
	}
	for ; next < len(lines); next++ {
		nl()
		b.WriteString(lines[next])
	}
	st.LinesKept = st.LinesBefore - st.LinesDeleted
	return b.String(), st
}

// FilteredMarker is the line that stands for n elided lines.
func FilteredMarker(n int) string {
	if n == 1 {
		return "(filtered 1 line)"
	}
	return "(filtered " + strconv.Itoa(n) + " lines)"
}

// Finish fills the token fields of st from the whole-context estimates before and after.
func (st *Stats) Finish(tokensBefore, tokensAfter int64) {
	st.TokensBefore, st.TokensAfter = tokensBefore, tokensAfter
	if tokensBefore > 0 {
		st.PercentReduction = float64(tokensBefore-tokensAfter) * 100 / float64(tokensBefore)
		st.PercentReduction = float64(int64(st.PercentReduction*100+0.5)) / 100
	}
}
