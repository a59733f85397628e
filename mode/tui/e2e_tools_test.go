package tui_test

import (
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// TestE2EAskUserQuestion: in the terminal UI, ask_user_question asks through the select dialog
// and the user's choice reaches the model (issue 13 item 14).
func TestE2EAskUserQuestion(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Let me ask.", ToolCalls: []fakellm.ToolCall{
			fakellm.Call("ask_user_question", map[string]any{"questions": []any{map[string]any{
				"question": "Which color?", "header": "Color", "options": []any{
					map[string]any{"label": "Red", "description": "warm"},
					map[string]any{"label": "Blue", "description": "cool"}}}}}),
		}},
		fakellm.Turn{Text: "Noted your color."},
	))
	term := env.Start(t, bin, "--model", "fake/fake-model", "--tools", "read,ask_user_question")
	term.WaitFor("fake-model", "atomic v")
	term.Type("pick a color")
	term.Press("enter")
	term.WaitFor("[Color] Which color?", "Red — warm", "Blue — cool", "Type something.", "Chat about this")
	term.Press("down")
	term.Press("enter")
	term.WaitFor("Noted your color.")
	reqs := env.Fake.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), `User has answered your questions: \"Which color?\"=\"Blue\".`) {
		t.Fatalf("%d requests; last:\n%s", len(reqs), reqs[len(reqs)-1].Body)
	}
	term.Press("ctrl+d")
	term.WaitExit()
}
