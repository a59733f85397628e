package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// SessionInfo describes one session file for pickers (session-format.md §10). It marshals like
// pi's SessionInfo (times as RFC 3339).
type SessionInfo struct {
	Path string `json:"path"` // absolute path of the file
	ID   string `json:"id"`   // session id from the header
	Cwd  string `json:"cwd"`  // header cwd, "" when missing
	// Name is the display name by the rule of Session.SessionName, "" when none.
	Name              string    `json:"name,omitempty"`
	ParentSessionPath string    `json:"parentSessionPath,omitempty"` // header parentSession, "" when none
	Created           time.Time `json:"created"`                     // header timestamp
	// Modified is the newest user or assistant message time (message timestamp, else entry
	// timestamp); else the header time; else the file mtime.
	Modified     time.Time `json:"modified"`
	MessageCount int       `json:"messageCount"` // number of message entries
	// FirstMessage is the text of the first user message with text, "(no messages)" when none.
	FirstMessage string `json:"firstMessage"`
	// AllMessagesText is the text of every user and assistant message, space separated.
	AllMessagesText string `json:"allMessagesText"`
	// Version is the header format version (may exceed CurrentVersion; opening then fails).
	Version int `json:"-"`
	// Internal marks an Atomic workflow-owned session, hidden from normal history (§3).
	Internal bool `json:"internal,omitempty"`
	// Summary is a generated resume summary shown in its own picker column (Atomic's
	// SessionInfo.summary); "" when none. List never fills it; an extension's host session
	// picker rows may.
	Summary string `json:"summary,omitempty"`
	// MessageColor is the theme color of the row's text in the picker for synthetic rows
	// (Atomic's messageColor: success, warning, accent or error); "" for the default.
	MessageColor string `json:"messageColor,omitempty"`
}

// List returns the sessions of one directory, newest Modified first (session-format.md §10).
// When sessionDir is not cwd's default directory (a custom flat directory), only sessions whose
// header cwd is cwd are listed. Files that are not sessions are left out; a missing directory
// gives an empty list.
func List(cwd, sessionDir string) ([]SessionInfo, error) {
	cands, err := candidates(sessionDir)
	if err != nil {
		return nil, err
	}
	infos := infosOf(cands)
	if !isDefaultDirFor(sessionDir, cwd) {
		kept := infos[:0]
		for _, in := range infos {
			if sameDir(in.Cwd, cwd) {
				kept = append(kept, in)
			}
		}
		infos = kept
	}
	sortInfos(infos)
	return infos, nil
}

// ListAll returns every session under root, newest Modified first: the .jsonl files directly in
// root (a custom flat directory) and in each of its subdirectories (the per-project folders of
// SessionsRoot). A missing root gives an empty list.
func ListAll(root string) ([]SessionInfo, error) {
	cands, err := allCandidates(root)
	if err != nil {
		return nil, err
	}
	infos := infosOf(cands)
	sortInfos(infos)
	return infos, nil
}

func sortInfos(infos []SessionInfo) {
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].Modified.After(infos[j].Modified) })
}

type candidate struct {
	path  string
	mtime time.Time
}

// candidates lists the regular .jsonl files of dir; a missing dir has none.
func candidates(dir string) ([]candidate, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: list %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("store: list %s: %w", dir, err)
	}
	var out []candidate
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		info, err := de.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		out = append(out, candidate{path: filepath.Join(abs, de.Name()), mtime: info.ModTime()})
	}
	return out, nil
}

// allCandidates lists the session files of root and of its immediate subdirectories.
func allCandidates(root string) ([]candidate, error) {
	out, err := candidates(root)
	if err != nil {
		return nil, err
	}
	des, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: list %s: %w", root, err)
	}
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		sub, err := candidates(filepath.Join(root, de.Name()))
		if err != nil {
			continue // an unreadable project folder must not hide the others
		}
		out = append(out, sub...)
	}
	return out, nil
}

// infosOf reads the files in parallel (bounded by GOMAXPROCS) and keeps the valid ones, in the
// order of cands.
func infosOf(cands []candidate) []SessionInfo {
	res := make([]*SessionInfo, len(cands))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, c := range cands {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if in, err := readInfo(c); err == nil {
				res[i] = in
			}
		}()
	}
	wg.Wait()
	out := make([]SessionInfo, 0, len(cands))
	for _, in := range res {
		if in != nil {
			out = append(out, *in)
		}
	}
	return out
}

