package tool

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// ignoreFrame is one .gitignore in force for a directory, linked to the frames of the directories
// above it. It is used to build the rules in force at a walk's root.
type ignoreFrame struct {
	dir    string // directory the patterns are relative to (OS path)
	rules  *ignoreFile
	parent *ignoreFrame
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
	rules := loadIgnore(file)
	if rules == nil {
		return parent
	}
	return &ignoreFrame{dir: dir, rules: rules, parent: parent}
}

// maxIgnoreBytes bounds how much of one .gitignore is read.
const maxIgnoreBytes = 4 << 20

// loadIgnore reads and compiles one ignore file; nil when it is missing, unreadable, too big or
// holds no rule.
func loadIgnore(file string) *ignoreFile {
	data, err := readRegular(file, maxIgnoreBytes)
	if err != nil {
		return nil
	}
	return parseIgnore(data)
}

// isRepoRoot reports whether dir holds a ".git" directory or file (worktree, submodule).
func isRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// repoFrame starts a fresh chain for the repository rooted at dir: .git/info/exclude, then
// dir/.gitignore (when hasIgnore).
func repoFrame(dir string, hasIgnore bool) *ignoreFrame {
	f := pushIgnore(nil, dir, filepath.Join(dir, ".git", "info", "exclude"))
	if !hasIgnore {
		return f
	}
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
			f := repoFrame(dir, true)
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

// frameRef is one ignore file in force inside a directory of a walk: the directory's path
// relative to the file's directory ("" or ending in "/") and how many elements that is.
type frameRef struct {
	rules  *ignoreFile
	prefix string
	depth  int
}

// ignoreScope is the ignore files in force inside one directory, deepest first: the deepest file
// with a matching pattern decides, within a file the last matching pattern (git's precedence).
type ignoreScope []frameRef

// ignored decides the entry name of the directory the scope belongs to.
func (sc ignoreScope) ignored(name string, isDir bool) bool {
	for i := range sc {
		r := &sc[i]
		if ign, matched := r.rules.matchIn(r.prefix, r.depth, name, isDir); matched {
			return ign
		}
	}
	return false
}

// child returns the scope of the subdirectory name before its own ignore files are known:
// every file in force here, seen one level deeper.
func (sc ignoreScope) child(name string) ignoreScope {
	out := make(ignoreScope, len(sc))
	for i, r := range sc {
		out[i] = frameRef{rules: r.rules, prefix: r.prefix + name + "/", depth: r.depth + 1}
	}
	return out
}

// enter puts the directory's own ignore files (own, its chain; may be nil) in front of sc; a
// repository root (repo) starts afresh with only its own.
func (sc ignoreScope) enter(own *ignoreFrame, repo bool) ignoreScope {
	var out ignoreScope
	for f := own; f != nil; f = f.parent {
		out = append(out, frameRef{rules: f.rules})
	}
	if repo {
		return out
	}
	return append(out, sc...)
}

// scopeAt converts the chain in force at root into a scope.
func scopeAt(root string, f *ignoreFrame) ignoreScope {
	var out ignoreScope
	for ; f != nil; f = f.parent {
		prefix, depth := "", 0
		if rel, ok := relUnder(f.dir, root); ok {
			prefix, depth = rel+"/", strings.Count(rel, "/")+1
		}
		out = append(out, frameRef{rules: f.rules, prefix: prefix, depth: depth})
	}
	return out
}

// The ordered walk: worker goroutines read directories (and, for grep, search files) in
// parallel, taking tasks from a stack so that they move through the tree in depth-first order;
// the caller visits the result in sorted path order, waiting for each directory and file as it
// reaches it, and may stop at any point (a result limit), which stops the workers.

// walkDir is one directory of an ordered walk.
type walkDir struct {
	abs     string
	rel     string // "/"-separated, relative to the walk root; "" for the root
	scope   ignoreScope
	done    chan struct{} // closed once entries and err are set
	entries []walkEntry   // sorted by path, ignored entries left out
	err     error
	// fd is the directory kept open while its file jobs run, so that they open their files
	// relative to it (openat: the kernel resolves one name instead of the whole path); -1 when
	// closed or never kept. jobs counts the file jobs not yet finished; the last one closes fd.
	fd   int
	jobs atomic.Int32
}

// releaseJob notes that one file job of d finished (or will never run) and closes d's descriptor
// after the last one.
func (w *orderedWalk) releaseJob(d *walkDir) {
	if d != nil && d.fd >= 0 && d.jobs.Add(-1) == 0 {
		closeDirFD(d.fd)
		w.openDirs.Add(-1)
	}
}

// maxOpenDirs bounds how many directory descriptors one walk keeps open for its file jobs; past
// it, files are opened by their whole path.
const maxOpenDirs = 128

// walkEntry is one entry of a walked directory.
type walkEntry struct {
	name string
	rel  string
	key  string // sort key: name, with "/" appended for a directory
	typ  fs.FileMode
	dir  *walkDir // a directory to descend into
	// search is set by the entry hook for a file to search (grep); the walk then gives it job.
	search bool
	job    *fileJob
	hit    bool // find: the entry matches the pattern
}

// fileJob is the search of one file by a worker.
type fileJob struct {
	display string
	// dir is the directory holding the file, set by the walk, and name the file's name in it.
	dir  *walkDir
	name string
	// finished is set once a worker ran the job (or skipped it, the walk being cancelled).
	finished atomic.Bool
	hits     []grepHit
	found    *searchFile // search's result for the file
	tooBig   bool
}

// path returns the file's path.
func (j *fileJob) path() string { return joinName(j.dir.abs, j.name) }

// read reads the job's file for a search (readSearchable, probe included), relative to its
// directory's open descriptor when the walk kept one.
func (j *fileJob) read(scratch *[]byte, limit int64, probe func(lines []byte) bool) (data []byte, tooBig, ok bool) {
	if j.dir.fd >= 0 {
		return readSearchable(j.dir.fd, j.name, "", scratch, limit, probe)
	}
	return readSearchable(-1, "", j.path(), scratch, limit, probe)
}

// walkHooks customise an ordered walk. Both run in worker goroutines.
type walkHooks struct {
	// entry inspects a kept entry once its directory is read (find matches it, grep decides to
	// search it by setting e.search).
	entry func(e *walkEntry)
	// search runs a file job; scratch is the worker's reusable buffer.
	search func(j *fileJob, scratch *[]byte)
	// noIgnore walks without the .gitignore rules (search's gitignore=false); ".git" and
	// "node_modules" are still pruned.
	noIgnore bool
}

// walkTask is one unit of work: read a directory or search a file.
type walkTask struct {
	dir *walkDir
	job *fileJob
}

// orderedWalk is the state of one walk shared by the workers and the visiting caller.
type orderedWalk struct {
	ctx   context.Context
	hooks walkHooks
	root  string
	mu    sync.Mutex
	cond  sync.Cond
	stack []walkTask // guarded by mu
	stop  bool       // guarded by mu
	wg    sync.WaitGroup
	// workers is the number of worker goroutines.
	workers int
	// openDirs counts the directory descriptors kept open for file jobs.
	openDirs atomic.Int32
	// waiting is the file job the visitor waits for, if any; the worker finishing it sends on
	// wake (buffered, one token). A job finishing while the visitor is not waiting for it wakes
	// nobody: the visitor, faster than the workers, would otherwise be woken for every file.
	waiting atomic.Pointer[fileJob]
	wake    chan struct{}
}

// startWalk starts the workers of an ordered walk of root; the caller visits with visit and must
// call finish.
func startWalk(ctx context.Context, root string, hooks walkHooks) (*orderedWalk, *walkDir) {
	root = filepath.Clean(root)
	w := &orderedWalk{ctx: ctx, hooks: hooks, root: root, wake: make(chan struct{}, 1)}
	w.cond.L = &w.mu
	rd := &walkDir{abs: root, done: make(chan struct{}), fd: -1}
	if !hooks.noIgnore {
		rd.scope = scopeAt(root, rootFrames(root))
	}
	w.stack = append(w.stack, walkTask{dir: rd})
	n := max(runtime.GOMAXPROCS(0), 2)
	w.workers = n
	w.wg.Add(n)
	for range n {
		go w.worker()
	}
	return w, rd
}

// finish stops the workers and waits for them.
func (w *orderedWalk) finish() {
	w.mu.Lock()
	w.stop = true
	for _, t := range w.stack {
		if t.job != nil {
			w.releaseJob(t.job.dir)
		}
	}
	w.stack = nil
	w.mu.Unlock()
	w.cond.Broadcast()
	w.wg.Wait()
}

func (w *orderedWalk) worker() {
	defer w.wg.Done()
	var scratch []byte
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && !w.stop {
			w.cond.Wait()
		}
		if w.stop {
			w.mu.Unlock()
			return
		}
		t := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()
		switch {
		case t.dir != nil:
			w.readDir(t.dir, &scratch)
		case t.job != nil:
			if w.ctx.Err() == nil {
				w.hooks.search(t.job, &scratch)
			}
			w.releaseJob(t.job.dir)
			t.job.finished.Store(true)
			if w.waiting.Load() == t.job {
				select {
				case w.wake <- struct{}{}:
				default: // a wake-up is pending already
				}
			}
		}
	}
}

