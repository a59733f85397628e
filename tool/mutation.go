package tool

import (
	"context"
	"path/filepath"
	"sync"
)

// MutationQueue serialises mutations of the same file while letting different files proceed in
// parallel (tools.md §1, file mutation queue). Callers of one file run in FIFO order of their Do
// calls; a file's entry is removed once its queue drains. The zero value is not usable; use
// NewMutationQueue. Safe for concurrent use.
type MutationQueue struct {
	mu    sync.Mutex
	files map[string]*fileQueue // owned by mu
}

// fileQueue is the state of one key: a holder is running, waiters are in arrival order.
type fileQueue struct {
	waiters []chan struct{} // owned by MutationQueue.mu; closed to hand the turn over
}

// NewMutationQueue returns an empty queue.
func NewMutationQueue() *MutationQueue {
	return &MutationQueue{files: make(map[string]*fileQueue)}
}

// DefaultMutationQueue is the queue edit and write share when their options name none.
var DefaultMutationQueue = NewMutationQueue()

// MutationKey returns the key Do uses for path: the real path (symbolic links resolved) of the
// cleaned absolute path; for a file that does not exist yet, its resolved directory joined with
// its name, or else the cleaned path itself.
func MutationKey(path string) string {
	clean := filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(clean); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(clean)); err == nil {
		return filepath.Join(dir, filepath.Base(clean))
	}
	return clean
}

// Do waits for path's turn, runs fn and passes the turn on. path should be absolute. If ctx is
// done while waiting, Do leaves the queue without running fn and returns context.Cause(ctx); fn
// itself is responsible for honouring ctx once it runs. Do returns fn's error.
func (q *MutationQueue) Do(ctx context.Context, path string, fn func() error) error {
	key := MutationKey(path)
	if err := q.acquire(ctx, key); err != nil {
		return err
	}
	defer q.release(key)
	return fn()
}

// Acquire waits for path's turn like Do and returns the function that passes the turn on, for
// a holder that runs outside one Go call (an extension host's withFileMutationQueue). release
// must be called exactly once; later calls do nothing. If ctx is done while waiting, Acquire
// returns context.Cause(ctx) and holds nothing.
func (q *MutationQueue) Acquire(ctx context.Context, path string) (release func(), err error) {
	key := MutationKey(path)
	if err := q.acquire(ctx, key); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { q.release(key) }) }, nil
}

func (q *MutationQueue) acquire(ctx context.Context, key string) error {
	q.mu.Lock()
	fq, busy := q.files[key]
	if !busy {
		q.files[key] = &fileQueue{}
		q.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	fq.waiters = append(fq.waiters, turn)
	q.mu.Unlock()

	select {
	case <-turn:
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	for i, w := range fq.waiters {
		if w == turn {
			fq.waiters = append(fq.waiters[:i], fq.waiters[i+1:]...)
			q.mu.Unlock()
			return context.Cause(ctx)
		}
	}
	q.mu.Unlock()
	// The turn was handed to us while ctx ended: pass it on.
	q.release(key)
	return context.Cause(ctx)
}

func (q *MutationQueue) release(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	fq := q.files[key]
	if len(fq.waiters) == 0 {
		delete(q.files, key)
		return
	}
	next := fq.waiters[0]
	fq.waiters = fq.waiters[1:]
	close(next)
}

// pending returns the number of keys with a running or waiting mutation (for tests).
func (q *MutationQueue) pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.files)
}

// waiting returns the number of callers waiting for path's turn (for tests).
func (q *MutationQueue) waiting(path string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if fq := q.files[MutationKey(path)]; fq != nil {
		return len(fq.waiters)
	}
	return 0
}