// readInfo builds the SessionInfo of one file.
func readInfo(c candidate) (*SessionInfo, error) {
	data, err := os.ReadFile(c.path)
	if err != nil {
		return nil, err
	}
	fd, err := parseSession(data, false)
	if err != nil {
		return nil, err
	}
	if fd.blank {
		return nil, ErrNotSession
	}
	h := &fd.header
	in := &SessionInfo{Path: c.path, ID: h.ID, Cwd: h.Cwd, ParentSessionPath: h.ParentSession,
		Name: nameOf(fd.entries), Version: h.Version}
	_, in.Internal = h.Internal()
	created, createdOK := parseISO(h.Timestamp)
	in.Created = created
	var texts []string
	var last int64
	for _, e := range fd.entries {
		if e.Type != TypeMessage || e.opaque {
			continue
		}
		in.MessageCount++
		role, text, ts, hasTS, hasContent := messageSummary(e.msgRaw)
		if role != llm.RoleUser && role != llm.RoleAssistant || !hasContent {
			continue
		}
		if !hasTS {
			ts = isoMillis(e.Timestamp)
		}
		last = max(last, ts)
		if text == "" {
			continue
		}
		texts = append(texts, text)
		if in.FirstMessage == "" && role == llm.RoleUser {
			in.FirstMessage = text
		}
	}
	if in.FirstMessage == "" {
		in.FirstMessage = "(no messages)"
	}
	in.AllMessagesText = joinSpace(texts)
	switch {
	case last > 0:
		in.Modified = time.UnixMilli(last)
	case createdOK:
		in.Modified = created
	default:
		in.Modified = c.mtime
	}
	return in, nil
}

// readHeader reads the header of a session file without reading the rest: the first line that
// is a JSON object must be a header.
func readHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && !isBlank(trimNL(line)) {
			var h Header
			fields, ok := parseObject(line, nil)
			if ok {
				if derr := h.decode(fields); derr != nil {
					return Header{}, ErrNotSession
				}
				return h, nil
			}
		}
		if err == io.EOF {
			return Header{}, ErrNotSession
		}
		if err != nil {
			return Header{}, err
		}
	}
}

func trimNL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

// sameDir compares two directory paths after cleaning them.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if aa, err := filepath.Abs(a); err == nil {
		a = aa
	}
	if bb, err := filepath.Abs(b); err == nil {
		b = bb
	}
	return a == b
}

// Match is a session found by FindSession.
type Match struct {
	// Path is the absolute session file path. For a path argument the file may not exist yet
	// (Open then starts a new session there).
	Path string
	// ID and Cwd come from the header of a session found by id ("" for a path argument).
	ID  string // session id
	Cwd string // header cwd
	// OtherProject is set when the session was found outside the current project, so the CLI can
	// offer to fork it into the current directory (session-format.md §11).
	OtherProject bool
}

// FindSession resolves the argument of --session / --resume (session-format.md §11). An argument
// containing / or \ or ending in .jsonl is a path, resolved against cwd. Anything else is a
// session id or id prefix, searched first among the current project's sessions (sessionDir; in a
// custom flat directory the sessions whose header cwd is cwd), then among all projects (the
// parent of sessionDir when it is cwd's default directory, else every session of the flat
// directory). In each scope an exact id wins over prefixes; a prefix matching several sessions
// fails with ErrAmbiguous naming them. Nothing found fails with ErrNoSession.
func FindSession(cwd, sessionDir, idOrPath string) (Match, error) {
	arg := strings.TrimSpace(idOrPath)
	if arg == "" {
		return Match{}, fmt.Errorf("store: %w: empty session id", ErrNoSession)
	}
	if strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") {
		p := arg
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return Match{Path: filepath.Clean(p)}, nil
	}
	type hdr struct {
		path string
		h    Header
	}
	headersOf := func(cands []candidate, seen map[string]bool) []hdr {
		var out []hdr
		for _, c := range cands {
			if seen[c.path] {
				continue
			}
			seen[c.path] = true
			if h, err := readHeader(c.path); err == nil {
				out = append(out, hdr{c.path, h})
			}
		}
		return out
	}
	pick := func(hs []hdr, other bool) (Match, bool, error) {
		var prefix []hdr
		for _, x := range hs {
			if x.h.ID == arg {
				return Match{Path: x.path, ID: x.h.ID, Cwd: x.h.Cwd, OtherProject: other}, true, nil
			}
			if strings.HasPrefix(x.h.ID, arg) {
				prefix = append(prefix, x)
			}
		}
		switch len(prefix) {
		case 0:
			return Match{}, false, nil
		case 1:
			x := prefix[0]
			return Match{Path: x.path, ID: x.h.ID, Cwd: x.h.Cwd, OtherProject: other}, true, nil
		}
		ids := make([]string, len(prefix))
		for i, x := range prefix {
			ids[i] = x.h.ID
		}
		sort.Strings(ids)
		return Match{}, false, fmt.Errorf("store: %w %q matches %d sessions (%s); give more characters",
			ErrAmbiguous, arg, len(ids), strings.Join(ids, ", "))
	}

	seen := map[string]bool{}
	flat := !isDefaultDirFor(sessionDir, cwd)
	local, err := candidates(sessionDir)
	if err != nil {
		return Match{}, err
	}
	var mine, others []hdr
	for _, x := range headersOf(local, seen) {
		if flat && !sameDir(x.h.Cwd, cwd) {
			others = append(others, x)
			continue
		}
		mine = append(mine, x)
	}
	if m, ok, err := pick(mine, false); ok || err != nil {
		return m, err
	}
	if !flat {
		all, err := allCandidates(filepath.Dir(filepath.Clean(sessionDir)))
		if err != nil {
			return Match{}, err
		}
		others = append(others, headersOf(all, seen)...)
	}
	if m, ok, err := pick(others, true); ok || err != nil {
		return m, err
	}
	return Match{}, fmt.Errorf("store: %w with id %q in %s or any other project", ErrNoSession, arg, sessionDir)
}
