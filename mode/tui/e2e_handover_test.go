package tui_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// The sequences the screen writes when it gives the terminal back and takes it again
// (mode/tui/screen).
const (
	altScreenOn  = "\x1b[?1049h"
	altScreenOff = "\x1b[?1049l"
)

// TestE2ESuspendResume: Ctrl+Z gives the terminal back (main screen, modes reset, cursor shown)
// and suspends the process; SIGCONT brings the screen back, fully repainted with the editor text
// kept, and the session goes on.
//
// The harness's program leads its own session, so its process group is orphaned and the kernel
// discards the SIGTSTP instead of stopping it: the program then waits for SIGCONT as a stopped
// one would, which is the state the test resumes it from.
func TestE2ESuspendResume(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Back after the suspend."}))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model", "(auto)") // the session is up: Ctrl+Z and Ctrl+G act once it is
	term.Type("draft before suspend")
	term.WaitFor("draft before suspend")

	term.Record()
	term.Press("ctrl+z")
	term.WaitRecorded("the terminal given back", func(raw []byte) bool { return bytes.Contains(raw, []byte(altScreenOff)) })
	term.WaitGone("fake-model") // the main screen: the UI is not on it
	if raw := term.Recorded(); !bytes.Contains(raw, []byte("\x1b[?25h")) || !bytes.Contains(raw, []byte("\x1b[?2004l")) {
		t.Errorf("suspend did not show the cursor and end bracketed paste: %q", raw)
	}

	// SIGCONT, as `fg` sends it. The program may not be waiting for it yet when the first one
	// arrives (a SIGCONT before the wait is lost, as in a shell), so it is repeated until the
	// screen is back.
	term.Record()
	back := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			_ = syscall.Kill(term.Pid(), syscall.SIGCONT)
			select {
			case <-back:
				return
			case <-tick.C:
			}
		}
	}()
	term.WaitRecorded("the screen taken again", func(raw []byte) bool { return bytes.Contains(raw, []byte(altScreenOn)) })
	close(back)
	term.WaitFor("fake-model", "draft before suspend")

	term.Type(" and after")
	term.Press("enter")
	term.WaitFor("Back after the suspend.")
	reqs := env.Fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "draft before suspend and after") {
		t.Errorf("the prompt typed around the suspend did not reach the model: %d requests", len(reqs))
	}
	term.Type("/quit")
	term.Press("enter")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestE2EExternalEditor: Ctrl+G hands the terminal to $VISUAL (or $EDITOR, which may carry
// arguments) on a file holding the editor text; what the program leaves in the file replaces the
// editor text, and the screen comes back. Without either variable a warning says so.
func TestE2EExternalEditor(t *testing.T) {
	bin := tuitest.Build(t)
	for _, c := range []struct {
		name string
		vars func(editor string) []string
	}{
		{"VISUAL", func(editor string) []string { return []string{"VISUAL=" + editor, "EDITOR=/bin/false"} }},
		{"EDITOR with arguments", func(editor string) []string { return []string{"EDITOR=/bin/sh " + editor} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Got the edited prompt."}))
			seen := filepath.Join(env.Work, "seen.txt")
			editor := filepath.Join(env.Work, "editor.sh")
			// The "editor": keeps what it was given, writes the new text, as a user would.
			env.WriteFile(t, editor, "#!/bin/sh\ncat \"$1\" > '"+seen+"'\nprintf 'rewritten in the editor\\n' > \"$1\"\n")
			if err := os.Chmod(editor, 0o755); err != nil {
				t.Fatal(err)
			}
			env.Vars = append(env.Vars, c.vars(editor)...)
			term := env.Start(t, bin, "--model", "fake/fake-model")
			term.WaitFor("fake-model", "(auto)") // the session is up: Ctrl+Z and Ctrl+G act once it is
			term.Type("first draft")
			term.WaitFor("first draft")

			term.Record()
			term.Press("ctrl+g")
			term.WaitFor("rewritten in the editor")
			term.WaitGone("first draft")
			raw := term.Recorded()
			if off := bytes.Index(raw, []byte(altScreenOff)); off < 0 || !bytes.Contains(raw[off:], []byte(altScreenOn)) {
				t.Errorf("the terminal was not handed over and taken back: %q", raw)
			}
			got, err := os.ReadFile(seen)
			if err != nil || string(got) != "first draft" {
				t.Errorf("the editor was given %q (%v), want the editor text", got, err)
			}

			term.Press("enter")
			term.WaitFor("Got the edited prompt.")
			reqs := env.Fake.Requests()
			if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "rewritten in the editor") {
				t.Errorf("the edited text did not reach the model: %d requests", len(reqs))
			}
			term.Type("/quit")
			term.Press("enter")
			if code := term.WaitExit(); code != 0 {
				t.Fatalf("exit code %d", code)
			}
		})
	}

	t.Run("none set", func(t *testing.T) {
		env := tuitest.NewEnv(t, script())
		term := env.Start(t, bin, "--model", "fake/fake-model")
		term.WaitFor("fake-model", "(auto)") // the session is up: Ctrl+Z and Ctrl+G act once it is
		term.Type("kept")
		term.Press("ctrl+g")
		term.WaitFor("No editor configured", "kept")
	})
}
