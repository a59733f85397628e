package rpc

import (
	"fmt"
	"math/rand"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
)

// settledGoroutines waits until at most want goroutines run (GC and timers settle), returning
// the last count.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > want; i++ {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestSoakInterleavedPromptAbortState sends 1,000 interleaved prompt, abort and get_state
// commands (plus a new_session every 100, so the conversation — which every request carries —
// stays bounded) against the fake LLM: every command is answered exactly once, no goroutine
// outlives the server, and the heap stays flat. The heap is measured after each new_session
// from command 200 on; what still grows (about 60 KB per 100 commands) is the fake server's
// request log and the test's response counts, so the bound is 2 MiB over 800 commands.
func TestSoakInterleavedPromptAbortState(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	before := settledGoroutines(0)
	turns := make([]fakellm.Turn, 3000)
	for i := range turns {
		turns[i] = fakellm.Turn{Text: "streaming a few words back", Chunks: 5, DelayMS: 3}
	}
	h := newHarness(t, fakellm.Script{Turns: turns}, harnessOptions{tools: []string{}, lean: "keep-"})
	rng := rand.New(rand.NewSource(1))
	var ids []string
	counts := map[string]int{}
	var heaps []uint64
	for i := 0; i < 1000; i++ {
		if i%100 == 0 {
			id := fmt.Sprintf("keep-new-%d", i)
			h.ok(id, map[string]any{"type": "new_session"})
			ids = append(ids, id)
			if i >= 200 {
				heaps = append(heaps, heapAfterGC())
			}
		}
		id := fmt.Sprintf("c%d", i)
		ids = append(ids, id)
		var typ string
		switch r := rng.Intn(10); {
		case r < 4:
			typ = "prompt"
			h.send(`{"id":"` + id + `","type":"prompt","message":"soak ` + id + `"}`)
		case r < 7:
			typ = "abort"
			h.send(`{"id":"` + id + `","type":"abort"}`)
		default:
			typ = "get_state"
			h.send(`{"id":"` + id + `","type":"get_state"}`)
		}
		counts[typ]++
		if rng.Intn(4) == 0 {
			time.Sleep(time.Duration(rng.Intn(8)) * time.Millisecond)
		}
	}
	h.ok("keep-final", map[string]any{"type": "abort"})
	ids = append(ids, "keep-final")
	if code := h.close(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	h.srv.Close()
	missing, doubled := 0, 0
	h.out.mu.Lock()
	seen := h.out.counts
	h.out.mu.Unlock()
	for _, id := range ids {
		switch seen[id] {
		case 1:
		case 0:
			missing++
		default:
			doubled++
		}
	}
	if missing > 0 || doubled > 0 || len(seen) != len(ids) {
		t.Fatalf("%d commands unanswered, %d answered more than once, %d distinct ids answered of %d", missing, doubled, len(seen), len(ids))
	}
	if len(h.out.bad) > 0 {
		t.Fatalf("%d output lines are not JSON", len(h.out.bad))
	}
	t.Logf("commands: %v; model requests: %d", counts, len(h.srv.Requests()))

	if after := settledGoroutines(before); after > before {
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Fatalf("goroutines: %d before, %d after\n%s", before, after, b.String())
	}
	first, last := heaps[0], heaps[len(heaps)-1]
	t.Logf("heap after GC at each new_session from command 200: %v", heaps)
	if last > first+2<<20 {
		t.Fatalf("heap grew from %d to %d bytes over 800 commands", first, last)
	}
}
