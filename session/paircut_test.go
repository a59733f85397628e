package session

import (
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// TestPairSafeCut: a cut on a tool result moves back to the calling assistant message, or, when
// that would leave nothing to compact, forward past the results (issue 10 item 4).
func TestPairSafeCut(t *testing.T) {
	u := llm.Message{Role: llm.RoleUser}
	a := llm.Message{Role: llm.RoleAssistant}
	r := llm.Message{Role: llm.RoleToolResult}
	cases := []struct {
		name string
		msgs []llm.Message
		cut  int
		want int
	}{
		{"not on a result", []llm.Message{u, a, u, a}, 2, 2},
		{"end", []llm.Message{u, a}, 2, 2},
		{"first of two results", []llm.Message{u, a, r, r, a}, 2, 1},
		{"second of two results", []llm.Message{u, a, r, r, a}, 3, 1},
		{"call is the first message: forward", []llm.Message{a, r, r, u}, 1, 3},
		{"orphan results: forward", []llm.Message{u, r, r}, 1, 3},
	}
	for _, c := range cases {
		if got := pairSafeCut(c.msgs, c.cut); got != c.want {
			t.Errorf("%s: cut %d → %d, want %d", c.name, c.cut, got, c.want)
		}
	}
}
