package tui_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/screen"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// frames splits recorded output into synchronized updates; rest is what lies outside them.
func frames(raw []byte) (out []string, rest string) {
	s := string(raw)
	for {
		i := strings.Index(s, screen.SyncBegin)
		if i < 0 {
			return out, rest + s
		}
		rest += s[:i]
		j := strings.Index(s[i:], screen.SyncEnd)
		if j < 0 {
			return out, rest + s[i:]
		}
		out = append(out, s[i+len(screen.SyncBegin):i+j])
		s = s[i+j+len(screen.SyncEnd):]
	}
}

// rowsWritten counts the rows a frame rewrites (each starts with a cursor move and an erase).
func rowsWritten(frame string) int { return strings.Count(frame, "\x1b[2K") }

// TestE2EPaintsOnlyChanges checks the bytes the interactive mode writes (tui.md §9.3): every
// frame is one synchronized update; a key that changes nothing writes nothing; a typed key
// rewrites the editor row only; a spinner tick rewrites its own row only, and the cursor is
// never hidden and shown again while the agent works.
func TestE2EPaintsOnlyChanges(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Partial answer that never ends", Chunks: 3, Stall: fakellm.StallEvents, StallAfter: 4},
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model", "(auto)") // the session's footer, not the starting one

	// Left on an empty editor changes nothing: no bytes. Then "q" is one frame of one row.
	term.Record()
	term.Press("left")
	term.Type("q")
	term.WaitFor("q")
	term.WaitRecorded("the frame with q", func(raw []byte) bool { return bytes.Contains(raw, []byte(screen.SyncEnd)) })
	fs, rest := frames(term.Recorded())
	if len(fs) != 1 || rest != "" {
		t.Fatalf("want one synchronized frame for one key, got %d frames and %q outside: %q", len(fs), rest, term.Recorded())
	}
	if n := rowsWritten(fs[0]); n != 1 || !strings.Contains(fs[0], "q") || strings.Contains(fs[0], "fake-model") {
		t.Fatalf("typing rewrote %d rows: %q", n, fs[0])
	}
	term.Press("backspace")

	term.Type("go")
	term.Press("enter")
	term.WaitFor("Partial", "Working...")
	// The stream has stalled; the spinner keeps turning: each of its frames rewrites one row.
	term.Record()
	term.WaitRecorded("three spinner frames", func(raw []byte) bool {
		fs, _ := frames(raw)
		return len(fs) >= 3
	})
	fs, rest = frames(term.Recorded())
	if rest != "" {
		t.Fatalf("bytes outside synchronized updates: %q", rest)
	}
	for _, f := range fs {
		if n := rowsWritten(f); n != 1 || !strings.Contains(f, "Working...") {
			t.Fatalf("spinner frame rewrote %d rows: %q", n, f)
		}
		if strings.Contains(f, "\x1b[?25l") || strings.Contains(f, "\x1b[?25h") {
			t.Fatalf("spinner frame toggled the cursor: %q", f)
		}
	}
	term.Press("esc")
	term.WaitFor("Operation aborted")
	term.Press("ctrl+d")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// slowLoadExt is a TypeScript extension whose factory finishes only once the file "loaded"
// exists in the working directory.
const slowLoadExt = `import * as fs from "node:fs";
export default async function (pi) {
	await new Promise((resolve) => {
		const t = setInterval(() => { if (fs.existsSync("loaded")) { clearInterval(t); resolve(undefined); } }, 10);
	});
	pi.registerCommand("slowext", { description: "from the slow extension", handler: async () => {} });
}
`

// TestE2EEditorBeforeExtensionsLoad: the screen comes up and the editor takes keys while a
// TypeScript extension is still loading; a prompt submitted meanwhile is sent once the session
// is ready.
func TestE2EEditorBeforeExtensionsLoad(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Answer after loading."}))
	ext := filepath.Join(env.Work, "slow.ts")
	env.WriteFile(t, ext, slowLoadExt)
	term := env.Start(t, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model", "starting…")
	term.Type("typed while loading")
	term.WaitFor("typed while loading")
	term.Press("enter")
	term.WaitFor("the prompt is sent once the session is ready")
	if n := len(env.Fake.Requests()); n != 0 {
		t.Fatalf("%d requests before the extension loaded", n)
	}
	env.WriteFile(t, filepath.Join(env.Work, "loaded"), "")
	term.WaitFor("Answer after loading.")
	reqs := env.Fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "typed while loading") {
		t.Fatalf("the prompt typed while loading did not reach the model (%d requests)", len(reqs))
	}
	term.Press("ctrl+d")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
