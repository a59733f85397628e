package tui_test

import (
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// TestE2EExitLeavesTranscript: leaving the UI (its alternate screen) leaves the end of the
// conversation on the terminal's main screen, as pi's scrollback keeps it, then how to resume
// the session (Atomic's fullscreenExitOutput "transcript").
func TestE2EExitLeavesTranscript(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "The answer that stays on screen."}))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model", "(auto)")
	term.Type("a question")
	term.Press("enter")
	term.WaitFor("The answer that stays on screen.")
	term.Type("/quit")
	term.Press("enter")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	sessions := env.Sessions(t)
	if len(sessions) != 1 {
		t.Fatalf("%d session files", len(sessions))
	}
	screen := term.Screen()
	for _, want := range []string{"a question", "The answer that stays on screen.", "Resume this session with: atomic -r "} {
		if !strings.Contains(screen, want) {
			t.Errorf("after exit the terminal does not show %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "(auto)") {
		t.Errorf("the footer was left on the terminal:\n%s", screen)
	}
}
