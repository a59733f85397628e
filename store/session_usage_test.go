package store

import (
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// TestUsageTotalsEveryBranch: UsageTotals sums the assistant messages of the whole file, the
// branch left by SetLeaf included, decoded or not (a reopened file's messages are not decoded).
func TestUsageTotalsEveryBranch(t *testing.T) {
	s, err := Create("/p", t.TempDir(), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	withUsage := func(text string, in, out int64, cost float64) llm.Message {
		m := assistantMsg(text, 2)
		m.Usage = llm.Usage{Input: in, Output: out, CacheRead: 1, Cost: llm.Cost{Total: cost}}
		return m
	}
	must(t)(s.AppendMessage(llm.UserText("q1", nil, 1)))
	first := must(t)(s.AppendMessage(withUsage("a1", 100, 10, 0.5)))
	must(t)(s.AppendMessage(llm.UserText("q2", nil, 3)))
	must(t)(s.AppendMessage(withUsage("a2", 200, 20, 0.25)))
	if err := s.SetLeaf(first); err != nil { // a new branch from a1
		t.Fatal(err)
	}
	must(t)(s.AppendMessage(llm.UserText("q3", nil, 4)))
	must(t)(s.AppendMessage(withUsage("a3", 400, 40, 1)))
	check := func(s *Session, when string) {
		t.Helper()
		u := s.UsageTotals()
		if u.Input != 700 || u.Output != 70 || u.CacheRead != 3 || u.Cost.Total != 1.75 {
			t.Fatalf("%s: totals %+v, want input 700 output 70 cacheRead 3 cost 1.75", when, u)
		}
	}
	check(s, "live")
	re, err := Open(s.SessionFile(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if re.lazy == nil {
		t.Fatal("the reopened session has no lazy entries: the test does not reach them")
	}
	check(re, "reopened")
	for _, e := range re.entries {
		if e != nil && e.Type == TypeMessage && e.Message != nil {
			t.Fatalf("UsageTotals decoded entry %s", e.ID)
		}
	}
}
