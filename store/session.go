package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// Session is one session tree and its file: pi's SessionManager (session-format.md §6, §10).
//
// Entries form a tree through ParentID; the leaf is the current position. Every append creates a
// child of the leaf and moves the leaf to it. Persisted sessions write lazily (§2): nothing
// reaches the disk until the session holds an assistant message; then the header and every
// buffered entry are written at once, and afterwards each append is one write of one complete
// line. A failed write is undone on disk (truncated back) and in memory (the entry is not added,
// the leaf does not move), and the error is returned.
//
// Concurrency: mu guards all state, so every method may be called from any goroutine. The agent
// is expected to append from one goroutine while front-ends read. Entries handed out are shared
// and read-only; their Message is decoded before they are handed out.
type Session struct {
	mu sync.Mutex
	state
}

// state is everything mu guards; it is a separate type so an operation can save and restore it.
type state struct {
	cwd        string
	sessionDir string // "" in memory
	file       string // "" in memory
	persist    bool
	readOnly   bool      // OpenReadOnly: never written, holds no lock
	lock       *fileLock // the lock of the file this session writes, nil while it holds none
	w          writer

	header       Header
	entries      []*Entry          // in file/append order; nil at i while entry i is lazy (at)
	lazy         []lazyRec         // lazy[i] stands for entries[i] while that is nil; covers only the loaded entries (nil: none)
	data         []byte            // the loaded file buffer lazy entries point into
	par          []int32           // par[i]: index of entry i's parent, -1 for a root or orphan
	byID         idIndex           // entry id → index in entries (the last one with that id)
	labels       map[string]*Entry // target id → the label entry that set its label
	leaf         *Entry            // nil: before the first entry
	flushed      bool              // header and entries are on disk
	hasAssistant bool              // only maintained while !flushed
	skipped      int
	warnings     []string            // repairs made while loading (LoadWarnings)
	children     map[string][]*Entry // built on first use by Children; nil until then

	now func() time.Time
}

// CreateOptions configure a new session (Create, NewSession).
type CreateOptions struct {
	// ID is a caller-chosen session id (Atomic --session-id); it must satisfy ValidSessionID.
	// Empty: a new UUID v7.
	ID string
	// ParentSession is the path of the session this one was forked or cloned from, recorded in
	// the header.
	ParentSession string
}

// Create starts a new persisted session for cwd whose file will be
// <sessionDir>/<ts>_<id>.jsonl (session-format.md §1, §10). Nothing is written until the first
// assistant message; sessionDir is created then. It fails for an empty sessionDir or an invalid
// opts.ID (ErrInvalidID).
func Create(cwd, sessionDir string, opts CreateOptions) (*Session, error) {
	if sessionDir == "" {
		return nil, errors.New("store: create: no session directory given")
	}
	s := newSession(cwd, sessionDir, true)
	if err := s.reset(opts); err != nil {
		return nil, err
	}
	return s, nil
}

// InMemory returns a session that is never written (--no-session): SessionFile and SessionDir
// are "" and IsPersisted is false. An empty cwd means the process working directory.
func InMemory(cwd string) *Session {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	s := newSession(cwd, "", false)
	s.reset(CreateOptions{})
	return s
}

// Open loads the session file at path (session-format.md §2, §9, §10). sessionDir is where
// NewSession and CreateBranchedSession put new files; "" means the file's directory.
//
//   - A missing file starts a new session that will be written to exactly path (--session
//     <newpath>); its cwd is the process working directory.
//   - A zero-byte (or whitespace-only) file is initialised like a missing one.
//   - A non-empty file whose first JSON object is not a session header fails with ErrNotSession
//     and is left untouched.
//   - A header version above CurrentVersion fails with a *VersionError.
//   - Version 1 and 2 files are migrated and the file is rewritten atomically (lines that did
//     not parse are not carried over).
//
// Lines that are not JSON objects (a torn last line after a crash) are skipped and counted in
// SkippedLines. The leaf is the last entry of the file.
func Open(path, sessionDir string) (*Session, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if sessionDir == "" {
		sessionDir = filepath.Dir(abs)
	}
	s := newSession("", sessionDir, true)
	lock, err := acquire(abs)
	if err != nil {
		return nil, err
	}
	if err := s.load(abs); err != nil {
		lock.release()
		return nil, err
	}
	s.lock = lock
	return s, nil
}

// OpenReadOnly loads the session file at path for reading only (export, pickers, inspection): it
// takes no lock, so a process writing the file does not block it, an older version is migrated
// in memory only, and every write (appends, CreateBranchedSession, a NewSession's first write)
// fails with ErrReadOnly. A missing, empty or invalid file is an error.
func OpenReadOnly(path string) (*Session, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	fd, err := parseSession(data, true)
	if err != nil {
		return nil, fmt.Errorf("store: %w: %s", err, abs)
	}
	if fd.blank {
		return nil, fmt.Errorf("store: open %s: the file is empty", abs)
	}
	if fd.header.Version > CurrentVersion {
		return nil, &VersionError{Path: abs, Version: fd.header.Version, Supported: CurrentVersion}
	}
	if err := fd.migrate(); err != nil {
		return nil, fmt.Errorf("store: migrate %s: %w", abs, err)
	}
	s := newSession("", filepath.Dir(abs), true)
	s.readOnly = true
	s.install(abs, fd)
	return s, nil
}

