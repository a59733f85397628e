package markdown

import (
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/mode/tui/theme"
)

const sample = "# Title\n\nSome **bold**, *em*, `code` and a [link](https://x.dev) in a sentence long enough to wrap around.\n\n" +
	"- one\n- two\n  - nested\n- [x] done\n\n1. first\n2. second\n\n> quoted *text*\n\n```go\nfunc main() { // hi\n\treturn \"s\"\n}\n```\n\n" +
	"| a | bb |\n|---|---|\n| 1 | 22 |\n\n---\n\nend"

// TestRenderGolden pins the layout of every construct at 40 columns (styles stripped).
func TestRenderGolden(t *testing.T) {
	lines := Render(theme.Dark(), sample, 40)
	var b strings.Builder
	for _, l := range lines {
		if ansi.StringWidth(l) > 40 {
			t.Errorf("line wider than 40: %q", ansi.Strip(l))
		}
		b.WriteString(ansi.Strip(l) + "\n")
	}
	tuitest.Golden(t, "sample_40.golden", b.String())
}

// TestStylesPerLine checks a style that wraps is re-opened on the next line and reset at the end
// of each, so any subset of lines renders correctly.
func TestStylesPerLine(t *testing.T) {
	lines := Render(theme.Dark(), "**"+strings.Repeat("word ", 20)+"**", 20)
	if len(lines) < 2 {
		t.Fatalf("no wrap: %q", lines)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "\x1b[1m") || !strings.HasSuffix(l, "\x1b[0m") {
			t.Errorf("line does not carry its own bold: %q", l)
		}
	}
}

func BenchmarkRenderParagraphs(b *testing.B) {
	text := strings.Repeat("A paragraph with **bold** and `code` that goes on for a while to wrap.\n\n", 20)
	th := theme.Dark()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Render(th, text, 80)
	}
}
