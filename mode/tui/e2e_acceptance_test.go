package tui_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// TestE2EAcceptanceScript is issue 12's terminal UI acceptance script, driven through a PTY on
// the real binary with an unchanged pi extension (testdata/acceptance/acceptance.ts, which pi
// 0.73.1 runs the same way): a status and widgets above and below the editor; a select answered
// with arrow keys; a confirm left to time out; a custom component counting key presses that
// returns its value on Enter; an overlay at its anchor that its visible() hides while the
// terminal is narrower than 60 columns; a replaced footer that reads the session (its count of
// replies follows the next turn) and the extension statuses; a tool drawn by its own renderCall
// and renderResult. No working line shows while the command runs.
func TestE2EAcceptanceScript(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Shouting now.", ToolCalls: []fakellm.ToolCall{fakellm.Call("shout", map[string]any{"text": "hello"})}},
		fakellm.Turn{Text: "Shouted it."},
	))
	extPath, err := filepath.Abs(filepath.Join("testdata", "acceptance", "acceptance.ts"))
	if err != nil {
		t.Fatal(err)
	}
	const cols, rows = 100, 30
	term := env.StartSized(t, cols, rows, bin, "--model", "fake/fake-model", "-e", extPath)
	term.WaitFor("fake-model")
	term.Type("/accept")
	term.Press("enter")

	// Status and widgets; the select takes arrow keys.
	term.WaitFor("Pick a fruit", "→ apple", "ABOVE-WIDGET", "BELOW-WIDGET", "ACC-STATUS")
	s := term.Screen()
	if strings.Index(s, "ABOVE-WIDGET") > strings.Index(s, "Pick a fruit") || strings.Index(s, "BELOW-WIDGET") < strings.Index(s, "Pick a fruit") {
		t.Fatalf("widgets are not above and below the editor slot:\n%s", s)
	}
	// An extension command is not the agent working: no working line while it runs, as in pi
	// (whose loader starts at agent_start).
	if strings.Contains(s, "Working...") {
		t.Fatalf("the working line shows while only an extension command runs:\n%s", s)
	}
	term.Press("down", "down", "up")
	term.WaitFor("→ banana")
	term.Press("enter")
	term.WaitFor("picked=banana")

	// The confirm is left alone until its timeout answers false.
	term.WaitFor("Deploy now?")
	term.WaitFor("confirm=false")
	term.WaitGone("Deploy now?")

	// The custom component in the editor slot counts keys and returns on Enter.
	term.WaitFor("+-- COUNTER --+", "key presses: 0")
	term.Type("a")
	term.WaitFor("key presses: 1")
	term.Press("down")
	term.WaitFor("key presses: 2")
	term.Press("enter")
	term.WaitFor("counter=counter 2")
	term.WaitGone("+-- COUNTER --+")

	// The overlay floats at the top left, one cell in (margin 1); visible() hides it while the
	// terminal is narrower than 60 columns.
	term.WaitFor("+-- OVERLAY --+")
	s = term.Screen()
	if lines := strings.Split(s, "\n"); len(lines) < 2 || !strings.HasPrefix(string([]rune(lines[1])[1:]), "+-- OVERLAY --+") {
		t.Fatalf("the overlay is not at row 1, column 1:\n%s", s)
	}
	term.Resize(50, rows)
	term.WaitGone("OVERLAY")
	term.Resize(cols, rows)
	term.WaitFor("+-- OVERLAY --+")
	term.Type("x")
	term.WaitFor("key presses: 1")
	term.Press("enter")
	term.WaitFor("overlay=overlay 1")
	term.WaitGone("+-- OVERLAY --+")

	// The replaced footer, then a turn: the tool row is the extension's, the footer follows.
	term.WaitFor("ACC-FOOTER replies=0 status=ACC-STATUS")
	term.WaitGone("fake-model")
	term.Type("shout hello")
	term.Press("enter")
	term.WaitFor("SHOUT-CALL hello", "SHOUT-RESULT <HELLO>", "Shouted it.", "ACC-FOOTER replies=2 status=ACC-STATUS")
	quit(t, term)
}

// TestE2EResizeNarrowAndBack: the terminal narrows and widens again before atomic reads its size
// (a quick drag): the size atomic then sees is the one it had, yet the terminal cut the rows it
// showed, so every resize repaints the whole screen.
func TestE2EResizeNarrowAndBack(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "x"}))
	term := env.StartSized(t, 100, 30, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("fake-model")
	term.Resize(50, 30)
	term.Resize(100, 30)
	term.WaitScreen("rows wider than 50 columns again", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if len([]rune(l)) > 60 {
				return true
			}
		}
		return false
	})
	term.Press("ctrl+d")
	term.WaitExit()
}

// TestE2EGoAcceptanceScript is the same script from a Go extension compiled into the binary
// (examples/extensions/go/uiscript): status and widgets, a select answered with arrow keys, a
// confirm whose context deadline answers it, a custom component and an overlay (hidden by its
// Visible below 60 columns) returning their values, a footer that reads the session, and the
// tool's own renderer.
func TestE2EGoAcceptanceScript(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "goaccept")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/goaccept").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/goaccept: %v\n%s", err, out)
	}
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Shouting now.", ToolCalls: []fakellm.ToolCall{fakellm.Call("shout", map[string]any{"text": "hello"})}},
		fakellm.Turn{Text: "Shouted it."},
	))
	const cols, rows = 100, 30
	term := env.StartSized(t, cols, rows, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/goaccept")
	term.Press("enter")

	term.WaitFor("Pick a fruit", "→ apple", "GO-ABOVE-WIDGET", "GO-BELOW-WIDGET", "GO-STATUS")
	term.Press("down", "down", "up")
	term.WaitFor("→ banana")
	term.Press("enter")
	term.WaitFor("picked=banana")

	term.WaitFor("Deploy now?")
	term.WaitFor("confirm=false")
	term.WaitGone("Deploy now?")

	term.WaitFor("+-- GO-COUNTER --+", "go key presses: 0")
	term.Type("a")
	term.WaitFor("go key presses: 1")
	term.Press("down")
	term.WaitFor("go key presses: 2")
	term.Press("enter")
	term.WaitFor("counter=go-counter 2")
	term.WaitGone("+-- GO-COUNTER --+")

	term.WaitFor("+-- GO-OVERLAY --+")
	if lines := strings.Split(term.Screen(), "\n"); len(lines) < 2 || !strings.HasPrefix(string([]rune(lines[1])[1:]), "+-- GO-OVERLAY --+") {
		t.Fatalf("the overlay is not at row 1, column 1:\n%s", term.Screen())
	}
	term.Resize(50, rows)
	term.WaitGone("GO-OVERLAY")
	term.Resize(cols, rows)
	term.WaitFor("+-- GO-OVERLAY --+")
	term.Type("x")
	term.WaitFor("go key presses: 1")
	term.Press("enter")
	term.WaitFor("overlay=go-overlay 1")
	term.WaitGone("+-- GO-OVERLAY --+")

	term.WaitFor("GO-FOOTER replies=0 status=GO-STATUS")
	term.WaitGone("fake-model")
	term.Type("shout hello")
	term.Press("enter")
	term.WaitFor("GO-SHOUT-CALL hello", "GO-SHOUT-RESULT <HELLO>", "Shouted it.", "GO-FOOTER replies=2 status=GO-STATUS")
	quit(t, term)
}
