package node

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/host"
	"github.com/atomic-cli/atomic/llm"
)

// streamExt is an extension with n message_update handlers; each records, per delta, the
// message's text and thinking as it saw them, and the last one reports every record on
// agent_settled through pi.events, prefixed with the extension's name. With wait, the first
// handler awaits a timer on every third event before it records, so later events queue behind it.
func streamExt(name string, n int, wait bool) string {
	return fmt.Sprintf(`
const seen: string[] = [];
let calls = 0;
export default function (pi) {
	for (let k = 0; k < %d; k++) {
		pi.on("message_update", async (e) => {
			if (%t && k === 0 && calls++ %% 3 === 0) await new Promise((r) => setTimeout(r, 1));
			const m = e.message;
			const text = m.content.map((b) => b.type === "text" ? "T:" + b.text : b.type === "thinking" ? "H:" + b.thinking : b.type).join("|");
			seen.push(k + "/" + e.type + "/" + e.assistantMessageEvent.type + "/" + text);
			// The handlers share the event object (as in pi); an edit by the last one does not
			// reach the next delta.
			if (k === %d - 1) {
				m.content.forEach((b) => { if (b.type === "text") b.text = "clobbered"; });
				m.content.push({ type: "text", text: "extra" });
			}
		});
	}
	pi.on("agent_settled", () => { pi.events.emit("seen", %q + "\n" + seen.join("\n")); seen.length = 0; });
}`, n, wait, n, name)
}

// TestMessageUpdateBatchesAndDeltas: an extension's message_update handlers all run, in
// registration order, on every delta, and each sees the whole partial message as the stream
// built it (text and thinking deltas sent as deltas, block starts as whole messages), for every
// extension of the host.
func TestMessageUpdateBatchesAndDeltas(t *testing.T) {
	checkStreamSeen(t, map[string]int{"a": 3, "b": 1}, false)
}

// TestMessageUpdateDeltaRuns: with one subscribing extension, consecutive deltas travel as runs
// (capabilities.deltaRuns), and its handlers still see every delta's message.
func TestMessageUpdateDeltaRuns(t *testing.T) {
	checkStreamSeen(t, map[string]int{"a": 2}, false)
}

// TestMessageUpdateDeltaRunsAwaited: a handler that awaits now and then holds the deltas after
// it in the queue; every handler still sees each delta's own message, in order.
func TestMessageUpdateDeltaRunsAwaited(t *testing.T) {
	checkStreamSeen(t, map[string]int{"a": 2}, true)
}

// checkStreamSeen streams a thinking block and a text block to extensions named as the keys of
// handlers, each with that many message_update handlers (wait: see streamExt), and checks what
// each handler saw.
func checkStreamSeen(t *testing.T, handlers map[string]int, wait bool) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a", "b"} {
		if n, ok := handlers[name]; ok {
			paths = append(paths, writeExt(t, dir, name+".ts", streamExt(name, n, wait)))
		}
	}
	needNode(t)
	sup := New(paths, host.Options{}, Options{CacheDir: t.TempDir()})
	defer sup.Close()
	seen := make(chan string, len(paths))
	goExt := func(api ext.API) error {
		api.Events().On("seen", func(d any) { s, _ := d.(string); seen <- s })
		return nil
	}
	r := ext.NewRunner(nil)
	if errs := r.Load(nil, append([]string{"go:seen"}, paths...), append([]ext.Factory{goExt}, sup.Factories()...)); len(errs) > 0 {
		t.Fatal(errs)
	}
	got := map[string]string{}
	ctx := context.Background()
	msg := &llm.Message{Role: "assistant"}
	var want []string
	emit := func(ev llm.Event) {
		ext.Emit[ext.None](r, ctx, ext.MessageUpdate{AssistantMessageEvent: &ev, Message: msg})
		var parts []string
		for _, c := range msg.Content {
			switch c.Type {
			case llm.ContentText:
				parts = append(parts, "T:"+c.Text)
			case llm.ContentThinking:
				parts = append(parts, "H:"+c.Thinking)
			}
		}
		want = append(want, ev.Type+"/"+strings.Join(parts, "|"))
	}
	msg.Content = append(msg.Content, llm.Content{Type: llm.ContentThinking})
	emit(llm.Event{Type: llm.EventThinkingStart})
	for _, d := range []string{"let", " me", " think"} {
		msg.Content[0].Thinking += d
		emit(llm.Event{Type: llm.EventThinkingDelta, Delta: d})
	}
	msg.Content = append(msg.Content, llm.Content{Type: llm.ContentText})
	emit(llm.Event{Type: llm.EventTextStart, ContentIndex: 1})
	for i := 0; i < 50; i++ {
		d := fmt.Sprintf("w%d ", i)
		msg.Content[1].Text += d
		emit(llm.Event{Type: llm.EventTextDelta, ContentIndex: 1, Delta: d})
	}
	// Usage changing mid-stream: the whole message again.
	msg.Usage.Output = 7
	msg.Content[1].Text += "end"
	emit(llm.Event{Type: llm.EventTextDelta, ContentIndex: 1, Delta: "end"})
	ext.Emit[ext.None](r, ctx, ext.AgentSettled{})
	for range paths {
		select {
		case s := <-seen:
			name, rest, _ := strings.Cut(s, "\n")
			got[name] = rest
		case <-time.After(10 * time.Second):
			t.Fatal("no report from the extensions")
		}
	}
	for name, n := range handlers {
		var exp []string
		for _, w := range want {
			typ, text, _ := strings.Cut(w, "/")
			for k := 0; k < n; k++ {
				exp = append(exp, fmt.Sprintf("%d/message_update/%s/%s", k, typ, text))
			}
		}
		if g := got[name]; g != strings.Join(exp, "\n") {
			t.Errorf("extension %s saw\n%s\nwant\n%s", name, g, strings.Join(exp, "\n"))
		}
	}
}