// ErrReadOnly is returned by every write to a session opened with OpenReadOnly.
var ErrReadOnly = errors.New("session opened read-only")

// Close releases the session's hold on its file, so another process may open it for writing.
// The Session stays usable: a later write takes the file again (and fails if another process
// has it by then). Close is idempotent and does nothing for in-memory sessions.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lock.release()
	s.lock = nil
	return nil
}

// holdLock makes sure the session holds the lock of the file it is about to write. The lock of
// a file it no longer writes (after NewSession or a clone) is released once the new one is held.
func (s *Session) holdLock() error {
	if s.readOnly {
		return fmt.Errorf("store: write %s: %w", s.file, ErrReadOnly)
	}
	if s.lock != nil && s.lock.path == s.file {
		return nil
	}
	l, err := acquire(s.file)
	if err != nil {
		return err
	}
	s.lock.release()
	s.lock = l
	return nil
}

// ContinueRecent opens the most recently modified (file mtime) session in sessionDir, or creates
// a new one when there is none (session-format.md §10, -c). Files that are not valid sessions,
// newer format versions and Atomic internal workflow sessions are skipped. When sessionDir is not
// cwd's default directory (a custom flat directory shared by all projects), only sessions whose
// header cwd is cwd are candidates.
func ContinueRecent(cwd, sessionDir string) (*Session, error) {
	cands, err := candidates(sessionDir)
	if err != nil {
		return nil, err
	}
	filter := !isDefaultDirFor(sessionDir, cwd)
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].mtime.After(cands[j].mtime) })
	for _, c := range cands {
		h, err := readHeader(c.path)
		if err != nil || h.Version > CurrentVersion {
			continue
		}
		if _, internal := h.Internal(); internal {
			continue
		}
		if filter && !sameDir(h.Cwd, cwd) {
			continue
		}
		s, err := Open(c.path, sessionDir)
		if err == nil {
			return s, nil
		}
		if errors.Is(err, ErrLocked) {
			return nil, err // the most recent session is being written: say so rather than pick an older one
		}
	}
	return Create(cwd, sessionDir, CreateOptions{})
}

