package session

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/atomic-cli/atomic/compact"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// TestNotIdleWhileCompacting (issue 10 item 16): while a manual compaction waits for its planner,
// ctx.isIdle() is false, and a prompt sent then waits: it reaches the model after the compaction,
// on the compacted context, never beside the planner request.
func TestNotIdleWhileCompacting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var log []string // one line per model request: "planner" or the last user text
		var lastBody []string
		plannerIn := make(chan struct{})
		release := make(chan struct{})
		provider := llm.ProviderFunc(func(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
			last := req.Messages[len(req.Messages)-1]
			text := llm.TextOf(last.Content, "")
			answer := "ok"
			if strings.Contains(text, "<transcript>") {
				mu.Lock()
				log = append(log, "planner")
				mu.Unlock()
				close(plannerIn)
				<-release
				answer = "1-2"
			} else {
				var all []string
				for _, m := range req.Messages {
					all = append(all, llm.TextOf(m.Content, ""))
				}
				mu.Lock()
				log = append(log, text)
				lastBody = all
				mu.Unlock()
			}
			b := llm.NewBuilder(req.Model, emit)
			b.AppendText(b.StartText(), answer)
			return b.Finish(llm.StopStop, req.Model)
		})
		st := store.InMemory(t.TempDir())
		s, err := New(Options{Store: st, Model: &llm.Model{ID: "m", Provider: "p", API: "x"}, Provider: provider})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		s.Start(ctx, "startup", "")
		for _, p := range []string{"first", "second"} {
			if err := s.PromptWith(ctx, p, PromptOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		xc := s.newContext(ctx)
		if !xc.IsIdle() {
			t.Fatal("idle session reports busy")
		}

		compacted := make(chan error, 1)
		go func() {
			_, err := s.Compact(ctx, CompactManual, 0, nil, "")
			compacted <- err
		}()
		<-plannerIn
		if xc.IsIdle() {
			t.Error("ctx.isIdle() is true while the compaction runs")
		}
		prompted := make(chan error, 1)
		go func() { prompted <- s.PromptWith(ctx, "third", PromptOptions{}) }()
		synctest.Wait() // every goroutine is blocked: the planner on release, the prompt on the compaction
		mu.Lock()
		got := strings.Join(log, ",")
		mu.Unlock()
		if got != "first,second,planner" {
			t.Errorf("requests while the planner runs: %s; the prompt must wait for the compaction", got)
		}
		close(release)
		if err := <-compacted; err != nil {
			t.Fatal(err)
		}
		if err := <-prompted; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if got := strings.Join(log, ","); got != "first,second,planner,third" {
			t.Fatalf("requests %s", got)
		}
		if len(lastBody) == 0 || !strings.HasPrefix(lastBody[0], compact.Preamble) {
			t.Fatalf("the prompt after the compaction was not sent on the compacted context: %q", lastBody)
		}
		if !xc.IsIdle() {
			t.Error("not idle after the compaction and the prompt")
		}
	})
}
