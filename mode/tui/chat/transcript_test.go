package chat

import (
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

func newTestTranscript() *Transcript {
	th := theme.Dark()
	return New(Env{Theme: th, MD: NewMarkdown(th), Keys: keys.Default(), Home: "/home/u"})
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, lines []string) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(ansi.Strip(l), " "))
		b.WriteByte('\n')
	}
	tuitest.Golden(t, name, b.String())
}

func sampleTranscript() *Transcript {
	tr := newTestTranscript()
	tr.Append(&UserBlock{Text: "list the files and show main.go"})
	tr.Append(&AssistantBlock{Content: []llm.Content{
		{Type: llm.ContentThinking, Thinking: "I should run ls."},
		{Type: llm.ContentText, Text: "I'll **list** the files."},
	}, HasToolCalls: true})
	tr.Append(&ToolBlock{ID: "1", Name: "bash", Args: map[string]any{"command": "ls"}, Started: true, Done: true,
		Result: []llm.Content{llm.Text("a\nb\nc\nd\ne\nf\ng")}})
	tr.Append(&ToolBlock{ID: "2", Name: "read", Args: map[string]any{"path": "/home/u/p/main.go", "offset": float64(1), "limit": float64(3)}, Started: true, Done: true,
		Result: []llm.Content{llm.Text("package main\n\nfunc main() {}")}})
	tr.Append(&ToolBlock{ID: "3", Name: "edit", Args: map[string]any{"path": "x.go"}, Started: true, Done: true,
		Details: map[string]any{"diff": "-1 old\n+1 new", "firstChangedLine": float64(1)}})
	tr.Append(&ToolBlock{ID: "4", Name: "grep", Args: map[string]any{"pattern": "TODO", "path": "."}, Done: true, IsError: true,
		Result: []llm.Content{llm.Text("no matches")}})
	tr.Append(&AssistantBlock{Content: []llm.Content{{Type: llm.ContentText, Text: "## Done\n\nAll good:\n\n- one\n- two"}}})
	tr.Append(&NoticeBlock{Level: "warning", Text: "careful"})
	tr.Append(&LabelBlock{Label: "compaction", Collapsed: "Compacted from 12k tokens", Heading: "Summary", Body: "kept lines"})
	return tr
}

// TestTranscriptGolden pins the main transcript blocks at 60 columns: user message, collapsed
// thinking, bash (last 5 lines), read with a range, edit as a diff, an error row, markdown, a
// warning and a collapsed compaction row.
func TestTranscriptGolden(t *testing.T) {
	tr := sampleTranscript()
	golden(t, "transcript_60x70.golden", tr.View(60, 70))
	tr.Env.Expanded = true
	tr.Env.ShowThinking = true
	tr.Invalidate()
	golden(t, "transcript_expanded_60x80.golden", tr.View(60, 80))
}

// TestViewRendersOnlyVisible checks that a long transcript renders only the blocks reaching into
// the viewport, and that scrolling reaches the start and clamps there.
func TestViewRendersOnlyVisible(t *testing.T) {
	tr := newTestTranscript()
	var counters []*countingBlock
	for i := 0; i < 10000; i++ {
		b := &countingBlock{text: "message"}
		counters = append(counters, b)
		tr.Append(b)
	}
	lines := tr.View(40, 10)
	if len(lines) != 10 {
		t.Fatalf("View returned %d lines", len(lines))
	}
	rendered := 0
	for _, b := range counters {
		rendered += b.renders
	}
	if rendered > 10 {
		t.Errorf("%d blocks rendered for a 10-line view of 10,000; want at most 10", rendered)
	}
	tr.View(40, 10)
	again := 0
	for _, b := range counters {
		again += b.renders
	}
	if again != rendered {
		t.Errorf("unchanged blocks rendered again: %d -> %d", rendered, again)
	}
	tr.ScrollToTop()
	top := tr.View(40, 10)
	if top[0] != "message" || tr.Following() {
		t.Errorf("top of transcript: %q, following=%v", top[0], tr.Following())
	}
}

type countingBlock struct {
	text    string
	renders int
}

func (c *countingBlock) Render(env *Env, width int) []string {
	c.renders++
	return []string{c.text}
}

// linesBlock renders its lines as they are (the same slice each time).
type linesBlock struct{ lines []string }

func (b *linesBlock) Render(env *Env, width int) []string { return b.lines }