// ForkFrom copies the session at sourcePath into a new session of targetCwd in sessionDir
// (session-format.md §10, --fork): new id and timestamp, header cwd targetCwd and parentSession
// sourcePath, every entry copied with its id (lines of a current-version source byte for byte;
// older sources are migrated in memory first). The new file is written immediately. It fails when
// the source is missing, invalid, newer than CurrentVersion or has no entries.
func ForkFrom(sourcePath, targetCwd, sessionDir string) (*Session, error) {
	if sessionDir == "" {
		return nil, errors.New("store: fork: no session directory given")
	}
	src, err := filepath.Abs(sourcePath)
	if err != nil {
		return nil, fmt.Errorf("store: fork %s: %w", sourcePath, err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("store: fork %s: %w", src, err)
	}
	fd, err := parseSession(data, false)
	if err != nil {
		return nil, fmt.Errorf("store: fork: %w: %s", err, src)
	}
	if !fd.blank && fd.header.Version > CurrentVersion {
		return nil, &VersionError{Path: src, Version: fd.header.Version, Supported: CurrentVersion}
	}
	if fd.blank || len(fd.entries) == 0 {
		return nil, fmt.Errorf("store: fork: source session has no entries: %s", src)
	}
	if err := fd.migrate(); err != nil {
		return nil, fmt.Errorf("store: fork %s: %w", src, err)
	}
	now := time.Now()
	h := Header{Type: TypeSession, Version: CurrentVersion, ID: NewSessionID(), Timestamp: isoTime(now),
		Cwd: targetCwd, ParentSession: src}
	buf, err := encodeFile(&h, fd.entries)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(sessionDir, FileName(h.Timestamp, h.ID))
	w := writer{}
	if err := w.create(path, buf); err != nil {
		return nil, err
	}
	return Open(path, sessionDir)
}

func newSession(cwd, sessionDir string, persist bool) *Session {
	return &Session{state: state{cwd: cwd, sessionDir: sessionDir, persist: persist, now: time.Now}}
}

// reset replaces the state with a fresh header and no entries.
func (s *Session) reset(opts CreateOptions) error {
	id := opts.ID
	if id == "" {
		id = NewSessionID()
	} else if !ValidSessionID(id) {
		return fmt.Errorf("store: %w %q: use letters, digits, '.', '_' and '-', starting and ending with a letter or digit", ErrInvalidID, id)
	}
	ts := isoTime(s.now())
	s.header = Header{Type: TypeSession, Version: CurrentVersion, ID: id, Timestamp: ts, Cwd: s.cwd,
		ParentSession: opts.ParentSession}
	s.setEntries(nil, nil, nil)
	s.flushed = false
	s.hasAssistant = false
	s.skipped = 0
	s.warnings = nil
	if s.persist {
		s.file = filepath.Join(s.sessionDir, FileName(ts, id))
	}
	return nil
}

// setEntries installs entries (nil at i where lazy[i] stands for the entry; lazy is nil when no
// entry is lazy, data the buffer lazy records point into) and rebuilds the indexes; the leaf
// becomes the last entry that has an id (a trailing line without one, such as another tool's
// marker, cannot be a parent).
func (s *Session) setEntries(entries []*Entry, lazy []lazyRec, data []byte) {
	s.entries = entries
	s.lazy = lazy
	s.data = data
	s.byID = newIDIndex(len(entries))
	s.labels = make(map[string]*Entry)
	s.children = nil
	s.leaf = nil
	leaf := -1
	for i, e := range entries {
		id := ""
		if e == nil {
			id = lazy[i].id
		} else {
			e.seq = i
			id = e.ID
			s.applyLabel(e)
		}
		if id != "" {
			s.byID.set(id, int32(i))
			leaf = i
		}
	}
	s.par = make([]int32, len(entries), cap(entries)) // room for appends, as entries has
	for i := range entries {
		s.par[i] = s.resolveParent(i)
	}
	if leaf >= 0 {
		s.leaf = s.at(leaf)
	}
}

// idIndex maps entry ids to entry indexes. Ids of pi's form (8 lowercase hex digits, every id
// this package writes) are kept as 32-bit numbers, which makes the index of a long session a
// third of the size of a string-keyed map; any other id goes to a string-keyed map.
type idIndex struct {
	hex   map[uint32]int32
	other map[string]int32
}

func newIDIndex(n int) idIndex {
	return idIndex{hex: make(map[uint32]int32, n), other: map[string]int32{}}
}

// hexID reads an id of exactly 8 lowercase hex digits.
func hexID(id string) (uint32, bool) {
	if len(id) != 8 {
		return 0, false
	}
	var v uint32
	for i := 0; i < 8; i++ {
		c := id[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

func (x idIndex) get(id string) (int32, bool) {
	if h, ok := hexID(id); ok {
		i, ok := x.hex[h]
		return i, ok
	}
	i, ok := x.other[id]
	return i, ok
}

func (x idIndex) set(id string, i int32) {
	if h, ok := hexID(id); ok {
		x.hex[h] = i
		return
	}
	x.other[id] = i
}

// resolveParent finds the index of entry i's parent: -1 for a root (parentId null or its own id)
// and for an orphan whose parent is not in the session.
func (s *Session) resolveParent(i int) int32 {
	var id, parent string
	if e := s.entries[i]; e != nil {
		if e.ParentID == nil {
			return -1
		}
		id, parent = e.ID, *e.ParentID
	} else {
		r := &s.lazy[i]
		if !r.hasParent {
			return -1
		}
		id, parent = r.id, r.parent
	}
	if parent == id {
		return -1
	}
	if j, ok := s.byID.get(parent); ok {
		return j
	}
	return -1
}

// at returns entry i, materializing a lazy entry first: its line is decoded exactly as an eager
// load decodes it, and the Entry is kept, so every later call returns the same pointer.
func (s *Session) at(i int) *Entry {
	if e := s.entries[i]; e != nil {
		return e
	}
	r := &s.lazy[i]
	line := s.data[r.line:r.lineEnd]
	fields, msg, _ := parseLine(line, nil, nil, true)
	e := &Entry{}
	e.decode(line, fields, msg, nil, nil)
	e.seq = i
	s.entries[i] = e
	return e
}

// idAt returns the id of entry i without materializing it.
func (s *Session) idAt(i int) string {
	if e := s.entries[i]; e != nil {
		return e.ID
	}
	return s.lazy[i].id
}

// findOK is find that also reports whether the id is known.
func (s *Session) findOK(id string) (*Entry, bool) {
	e := s.find(id)
	return e, e != nil
}

// find returns the entry with the given id (materialized), nil when unknown.
func (s *Session) find(id string) *Entry {
	if i, ok := s.byID.get(id); ok {
		return s.at(int(i))
	}
	return nil
}

// all materializes every entry and returns s.entries.
func (s *Session) all() []*Entry {
	if s.lazy != nil {
		for i := range s.entries {
			s.at(i)
		}
	}
	return s.entries
}

func (s *Session) applyLabel(e *Entry) {
	if e.Type != TypeLabel || e.opaque {
		return
	}
	if e.Label != nil && *e.Label != "" {
		s.labels[e.TargetID] = e
	} else {
		delete(s.labels, e.TargetID)
	}
}

// load reads path into s (see Open).
func (s *Session) load(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s.startAt(path)
	}
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	fd, err := parseSession(data, true)
	if err != nil {
		return fmt.Errorf("store: %w: %s", err, path)
	}
	if fd.blank {
		return s.startAt(path)
	}
	if fd.header.Version > CurrentVersion {
		return &VersionError{Path: path, Version: fd.header.Version, Supported: CurrentVersion}
	}
	if fd.header.Version < CurrentVersion {
		if err := fd.migrate(); err != nil {
			return fmt.Errorf("store: migrate %s: %w", path, err)
		}
		buf, err := encodeFile(&fd.header, fd.entries)
		if err != nil {
			return fmt.Errorf("store: migrate %s: %w", path, err)
		}
		if err := replace(path, buf); err != nil {
			return err
		}
	}
	s.install(path, fd)
	return nil
}

// install makes the parsed file fd at path the session's state.
func (s *Session) install(path string, fd *fileData) {
	s.header = fd.header
	s.cwd = fd.header.Cwd
	if s.cwd == "" {
		s.cwd, _ = os.Getwd()
	}
	s.file = path
	s.setEntries(fd.entries, fd.lazy, fd.data)
	s.skipped = fd.skipped
	s.warnings = s.breakCycles()
	s.flushed = true
}

// breakCycles finds parentId cycles (a file edited by hand or by another tool) and breaks each one
// by making its member that comes first in the file a root, so no path visits an entry twice and
// no message is repeated in the context (issue 10 item 5). The file is not rewritten; the changed
// entry is written with parentId null wherever it is copied. It returns one warning per cycle.
//
// In a well-formed file every parent precedes its child, and a cycle needs at least one parent
// that does not: only entries whose parent comes later in the file (rare) are followed up.
func (s *Session) breakCycles() []string {
	var warnings []string
	for i := range s.entries {
		p := s.par[i]
		if p < 0 || int(p) < i {
			continue // a root, an orphan, or a parent earlier in the file
		}
		// Entry i's parent is later in the file: walk up from it and see whether the walk comes
		// back. Entries are visited in file order, so the first member of a cycle reached here
		// is the one that comes first in the file: every other member comes after it.
		members := []int32{int32(i)}
		seen := map[int32]bool{int32(i): true}
		for q := p; q >= 0; q = s.par[q] {
			if int(q) == i {
				warnings = append(warnings, s.breakCycle(i, members))
				break
			}
			if seen[q] {
				break // a cycle i leads into without being part of it: broken from its own member
			}
			seen[q] = true
			members = append(members, q)
		}
	}
	return warnings
}

// breakCycle makes entry first, the member of a parentId cycle that comes first in the file, a
// root and returns the warning that says so.
func (s *Session) breakCycle(first int, members []int32) string {
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = s.idAt(int(m))
	}
	e := s.at(first)
	old := e.Parent()
	e.ParentID = nil
	s.par[first] = -1
	if e.raw != nil {
		if raw, err := rewriteEnvelope(e.raw, e.ID, nil); err == nil {
			e.raw = raw
		} else if !e.opaque {
			e.raw = nil // re-encoded from its fields when copied
		}
	}
	return fmt.Sprintf("store: %s: entries %s form a parentId cycle; entry %s (parentId %s) is treated as a root",
		s.file, strings.Join(ids, " → "), e.ID, old)
}

// LoadWarnings returns what loading the file repaired in memory (a parentId cycle broken), one
// sentence per repair, so a front-end can warn; nil when nothing was repaired.
func (s *Session) LoadWarnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

// startAt begins a new session that will be written to exactly path.
func (s *Session) startAt(path string) error {
	if s.cwd == "" {
		s.cwd, _ = os.Getwd()
	}
	if err := s.reset(CreateOptions{}); err != nil {
		return err
	}
	s.file = path
	return nil
}

// NewSession replaces the session with a fresh one (new id and timestamp, no entries) in the same
// directory and returns its file path ("" in memory). Nothing is written until the first
// assistant message (session-format.md §10). The old file is left as it is.
func (s *Session) NewSession(opts CreateOptions) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reset(opts); err != nil {
		return "", err
	}
	// The new file is taken at its first write; the old one is free for others now.
	s.lock.release()
	s.lock = nil
	return s.file, nil
}

// SetSyncWrites makes every later write call fsync before returning (default off: a crash can
// lose the last appended lines, but never corrupts earlier ones).
func (s *Session) SetSyncWrites(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.sync = on
}

// SkippedLines returns how many non-blank lines of the loaded file were not JSON objects and were
// ignored (typically a line torn by a crash), so a front-end can warn.
func (s *Session) SkippedLines() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped
}

