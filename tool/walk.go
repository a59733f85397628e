package tool

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/charlievieth/fastwalk"
)

// ignoreFrame is one .gitignore in force for a directory, linked to the frames of the directories
// above it. Frames are immutable once built and shared by every directory below them.
type ignoreFrame struct {
	dir    string // directory the patterns are relative to (OS path)
	rules  *ignoreFile
	parent *ignoreFrame
}

// ignored applies git's precedence: the deepest file with a matching pattern decides, within a
// file the last matching pattern.
func (f *ignoreFrame) ignored(p string, isDir bool) bool {
	for fr := f; fr != nil; fr = fr.parent {
		rel, ok := relUnder(fr.dir, p)
		if !ok {
			continue
		}
		if ign, matched := fr.rules.match(rel, isDir); matched {
			return ign
		}
	}
	return false
}

// relUnder returns p relative to dir with "/" separators, when p lies below dir.
func relUnder(dir, p string) (string, bool) {
	if len(p) <= len(dir) || !strings.HasPrefix(p, dir) {
		return "", false
	}
	rest := p[len(dir):]
	if !os.IsPathSeparator(dir[len(dir)-1]) {
		if !os.IsPathSeparator(rest[0]) {
			return "", false
		}
		rest = rest[1:]
	}
	if rest == "" {
		return "", false
	}
	return filepath.ToSlash(rest), true
}

// pushIgnore returns parent extended with the rules of file, or parent when file holds none.
func pushIgnore(parent *ignoreFrame, dir, file string) *ignoreFrame {
	data, err := os.ReadFile(file)
	if err != nil {
		return parent
	}
	rules := parseIgnore(data)
	if rules == nil {
		return parent
	}
	return &ignoreFrame{dir: dir, rules: rules, parent: parent}
}

// isRepoRoot reports whether dir holds a ".git" directory or file (worktree, submodule).
func isRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// repoFrame starts a fresh chain for the repository rooted at dir: .git/info/exclude, then
// dir/.gitignore.
func repoFrame(dir string) *ignoreFrame {
	f := pushIgnore(nil, dir, filepath.Join(dir, ".git", "info", "exclude"))
	return pushIgnore(f, dir, filepath.Join(dir, ".gitignore"))
}

// rootFrames builds the chain in force at the walk root: when root lies inside a git repository,
// the repository's exclude file and every .gitignore from the repository root down to root;
// otherwise root's own .gitignore.
func rootFrames(root string) *ignoreFrame {
	var chain []string // root first, up to the repository root
	for dir := root; ; {
		chain = append(chain, dir)
		if isRepoRoot(dir) {
			f := repoFrame(dir)
			for i := len(chain) - 2; i >= 0; i-- {
				f = pushIgnore(f, chain[i], filepath.Join(chain[i], ".gitignore"))
			}
			return f
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return pushIgnore(nil, root, filepath.Join(root, ".gitignore"))
		}
		dir = parent
	}
}

// errStopWalk ends a fastwalk early once the caller has asked to stop.
var errStopWalk = errors.New("tool: walk stopped")

// walkLocal implements LocalFS.Walk (see Walker for the contract).
func walkLocal(ctx context.Context, root string, fn WalkFunc) error {
	root = filepath.Clean(root)
	var (
		frames sync.Map // directory path -> *ignoreFrame; written before the directory is read
		mu     sync.Mutex
		// stopped and fn are owned by mu.
		stopped bool
	)
	frames.Store(root, rootFrames(root))
	conf := fastwalk.Config{Follow: false}
	err := fastwalk.Walk(&conf, root, func(p string, d fs.DirEntry, err error) error {
		if p == root {
			return err
		}
		if err != nil {
			return nil // unreadable directory below root: skip it
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		isDir := d.IsDir()
		name := d.Name()
		if name == ".git" || (isDir && name == "node_modules") {
			if isDir {
				return filepath.SkipDir
			}
			return nil
		}
		parent, _ := frames.Load(filepath.Dir(p))
		pf, _ := parent.(*ignoreFrame)
		if pf.ignored(p, isDir) {
			if isDir {
				return filepath.SkipDir
			}
			return nil
		}
		if isDir {
			f := pf
			if isRepoRoot(p) {
				f = repoFrame(p)
			} else {
				f = pushIgnore(f, p, filepath.Join(p, ".gitignore"))
			}
			frames.Store(p, f)
		}
		rel, _ := relUnder(root, p)
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return errStopWalk
		}
		if err := fn(rel, d.Type()); err != nil {
			stopped = true
			if errors.Is(err, fs.SkipAll) {
				return errStopWalk
			}
			return err
		}
		return nil
	})
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}
