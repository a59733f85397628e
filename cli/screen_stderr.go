package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Limits of what screenStderr keeps while the terminal UI owns the screen.
const (
	// screenStderrLineMax is the longest line shown as a notification, in bytes; the log file
	// keeps the whole line.
	screenStderrLineMax = 500
	// screenStderrShown is how many lines are shown as notifications per run; the rest go to
	// the log file only, and one notice says so.
	screenStderrShown = 20
	// screenStderrLogMax caps the log file written in one run, in bytes.
	screenStderrLogMax = 16 << 20
	// screenStderrPartialMax caps an unterminated line held back, in bytes.
	screenStderrPartialMax = 64 << 10
)

// screenStderr is atomic's stderr in interactive mode. Before the screen is up and after it is
// gone it passes bytes to the terminal's stderr. While the screen is up (between attach and
// detach) nothing may write to the terminal — a stray line tears the alternate screen — so each
// complete line (warnings, and what the extension host and extensions print: ext/host sends
// the host's stdout and stderr here) is appended to <agentDir>/logs/stderr.log and shown as a
// notification in the transcript, the first screenStderrShown of them. Safe for concurrent use.
type screenStderr struct {
	mu      sync.Mutex // guards everything below
	term    io.Writer  // the process's stderr
	notify  func(line string)
	logPath string
	log     *os.File
	logged  int64
	shown   int
	partial []byte
}

// Write implements io.Writer; it never fails while the screen is up (a log file that cannot be
// written loses only the file copy).
func (w *screenStderr) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.notify == nil {
		return w.term.Write(p)
	}
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(w.partial[:i])
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > screenStderrPartialMax {
		w.line(w.partial)
		w.partial = w.partial[:0]
	}
	if len(w.partial) == 0 {
		w.partial = nil
	}
	return len(p), nil
}

// line logs and shows one line; w.mu is held.
func (w *screenStderr) line(b []byte) {
	b = bytes.TrimRight(b, "\r")
	if w.log == nil && w.logPath != "" {
		if err := os.MkdirAll(filepath.Dir(w.logPath), 0o700); err == nil {
			w.log, _ = os.OpenFile(w.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		}
		if w.log == nil {
			w.logPath = "" // no file; notifications only
		}
	}
	if w.log != nil && w.logged+int64(len(b))+1 <= screenStderrLogMax {
		n, _ := w.log.Write(append(b[:len(b):len(b)], '\n'))
		w.logged += int64(n)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	switch {
	case w.shown < screenStderrShown:
		s := string(b)
		if len(s) > screenStderrLineMax {
			s = s[:screenStderrLineMax] + "…"
		}
		w.notify(s)
	case w.shown == screenStderrShown:
		where := "dropped"
		if w.logPath != "" {
			where = "in " + w.logPath
		}
		w.notify(fmt.Sprintf("(more output on stderr is %s)", where))
	}
	w.shown++
}

// attach routes writes to notify (and the log file at logPath, "" for none) from now on.
func (w *screenStderr) attach(logPath string, notify func(line string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.logPath, w.notify = logPath, notify
}

// detach sends writes to the terminal again; an unterminated line held back is written there.
func (w *screenStderr) detach() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notify = nil
	if len(w.partial) > 0 {
		w.term.Write(append(w.partial, '\n'))
		w.partial = nil
	}
	if w.log != nil {
		w.log.Close()
		w.log = nil
	}
}