// --- appends ---

// append adds e as a child of parent (nil: a new root), persists it and moves the leaf to it.
func (s *Session) append(e *Entry, parent *Entry) (string, error) {
	e.ID = newEntryID(func(id string) bool { _, ok := s.byID.get(id); return ok })
	if parent != nil {
		p := parent.ID
		e.ParentID = &p
	}
	e.Timestamp = isoTime(s.now())
	e.seq = len(s.entries)
	wrote, err := s.persistEntry(e)
	if err != nil {
		return "", err
	}
	s.entries = append(s.entries, e)
	s.par = append(s.par, -1)
	s.par[e.seq] = s.resolveParent(e.seq)
	s.byID.set(e.ID, int32(e.seq))
	s.leaf = e
	s.applyLabel(e)
	if s.children != nil && e.ParentID != nil {
		s.children[*e.ParentID] = append(s.children[*e.ParentID], e)
	}
	if isAssistant(e) {
		s.hasAssistant = true
	}
	if wrote {
		s.flushed = true
	}
	return e.ID, nil
}

func ptrStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// withParent returns a copy of e whose parentId is parent (nil: a root); the line it is written
// as keeps every other member and its order.
func (e *Entry) withParent(parent *string) (*Entry, error) {
	c := *e
	c.ParentID = parent
	if e.raw != nil {
		raw, err := rewriteEnvelope(e.raw, e.ID, parent)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.ID, err)
		}
		c.raw = raw
	}
	return &c, nil
}

