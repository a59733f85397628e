package host

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/atomic-cli/atomic/ext/protocol"
	"strings"
	"testing"
	"time"

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

// chunkWriter records each Write as one chunk.
type chunkWriter struct{ chunks []string }

func (c *chunkWriter) Write(b []byte) (int, error) {
	c.chunks = append(c.chunks, string(b))
	return len(b), nil
}

// TestDeltaRunsOnTheWire: held message_update lines reach the host in one write; consecutive
// deltas of one extension and block travel as one line whose `more` run lists the deltas after
// the first; a new block, another kind of delta, another extension or a write of another
// message in between starts a new line; without capabilities.deltaRuns every delta is a line.
func TestDeltaRunsOnTheWire(t *testing.T) {
	spec := &ext.Table[ext.IDMessageUpdate]
	type line struct {
		Method string `json:"method"`
		Params struct {
			Ext     int             `json:"ext"`
			Payload json.RawMessage `json:"payload"`
			More    []string        `json:"more"`
		} `json:"params"`
	}
	run := func(runs bool) ([]line, int) {
		var st streamState
		var cw chunkWriter
		out := protocol.NewWriter(&cw)
		out.SetHoldDelay(time.Hour) // only the next message and Flush write them
		msg := &llm.Message{Role: "assistant", Content: []llm.Content{{Type: llm.ContentThinking}}}
		send := func(exts []int, ev llm.Event) {
			t.Helper()
			p := &ext.MessageUpdate{AssistantMessageEvent: &ev, Message: msg}
			for _, i := range exts {
				if err := st.send(out, spec, p, true, runs, i, 1, []int{0}, 7, true); err != nil {
					t.Fatal(err)
				}
			}
		}
		send([]int{0}, llm.Event{Type: llm.EventThinkingStart})
		for _, d := range []string{"a", "b\n", "c\""} {
			msg.Content[0].Thinking += d
			send([]int{0}, llm.Event{Type: llm.EventThinkingDelta, Delta: d})
		}
		msg.Content = append(msg.Content, llm.Content{Type: llm.ContentText})
		send([]int{0}, llm.Event{Type: llm.EventTextStart, ContentIndex: 1})
		for _, d := range []string{"x", "y"} {
			msg.Content[1].Text += d
			send([]int{0}, llm.Event{Type: llm.EventTextDelta, ContentIndex: 1, Delta: d})
		}
		if err := out.Notify("other", nil); err != nil { // written after the held lines, in the same write
			t.Fatal(err)
		}
		msg.Content[1].Text += "z"
		send([]int{0}, llm.Event{Type: llm.EventTextDelta, ContentIndex: 1, Delta: "z"})
		for _, d := range []string{"1", "2"} { // two extensions: their lines alternate
			msg.Content[1].Text += d
			send([]int{0, 1}, llm.Event{Type: llm.EventTextDelta, ContentIndex: 1, Delta: d})
		}
		if err := out.Flush(); err != nil {
			t.Fatal(err)
		}
		var lines []line
		for _, s := range strings.SplitAfter(strings.Join(cw.chunks, ""), "\n") {
			if s == "" {
				continue
			}
			var l line
			if err := json.Unmarshal([]byte(s), &l); err != nil {
				t.Fatalf("line %q: %v", s, err)
			}
			lines = append(lines, l)
		}
		return lines, len(cw.chunks)
	}
	lines, writes := run(true)
	if writes != 2 {
		t.Errorf("%d writes; want 2 (the held lines with the other message, then the flush)", writes)
	}
	var got []string
	for _, l := range lines {
		s := l.Method
		if l.Method == "event" {
			s = fmt.Sprintf("%d:%s", l.Params.Ext, l.Params.Payload)
			if l.Params.More != nil {
				s += fmt.Sprintf("+%q", l.Params.More)
			}
		}
		got = append(got, s)
	}
	zero := `"api":"","provider":"","model":"","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"",`
	want := []string{
		`0:{"assistantMessageEvent":{"type":"thinking_start","contentIndex":0},"message":{"role":"assistant","content":[{"type":"thinking","thinking":""}],` + zero + `"timestamp":0},"messageSeq":1}`,
		`0:{"assistantMessageEvent":{"type":"thinking_delta","contentIndex":0,"delta":"a"},"deltaSeq":2}+["b\n" "c\""]`,
		`0:{"assistantMessageEvent":{"type":"text_start","contentIndex":1},"message":{"role":"assistant","content":[{"type":"thinking","thinking":"ab\nc\""},{"type":"text","text":""}],` + zero + `"timestamp":0},"messageSeq":5}`,
		`0:{"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"x"},"deltaSeq":6}+["y"]`,
		`other`,
		`0:{"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"z"},"deltaSeq":8}+["1"]`,
		`1:{"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"1"},"deltaSeq":9}+[]`,
		`0:{"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"2"},"deltaSeq":10}+[]`,
		`1:{"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"2"},"deltaSeq":10}+[]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without the capability every delta is its own line, with no run.
	lines, _ = run(false)
	if len(lines) != 13 {
		t.Errorf("%d lines without deltaRuns; want 13", len(lines))
	}
	for _, l := range lines {
		if l.Params.More != nil {
			t.Errorf("a run without deltaRuns: %+v", l)
		}
	}
}

// BenchmarkQueuedDeltaDispatch is the core's side of a 20,000-delta stream to one extension
// subscribed to message_update on a host with messageDeltas and deltaRuns (the fake host, which
// only reads the lines): the dispatch of every delta as the agent loop makes it, then the
// agent_settled barrier. cpu-µs/delta is this process's CPU time (user+sys) per delta; it must
// not grow with the message.
func BenchmarkQueuedDeltaDispatch(b *testing.B) {
	b.Setenv("ATOMIC_FAKE_QUEUED", "1")
	b.Setenv("ATOMIC_FAKE_BATCHES", "1")
	b.Setenv("ATOMIC_FAKE_DELTAS", "1")
	s, _ := fake(b, "on message_update\n")
	r, _ := load(b, s)
	const deltas = 20000
	ctx := context.Background()
	full := strings.Repeat("tok ", deltas)
	stream := func() {
		msg := &llm.Message{Role: "assistant", Content: []llm.Content{{Type: llm.ContentText}}}
		ext.Emit[ext.None](r, ctx, ext.MessageUpdate{AssistantMessageEvent: &llm.Event{Type: llm.EventTextStart}, Message: msg})
		for i := 0; i < deltas; i++ {
			msg.Content[0].Text = full[:4*(i+1)]
			ext.Emit[ext.None](r, ctx, ext.MessageUpdate{AssistantMessageEvent: &llm.Event{Type: llm.EventTextDelta, Delta: "tok "}, Message: msg})
		}
		ext.Emit[ext.None](r, ctx, ext.AgentSettled{})
	}
	stream()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		stream()
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e3/float64(b.N*deltas), "cpu-µs/delta")
}
