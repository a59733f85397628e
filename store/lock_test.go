//go:build linux

package store

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// holdForeign locks the lock file of session file path through its own open file description,
// as another process would, after writing pid into it. The lock ends with the test.
func holdForeign(t *testing.T, path string, pid int) {
	t.Helper()
	f, err := os.OpenFile(lockPath(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.WriteString(strconv.Itoa(pid) + "\n")
}

// TestOpenRefusesHeldFile: a session file another process holds cannot be opened for writing,
// whether it exists or is still to be created (--session <newpath>); the error names the holder.
// Readers are not blocked.
func TestOpenRefusesHeldFile(t *testing.T) {
	s, path := newPersisted(t)
	s.Close()
	holdForeign(t, path, 4242)

	_, err := Open(path, "")
	var le *LockedError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || le.PID != 4242 || le.Path != path {
		t.Fatalf("Open of a held file: %v", err)
	}
	if !strings.Contains(err.Error(), "pid 4242") || !strings.Contains(err.Error(), path) {
		t.Errorf("error must name the file and the holder: %v", err)
	}
	if _, err := ContinueRecent("/p", filepath.Dir(path)); !errors.Is(err, ErrLocked) {
		t.Errorf("ContinueRecent must report the held most recent session, got %v", err)
	}

	fresh := filepath.Join(t.TempDir(), "new.jsonl")
	holdForeign(t, fresh, 4343)
	if _, err := Open(fresh, ""); !errors.As(err, &le) || le.PID != 4343 {
		t.Errorf("Open of a new path another process is creating: %v", err)
	}

	r, err := OpenReadOnly(path)
	if err != nil || len(r.Entries()) != 2 {
		t.Fatalf("read-only open of a held file: %v", err)
	}
	if _, err := r.AppendMessage(llm.UserText("x", nil, 3)); !errors.Is(err, ErrReadOnly) {
		t.Errorf("append to a read-only session: %v", err)
	}
	if infos, err := List("/p", filepath.Dir(path)); err != nil || len(infos) != 1 {
		t.Errorf("List of a held file: %d %v", len(infos), err)
	}
}

// TestLockLifetime: the lock is taken at Open (or a created session's first write), shared by the
// Sessions of one process on one file, and released (lock file removed) by the last Close; a lock
// file a killed process left behind is taken over.
func TestLockLifetime(t *testing.T) {
	dir := t.TempDir()
	s, err := Create("/p", dir, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := s.SessionFile()
	must(t)(s.AppendMessage(llm.UserText("hi", nil, 1)))
	if _, err := os.Stat(lockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file before the first write: %v", err)
	}
	must(t)(s.AppendMessage(assistantMsg("hello", 2)))
	if b, err := os.ReadFile(lockPath(path)); err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Fatalf("lock file after the first write: %q %v", b, err)
	}
	second, err := Open(path, "")
	if err != nil {
		t.Fatalf("a second Session of the same process: %v", err)
	}
	s.Close()
	if _, err := os.Stat(lockPath(path)); err != nil {
		t.Fatalf("the lock must stay while a Session holds it: %v", err)
	}
	second.Close()
	second.Close() // idempotent
	if _, err := os.Stat(lockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the last Close must remove the lock file: %v", err)
	}

	// A dead holder's lock file is not locked: it is taken over.
	os.WriteFile(lockPath(path), []byte("999999\n"), 0o600)
	third, err := Open(path, "")
	if err != nil {
		t.Fatalf("stale lock file: %v", err)
	}
	// NewSession lets go of the old file.
	if _, err := third.NewSession(CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("NewSession must release the old file: %v", err)
	}
	// A write after Close takes the file again, and fails while another process has it.
	fourth, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	fourth.Close()
	holdForeign(t, path, 4444)
	if _, err := fourth.AppendMessage(llm.UserText("late", nil, 3)); !errors.Is(err, ErrLocked) {
		t.Fatalf("append after Close while another process holds the file: %v", err)
	}
	if n := len(fourth.Entries()); n != 2 {
		t.Errorf("a refused append must not add the entry: %d entries", n)
	}
}