func isAssistant(e *Entry) bool {
	return e.Type == TypeMessage && e.Message != nil && e.Message.Role == llm.RoleAssistant
}

// persistEntry writes what e's append requires and reports whether the file now holds the
// session (§2 lazy first write).
func (s *Session) persistEntry(e *Entry) (bool, error) {
	if !s.persist || s.file == "" {
		return false, nil
	}
	if !s.flushed && !s.hasAssistant && !isAssistant(e) {
		return false, nil
	}
	if err := s.holdLock(); err != nil {
		return false, err
	}
	if s.flushed {
		line, err := e.appendJSON(nil)
		if err != nil {
			return false, err
		}
		line = append(line, '\n')
		err = s.w.appendLine(s.file, line)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return err == nil, err
		}
		// The file vanished under us: write it again in full rather than a headerless line.
	}
	all := s.all()
	buf, err := encodeFile(&s.header, append(all[:len(all):len(all)], e))
	if err != nil {
		return false, err
	}
	if err := s.w.create(s.file, buf); err != nil {
		return false, err
	}
	return true, nil
}

// AppendMessage appends a message entry (session-format.md §5.1) and returns its id. Allowed
// roles: user, assistant, toolResult, bashExecution, custom; branch and compaction summaries are
// entries of their own. The session keeps msg (a shallow copy): do not modify its content after.
func (s *Session) AppendMessage(msg llm.Message) (string, error) {
	switch msg.Role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult, llm.RoleBashExecution, llm.RoleCustom:
	default:
		return "", fmt.Errorf("store: append message: role %q cannot be stored as a message entry", msg.Role)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&Entry{Type: TypeMessage, Message: &msg}, s.leaf)
}

// AppendThinkingLevelChange records a thinking level (off, minimal, low, medium, high, xhigh;
// §5.3) and returns the entry id.
func (s *Session) AppendThinkingLevelChange(level string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&Entry{Type: TypeThinkingLevelChange, ThinkingLevel: level}, s.leaf)
}

// AppendModelChange records a model switch (§5.2) and returns the entry id.
func (s *Session) AppendModelChange(provider, modelID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&Entry{Type: TypeModelChange, Provider: provider, ModelID: modelID}, s.leaf)
}

