package rpc

import (
	"testing"
)

// compact runs the verbatim-lines compactor (the fake model plans) and answers with the
// VerbatimCompactionResult; compaction_start/end frame it on the stream.
func TestCompactCommand(t *testing.T) {
	h := newHarness(t, script(textTurn("one"), textTurn("two"), textTurn("1-2")), harnessOptions{})
	mark := h.out.count()
	h.ok("p1", map[string]any{"type": "prompt", "message": "first"})
	h.event(mark, "agent_settled")
	mark = h.out.count()
	h.ok("p2", map[string]any{"type": "prompt", "message": "second"})
	h.event(mark, "agent_settled")
	mark = h.out.count()
	res := h.ok("c", map[string]any{"type": "compact"})
	if dig(res, "rung") != "planned" || dig(res, "compactedText") != "(filtered 2 lines)\n[assistant]\none" ||
		dig(res, "stats", "linesBefore") != 4.0 || dig(res, "firstKeptEntryId") == nil || dig(res, "promptVersion") != 3.0 {
		t.Fatalf("compact result %v", res)
	}
	_, start := h.event(mark, "compaction_start")
	_, end := h.event(mark, "compaction_end")
	if start["reason"] != "manual" || end["aborted"] != false || dig(end, "result", "rung") != "planned" {
		t.Fatalf("stream events %v %v", start, end)
	}
	msgs := dig(h.ok("m", map[string]any{"type": "get_messages"}), "messages").([]any)
	if len(msgs) != 1 || dig(msgs, 0, "customType") != "compaction" {
		t.Fatalf("messages after compaction %v", msgs)
	}
}
