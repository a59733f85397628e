package compact

import (
	"errors"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

func TestParseRanges(t *testing.T) {
	cases := []struct {
		name, answer string
		n            int
		want         []Range
		err          string
	}{
		{"single and range", "2\n4-6\n", 10, []Range{{2, 2}, {4, 6}}, ""},
		{"spaces and blank lines", "  1 - 3\n\n 5 \n", 5, []Range{{1, 3}, {5, 5}}, ""},
		{"none", " NONE\n", 5, nil, ""},
		{"empty", "  \n", 5, nil, "empty"},
		{"out of range high", "3-11", 10, nil, "outside lines 1-10"},
		{"zero", "0-2", 10, nil, "outside"},
		{"reversed", "5-3", 10, nil, "ends before it starts"},
		{"overlap", "1-4\n4-6", 10, nil, "overlaps"},
		{"unsorted", "6-7\n1-2", 10, nil, "overlaps or precedes"},
		{"prose", "Delete lines 1-3", 10, nil, "is not START-END"},
		{"fence", "```\n1-3\n```", 10, nil, "is not START-END"},
		{"negative", "-3", 10, nil, "is not START-END"},
		{"comma", "1,2", 10, nil, "is not START-END"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseRanges(c.answer, c.n)
			if c.err != "" {
				if err == nil || !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want ErrBadAnswer containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestReconstructMarksElidedSpans(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "e", "f"}
	text, st := Reconstruct(lines, []Range{{1, 1}, {3, 5}})
	want := "(filtered 1 line)\nb\n(filtered 3 lines)\nf"
	if text != want {
		t.Fatalf("text %q, want %q", text, want)
	}
	if st.LinesBefore != 6 || st.LinesDeleted != 4 || st.LinesKept != 2 || st.RangeCount != 2 {
		t.Fatalf("stats %+v", st)
	}
	if text, _ := Reconstruct(lines, nil); text != strings.Join(lines, "\n") {
		t.Fatalf("no ranges changed the text: %q", text)
	}
}

func TestPlannerPromptNumbersLines(t *testing.T) {
	p := PlannerPrompt([]string{"[user]", "fix it"}, Parameters{CompressionRatio: 0.5, Query: "keep paths"})
	for _, want := range []string{"1| [user]\n", "2| fix it\n", "Keep about 1 of them", "keep paths"} {
		if !strings.Contains(p, want) {
			t.Fatalf("prompt lacks %q:\n%s", want, p)
		}
	}
}

func TestRenderTranscriptGrammar(t *testing.T) {
	msgs := []llm.Message{
		llm.UserText("fix\nthe test", nil, 0),
		{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.ContentThinking, Thinking: "hmm"}, llm.Text("running"),
			{Type: llm.ContentToolCall, Name: "bash", Arguments: map[string]any{"command": "ls"}}}},
		{Role: llm.RoleToolResult, ToolName: "bash", Content: []llm.Content{llm.Text("a.go\nb.go\n")}},
		{Role: llm.RoleCustom, CustomType: CustomType, Content: []llm.Content{llm.Text(Preamble + "[user]\nold")}},
		{Role: llm.RoleCustom, CustomType: "note", ExcludeFromContext: true, Content: []llm.Content{llm.Text("hidden")}},
	}
	got := strings.Join(Render(msgs), "\n")
	want := "[user]\nfix\nthe test\n[assistant]\nrunning\n[tool call: bash] {\"command\":\"ls\"}\n[tool result: bash]\na.go\nb.go\n[user]\nold"
	if got != want {
		t.Fatalf("render:\n%s\nwant:\n%s", got, want)
	}
}

func TestStatsFinish(t *testing.T) {
	var st Stats
	st.Finish(1000, 250)
	if st.PercentReduction != 75 {
		t.Fatalf("percent %v", st.PercentReduction)
	}
}