// AppendCompaction records a compaction (§5.4): pi summary style, or Atomic verbatim-lines when
// details has strategy "verbatim-lines" (see BuildContext). For pi the context keeps summary, then the
// path from firstKeptEntryID up to this entry. tokensBefore is the context size in tokens before
// compacting; details is any JSON-encodable value (nil: omitted); fromHook says an extension made
// the summary. A non-empty firstKeptEntryID must be a known entry (ErrEntryNotFound); "" is
// written as null (nothing before the compaction is kept).
func (s *Session) AppendCompaction(summary, firstKeptEntryID string, tokensBefore int64, details any, fromHook bool) (string, error) {
	raw, err := toRaw(details)
	if err != nil {
		return "", fmt.Errorf("store: append compaction: details: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := &Entry{Type: TypeCompaction, Summary: summary, TokensBefore: tokensBefore, Details: raw, FromHook: &fromHook}
	if firstKeptEntryID != "" {
		if _, ok := s.byID.get(firstKeptEntryID); !ok {
			return "", fmt.Errorf("store: append compaction: first kept %w: %s", ErrEntryNotFound, firstKeptEntryID)
		}
		e.FirstKeptEntryID = &firstKeptEntryID
	}
	return s.append(e, s.leaf)
}

// AppendCustomEntry stores extension state that never reaches the LLM (§5.6). data is any
// JSON-encodable value (nil: omitted).
func (s *Session) AppendCustomEntry(customType string, data any) (string, error) {
	raw, err := toRaw(data)
	if err != nil {
		return "", fmt.Errorf("store: append custom entry: data: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&Entry{Type: TypeCustom, CustomType: customType, Data: raw}, s.leaf)
}

// AppendSessionInfo sets the session's display name (§5.9); the name is trimmed and "" clears it.
func (s *Session) AppendSessionInfo(name string) (string, error) {
	name = strings.TrimSpace(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&Entry{Type: TypeSessionInfo, Name: &name}, s.leaf)
}

// CustomMessage is an extension message that takes part in the LLM context
// (AppendCustomMessageEntry, §5.7).
type CustomMessage struct {
	// CustomType is the extension-chosen kind of the message.
	CustomType string
	// Content is the message body; with ContentIsString it is written as a plain string (the
	// text of its text blocks).
	Content []llm.Content
	// ContentIsString writes Content as a plain string.
	ContentIsString bool
	// Display false hides the message in the UI; it is still sent to the LLM.
	Display bool
	// Details is any JSON-encodable value for the extension, never sent to the LLM (nil: omitted).
	Details any
	// ExcludeFromContext keeps the message out of the LLM context (Atomic).
	ExcludeFromContext bool
}

// AppendCustomMessageEntry appends an extension message entry (§5.7) and returns its id.
func (s *Session) AppendCustomMessageEntry(m CustomMessage) (string, error) {
	raw, err := toRaw(m.Details)
	if err != nil {
		return "", fmt.Errorf("store: append custom message: details: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&Entry{Type: TypeCustomMessage, CustomType: m.CustomType, Content: m.Content,
		ContentIsString: m.ContentIsString, Display: m.Display, Details: raw,
		ExcludeFromContext: m.ExcludeFromContext}, s.leaf)
}

// AppendLabelChange sets (or, with "", clears) the label of entry targetID (§5.8). It fails with
// ErrEntryNotFound for an unknown target.
func (s *Session) AppendLabelChange(targetID, label string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID.get(targetID); !ok {
		return "", fmt.Errorf("store: label: %w: %s", ErrEntryNotFound, targetID)
	}
	e := &Entry{Type: TypeLabel, TargetID: targetID}
	if label != "" {
		e.Label = &label
	}
	return s.append(e, s.leaf)
}

// AppendSessionSummary stores Atomic's one-line resume-picker summary of the conversation up to
// summarizedThroughID (§5.10); usage may be nil. It fails with ErrEntryNotFound for an unknown id.
func (s *Session) AppendSessionSummary(summary, summarizedThroughID string, usage *llm.Usage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID.get(summarizedThroughID); !ok {
		return "", fmt.Errorf("store: session summary: %w: %s", ErrEntryNotFound, summarizedThroughID)
	}
	return s.append(&Entry{Type: TypeSessionSummary, Summary: summary, SummarizedThroughID: summarizedThroughID,
		Usage: usage}, s.leaf)
}

// BranchWithSummary moves the leaf to fromID ("" = before the first entry) and appends a
// branch_summary child there summarising the abandoned path (§5.5, §6); fromId is written as
// "root" for "". details (nil: omitted) and fromHook as for AppendCompaction. It fails with
// ErrEntryNotFound for an unknown fromID; on any failure the leaf does not move.
func (s *Session) BranchWithSummary(fromID, summary string, details any, fromHook bool) (string, error) {
	return s.BranchWithSummaryUsage(fromID, summary, details, fromHook, nil)
}

// BranchWithSummaryUsage is BranchWithSummary that also records the tokens and dollars the
// summarizer spent (Atomic's usage member, §5.5); nil usage is omitted.
func (s *Session) BranchWithSummaryUsage(fromID, summary string, details any, fromHook bool, usage *llm.Usage) (string, error) {
	raw, err := toRaw(details)
	if err != nil {
		return "", fmt.Errorf("store: branch summary: details: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var parent *Entry
	from := "root"
	if fromID != "" {
		p, ok := s.findOK(fromID)
		if !ok {
			return "", fmt.Errorf("store: branch: %w: %s", ErrEntryNotFound, fromID)
		}
		parent, from = p, fromID
	}
	return s.append(&Entry{Type: TypeBranchSummary, FromID: from, Summary: summary, Details: raw, FromHook: &fromHook,
		Usage: usage}, parent)
}

// --- navigation and reads ---

// ready decodes the message of e so it can be handed out. A message that does not decode makes
// the entry opaque.
func (s *Session) ready(e *Entry) *Entry {
	if e != nil && e.Message == nil && e.Type == TypeMessage && !e.opaque {
		e.decodeMessage()
	}
	return e
}

func (s *Session) readyAll(es []*Entry) []*Entry {
	for _, e := range es {
		s.ready(e)
	}
	return es
}

// LeafID returns the id of the current leaf, "" before the first entry (new session or after
// ResetLeaf).
func (s *Session) LeafID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leaf == nil {
		return ""
	}
	return s.leaf.ID
}

// LeafEntry returns the current leaf entry, nil before the first entry.
func (s *Session) LeafEntry() *Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready(s.leaf)
}

// Entry returns the entry with the given id, nil when unknown.
func (s *Session) Entry(id string) *Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready(s.find(id))
}

// Children returns the direct children of parentID in append order; "" returns the roots
// (entries whose parentId is null).
func (s *Session) Children(parentID string) []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.children == nil {
		s.children = make(map[string][]*Entry)
		for _, e := range s.all() {
			s.children[e.Parent()] = append(s.children[e.Parent()], e)
		}
	}
	return s.readyAll(append([]*Entry(nil), s.children[parentID]...))
}

// Label returns the label of entry id ("" when it has none): the newest label entry for it in
// file order decides (§5.8).
func (s *Session) Label(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.labels[id]; l != nil {
		return *l.Label
	}
	return ""
}

// Branch returns the path from a root to fromID ("" = the leaf), root first, all entry types
// included (§6). It returns nil for an unknown id or an empty leaf.
func (s *Session) Branch(fromID string) []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.leaf
	if fromID != "" {
		start = s.find(fromID)
	}
	return s.readyAll(s.path(start))
}

// path walks parent links from e to a root and returns them root first, materialized.
func (s *Session) path(e *Entry) []*Entry {
	if e == nil {
		return nil
	}
	idx := s.pathIdx(e.seq)
	out := make([]*Entry, len(idx))
	for k, i := range idx {
		out[k] = s.at(int(i))
	}
	return out
}

// pathIdx is path as entry indexes, without materializing any entry: it walks par twice,
// counting first, so a long branch costs one exactly sized slice. A cycle ends the walk.
func (s *Session) pathIdx(i int) []int32 {
	n := 0
	for p := int32(i); p >= 0 && n <= len(s.entries); p = s.par[p] {
		n++
	}
	out := make([]int32, n)
	for p := int32(i); n > 0; p = s.par[p] {
		n--
		out[n] = p
	}
	return out
}

// TreeNode is a node of Tree: an entry, its children sorted by timestamp (oldest first) and the
// entry's label ("" when none). It marshals like pi's SessionTreeNode.
type TreeNode struct {
	Entry    *Entry      `json:"entry"`           // the entry, shared and read-only
	Children []*TreeNode `json:"children"`        // children, oldest timestamp first
	Label    string      `json:"label,omitempty"` // label of the entry, "" when none
}

// Tree returns the session as a forest (§6). Roots are entries whose parentId is null, equal to
// their own id, or unknown (orphans), in append order.
func (s *Session) Tree() []*TreeNode {
	s.mu.Lock()
	defer s.mu.Unlock()
	nodes := make([]TreeNode, len(s.entries))
	byID := make(map[string]*TreeNode, len(s.entries))
	for i, e := range s.all() {
		nodes[i] = TreeNode{Entry: s.ready(e)}
		if l := s.labels[e.ID]; l != nil {
			nodes[i].Label = *l.Label
		}
		if e.ID != "" {
			byID[e.ID] = &nodes[i]
		}
	}
	var roots []*TreeNode
	for i, e := range s.entries {
		n := &nodes[i]
		if e.ParentID == nil || *e.ParentID == e.ID || byID[*e.ParentID] == nil {
			roots = append(roots, n)
			continue
		}
		p := byID[*e.ParentID]
		p.Children = append(p.Children, n)
	}
	ms := make(map[*TreeNode]int64, len(nodes))
	for i := range nodes {
		if len(nodes[i].Children) > 1 {
			for _, c := range nodes[i].Children {
				if _, ok := ms[c]; !ok {
					ms[c] = isoMillis(c.Entry.Timestamp)
				}
			}
			cs := nodes[i].Children
			sort.SliceStable(cs, func(a, b int) bool { return ms[cs[a]] < ms[cs[b]] })
		}
	}
	return roots
}

// SetLeaf moves the leaf to entry id (pi's branch(id)); the next append starts a new branch
// there. The leaf is not persisted: reloading returns to the last appended entry (§6). It fails
// with ErrEntryNotFound for an unknown id.
func (s *Session) SetLeaf(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.findOK(id)
	if !ok {
		return fmt.Errorf("store: branch: %w: %s", ErrEntryNotFound, id)
	}
	s.leaf = e
	return nil
}

// ResetLeaf moves the leaf before the first entry: the next append is a new root and
// BuildContext is empty (§6).
func (s *Session) ResetLeaf() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaf = nil
}

