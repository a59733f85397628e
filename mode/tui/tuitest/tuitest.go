// Package tuitest drives the real atomic binary in a pseudo-terminal and reads its screen through
// a virtual terminal (charmbracelet/x/vt), so end-to-end tests of the interactive mode run in
// `go test`, offline, against the fake LLM (internal/fakellm).
//
//	bin := tuitest.Build(t)                       // go build ./cmd/atomic once per test binary
//	env := tuitest.NewEnv(t, script)              // agent dir, home, work dir, fake LLM, models.json
//	term := env.Start(t, bin, "--model", "fake/fake-model")
//	term.WaitFor("fake-model")                    // the footer is up
//	term.Type("list the files"); term.Press("enter")
//	term.WaitFor("Done.")
//	term.Type("/quit"); term.Press("enter")
//	term.WaitExit()
//
// Waiting is event-driven: every chunk the program writes wakes the waiters, which re-check the
// screen; the bound (Timeout) only turns a hang into a failure with the screen dumped, it is not
// a timing assertion.
//
// tuitest imports internal/fakellm and llm; it is for tests only (it takes a testing.TB).
package tuitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// Timeout bounds every wait of the harness.
var Timeout = 30 * time.Second

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Build compiles ./cmd/atomic of this module once per test process and returns the binary's
// path; it fails the test when the build fails.
func Build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			buildErr = fmt.Errorf("tuitest: go env GOMOD: %w", err)
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(out)))
		dir, err := os.MkdirTemp("", "atomic-tuitest-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "atomic")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/atomic")
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("tuitest: go build ./cmd/atomic: %v\n%s", err, b)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Env is one test's world: an agent dir with a models.json naming the fake LLM as provider
// "fake" (model "fake-model"), a home and a work directory.
type Env struct {
	// Agent is ATOMIC_CODING_AGENT_DIR; Home is HOME; Work is the working directory.
	Agent, Home, Work string
	// Fake is the scripted model server (nil when the env has none).
	Fake *fakellm.Server
	// Vars are extra environment variables (KEY=VALUE) for started programs.
	Vars []string
}

