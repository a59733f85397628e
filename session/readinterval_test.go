package session

import (
	"context"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// TestStreamReadIntervalReachesRequest: the front-end's stream read interval is set on every
// provider request of the session; a session without one reads deltas as they come.
func TestStreamReadIntervalReachesRequest(t *testing.T) {
	for _, want := range []time.Duration{0, 16 * time.Millisecond} {
		var got []time.Duration
		provider := llm.ProviderFunc(func(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
			got = append(got, req.ReadInterval)
			b := llm.NewBuilder(req.Model, emit)
			b.AppendText(b.StartText(), "ok")
			return b.Finish(llm.StopStop, req.Model)
		})
		s, err := New(Options{Store: store.InMemory(t.TempDir()), Model: &llm.Model{ID: "m", Provider: "p", API: "x"},
			Provider: provider, StreamReadInterval: want})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		s.Start(ctx, "startup", "")
		for _, p := range []string{"one", "two"} {
			if err := s.PromptWith(ctx, p, PromptOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if len(got) != 2 || got[0] != want || got[1] != want {
			t.Errorf("StreamReadInterval %s: requests had ReadInterval %v", want, got)
		}
	}
}
