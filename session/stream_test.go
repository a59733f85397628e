package session

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// chunkProvider streams text as one delta per chunk.
func chunkProvider(chunks ...string) llm.Provider {
	return llm.ProviderFunc(func(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
		b := llm.NewBuilder(req.Model, emit)
		i := b.StartText()
		for _, c := range chunks {
			b.AppendText(i, c)
		}
		return b.Finish(llm.StopStop, req.Model)
	})
}

// streamRecord collects what a subscriber received.
type streamRecord struct {
	mu     sync.Mutex
	events []Event
}

func (r *streamRecord) add(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *streamRecord) types() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Type == "message_update" {
			if n := len(out); n > 0 && out[n-1] == "message_update" {
				continue
			}
		}
		out = append(out, e.Type)
	}
	return strings.Join(out, " ")
}

func newStreamRuntime(t *testing.T, p llm.Provider, factories ...ext.Factory) *Runtime {
	t.Helper()
	var paths []string
	for i := range factories {
		paths = append(paths, fmt.Sprintf("go:f%d", i))
	}
	rt, err := NewRuntime(context.Background(), Options{Store: store.InMemory(t.TempDir()), Model: &llm.Model{ID: "one", Provider: "p", API: "x"}, Provider: p, Extensions: factories, ExtensionPaths: paths})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Shutdown(context.Background()) })
	return rt
}

