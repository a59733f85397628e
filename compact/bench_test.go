package compact

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// bigRegion is a 100,000-line transcript and a planner answer deleting about half of it in
// ranges of 1 to 40 lines.
func bigRegion() ([]string, string) {
	lines := make([]string, 100_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d: some tool output with a path/to/file_%d.go and text", i, i%97)
	}
	var b strings.Builder
	for start := 1; start <= len(lines); {
		n := 1 + (start*7919)%40
		end := min(start+n-1, len(lines))
		b.WriteString(strconv.Itoa(start) + "-" + strconv.Itoa(end) + "\n")
		start = end + 1 + n
	}
	return lines, b.String()
}

// BenchmarkCompact100kLines measures validation and reconstruction (the planner excluded) of a
// 100,000-line region; the budget is 200 ms.
func BenchmarkCompact100kLines(b *testing.B) {
	lines, answer := bigRegion()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ranges, err := ParseRanges(answer, len(lines))
		if err != nil {
			b.Fatal(err)
		}
		Reconstruct(lines, ranges)
	}
}

// TestCompact100kLines checks the 100k-line case is correct; its speed is measured by
// BenchmarkCompact100kLines (target < 200 ms), never asserted in a test.
func TestCompact100kLines(t *testing.T) {
	lines, answer := bigRegion()
	ranges, err := ParseRanges(answer, len(lines))
	if err != nil {
		t.Fatal(err)
	}
	text, st := Reconstruct(lines, ranges)
	if st.LinesKept+st.LinesDeleted != len(lines) || st.LinesDeleted == 0 || text == "" {
		t.Fatalf("stats %+v", st)
	}
}
