package tool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMutationQueueSerialisesSameFile(t *testing.T) {
	q := NewMutationQueue()
	path := filepath.Join(t.TempDir(), "f")
	var running, maxRunning atomic.Int32
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = q.Do(context.Background(), path, func() error {
				n := running.Add(1)
				if n > maxRunning.Load() {
					maxRunning.Store(n)
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				return nil
			})
		}()
	}
	wg.Wait()
	if maxRunning.Load() != 1 || len(order) != 8 {
		t.Errorf("max concurrent %d, ran %d", maxRunning.Load(), len(order))
	}
	if n := q.pending(); n != 0 {
		t.Errorf("%d keys left after drain", n)
	}
}

func TestMutationQueueFIFO(t *testing.T) {
	q := NewMutationQueue()
	release := make(chan struct{})
	started := make(chan struct{})
	go q.Do(context.Background(), "/x", func() error { close(started); <-release; return nil })
	<-started
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = q.Do(context.Background(), "/x", func() error {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				return nil
			})
		}()
		// Registration order is the call order.
		for q.waiters("/x") != i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	close(release)
	wg.Wait()
	for i, v := range order {
		if v != i {
			t.Fatalf("order %v, want FIFO", order)
		}
	}
}

func TestMutationQueueDifferentFilesInParallel(t *testing.T) {
	q := NewMutationQueue()
	inA := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- q.Do(context.Background(), "/a", func() error {
			close(inA)
			time.Sleep(50 * time.Millisecond)
			return nil
		})
	}()
	<-inA
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := q.Do(ctx, "/b", func() error { return nil }); err != nil {
		t.Errorf("/b waited for /a: %v", err)
	}
	<-done
}

func TestMutationQueueCancelWhileWaiting(t *testing.T) {
	q := NewMutationQueue()
	release := make(chan struct{})
	started := make(chan struct{})
	go q.Do(context.Background(), "/x", func() error { close(started); <-release; return nil })
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- q.Do(ctx, "/x", func() error { t.Error("cancelled waiter ran"); return nil }) }()
	for q.waiters("/x") != 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	ran := make(chan struct{})
	go q.Do(context.Background(), "/x", func() error { close(ran); return nil })
	close(release)
	select {
	case <-ran:
	case <-time.After(time.Second):
		t.Fatal("queue stuck after a cancelled waiter")
	}
}

func TestMutationKeyResolvesSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	writeFiles(t, dir, map[string]string{"real.txt": "x"})
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if MutationKey(link) != MutationKey(real) {
		t.Errorf("link key %q != real key %q", MutationKey(link), MutationKey(real))
	}
	if got := MutationKey(filepath.Join(dir, "new", "..", "missing.txt")); got != filepath.Join(dir, "missing.txt") {
		t.Errorf("missing file key %q", got)
	}
}

// waiters returns the number of callers waiting on key (for tests).
func (q *MutationQueue) waiters(path string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if fq, ok := q.files[MutationKey(path)]; ok {
		return len(fq.waiters)
	}
	return 0
}

// Acquire holds a file's turn outside one call: Do on an alias of the file waits for release,
// and a second release does nothing.
func TestMutationQueueAcquire(t *testing.T) {
	q := NewMutationQueue()
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(dir, "alias")
	if err := os.Symlink(path, alias); err != nil {
		t.Fatal(err)
	}
	release, err := q.Acquire(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var released atomic.Bool
	done := make(chan struct{})
	go func() {
		_ = q.Do(context.Background(), alias, func() error {
			if !released.Load() {
				t.Error("Do ran while the turn was held")
			}
			return nil
		})
		close(done)
	}()
	for q.waiting(path) == 0 {
		time.Sleep(time.Millisecond)
	}
	released.Store(true)
	release()
	release()
	<-done
	if n := q.pending(); n != 0 {
		t.Errorf("%d keys left after drain", n)
	}
}
