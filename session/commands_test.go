package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/atomic-cli/atomic/ext"
)

// Ordered commands of every handle run one at a time in submission order; an interrupt does
// not wait behind them; Close cancels the running one, skips the queued ones and waits.
func TestCommandsLanes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := newStreamRuntime(t, chunkProvider("x"))
		a, b := rt.Commands(context.Background()), rt.Commands(context.Background())
		var mu sync.Mutex
		var order []string
		note := func(s string) {
			mu.Lock()
			order = append(order, s)
			mu.Unlock()
		}
		hold := make(chan struct{})
		if err := a.Submit(Ordered, func(ctx context.Context) { note("a1"); <-hold; note("a1 done") }); err != nil {
			t.Fatal(err)
		}
		b.Submit(Ordered, func(ctx context.Context) { note("b1") })
		a.Submit(Ordered, func(ctx context.Context) { note("a2") })
		synctest.Wait()
		b.Submit(Interrupt, func(ctx context.Context) { note("interrupt") }) // runs now
		jobDone := make(chan struct{})
		b.Submit(Job, func(ctx context.Context) { note("job"); close(jobDone) })
		<-jobDone
		close(hold)
		synctest.Wait()
		if got := strings.Join(order, ","); got != "a1,interrupt,job,a1 done,b1,a2" {
			t.Fatalf("order %s", got)
		}

		blocked := make(chan struct{})
		a.Submit(Ordered, func(ctx context.Context) { close(blocked); <-ctx.Done(); note("cancelled") })
		a.Submit(Ordered, func(ctx context.Context) { note("skipped") })
		<-blocked
		a.Close()
		if got := order[len(order)-1]; got != "cancelled" {
			t.Fatalf("after Close the last command run is %q", got)
		}
		if err := a.Submit(Interrupt, func(context.Context) { note("late") }); !errors.Is(err, ErrCommandsClosed) {
			t.Fatalf("Submit after Close: %v", err)
		}
		if a.Go(func(context.Context) {}) {
			t.Fatal("Go after Close started a goroutine")
		}
		b.Close()
		rt.Shutdown(context.Background())
	})
}

// Two replacements started together run one after the other: the second's session_before_switch
// fires only once the first has shut the old session down and started the new one.
func TestReplacementsDoNotInterleave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var rec []string
		note := func(s string) {
			mu.Lock()
			rec = append(rec, s)
			mu.Unlock()
		}
		gate := make(chan struct{})
		first := true
		obs := func(api ext.API) error {
			ext.On(api, func(_ ext.Context, e *ext.SessionBeforeSwitch) (*ext.CancelResult, error) {
				note("before:" + e.Reason)
				mu.Lock()
				wait := first
				first = false
				mu.Unlock()
				if wait {
					<-gate
				}
				return nil, nil
			})
			ext.On(api, func(_ ext.Context, e *ext.SessionShutdown) (ext.None, error) {
				note("shutdown:" + e.Reason)
				return nil, nil
			})
			ext.On(api, func(_ ext.Context, e *ext.SessionStart) (ext.None, error) {
				note("start:" + e.Reason)
				return nil, nil
			})
			return nil
		}
		rt := newStreamRuntime(t, chunkProvider("x"), obs)
		done := make(chan error, 2)
		replace := func() {
			_, err := rt.NewSession(context.Background(), ext.NewSessionOptions{})
			done <- err
		}
		go replace()
		synctest.Wait() // the first is held in its session_before_switch handler
		go replace()
		synctest.Wait() // the second waits for the first
		close(gate)
		for range 2 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		rt.Session().Runner().Drain()
		mu.Lock()
		got := strings.Join(rec, " ")
		mu.Unlock()
		want := "start:startup before:new shutdown:new start:new before:new shutdown:new start:new"
		if got != want {
			t.Fatalf("lifecycle\n got %s\nwant %s", got, want)
		}
		rt.Shutdown(context.Background())
	})
}

// A replacement waiting for another one gives up when its context ends.
func TestReplacementWaitIsBounded(t *testing.T) {
	rt := newStreamRuntime(t, chunkProvider("x"))
	rt.replacing <- struct{}{} // a replacement in progress
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := rt.NewSession(ctx, ext.NewSessionOptions{})
	<-rt.replacing
	if !errors.Is(err, context.Canceled) {
		t.Fatal(fmt.Sprint("NewSession while another replacement runs: ", err))
	}
}
