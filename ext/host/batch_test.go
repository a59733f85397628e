package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

// TestStreamStateDeltas: a message_update whose message only grew by its delta is encoded as the
// delta with a sequence number; the first update, a new block, a changed usage or another message
// send the whole message; the same dispatch is encoded once.
func TestStreamStateDeltas(t *testing.T) {
	var st streamState
	spec := &ext.Table[ext.IDMessageUpdate]
	msg := &llm.Message{Role: "assistant", Content: []llm.Content{{Type: llm.ContentText}}}
	body := func(ev llm.Event, m *llm.Message) map[string]json.RawMessage {
		t.Helper()
		b, err := st.body(spec, &ext.MessageUpdate{AssistantMessageEvent: &ev, Message: m}, true)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return out
	}
	whole := func(out map[string]json.RawMessage) bool { return out["message"] != nil && out["deltaSeq"] == nil }
	if out := body(llm.Event{Type: llm.EventTextStart}, msg); !whole(out) {
		t.Fatalf("first update %v: want the whole message", out)
	}
	for _, d := range []string{"a", "bc", "def"} {
		msg.Content[0].Text += d
		out := body(llm.Event{Type: llm.EventTextDelta, Delta: d}, msg)
		if out["message"] != nil || out["deltaSeq"] == nil || !strings.Contains(string(out["assistantMessageEvent"]), `"delta":"`+d+`"`) {
			t.Fatalf("delta %q sent as %v", d, out)
		}
	}
	msg.Content = append(msg.Content, llm.Content{Type: llm.ContentThinking, Thinking: "x"})
	if out := body(llm.Event{Type: llm.EventThinkingDelta, ContentIndex: 1, Delta: "x"}, msg); !whole(out) {
		t.Fatalf("after a new block %v: want the whole message", out)
	}
	msg.Usage.Output = 3
	msg.Content[1].Thinking += "y"
	if out := body(llm.Event{Type: llm.EventThinkingDelta, ContentIndex: 1, Delta: "y"}, msg); !whole(out) {
		t.Fatalf("after a usage change %v: want the whole message", out)
	}
	other := &llm.Message{Role: "assistant", Content: []llm.Content{{Type: llm.ContentText, Text: "z"}}}
	if out := body(llm.Event{Type: llm.EventTextDelta, Delta: "z"}, other); !whole(out) {
		t.Fatalf("another message %v: want the whole message", out)
	}
	// One dispatch reaching several extensions is encoded once, with the same sequence number.
	other.Content[0].Text += "w"
	p := &ext.MessageUpdate{AssistantMessageEvent: &llm.Event{Type: llm.EventTextDelta, Delta: "w"}, Message: other}
	b1, _ := st.body(spec, p, true)
	b2, _ := st.body(spec, p, true)
	if &b1[0] != &b2[0] || !strings.Contains(string(b1), `"deltaSeq"`) {
		t.Fatalf("the same dispatch encoded twice: %s / %s", b1, b2)
	}
}

// TestQueuedEventsBatched: with capabilities.eventBatches, every handler of an extension for a
// queued event travels in one notification.
func TestQueuedEventsBatched(t *testing.T) {
	t.Setenv("ATOMIC_FAKE_QUEUED", "1")
	t.Setenv("ATOMIC_FAKE_BATCHES", "1")
	s, _ := fake(t, "on turn_start\non turn_start\non turn_start\n")
	r, errs := load(t, s)
	ctx := context.Background()
	before := s.Sent()
	for i := 0; i < 20; i++ {
		ext.Emit[ext.None](r, ctx, ext.TurnStart{TurnIndex: i})
	}
	if got := s.Sent() - before; got != 20 {
		t.Fatalf("%d messages for 20 queued events to 3 handlers; want 20 notifications", got)
	}
	ext.Emit[ext.None](r, ctx, ext.AgentSettled{})
	// The fake host reports turn 13 failing once per handler the notification listed.
	if len(*errs) != 1 || strings.Count((*errs)[0].Message, "unlucky turn") != 3 {
		t.Fatalf("errors %v; want the three failures of turn 13 in one report", *errs)
	}
}

// BenchmarkStreamStateDelta is the core's encoding of one message_update for a host that keeps
// the partial message, deep into a long answer: the cost must not depend on the message's length
// (compare BenchmarkStreamStateWhole, the whole message every time).
func BenchmarkStreamStateDelta(b *testing.B) { benchStreamState(b, true) }

// BenchmarkStreamStateWhole encodes the same updates with the whole message each time.
func BenchmarkStreamStateWhole(b *testing.B) { benchStreamState(b, false) }

func benchStreamState(b *testing.B, deltas bool) {
	var st streamState
	spec := &ext.Table[ext.IDMessageUpdate]
	full := strings.Repeat("tok ", 20000+b.N)
	msg := &llm.Message{Role: "assistant", Content: []llm.Content{{Type: llm.ContentText, Text: full[:4*20000]}}}
	if _, err := st.body(spec, &ext.MessageUpdate{AssistantMessageEvent: &llm.Event{Type: llm.EventTextStart}, Message: msg}, deltas); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		msg.Content[0].Text = full[:4*(20000+i+1)]
		if _, err := st.body(spec, &ext.MessageUpdate{AssistantMessageEvent: &llm.Event{Type: llm.EventTextDelta, Delta: "tok "}, Message: msg}, deltas); err != nil {
			b.Fatal(err)
		}
	}
}
