package tuitest

import "testing"

// TestTrackSync: a chunk that ends inside a synchronized update (DEC 2026) is seen as one, also
// when the begin or end sequence is split between two reads; the last sequence in a chunk wins.
func TestTrackSync(t *testing.T) {
	var term Term
	steps := []struct {
		chunk string
		want  bool
	}{
		{"plain text", false},
		{"\x1b[?2026hrow 1", true},
		{"row 2", true},
		{"row 3\x1b[?20", true},
		{"26l", false},
		{"\x1b[?2026hA\x1b[?2026l\x1b[?2026hB", true},
		{"\x1b[?2026", true},
		{"l\x1b[?2026", false},
		{"h", true},
		{"\x1b[?2026lC\x1b[?2026hD\x1b[?2026l", false},
	}
	for i, s := range steps {
		term.trackSync([]byte(s.chunk))
		if term.syncing != s.want {
			t.Fatalf("step %d (%q): syncing %v, want %v", i, s.chunk, term.syncing, s.want)
		}
	}
}