// readDir lists d, drops the pruned and ignored entries, sorts the rest and queues their tasks,
// first entry on top.
func (w *orderedWalk) readDir(d *walkDir, scratch *[]byte) {
	defer close(d.done)
	if w.ctx.Err() != nil {
		d.err = w.ctx.Err()
		return
	}
	keep := w.hooks.search != nil && w.openDirs.Load() < maxOpenDirs
	list, fd, err := readDirEntries(d.abs, scratch, keep)
	if err != nil {
		d.err = err
		return
	}
	if d.rel != "" && !w.hooks.noIgnore {
		repo, hasIgnore := false, false
		for _, e := range list {
			switch e.name {
			case ".git":
				repo = true
			case ".gitignore":
				hasIgnore = e.typ.IsRegular() || e.typ&fs.ModeSymlink != 0
			}
		}
		var own *ignoreFrame
		switch {
		case repo:
			own = repoFrame(d.abs, hasIgnore)
		case hasIgnore:
			own = pushIgnore(nil, d.abs, filepath.Join(d.abs, ".gitignore"))
		}
		if own != nil || repo {
			d.scope = d.scope.enter(own, repo)
		}
	}
	kept := list[:0]
	for _, e := range list {
		isDir := e.typ.IsDir()
		if e.name == ".git" || (isDir && e.name == "node_modules") || d.scope.ignored(e.name, isDir) {
			continue
		}
		kept = append(kept, e)
	}
	// Every kept entry's rel and sort key are substrings of one string per directory:
	// "<d.rel>/<name>/" per entry, rel without the final "/", a directory's key its name with it.
	size := 0
	for i := range kept {
		size += len(d.rel) + len(kept[i].name) + 2
	}
	var sb strings.Builder
	sb.Grow(size)
	for i := range kept {
		if d.rel != "" {
			sb.WriteString(d.rel)
			sb.WriteByte('/')
		}
		sb.WriteString(kept[i].name)
		sb.WriteByte('/')
	}
	paths := sb.String()
	jobs := 0
	for i, off := 0, 0; i < len(kept); i++ {
		e := &kept[i]
		start := off
		if d.rel != "" {
			off += len(d.rel) + 1
		}
		nameAt := off
		off += len(e.name) + 1
		e.rel = paths[start : off-1]
		e.key = e.name
		if e.typ.IsDir() {
			e.key = paths[nameAt:off]
			e.dir = &walkDir{abs: joinName(d.abs, e.name), rel: e.rel, scope: d.scope.child(e.name), done: make(chan struct{}), fd: -1}
		}
		if w.hooks.entry != nil {
			w.hooks.entry(e)
		}
		if e.search {
			jobs++
		}
	}
	if jobs > 0 {
		batch := make([]fileJob, jobs) // one allocation for the directory's file jobs
		for i := range kept {
			if e := &kept[i]; e.search {
				j := &batch[0]
				batch = batch[1:]
				j.display, j.dir, j.name = e.rel, d, e.name
				e.job = j
			}
		}
	}
	if jobs > 0 && fd >= 0 {
		d.fd = fd
		d.jobs.Store(int32(jobs))
		w.openDirs.Add(1)
	} else {
		closeDirFD(fd)
	}
	slices.SortFunc(kept, func(a, b walkEntry) int { return strings.Compare(a.key, b.key) })
	d.entries = kept
	w.mu.Lock()
	if !w.stop {
		pushed := 0
		for i := len(kept) - 1; i >= 0; i-- {
			switch e := &kept[i]; {
			case e.dir != nil:
				w.stack = append(w.stack, walkTask{dir: e.dir})
				pushed++
			case e.job != nil:
				w.stack = append(w.stack, walkTask{job: e.job})
				pushed++
			}
		}
		for range min(pushed, w.workers) {
			w.cond.Signal() // wake only as many idle workers as can take the new tasks
		}
	} else {
		for i := range kept {
			if e := &kept[i]; e.job != nil {
				w.releaseJob(e.job.dir) // never runs
			}
		}
	}
	w.mu.Unlock()
}

