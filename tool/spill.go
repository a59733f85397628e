package tool

// Spill files of long command output (tools.md §5.2): one per run whose output passes the
// truncation limits, under <tmpdir>/atomic-<uid>/<session-id>/ (0700 directories, 0600 files,
// symbolic links and foreign owners refused), capped at SpillMaxBytes with a marker appended at
// the cut, and reaped once older than SpillMaxAge.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// SpillMaxBytes caps one spill file (64 MiB); output past it is counted, not stored.
const SpillMaxBytes = 64 << 20

// SpillMaxAge is how long a session's spill directory is kept after its last write (30 days).
const SpillMaxAge = 30 * 24 * time.Hour

// SpillRoot returns <tmpdir>/atomic-<uid>, the parent of every session's spill directory.
func SpillRoot() string {
	return filepath.Join(os.TempDir(), "atomic-"+strconv.Itoa(os.Getuid()))
}

var safeSessionID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// SpillDir creates (if needed) and returns the spill directory of sessionID below SpillRoot.
// Both levels are made 0700 and must be real directories owned by the current user; a symbolic
// link or another user's directory is refused (someone else could read or swap the output).
func SpillDir(sessionID string) (string, error) {
	if !safeSessionID.MatchString(sessionID) || sessionID == "." || sessionID == ".." {
		sessionID = "unnamed"
	}
	root := SpillRoot()
	for _, d := range []string{root, filepath.Join(root, sessionID)} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("bash spill directory %s: %w", d, err)
		}
		if err := checkPrivateDir(d); err != nil {
			return "", err
		}
	}
	return filepath.Join(root, sessionID), nil
}

// ReapSpills removes the session spill directories below root (SpillRoot when "") whose newest
// entry is older than maxAge, and reports how many it removed. Only directories owned by the
// current user are touched; errors are skipped (another process may be reaping too).
func ReapSpills(root string, maxAge time.Duration, now time.Time) int {
	if root == "" {
		root = SpillRoot()
	}
	if checkPrivateDir(root) != nil {
		return 0
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || checkPrivateDir(dir) != nil {
			continue
		}
		newest := time.Time{}
		if fi, err := os.Lstat(dir); err == nil {
			newest = fi.ModTime()
		}
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if fi, err := f.Info(); err == nil && fi.ModTime().After(newest) {
				newest = fi.ModTime()
			}
		}
		if now.Sub(newest) > maxAge && os.RemoveAll(dir) == nil {
			removed++
		}
	}
	return removed
}

// RemoveSpillDir removes the spill directory of sessionID, for a session nobody can come back to
// (an in-memory session at exit).
func RemoveSpillDir(sessionID string) error {
	if !safeSessionID.MatchString(sessionID) || sessionID == "." || sessionID == ".." {
		return nil
	}
	dir := filepath.Join(SpillRoot(), sessionID)
	if checkPrivateDir(dir) != nil {
		return nil
	}
	return os.RemoveAll(dir)
}

// spillFile is one capped spill file.
type spillFile struct {
	f       *os.File
	path    string
	written int64
	dropped int64
}

// createSpill creates <dir>/atomic-bash-<16 hex>.log (dir: os.TempDir() when empty), readable by
// the owner only.
func createSpill(dir string) (*spillFile, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "atomic-bash-"+hex.EncodeToString(b[:])+".log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return &spillFile{f: f, path: path}, nil
}

// Write stores p up to SpillMaxBytes in all and counts the rest.
func (s *spillFile) Write(p []byte) {
	room := SpillMaxBytes - s.written
	if room <= 0 {
		s.dropped += int64(len(p))
		return
	}
	if int64(len(p)) > room {
		s.dropped += int64(len(p)) - room
		p = p[:room]
	}
	n, _ := s.f.Write(p)
	s.written += int64(n)
}

// Close appends the truncation marker when output was dropped and closes the file.
func (s *spillFile) Close() error {
	if s.dropped > 0 {
		fmt.Fprintf(s.f, "\n[atomic: output truncated: this file is capped at %s; %d more bytes were not saved]\n",
			FormatSize64(SpillMaxBytes), s.dropped)
	}
	return s.f.Close()
}

// SpillWriter is the capped spill file of session code that runs commands itself (RPC bash).
type SpillWriter = spillFile

// CreateSpill creates a capped spill file in dir (see createSpill); Write and Close as the bash
// tool's.
func CreateSpill(dir string) (*SpillWriter, error) { return createSpill(dir) }

// Path returns the file's path.
func (s *spillFile) Path() string { return s.path }
