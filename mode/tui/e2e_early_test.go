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

// slowCommandExt is slowLoadExt whose command tells that it ran.
const slowCommandExt = `import * as fs from "node:fs";
export default async function (pi) {
	await new Promise((resolve) => {
		const t = setInterval(() => { if (fs.existsSync("loaded")) { clearInterval(t); resolve(undefined); } }, 10);
	});
	pi.registerCommand("slowext", { description: "from the slow extension", handler: async (_args, ctx) => { ctx.ui.notify("slowext ran", "info"); } });
}
`

// startSlow starts the binary with slowCommandExt still loading (the footer says starting…).
func startSlow(t *testing.T, env *tuitest.Env, bin string) *tuitest.Term {
	t.Helper()
	ext := filepath.Join(env.Work, "slow.ts")
	env.WriteFile(t, ext, slowCommandExt)
	term := env.Start(t, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model", "starting…")
	return term
}

// TestE2ECompletionTypedBeforeReady: text typed while the extensions load gets the completion
// list it would get once they have loaded, without another key: the built-in commands at once,
// the extension's command when the session is ready; an Enter typed on a command meanwhile
// applies the list's choice once ready, as it would have then.
func TestE2ECompletionTypedBeforeReady(t *testing.T) {
	bin := tuitest.Build(t)

	t.Run("list", func(t *testing.T) {
		env := tuitest.NewEnv(t, script())
		term := startSlow(t, env, bin)
		term.Type("/hotk")
		term.WaitFor("/hotkeys") // built-in commands complete before the session is ready
		term.Press("ctrl+u")
		term.Type("/slowe")
		term.WaitFor("/slowe")
		env.WriteFile(t, filepath.Join(env.Work, "loaded"), "")
		term.WaitFor("/slowext", "from the slow extension") // no key typed since
		term.Press("enter")
		term.WaitFor("slowext ran")
	})

	t.Run("enter held", func(t *testing.T) {
		env := tuitest.NewEnv(t, script())
		term := startSlow(t, env, bin)
		term.Type("/slowe")
		term.Press("enter")
		term.Type(" typed after")
		env.WriteFile(t, filepath.Join(env.Work, "loaded"), "")
		term.WaitFor("slowext ran")
		term.WaitFor(" typed after")
		if n := len(env.Fake.Requests()); n != 0 {
			t.Fatalf("the command typed while loading went to the model (%d requests)", n)
		}
		term.Press("ctrl+u")
		term.Press("ctrl+d")
		if code := term.WaitExit(); code != 0 {
			t.Fatalf("exit code %d", code)
		}
	})
}

// TestE2EExternalEditorBeforeReady: Ctrl+G works while the extensions still load.
func TestE2EExternalEditorBeforeReady(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Got the early edit."}))
	editor := filepath.Join(env.Work, "editor.sh")
	env.WriteFile(t, editor, "#!/bin/sh\nprintf 'rewritten while loading\\n' > \"$1\"\n")
	if err := os.Chmod(editor, 0o755); err != nil {
		t.Fatal(err)
	}
	env.Vars = append(env.Vars, "VISUAL="+editor)
	term := startSlow(t, env, bin)
	term.Type("first draft")
	term.WaitFor("first draft")
	term.Press("ctrl+g")
	term.WaitFor("rewritten while loading")
	term.WaitFor("starting…") // still loading
	term.Press("enter")
	env.WriteFile(t, filepath.Join(env.Work, "loaded"), "")
	term.WaitFor("Got the early edit.")
	reqs := env.Fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "rewritten while loading") {
		t.Fatalf("the edited text did not reach the model: %d requests", len(reqs))
	}
}

// TestE2ESuspendBeforeReady: Ctrl+Z works while the extensions still load (see
// TestE2ESuspendResume for how the harness resumes the program).
func TestE2ESuspendBeforeReady(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script())
	term := startSlow(t, env, bin)
	term.Type("draft while loading")
	term.WaitFor("draft while loading")
	term.Record()
	term.Press("ctrl+z")
	term.WaitRecorded("the terminal given back", func(raw []byte) bool { return bytes.Contains(raw, []byte(altScreenOff)) })
	term.WaitGone("fake-model")
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
	term.WaitFor("fake-model", "draft while loading")
	env.WriteFile(t, filepath.Join(env.Work, "loaded"), "")
	term.WaitFor("(auto)")
	term.WaitFor("draft while loading")
}