// A front-end sees every fact JSON mode prints as a typed value, published once, after the
// extension handlers of the same fact; its callback may call back into the session.
func TestStreamDeliversTypedFactsAfterExtensions(t *testing.T) {
	var mu sync.Mutex
	var extSaw []string
	rec := &streamRecord{}
	obs := func(api ext.API) error {
		ext.On(api, func(_ ext.Context, e *ext.ModelSelect) (ext.None, error) {
			mu.Lock()
			extSaw = append(extSaw, "model_select:"+e.Model.ID)
			mu.Unlock()
			return nil, nil
		})
		return nil
	}
	rt := newStreamRuntime(t, chunkProvider("a", "b", "c"), obs)
	var msgs int
	sub := rt.Subscribe(func(e Event) {
		rec.add(e)
		if _, ok := e.Payload.(*ext.AgentSettled); ok {
			msgs = len(rt.Session().Messages()) // a callback may call into the session
		}
	}, SubscribeOptions{})
	defer sub.Close()
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if err := rt.Session().SetModel(&llm.Model{ID: "two", Provider: "p", API: "x"}); err != nil {
		t.Fatal(err)
	}
	sub.Sync()
	want := "agent_start turn_start message_start message_end message_start message_update message_end turn_end agent_end agent_settled model_changed"
	if got := rec.types(); got != want {
		t.Fatalf("stream\n got %s\nwant %s", got, want)
	}
	if msgs != 2 {
		t.Fatalf("the agent_settled callback saw %d messages, want 2", msgs)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var text strings.Builder
	for _, e := range rec.events {
		switch p := e.Payload.(type) {
		case *ext.MessageUpdate:
			if p.Message != nil {
				t.Fatal("a subscriber without Snapshots got the partial message")
			}
			if p.AssistantMessageEvent.Type == llm.EventTextDelta {
				text.WriteString(p.AssistantMessageEvent.Delta)
			}
		case *ext.ModelSelect:
			if p.Model.ID != "two" || p.PreviousModel.ID != "one" || p.Source != "set" {
				t.Fatalf("model_changed payload %+v", p)
			}
			b, err := e.AppendJSON(nil)
			if err != nil || !strings.HasPrefix(string(b), `{"type":"model_changed","model":{`) {
				t.Fatalf("model_changed JSON %s, %v", b, err)
			}
		}
	}
	if text.String() != "abc" {
		t.Fatalf("deltas rebuild %q, want abc", text.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(extSaw) != "[model_select:two]" {
		t.Fatalf("extension handlers saw %v", extSaw)
	}
}

// Replacing the session is announced, so a front-end follows /new and reload.
func TestStreamAnnouncesReplacement(t *testing.T) {
	rt := newStreamRuntime(t, chunkProvider("x"))
	rec := &streamRecord{}
	sub := rt.Subscribe(rec.add, SubscribeOptions{})
	defer sub.Close()
	first := rt.Session()
	if _, err := rt.NewSession(context.Background(), ext.NewSessionOptions{}); err != nil {
		t.Fatal(err)
	}
	second := rt.Session()
	if err := rt.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The new session's facts reach the same subscriber.
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	sub.Sync()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var started []*SessionStarted
	for _, e := range rec.events {
		if p, ok := e.Payload.(*SessionStarted); ok {
			if e.Type != "session_started" || e.Wire() {
				t.Fatalf("session_started event %+v must be typed and off the wire", e)
			}
			started = append(started, p)
		}
	}
	if len(started) != 2 || started[0].Reason != "new" || started[0].Session != second || second == first ||
		started[1].Reason != "reload" || started[1].Session != rt.Session() {
		t.Fatalf("announcements %+v", started)
	}
	if last := rec.events[len(rec.events)-1]; last.Type != "agent_settled" {
		t.Fatalf("last event %s: the replaced session's prompt did not reach the subscriber", last.Type)
	}
}

// A subscriber that does not return never holds up the agent loop: the prompt completes while
// it is blocked, and it then receives every event in order.
func TestStreamBlockedSubscriberDoesNotBlockTheLoop(t *testing.T) {
	rt := newStreamRuntime(t, chunkProvider("a", "b", "c", "d"))
	release := make(chan struct{})
	rec := &streamRecord{}
	sub := rt.Subscribe(func(e Event) {
		<-release
		rec.add(e)
	}, SubscribeOptions{})
	defer sub.Close()
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	close(release)
	sub.Sync()
	want := "agent_start turn_start message_start message_end message_start message_update message_end turn_end agent_end agent_settled"
	if got := rec.types(); got != want {
		t.Fatalf("stream\n got %s\nwant %s", got, want)
	}
}

// A coalescing subscriber that falls behind gets the queued deltas merged into the newest one,
// whose snapshot holds the whole text; lifecycle events are all delivered.
func TestStreamCoalescesDeltasOnlyWhenAsked(t *testing.T) {
	chunks := strings.Split("the quick brown fox jumps", "")
	rt := newStreamRuntime(t, chunkProvider(chunks...))
	release := make(chan struct{})
	slow, full := &streamRecord{}, &streamRecord{}
	coalescing := rt.Subscribe(slow.add, SubscribeOptions{Coalesce: true})
	defer coalescing.Close()
	behind := make(chan struct{})
	coalescing.Do(func() { close(behind); <-release }) // behind from the first event on
	<-behind
	lossless := rt.Subscribe(full.add, SubscribeOptions{Snapshots: true})
	defer lossless.Close()
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	close(release)
	coalescing.Sync()
	lossless.Sync()
	count := func(r *streamRecord) (n int, last *ext.MessageUpdate) {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, e := range r.events {
			if u, ok := e.Payload.(*ext.MessageUpdate); ok {
				n++
				last = u
			}
		}
		return n, last
	}
	nFull, _ := count(full)
	nSlow, last := count(slow)
	if nFull != len(chunks)+2 { // text_start, the deltas, text_end
		t.Fatalf("the lossless subscriber got %d message_update events, want %d", nFull, len(chunks)+2)
	}
	if nSlow != 1 {
		t.Fatalf("the coalescing subscriber got %d message_update events, want the queued ones merged into 1", nSlow)
	}
	if got := llm.TextOf(last.Message.Content, ""); got != "the quick brown fox jumps" {
		t.Fatalf("the merged update's snapshot holds %q", got)
	}
	if a, b := slow.types(), full.types(); a != b {
		t.Fatalf("lifecycle events differ:\ncoalescing %s\n  lossless %s", a, b)
	}
}
