package tui

import (
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The pump hands a burst over as one batch at once, holds events that come sooner than a frame
// (less the slack) after the last batch until then and hands them over together, and hands an
// event that comes later over at once.
func TestPumpBatchesByFrame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue()
		type batch struct {
			items []any
			at    time.Duration
		}
		start := time.Now()
		got := make(chan batch, 16)
		done := make(chan struct{})
		go q.pump(func(msg tea.Msg) { got <- batch{msg.(eventsMsg), time.Since(start)} }, done)
		expect := func(at time.Duration, items ...any) {
			t.Helper()
			synctest.Wait()
			select {
			case b := <-got:
				if b.at != at || len(b.items) != len(items) {
					t.Fatalf("batch %v at %s, want %v at %s", b.items, b.at, items, at)
				}
				for i := range items {
					if b.items[i] != items[i] {
						t.Fatalf("batch %v, want %v", b.items, items)
					}
				}
			default:
				t.Fatalf("no batch by %s, want %v", time.Since(start), items)
			}
		}
		gap := frameInterval - frameSlack

		q.push(1)
		q.push(2)
		expect(0, 1, 2) // a burst: one batch, at once

		time.Sleep(5 * time.Millisecond)
		q.push(3)
		synctest.Wait()
		if len(got) != 0 {
			t.Fatal("an event 5ms after a batch was handed over before the frame gap")
		}
		time.Sleep(10 * time.Millisecond)
		q.push(4)
		time.Sleep(gap - 15*time.Millisecond)
		expect(gap, 3, 4) // held, then together

		time.Sleep(frameInterval)
		q.push(5)
		expect(gap+frameInterval, 5) // after a longer pause: at once

		close(done)
		synctest.Wait()
		q.push(6)
		synctest.Wait()
		if len(got) != 0 {
			t.Error("the pump handed events over after done")
		}
	})
}
