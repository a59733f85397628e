package script

import (
	"strings"
	"testing"
)

// TestSplit: a text is cut into at most n chunks on rune boundaries.
func TestSplit(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want []string
	}{
		{"", 3, nil},
		{"abc", 0, []string{"abc"}},
		{"abc", 1, []string{"abc"}},
		{"abcdef", 3, []string{"ab", "cd", "ef"}},
		{"abcdefg", 3, []string{"ab", "cd", "efg"}},
		{"héé", 5, []string{"h", "é", "é"}},
	}
	for _, c := range cases {
		got := split(c.s, c.n)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("split(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