// joinName returns the path of the entry name (one element, as a directory listing gives it) of
// the clean directory path dir: filepath.Join without its Clean.
func joinName(dir, name string) string {
	if dir != "" && os.IsPathSeparator(dir[len(dir)-1]) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// errStopWalk ends a visit early.
var errStopWalk = errors.New("tool: walk stopped")

// visit calls fn for every entry below d in sorted path order (a directory before its
// contents), waiting for each directory to be read. fn returning errStopWalk ends the visit
// without error. A directory below the root that cannot be read is skipped; the root's error is
// returned.
func (w *orderedWalk) visit(d *walkDir, fn func(e *walkEntry) error) error {
	err := w.visitDir(d, fn, true)
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

func (w *orderedWalk) visitDir(d *walkDir, fn func(e *walkEntry) error, isRoot bool) error {
	select {
	case <-d.done:
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	if d.err != nil {
		if cerr := w.ctx.Err(); cerr != nil {
			return cerr
		}
		if isRoot {
			return d.err
		}
		return nil
	}
	for i := range d.entries {
		e := &d.entries[i]
		if err := fn(e); err != nil {
			return err
		}
		if e.dir != nil {
			if err := w.visitDir(e.dir, fn, false); err != nil {
				return err
			}
		}
	}
	d.entries = nil
	return nil
}

// waitJob waits for a file job; false when ctx ended first. Only the visitor calls it.
func (w *orderedWalk) waitJob(j *fileJob) bool {
	for !j.finished.Load() {
		// Publish the wait, then look again: a worker stores finished before it loads waiting,
		// so either it sees this job there or this load sees the job finished.
		w.waiting.Store(j)
		if j.finished.Load() {
			break
		}
		select {
		case <-w.wake: // maybe for an earlier job: look again
		case <-w.ctx.Done():
			w.waiting.Store(nil)
			return false
		}
	}
	w.waiting.Store(nil)
	return w.ctx.Err() == nil
}

// walkLocal implements LocalFS.Walk (see Walker for the contract); entries come in sorted path
// order.
func walkLocal(ctx context.Context, root string, fn WalkFunc) error {
	w, rd := startWalk(ctx, root, walkHooks{})
	defer w.finish()
	return w.visit(rd, func(e *walkEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(e.rel, e.typ); err != nil {
			if errors.Is(err, fs.SkipAll) {
				return errStopWalk
			}
			return err
		}
		return nil
	})
}
