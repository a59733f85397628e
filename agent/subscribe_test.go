package agent

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/atomic-cli/atomic/ext"
)

// TestUnsubscribeDuringDelivery: a subscriber may remove itself or another subscriber while an
// event is being delivered, and others may subscribe and unsubscribe from other goroutines
// meanwhile, without a data race (run under -race) or a deadlock; a removed subscriber gets no
// later event, and the others miss none (issue 9 item 9).
func TestUnsubscribeDuringDelivery(t *testing.T) {
	a := New(Config{})
	const events = 200
	var selfCount, keptCount atomic.Int64
	var unsubSelf func()
	var once sync.Once
	ready := make(chan struct{})
	unsubSelf = a.Subscribe(func(ext.Payload) {
		<-ready
		selfCount.Add(1)
		once.Do(func() { unsubSelf() }) // removes itself during its first delivery
	})
	close(ready)
	var victimCount atomic.Int64
	unsubVictim := a.Subscribe(func(ext.Payload) { victimCount.Add(1) })
	a.Subscribe(func(e ext.Payload) {
		if keptCount.Add(1) == 1 {
			unsubVictim() // removes a later subscriber while the event is still being delivered
		}
	})

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // churn: subscribe and unsubscribe concurrently with delivery
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			u := a.Subscribe(func(ext.Payload) {})
			u()
		}
	}()
	for i := 0; i < events; i++ {
		a.Emit(&ext.AgentStart{})
	}
	close(stop)
	wg.Wait()

	if n := selfCount.Load(); n != 1 {
		t.Errorf("the self-removing subscriber got %d events; want 1", n)
	}
	if n := victimCount.Load(); n > 1 {
		t.Errorf("the removed subscriber got %d events; want at most the one being delivered", n)
	}
	if n := keptCount.Load(); n != events {
		t.Errorf("the remaining subscriber got %d events; want %d", n, events)
	}
}