// Entries returns all entries in append order (a new slice; the entries are shared).
func (s *Session) Entries() []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readyAll(append([]*Entry(nil), s.all()...))
}

// Header returns a copy of the session header.
func (s *Session) Header() Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.header
	h.Extra = append([]Field(nil), h.Extra...)
	return h
}

// SessionName returns the display name: the name of the newest session_info entry in file order,
// trimmed; "" when there is none or the newest one cleared it (Atomic semantics, §5.9).
func (s *Session) SessionName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return nameOf(s.entries)
}

func nameOf(entries []*Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e != nil && e.Type == TypeSessionInfo && !e.opaque { // nil: a lazy message
			if e.Name == nil {
				return ""
			}
			return strings.TrimSpace(*e.Name)
		}
	}
	return ""
}

// Cwd returns the working directory the session belongs to (the header cwd for opened files).
func (s *Session) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// SessionDir returns the directory new session files go to, "" in memory.
func (s *Session) SessionDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionDir
}

// SessionID returns the header id.
func (s *Session) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header.ID
}

// SessionFile returns the absolute path of the session file ("" in memory). The file may not
// exist yet (lazy first write).
func (s *Session) SessionFile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file
}

// IsPersisted reports whether the session writes to a file at all (false for InMemory). It does
// not say whether the file has been written yet.
func (s *Session) IsPersisted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.persist
}

