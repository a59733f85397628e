package session_test

import (
	"context"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
)

// TestCompactionKeptRegionNeverStartsInsideToolPair (issue 10 item 4): with preserve_recent
// counting back onto a tool result, the kept region starts at the assistant message that made
// the call, so a reader that replays the kept entries as messages (pi does, from
// firstKeptEntryId) never sees a tool result without its call. preserve_recent 2 counts back onto
// the second of two parallel results, 3 onto the first.
func TestCompactionKeptRegionNeverStartsInsideToolPair(t *testing.T) {
	for _, preserve := range []int{2, 3} {
		h := cpStart(t, []fakellm.Turn{
			{Text: "one"},
			{ToolCalls: []fakellm.ToolCall{fakellm.Call("echo", map[string]any{"text": "a"}), fakellm.Call("echo", map[string]any{"text": "b"})}},
			{Text: "done"},
			{Text: "1-2"}, // the planner
		}, cpObserver(&cpRec{}, nil))
		h.prompt("first")
		h.prompt("second") // context: user, assistant, user, assistant(2 calls), result, result, assistant
		st := h.rt.Session().Store()
		res, err := h.rt.Session().Compact(context.Background(), session.CompactManual, 0, &preserve, "")
		if err != nil {
			t.Fatalf("preserve %d: %v", preserve, err)
		}
		if res.FirstKeptEntryID == nil {
			t.Fatalf("preserve %d: nothing kept", preserve)
		}
		checkPiKeptRegion(t, st, *res.FirstKeptEntryID)
	}
}

// checkPiKeptRegion replays what pi sends for the newest compaction: the entries from
// firstKeptEntryId up to the compaction entry, as messages. The first must not be a tool result,
// and every tool result must follow the assistant message that made its call.
func checkPiKeptRegion(t *testing.T, st *store.Session, firstKept string) {
	t.Helper()
	calls := map[string]bool{}
	started := false
	for _, e := range st.Branch("") {
		if e.ID == firstKept {
			started = true
		}
		if e.Type == store.TypeCompaction {
			break
		}
		if !started || e.Type != store.TypeMessage {
			continue
		}
		switch e.Role() {
		case llm.RoleAssistant:
			for _, c := range e.Message.ToolCalls() {
				calls[c.ID] = true
			}
		case llm.RoleToolResult:
			if !calls[e.Message.ToolCallID] {
				t.Fatalf("kept region starts inside a tool call/result pair: result %s (entry %s) without its call", e.Message.ToolCallID, e.ID)
			}
		}
	}
	if !started {
		t.Fatalf("firstKeptEntryId %s is not on the path", firstKept)
	}
}