// NewEnv makes the directories and, when script is not nil, starts the fake LLM on it (closed
// at the end of the test) and writes models.json for it (Anthropic Messages API).
func NewEnv(t testing.TB, script *fakellm.Script) *Env {
	t.Helper()
	root := t.TempDir()
	e := &Env{Agent: filepath.Join(root, "agent"), Home: filepath.Join(root, "home"), Work: filepath.Join(root, "work")}
	for _, d := range []string{e.Agent, e.Home, e.Work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Retries wait at most 1 ms so a failing turn never sleeps a test.
	e.WriteFile(t, filepath.Join(e.Agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`+"\n")
	if script != nil {
		srv, err := fakellm.Listen("127.0.0.1:0", *script)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		e.Fake = srv
		models := map[string]any{"providers": map[string]any{"fake": map[string]any{
			"baseUrl": srv.URL(), "api": llm.APIAnthropicMessages, "apiKey": "fake-key",
			"models": []any{map[string]any{"id": "fake-model", "name": "Fake Model", "contextWindow": 100000, "maxTokens": 4096}},
		}}}
		b, _ := json.Marshal(models)
		e.WriteFile(t, filepath.Join(e.Agent, "models.json"), string(b))
	}
	return e
}

// WriteFile writes a file (making its directory), failing the test on error.
func (e *Env) WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Sessions returns the session files written under the agent dir.
func (e *Env) Sessions(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(e.Agent, "sessions", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Term is a program running in a pseudo-terminal of a fixed size, with its screen kept by a
// virtual terminal.
type Term struct {
	t    testing.TB
	cmd  *exec.Cmd
	ptmx *os.File
	emu  *vt.SafeEmulator
	// emuMu serialises the emulator's writes with String and the title callback (SafeEmulator
	// does not lock String); it guards screen, syncing and syncTail too.
	emuMu sync.Mutex
	// screen is the emulator's text as of the last complete frame: the program paints each frame
	// as one synchronized update (DEC mode 2026, ESC[?2026h … ESC[?2026l), which the pty may hand
	// over in several reads; a real terminal shows none of it until the end, and neither does
	// Screen. syncing says a chunk ended inside an update; syncTail keeps the last bytes of the
	// previous chunk, so a mode sequence split between two reads is still seen.
	screen   string
	syncing  bool
	syncTail []byte
	// cursor is the terminal cursor of that frame: cell (X, Y) and whether it is hidden.
	cursorX, cursorY int
	cursorHidden     bool

	mu      sync.Mutex // guards written, exited, code, raw; cond waits on it
	cond    *sync.Cond
	written int64
	raw     bytes.Buffer // every byte the program wrote since Start or the last Record
	record  bool
	exited  bool
	code    int
	title   string

	// readDone is closed when readLoop has read the terminal to its end.
	readDone chan struct{}
}

// Size is the default terminal size of Start.
var Size = [2]int{100, 30}

// Start runs bin with args in the env's work directory in a Size terminal. The program is
// killed at the end of the test if it is still running.
func (e *Env) Start(t testing.TB, bin string, args ...string) *Term {
	return e.StartSized(t, Size[0], Size[1], bin, args...)
}

// StartSized is Start with a terminal of w×h cells.
func (e *Env) StartSized(t testing.TB, w, h int, bin string, args ...string) *Term {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = e.Work
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + e.Home, "ATOMIC_CODING_AGENT_DIR=" + e.Agent,
		"TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8",
	}, e.Vars...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)})
	if err != nil {
		t.Fatalf("tuitest: start %s: %v", bin, err)
	}
	term := &Term{t: t, cmd: cmd, ptmx: ptmx, emu: vt.NewSafeEmulator(w, h), record: true, readDone: make(chan struct{})}
	term.cond = sync.NewCond(&term.mu)
	term.emu.SetCallbacks(vt.Callbacks{Title: func(s string) {
		term.mu.Lock()
		term.title = s
		term.mu.Unlock()
	}})
	term.snapshot()
	go term.readLoop()
	go term.replyLoop()
	go func() {
		err := cmd.Wait()
		// What the program wrote before it exited is read before the exit is reported, so a
		// test looking at the screen after WaitExit sees all of it. The terminal ends when its
		// last writer closes it; a child left holding it bounds the wait.
		select {
		case <-term.readDone:
		case <-time.After(2 * time.Second):
		}
		term.mu.Lock()
		term.exited = true
		term.code = cmd.ProcessState.ExitCode()
		if err != nil && term.code == 0 {
			term.code = -1
		}
		term.mu.Unlock()
		term.cond.Broadcast()
	}()
	t.Cleanup(func() {
		term.mu.Lock()
		done := term.exited
		term.mu.Unlock()
		if !done {
			_ = cmd.Process.Kill()
		}
		// Closing the terminal ends readLoop. The emulator is not closed: vt's Close writes a flag
		// its Read (replyLoop, blocked on the answer pipe) reads without a lock, a data race
		// under -race; replyLoop stays blocked on a pipe nobody writes, which costs nothing.
		ptmx.Close()
	})
	return term
}

// readLoop feeds the program's output to the virtual terminal and wakes the waiters.
func (t *Term) readLoop() {
	defer close(t.readDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.emuMu.Lock()
			_, _ = t.emu.Write(buf[:n])
			t.trackSync(buf[:n])
			if !t.syncing {
				t.snapshot()
			}
			t.emuMu.Unlock()
			t.mu.Lock()
			t.written += int64(n)
			if t.record {
				t.raw.Write(buf[:n])
			}
			t.mu.Unlock()
			t.cond.Broadcast()
		}
		if err != nil {
			t.cond.Broadcast()
			return
		}
	}
}

// snapshot keeps the emulator's screen and cursor as the current frame (emuMu held).
func (t *Term) snapshot() {
	t.screen = t.emu.String()
	p := t.emu.CursorPosition()
	t.cursorX, t.cursorY, t.cursorHidden = p.X, p.Y, t.emu.CursorHidden()
}

// Cursor is the terminal cursor of the last complete frame: its cell (x, y from the top-left,
// 0-based) and whether the program hid it.
func (t *Term) Cursor() (x, y int, hidden bool) {
	t.emuMu.Lock()
	defer t.emuMu.Unlock()
	return t.cursorX, t.cursorY, t.cursorHidden
}

// WaitCursor waits until ok holds for the cursor of the last complete frame (Cursor); what
// describes the condition in the failure message.
func (t *Term) WaitCursor(what string, ok func(x, y int, hidden bool) bool) {
	t.t.Helper()
	if err := t.waitUntil(func() bool { return ok(t.Cursor()) }); err != nil {
		x, y, hidden := t.Cursor()
		t.t.Fatalf("%v waiting for %s; cursor at %d,%d hidden %v; screen:\n%s", err, what, x, y, hidden, t.Screen())
	}
}

// Synchronized update mode (DEC 2026) as the program's screen package writes it.
var (
	syncBegin = []byte("\x1b[?2026h")
	syncEnd   = []byte("\x1b[?2026l")
)

// trackSync updates syncing for chunk, the next bytes the program wrote: the last of the begin
// and end sequences in it (or spanning the previous chunk's tail) decides; with neither, the
// state carries over. Called with emuMu held.
func (t *Term) trackSync(chunk []byte) {
	scan := append(append(make([]byte, 0, len(t.syncTail)+len(chunk)), t.syncTail...), chunk...)
	b, e := bytes.LastIndex(scan, syncBegin), bytes.LastIndex(scan, syncEnd)
	switch {
	case b > e:
		t.syncing = true
	case e > b:
		t.syncing = false
	}
	keep := len(syncBegin) - 1
	if len(scan) > keep {
		scan = scan[len(scan)-keep:]
	}
	t.syncTail = append(t.syncTail[:0], scan...)
}

// replyLoop sends the virtual terminal's answers (device attributes, colour queries) back to
// the program.
func (t *Term) replyLoop() {
	buf := make([]byte, 4096)
	for {
		n, err := t.emu.Read(buf)
		if n > 0 {
			if _, werr := t.ptmx.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Type writes text as typed keys (raw bytes, no bracketed paste).
func (t *Term) Type(text string) {
	t.t.Helper()
	if _, err := t.ptmx.Write([]byte(text)); err != nil {
		t.t.Fatalf("tuitest: type %q: %v", text, err)
	}
}

// Paste sends text as a bracketed paste.
func (t *Term) Paste(text string) { t.Type("\x1b[200~" + text + "\x1b[201~") }

// keySeqs are the bytes a terminal sends for the named keys (legacy xterm encoding).
var keySeqs = map[string]string{
	"enter": "\r", "esc": "\x1b", "tab": "\t", "shift+tab": "\x1b[Z", "backspace": "\x7f", "space": " ",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D", "home": "\x1b[H", "end": "\x1b[F",
	"pgup": "\x1b[5~", "pgdown": "\x1b[6~", "delete": "\x1b[3~",
	"alt+enter": "\x1b\r", "alt+up": "\x1b[1;3A", "alt+down": "\x1b[1;3B",
	"ctrl+home": "\x1b[1;5H", "ctrl+end": "\x1b[1;5F",
}

// Press sends named keys: enter, esc, tab, shift+tab, backspace, up, down, left, right, home,
// end, pgup, pgdown, delete, alt+enter, alt+up, alt+down, ctrl+home, ctrl+end, and ctrl+<letter>.
func (t *Term) Press(keys ...string) {
	t.t.Helper()
	for _, k := range keys {
		seq, ok := keySeqs[k]
		if !ok {
			if l, found := strings.CutPrefix(k, "ctrl+"); found && len(l) == 1 && l[0] >= 'a' && l[0] <= 'z' {
				seq = string(rune(l[0] & 0x1f))
			} else {
				t.t.Fatalf("tuitest: unknown key %q", k)
			}
		}
		t.Type(seq)
	}
}

// Screen returns the visible screen as text, one line per row, trailing spaces removed: the
// screen as of the last complete frame, never one half painted (see Term.screen).
func (t *Term) Screen() string {
	t.emuMu.Lock()
	text := t.screen
	t.emuMu.Unlock()
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// Title is the last terminal title the program set (OSC 0/2).
func (t *Term) Title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.title
}

// Pid is the program's process id (for /proc measurements).
func (t *Term) Pid() int { return t.cmd.Process.Pid }

// Written is how many bytes the program has written to the terminal so far.
func (t *Term) Written() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written
}

// Record forgets the bytes kept so far (every byte written is kept from Start on); Recorded
// returns the bytes kept since Start or the last Record.
func (t *Term) Record() {
	t.mu.Lock()
	t.record = true
	t.raw.Reset()
	t.mu.Unlock()
}

// Recorded returns the bytes kept since Record.
func (t *Term) Recorded() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.raw.Bytes())
}

// WaitRecorded waits until ok holds for the bytes kept since Record; what describes the
// condition in the failure message.
func (t *Term) WaitRecorded(what string, ok func(raw []byte) bool) {
	t.t.Helper()
	if err := t.waitUntil(func() bool { return ok(t.Recorded()) }); err != nil {
		t.t.Fatalf("%v waiting for %s; recorded %q", err, what, t.Recorded())
	}
}

// errTimeout is returned by waits that ran past Timeout.
var errTimeout = errors.New("tuitest: timed out")

// waitUntil blocks until cond (checked after every output chunk and on exit) holds, or Timeout.
func (t *Term) waitUntil(cond func() bool) error {
	deadline := time.Now().Add(Timeout)
	timer := time.AfterFunc(Timeout, func() { t.cond.Broadcast() })
	defer timer.Stop()
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		t.mu.Unlock()
		ok := cond()
		t.mu.Lock()
		if ok {
			return nil
		}
		if t.exited {
			t.mu.Unlock()
			ok := cond()
			t.mu.Lock()
			if ok {
				return nil
			}
			return errors.New("tuitest: the program exited")
		}
		if time.Now().After(deadline) {
			return errTimeout
		}
		t.cond.Wait()
	}
}

// WaitFor waits until the screen contains every one of texts; on failure it reports the screen.
func (t *Term) WaitFor(texts ...string) {
	t.t.Helper()
	err := t.waitUntil(func() bool {
		s := t.Screen()
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.t.Fatalf("%v waiting for %q; screen:\n%s", err, texts, t.Screen())
	}
}

// WaitScreen waits until ok holds for the screen text (Screen); what describes the condition in
// the failure message.
func (t *Term) WaitScreen(what string, ok func(screen string) bool) {
	t.t.Helper()
	if err := t.waitUntil(func() bool { return ok(t.Screen()) }); err != nil {
		t.t.Fatalf("%v waiting for %s; screen:\n%s", err, what, t.Screen())
	}
}

// WaitGone waits until the screen contains none of texts.
func (t *Term) WaitGone(texts ...string) {
	t.t.Helper()
	err := t.waitUntil(func() bool {
		s := t.Screen()
		for _, x := range texts {
			if strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.t.Fatalf("%v waiting for %q to go; screen:\n%s", err, texts, t.Screen())
	}
}

// WaitExit waits for the program to end and returns its exit code.
func (t *Term) WaitExit() int {
	t.t.Helper()
	err := t.waitUntil(func() bool {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.exited
	})
	if err != nil {
		t.t.Fatalf("%v waiting for the program to exit; screen:\n%s", err, t.Screen())
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.code
}

// Resize changes the terminal size (the program gets SIGWINCH).
func (t *Term) Resize(w, h int) {
	t.t.Helper()
	t.emuMu.Lock()
	t.emu.Resize(w, h)
	if !t.syncing {
		t.snapshot()
	}
	t.emuMu.Unlock()
	if err := pty.Setsize(t.ptmx, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)}); err != nil {
		t.t.Fatalf("tuitest: resize: %v", err)
	}
}