// CreateBranchedSession replaces the session with a new one (new id and file in the same
// directory, header parentSession = the old file) holding only the path from a root to leafID,
// without label entries, followed by fresh label entries for the labels of entries on the path
// (§10). The new file is written at once if it holds an assistant message, else lazily. It returns
// the new file path ("" in memory) and fails with ErrEntryNotFound for an unknown leafID.
func (s *Session) CreateBranchedSession(leafID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	leaf, ok := s.findOK(leafID)
	if !ok {
		return "", fmt.Errorf("store: branched session: %w: %s", ErrEntryNotFound, leafID)
	}
	path := s.path(leaf)
	kept := make([]*Entry, 0, len(path))
	onPath := make(map[string]bool, len(path))
	for _, e := range path {
		if e.Type == TypeLabel && !e.opaque {
			continue
		}
		// Every kept entry is the child of the kept entry before it: an entry that followed a
		// dropped label would otherwise point at a parent the new file does not have, and the
		// new session would lose its history (pi#5669). A root stays a root.
		var parent *string
		if len(kept) > 0 {
			id := kept[len(kept)-1].ID
			parent = &id
		}
		if e.Parent() != ptrStr(parent) || (parent == nil) != (e.ParentID == nil) {
			var err error
			if e, err = e.withParent(parent); err != nil {
				return "", fmt.Errorf("store: branched session: %w", err)
			}
		}
		kept = append(kept, e)
		onPath[e.ID] = true
	}
	var labels []*Entry
	for target, l := range s.labels {
		if onPath[target] {
			labels = append(labels, l)
		}
	}
	sort.Slice(labels, func(i, j int) bool { return labels[i].seq < labels[j].seq })

	var parentSession string
	if s.persist {
		parentSession = s.file
	}
	saved := s.state
	if err := s.reset(CreateOptions{ParentSession: parentSession}); err != nil {
		return "", err
	}
	entries := make([]*Entry, 0, len(kept)+len(labels))
	entries = append(entries, kept...)
	var parent *Entry
	if len(kept) > 0 {
		parent = kept[len(kept)-1]
	}
	ts := isoTime(s.now())
	for _, l := range labels {
		e := &Entry{Type: TypeLabel, TargetID: l.TargetID, Label: l.Label, Timestamp: ts}
		e.ID = newEntryID(func(id string) bool { return onPath[id] })
		onPath[e.ID] = true
		if parent != nil {
			p := parent.ID
			e.ParentID = &p
		}
		entries = append(entries, e)
		parent = e
	}
	for _, e := range entries {
		if e.Type == TypeMessage && e.Role() == llm.RoleAssistant {
			s.hasAssistant = true
		}
	}
	switch {
	case s.readOnly:
		s.state = saved
		return "", fmt.Errorf("store: branched session: %w", ErrReadOnly)
	case s.persist && s.hasAssistant:
		// The new file is written at once, under its own lock; the old file's lock is released
		// only when that worked, so a failure leaves the session as it was.
		buf, err := encodeFile(&s.header, entries)
		var l *fileLock
		if err == nil {
			l, err = acquire(s.file)
		}
		if err == nil {
			if err = s.w.create(s.file, buf); err != nil {
				l.release()
			}
		}
		if err != nil {
			s.state = saved
			return "", err
		}
		saved.lock.release()
		s.lock = l
		s.flushed = true
	default:
		s.lock.release() // the new file is taken at its first write
		s.lock = nil
	}
	s.setEntries(entries, nil, nil)
	return s.file, nil
}