// TestTouchedBlockFitsLines: a touched block's lines are fitted to the width again where they
// changed, unchanged ones keep their fitted version, and the block's own slice is never written.
func TestTouchedBlockFitsLines(t *testing.T) {
	tr := newTestTranscript()
	wide := "\x1b[1m" + strings.Repeat("w", 30) + "\x1b[0m"
	b := &linesBlock{lines: []string{wide, "short"}}
	tr.Append(b)
	check := func(want ...string) {
		t.Helper()
		got := tr.View(10, len(want))
		for i := range want {
			if ansi.Strip(got[i]) != want[i] {
				t.Errorf("row %d = %q, want %q", i, ansi.Strip(got[i]), want[i])
			}
		}
	}
	check("wwwwwwwwww", "short")
	b.lines = []string{wide, "short", "third " + strings.Repeat("x", 20)}
	tr.Touch(b)
	check("wwwwwwwwww", "short", "third xxxx")
	if b.lines[0] != wide {
		t.Error("the block's own lines were truncated in place")
	}
	if got := ansi.Strip(tr.View(20, 3)[0]); got != strings.Repeat("w", 20) { // another width: fitted again
		t.Errorf("at width 20 the first row is %q", got)
	}
	check("wwwwwwwwww", "short", "third xxxx")
}

// TestStreamingMarkdownCachesPrefix checks that a streaming answer re-renders only its tail: the
// stable prefix is rendered once.
func TestStreamingMarkdownCachesPrefix(t *testing.T) {
	tr := newTestTranscript()
	b := &AssistantBlock{Streaming: true}
	tr.Append(b)
	b.AppendDelta(0, llm.ContentText, "First paragraph.\n\nSecond")
	tr.Touch(b)
	tr.View(40, 10)
	first := b.cache[0].prefix
	b.AppendDelta(0, llm.ContentText, " grows")
	tr.Touch(b)
	got := tr.View(40, 10)
	if &first[0] != &b.cache[0].prefix[0] {
		t.Error("the stable prefix was rendered again")
	}
	joined := ansi.Strip(strings.Join(got, "\n"))
	if !strings.Contains(joined, "First paragraph.") || !strings.Contains(joined, "Second grows") {
		t.Errorf("streamed text not shown:\n%s", joined)
	}
}

// TestReadRowCollapsedNote: a long read result shows 10 highlighted lines and a plain note (the
// note is not fed through the highlighter).
func TestReadRowCollapsedNote(t *testing.T) {
	tr := newTestTranscript()
	tr.Append(&ToolBlock{ID: "r", Name: "read", Args: map[string]any{"path": "a.go"}, Started: true, Done: true,
		Result: []llm.Content{llm.Text(strings.Repeat("x := 1\n", 14) + "y := 2")}})
	got := ansi.Strip(strings.Join(tr.View(60, 20), "\n"))
	if !strings.Contains(got, "... (5 more lines, ctrl+o to expand)") || strings.Contains(got, "[38;") {
		t.Fatalf("collapsed read row:\n%s", got)
	}
}

// search's call line names its paths, given as a string or a list (issue 13 item 14).
func TestSearchCallShowsPaths(t *testing.T) {
	env := newTestTranscript().Env
	for _, c := range []struct {
		paths any
		want  string
	}{
		{"src", "search /TODO/ in src"},
		{[]any{"a.go", "b.go"}, "search /TODO/ in a.go, b.go"},
	} {
		b := &ToolBlock{Name: "search", Args: map[string]any{"pattern": "TODO", "paths": c.paths}}
		if got := ansi.Strip(b.call(&env)[0]); got != c.want {
			t.Errorf("paths %v: %q, want %q", c.paths, got, c.want)
		}
	}
}

// TestLabelBlockMarkdown: a custom message without a renderer shows its content as markdown
// (pi's CustomMessageComponent): **bold** loses its asterisks and a numbered list keeps its
// numbers; the compaction row, not markdown, keeps the text as written.
func TestLabelBlockMarkdown(t *testing.T) {
	env := newTestTranscript().Env
	b := &LabelBlock{Label: "plan-todo-list", Body: "**Plan Steps (2):**\n\n1. one\n2. two", Markdown: true}
	got := ansi.Strip(strings.Join(b.Render(&env, 40), "\n"))
	if strings.Contains(got, "**") || !strings.Contains(got, "Plan Steps (2):") || !strings.Contains(got, "2. two") {
		t.Fatalf("custom message not rendered as markdown:\n%s", got)
	}
	plain := &LabelBlock{Label: "x", Body: "**kept**"}
	if got := ansi.Strip(strings.Join(plain.Render(&env, 40), "\n")); !strings.Contains(got, "**kept**") {
		t.Fatalf("plain label block lost its text:\n%s", got)
	}
}
