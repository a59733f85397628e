package session

import (
	"context"
	"sync"
)

// inflight counts background turns started by extensions. Unlike a WaitGroup, add may race with
// wait: a waiter sees the count at each check.
type inflight struct {
	mu sync.Mutex // guards n, ch
	n  int
	ch chan struct{} // closed when n drops to 0; nil while n is 0
}

func (f *inflight) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.ch = make(chan struct{})
	}
	f.n++
}

func (f *inflight) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 {
		close(f.ch)
		f.ch = nil
	}
}

func (f *inflight) idle() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n == 0
}

// wait blocks until the count is 0 or ctx ends.
func (f *inflight) wait(ctx context.Context) error {
	for {
		f.mu.Lock()
		ch := f.ch
		f.mu.Unlock()
		if ch == nil {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
