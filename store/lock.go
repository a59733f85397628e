package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// One writer per session file (issue 10 item 1). A Session that may write a file holds an
// exclusive OS lock on a sidecar file, <session file>.lock, from Open (or, for a session created
// with Create or NewSession, from its first write) until Close or until it switches to another
// file. A second process that opens the same file gets a *LockedError naming the holder's pid
// before it sends anything to a model; two processes creating one new --session file at once
// cannot both write it. Readers (List, ListAll, FindSession, OpenReadOnly, export) take no lock
// and are never blocked.
//
// Inside one process the lock is shared: several Session values on one file (a runtime that
// reopens its own file) count references, and the OS lock is dropped with the last one. The
// lock file holds the holder's pid and is removed when the lock is released; a lock file left
// by a killed process is not locked and is taken over.

// ErrLocked is matched (errors.Is) by the error of opening a session file another process holds.
var ErrLocked = errors.New("session file is in use by another process")

// LockedError says which process holds a session file.
type LockedError struct {
	Path string // the session file
	PID  int    // pid of the holding process; 0 when it could not be read
}

func (e *LockedError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = "another atomic process (pid " + strconv.Itoa(e.PID) + ")"
	}
	return fmt.Sprintf("session file %s is in use by %s: one process writes a session at a time; wait for it to finish, or work on a copy of the file in another session", e.Path, holder)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// fileLock is the process's lock on one session file.
type fileLock struct {
	path string   // the session file
	f    *os.File // the open lock file holding the OS lock
	refs int      // Sessions holding it; guarded by locks.mu
}

var locks struct {
	mu sync.Mutex
	m  map[string]*fileLock // session file → its lock
}

// lockPath names the lock file of a session file.
func lockPath(file string) string { return file + ".lock" }

// lockRetries bounds how often acquire starts over when the lock file it locked was removed by a
// releasing holder in the meantime.
const lockRetries = 20

// acquire takes (or shares, inside this process) the lock of session file path, creating its
// directory when needed. It fails with a *LockedError when another process holds it.
func acquire(path string) (*fileLock, error) {
	locks.mu.Lock()
	defer locks.mu.Unlock()
	if l := locks.m[path]; l != nil {
		l.refs++
		return l, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	lp := lockPath(path)
	for range lockRetries {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, fileMode)
		if err != nil {
			return nil, fmt.Errorf("store: lock %s: %w", path, err)
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("store: lock %s: %w", path, err)
		}
		if !held {
			f.Close()
			return nil, &LockedError{Path: path, PID: holderPID(lp)}
		}
		// A releasing holder removes the lock file before it unlocks: a lock on a file that is no
		// longer at lp protects nothing, so start over with the file that is there now.
		if !sameFile(f, lp) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		l := &fileLock{path: path, f: f, refs: 1}
		if locks.m == nil {
			locks.m = make(map[string]*fileLock)
		}
		locks.m[path] = l
		return l, nil
	}
	return nil, fmt.Errorf("store: lock %s: the lock file kept being replaced", path)
}

// release drops one reference; the last one removes the lock file and unlocks it.
func (l *fileLock) release() {
	if l == nil {
		return
	}
	locks.mu.Lock()
	defer locks.mu.Unlock()
	if l.refs--; l.refs > 0 {
		return
	}
	delete(locks.m, l.path)
	os.Remove(lockPath(l.path))
	l.f.Close()
}

// sameFile reports whether the open file f is still the file at path.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// holderPID reads the pid the holder wrote into the lock file. The holder writes it right after
// locking, so an empty file is read again for a while (at most about a second in all, in case
// the holder is descheduled on a loaded machine between the two).
func holderPID(lp string) int {
	for range 200 {
		f, err := os.Open(lp)
		if err != nil {
			return 0
		}
		var buf [32]byte
		n, _ := f.Read(buf[:])
		f.Close()
		if pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n]))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0
}
