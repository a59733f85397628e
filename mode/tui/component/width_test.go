package component

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Width agrees with ansi.StringWidth on styled ASCII (its fast path) and on everything the fast
// path leaves to it.
func TestWidthMatchesStringWidth(t *testing.T) {
	cases := []string{
		"",
		"plain words",
		"\x1b[1mbold\x1b[0m and \x1b[38;2;10;20;30mtruecolor\x1b[39m",
		"\x1b[38;5;196mred\x1b[m",
		"\x1b[!p reset",
		" \x1b[48;2;1;2;3m" + strings.Repeat("x", 200) + "\x1b[0m",
		"tab\there",
		"del\x7f",
		"cut escape \x1b",
		"cut csi \x1b[",
		"cut params \x1b[38;2;1",
		"esc other \x1bM",
		"\x1b]8;;https://example.com\x07link\x1b]8;;\x07",
		"\x1b]0;title\x07shown",
		"héllo wörld",
		"日本語のテキスト",
		"emoji 👍🏽 and ❤️",
		"\x1b[1m日本\x1b[0m",
		"e\u0301 combining",
		"\x00nul",
		"bell\a",
	}
	for _, s := range cases {
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Errorf("Width(%q) = %d, ansi.StringWidth = %d", s, got, want)
		}
	}
	if w, ok := asciiWidth("\x1b[1mab\x1b[0m c"); !ok || w != 4 {
		t.Errorf("asciiWidth of styled ASCII = %d, %v; want 4, true", w, ok)
	}
	for _, s := range []string{"ü", "\x1b]0;t\x07", "\x1b[12", "\t"} {
		if _, ok := asciiWidth(s); ok {
			t.Errorf("asciiWidth(%q) took the fast path", s)
		}
	}
}

func BenchmarkWidthStyledLine(b *testing.B) {
	line := " \x1b[38;2;200;200;200m" + strings.Repeat("word **bold** ", 8) + "\x1b[0m"
	for b.Loop() {
		Width(line)
	}
}

func BenchmarkStringWidthStyledLine(b *testing.B) {
	line := " \x1b[38;2;200;200;200m" + strings.Repeat("word **bold** ", 8) + "\x1b[0m"
	for b.Loop() {
		ansi.StringWidth(line)
	}
}
