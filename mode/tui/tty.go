package tui

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
)

// tty is the terminal the interactive mode runs on: the input (put in raw mode when it is a
// terminal), the output the screen paints on (downsampled to the terminal's colour profile) and
// the size.
type tty struct {
	in            io.Reader
	out           io.Writer
	rawOut        io.Writer
	inFd          uintptr
	isTerm        bool
	saved         *term.State // the input's state before raw mode; nil while not raw
	width, height int
}

// openTTY resolves the terminal of o (the process's stdin and stdout when unset), enters raw mode
// and reads the size (o.Width x o.Height when set, 80x24 when unknown).
func openTTY(o Options) (*tty, error) {
	t := &tty{in: o.In, rawOut: o.Out, width: 80, height: 24}
	if t.in == nil {
		t.in = os.Stdin
	}
	if t.rawOut == nil {
		t.rawOut = os.Stdout
	}
	if f, ok := t.in.(term.File); ok && term.IsTerminal(f.Fd()) {
		t.inFd, t.isTerm = f.Fd(), true
	}
	if err := t.makeRaw(); err != nil {
		return nil, err
	}
	if o.Width > 0 && o.Height > 0 {
		t.width, t.height = o.Width, o.Height
	} else if w, h, ok := t.size(); ok {
		t.width, t.height = w, h
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	// Themes emit 24-bit colours; a terminal with fewer gets them converted (NO_COLOR: none).
	t.out = t.rawOut
	if p := colorprofile.Detect(t.rawOut, env); p < colorprofile.TrueColor {
		t.out = &colorprofile.Writer{Forward: t.rawOut, Profile: p}
	}
	return t, nil
}

// size reads the output terminal's size.
func (t *tty) size() (int, int, bool) {
	f, ok := t.rawOut.(term.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return 0, 0, false
	}
	w, h, err := term.GetSize(f.Fd())
	if err != nil || w <= 0 || h <= 0 {
		return 0, 0, false
	}
	return w, h, true
}

// makeRaw puts the input terminal in raw mode (no-op when it is not a terminal or already raw).
func (t *tty) makeRaw() error {
	if !t.isTerm || t.saved != nil {
		return nil
	}
	st, err := term.MakeRaw(t.inFd)
	if err != nil {
		return &os.PathError{Op: "enter raw mode", Path: "terminal input", Err: err}
	}
	t.saved = st
	return nil
}

// restore gives the input terminal its state from before raw mode back.
func (t *tty) restore() {
	if t.saved != nil {
		_ = term.Restore(t.inFd, t.saved)
		t.saved = nil
	}
}

// watchResize sends a tea.WindowSizeMsg on every SIGWINCH until the returned stop is called.
func (t *tty) watchResize(send func(tea.Msg)) (stop func()) {
	if _, _, ok := t.size(); !ok {
		return func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				if w, h, ok := t.size(); ok {
					send(tea.WindowSizeMsg{Width: w, Height: h})
				}
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// termExec runs a command with the terminal handed over: the screen stopped and the input in its
// normal mode while it runs, raw mode and a full repaint after (the external editor, tui.md §3.7).
// It implements tea.ExecCommand; the command's stdio is the terminal's.
type termExec struct {
	c *exec.Cmd
	m *model
}

func (e *termExec) SetStdin(r io.Reader)  { e.c.Stdin = r }
func (e *termExec) SetStdout(io.Writer)   {}
func (e *termExec) SetStderr(w io.Writer) { e.c.Stderr = w }

// Run implements tea.ExecCommand.
func (e *termExec) Run() error {
	e.m.releaseTerminal()
	defer e.m.restoreTerminal()
	e.c.Stdout = e.m.tty.rawOut
	return e.c.Run()
}
