package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Errors returned by this package. Callers test them with errors.Is; the wrapped messages name
// the file or id concerned.
var (
	// ErrNotSession means a non-empty file does not start with a session header
	// (session-format.md §2). The file is left untouched.
	ErrNotSession = errors.New("not a valid session file")
	// ErrUnsupportedVersion means the file was written by a newer format version than
	// CurrentVersion (session-format.md §9); it is never appended to.
	ErrUnsupportedVersion = errors.New("unsupported session file version")
	// ErrEntryNotFound means an entry id given to a navigation or append method is unknown.
	ErrEntryNotFound = errors.New("entry not found")
	// ErrNoSession means FindSession matched nothing.
	ErrNoSession = errors.New("no session found")
	// ErrAmbiguous means an id prefix given to FindSession matches several sessions.
	ErrAmbiguous = errors.New("ambiguous session id")
	// ErrInvalidID means a caller-chosen session id does not match the allowed pattern.
	ErrInvalidID = errors.New("invalid session id")

	errNotHeader  = errors.New("first object is not a session header")
	errInvalidRaw = errors.New("json.RawMessage value is not valid JSON")
)

// VersionError reports a session file whose header version is newer than CurrentVersion. It
// matches ErrUnsupportedVersion with errors.Is.
type VersionError struct {
	Path      string // session file
	Version   int    // version found in the header
	Supported int    // newest version this package reads (CurrentVersion)
}

// Error names the file, its version and the supported version.
func (e *VersionError) Error() string {
	return fmt.Sprintf("store: %s: session file version %d is newer than the supported version %d; upgrade atomic to open it",
		e.Path, e.Version, e.Supported)
}

// Is makes errors.Is(err, ErrUnsupportedVersion) hold.
func (e *VersionError) Is(target error) bool { return target == ErrUnsupportedVersion }

// SessionsRoot returns <agentDir>/sessions, the directory holding one folder per project
// (session-format.md §1).
func SessionsRoot(agentDir string) string { return filepath.Join(agentDir, "sessions") }

// DefaultSessionDir returns the per-project session directory <agentDir>/sessions/<encoded cwd>
// (session-format.md §1). cwd is made absolute and cleaned first; see EncodeCwd. The directory is
// not created here: sessions create it when they first write.
func DefaultSessionDir(agentDir, cwd string) string {
	return filepath.Join(SessionsRoot(agentDir), EncodeCwd(cwd))
}

// EncodeCwd returns the directory name of a project (session-format.md §1): the absolute,
// cleaned cwd with one leading / or \ dropped, every /, \ and : replaced by -, wrapped in --.
// /home/ann/proj gives --home-ann-proj--; C:\src\app gives --C--src-app--. The encoding is lossy.
func EncodeCwd(cwd string) string {
	if !isWindowsAbs(cwd) {
		if abs, err := filepath.Abs(cwd); err == nil {
			cwd = abs
		}
	}
	if strings.HasPrefix(cwd, "/") || strings.HasPrefix(cwd, `\`) {
		cwd = cwd[1:]
	}
	r := strings.NewReplacer("/", "-", `\`, "-", ":", "-")
	return "--" + r.Replace(cwd) + "--"
}

// isWindowsAbs reports whether p is a Windows absolute path (C:\x, C:/x or \x), which
// filepath.Abs would treat as relative on other systems.
func isWindowsAbs(p string) bool {
	if strings.HasPrefix(p, `\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		(p[0] >= 'A' && p[0] <= 'Z' || p[0] >= 'a' && p[0] <= 'z')
}

// isDefaultDirFor reports whether dir is the default per-project directory of cwd, as opposed to
// a custom flat directory shared by all projects.
func isDefaultDirFor(dir, cwd string) bool {
	return filepath.Base(filepath.Clean(dir)) == EncodeCwd(cwd)
}

// FileName returns the file name of a session: <ts>_<id>.jsonl where ts is the header timestamp
// with every : and . replaced by - (session-format.md §1).
func FileName(timestamp, id string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(timestamp) + "_" + id + ".jsonl"
}

// NewSessionID returns a new session id: a time-ordered UUID v7 (session-format.md §1).
func NewSessionID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// ValidSessionID reports whether a caller-chosen session id is acceptable (Atomic --session-id,
// session-format.md §1): letters, digits, '.', '_' and '-', starting and ending with a letter or
// digit.
func ValidSessionID(id string) bool { return sessionIDPattern.MatchString(id) }

// newEntryID returns 8 lowercase hex characters not accepted by taken, drawing again up to 100
// times and falling back to a full UUID (session-format.md §4).
func newEntryID(taken func(string) bool) string {
	const hex = "0123456789abcdef"
	for range 100 {
		v := rand.Uint32()
		var b [8]byte
		for i := 7; i >= 0; i-- {
			b[i] = hex[v&0xf]
			v >>= 4
		}
		if id := string(b[:]); !taken(id) {
			return id
		}
	}
	return uuid.NewString()
}

// isoTime formats t like JavaScript's Date.prototype.toISOString: UTC, milliseconds, Z.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// parseISO parses an ISO-8601 timestamp as written in session files.
func parseISO(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// isoMillis returns the Unix milliseconds of an ISO timestamp, 0 when it does not parse.
func isoMillis(s string) int64 {
	t, ok := parseISO(s)
	if !ok {
		return 0
	}
	return t.UnixMilli()
}
