package session_test

// Acceptance tests of verbatim-lines compaction (issue 6 item 2), offline against the fake
// model over loopback HTTP: the planner is the fake model answering with line ranges.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/compact"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
)

// cpRec records the compaction events extensions see, in order.
type cpRec struct {
	mu     sync.Mutex
	events []string
	failed []ext.SessionCompactFailed
	done   []ext.SessionCompact
}

func (r *cpRec) add(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

func (r *cpRec) list() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, " ")
}

// cpObserver records every compaction event; before, when set, answers session_before_compact.
func cpObserver(r *cpRec, before func(*ext.SessionBeforeCompact) *ext.BeforeCompactResult) ext.Factory {
	return func(a ext.API) error {
		ext.On(a, func(_ ext.Context, e *ext.CompactionStart) (ext.None, error) {
			r.add(fmt.Sprintf("compaction_start:%s:midTurn=%v", e.Reason, e.MidTurn))
			return nil, nil
		})
		ext.On(a, func(_ ext.Context, e *ext.CompactionEnd) (ext.None, error) {
			r.add(fmt.Sprintf("compaction_end:%s:ok=%v", e.Reason, e.Result != nil))
			return nil, nil
		})
		ext.On(a, func(_ ext.Context, e *ext.AutoCompactionStart) (ext.None, error) {
			r.add("auto_compaction_start:" + e.Reason)
			return nil, nil
		})
		ext.On(a, func(_ ext.Context, e *ext.AutoCompactionEnd) (ext.None, error) {
			r.add("auto_compaction_end:" + e.Reason)
			return nil, nil
		})
		ext.On(a, func(_ ext.Context, e *ext.SessionCompact) (ext.None, error) {
			r.mu.Lock()
			r.done = append(r.done, *e)
			r.mu.Unlock()
			r.add("session_compact")
			return nil, nil
		})
		ext.On(a, func(_ ext.Context, e *ext.SessionCompactFailed) (ext.None, error) {
			r.mu.Lock()
			r.failed = append(r.failed, *e)
			r.mu.Unlock()
			r.add("session_compact_failed")
			return nil, nil
		})
		if before != nil {
			ext.On(a, func(_ ext.Context, e *ext.SessionBeforeCompact) (*ext.BeforeCompactResult, error) {
				r.add("session_before_compact:" + e.Reason)
				return before(e), nil
			})
		}
		a.RegisterTool(xtEcho("echo"))
		return nil
	}
}

type cpH struct {
	t   *testing.T
	srv *fakellm.Server
	rt  *session.Runtime
	dir string
}

// cpStart runs a persisted session on the fake model (context window 1000 tokens: compaction
// starts above 750) with the factories.
func cpStart(t *testing.T, turns []fakellm.Turn, factories ...ext.Factory) *cpH {
	t.Helper()
	srv := fakellm.New(fakellm.Script{Turns: turns})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	st, err := store.Create(dir, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cpOpen(t, srv, st, dir, factories...)
}

func cpModel(srv *fakellm.Server) *llm.Model {
	return &llm.Model{ID: "fake-model", Provider: "fakellm", API: llm.APIOpenAICompletions, BaseURL: srv.URL() + "/v1",
		ContextWindow: 1000, MaxTokens: 100}
}

func cpOpen(t *testing.T, srv *fakellm.Server, st *store.Session, dir string, factories ...ext.Factory) *cpH {
	t.Helper()
	paths := make([]string, len(factories))
	for i := range paths {
		paths[i] = fmt.Sprintf("go:cp-%d", i+1)
	}
	rt, err := session.NewRuntime(context.Background(), session.Options{
		Store: st, Model: cpModel(srv), HTTPClient: srv.Client(), Cwd: dir,
		Extensions: factories, ExtensionPaths: paths,
		OnExtensionError: func(e *ext.Error) { t.Errorf("extension error: %v", e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rt.Session().WaitIdle(ctx)
		rt.Shutdown(ctx)
	})
	return &cpH{t: t, srv: srv, rt: rt, dir: dir}
}

func (h *cpH) prompt(text string) {
	h.t.Helper()
	if err := h.rt.Prompt(context.Background(), text, nil); err != nil {
		h.t.Fatal(err)
	}
}

// requestMessages returns the messages of the i-th provider request (0-based).
func (h *cpH) requestMessages(i int) []map[string]any {
	h.t.Helper()
	reqs := h.srv.Requests()
	if i >= len(reqs) {
		h.t.Fatalf("request %d of %d", i, len(reqs))
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
		h.t.Fatal(err)
	}
	return body.Messages
}

func content(m map[string]any) string {
	switch c := m["content"].(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, blk := range c {
			if mm, ok := blk.(map[string]any); ok {
				b.WriteString(fmt.Sprint(mm["text"]))
			}
		}
		return b.String()
	}
	return ""
}

func compactionEntries(st *store.Session) []*store.Entry {
	var out []*store.Entry
	for _, e := range st.Entries() {
		if e.Type == store.TypeCompaction {
			out = append(out, e)
		}
	}
	return out
}

func TestCompactionThresholdAfterToolsCompactsAndContinues(t *testing.T) {
	rec := &cpRec{}
	h := cpStart(t, []fakellm.Turn{
		{Text: "done one", Usage: &fakellm.Usage{Input: 200, Output: 50}},
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("echo", map[string]any{"text": "hi"})}, Usage: &fakellm.Usage{Input: 700, Output: 100}},
		{Text: "1-4"}, // the planner: delete the first exchange
		{Text: "all done", Usage: &fakellm.Usage{Input: 120, Output: 10}},
	}, cpObserver(rec, nil))
	h.prompt("first task")
	h.prompt("second task")

	if n := len(h.srv.Requests()); n != 4 {
		t.Fatalf("%d provider requests, want 4 (answer, tool call, planner, continuation)", n)
	}
	planner := h.requestMessages(2)
	if p := content(planner[len(planner)-1]); !strings.Contains(p, "1| [user]\n2| first task\n3| [assistant]\n4| done one\n5| [user]\n6| second task\n</transcript>") {
		t.Fatalf("planner prompt lacks the numbered region:\n%s", p)
	}
	next := h.requestMessages(3)
	var users []string
	for _, m := range next {
		if m["role"] != "system" {
			users = append(users, fmt.Sprint(m["role"]))
		}
	}
	if len(users) != 1 || users[0] != "user" {
		t.Fatalf("continuation request roles %v, want one user message (the compaction)", users)
	}
	got := content(next[len(next)-1])
	want := compact.Preamble + "(filtered 4 lines)\n[user]\nsecond task\n\n[assistant]\n[tool call: echo] {\"text\":\"hi\"}\n[tool result: echo]\necho hi"
	if got != want {
		t.Fatalf("continuation context:\n%q\nwant\n%q", got, want)
	}
	if ev := rec.list(); ev != "compaction_start:threshold:midTurn=true auto_compaction_start:threshold session_compact compaction_end:threshold:ok=true auto_compaction_end:threshold" {
		t.Fatalf("events %s", ev)
	}

	st := h.rt.Session().Store()
	cs := compactionEntries(st)
	if len(cs) != 1 {
		t.Fatalf("%d compaction entries", len(cs))
	}
	var d compact.Details
	if err := json.Unmarshal(cs[0].Details, &d); err != nil {
		t.Fatal(err)
	}
	if d.Strategy != "verbatim-lines" || d.Rung != "planned" || d.Stats.LinesBefore != 6 || d.Stats.LinesDeleted != 4 ||
		d.Stats.LinesKept != 2 || d.Stats.RangeCount != 1 || d.Parameters.PreserveRecent != 2 || d.Parameters.CompressionRatio != 0.5 {
		t.Fatalf("details %+v", d)
	}
	first := st.Entry(*cs[0].FirstKeptEntryID)
	if first == nil || first.Role() != llm.RoleAssistant || len(first.Message.ToolCalls()) != 1 {
		t.Fatalf("firstKeptEntryId %v is not the tool-call message", cs[0].FirstKeptEntryID)
	}
	// The agent context after the run: the compaction message, then the final answer.
	msgs := h.rt.Session().Messages()
	if len(msgs) != 2 || msgs[0].CustomType != "compaction" || msgs[1].Role != llm.RoleAssistant {
		t.Fatalf("context after compaction: %d messages", len(msgs))
	}
}

func TestCompactionBadPlannerAnswerFailsCleanly(t *testing.T) {
	for _, answer := range []string{"1-3\n3-5", "2-99", "5-2", "delete 1-2"} {
		t.Run(answer, func(t *testing.T) {
			rec := &cpRec{}
			h := cpStart(t, []fakellm.Turn{{Text: "one"}, {Text: "two"}, {Text: answer}}, cpObserver(rec, nil))
			h.prompt("first")
			h.prompt("second")
			st := h.rt.Session().Store()
			entries, msgs := len(st.Entries()), len(h.rt.Session().Messages())
			_, err := h.rt.Session().Compact(context.Background(), session.CompactManual, 0, nil, "")
			if err == nil || !strings.Contains(err.Error(), "invalid planner answer") {
				t.Fatalf("compact error %v", err)
			}
			if len(st.Entries()) != entries || len(h.rt.Session().Messages()) != msgs {
				t.Fatal("a failed compaction changed the session")
			}
			if len(rec.failed) != 1 || rec.failed[0].ErrorMessage != err.Error() || rec.failed[0].Aborted || rec.failed[0].Reason != "manual" {
				t.Fatalf("session_compact_failed %+v", rec.failed)
			}
			if ev := rec.list(); ev != "compaction_start:manual:midTurn=false session_compact_failed compaction_end:manual:ok=false" {
				t.Fatalf("events %s", ev)
			}
		})
	}
}

func TestCompactionExtensionTextSurvivesContinue(t *testing.T) {
	rec := &cpRec{}
	var prepared []string
	before := func(e *ext.SessionBeforeCompact) *ext.BeforeCompactResult {
		prepared = append([]string(nil), e.Preparation.Lines...)
		text := strings.Join(e.Preparation.Lines[:2], "\n") + "\n(extension elided the rest)"
		e.Preparation.Lines[0] = "MUTATED" // the preparation is a copy: this changes nothing
		return &ext.BeforeCompactResult{CompactedText: &text}
	}
	turns := []fakellm.Turn{{Text: "one"}, {Text: "two"}, {Text: "three"}, {Text: "after resume"}}
	h := cpStart(t, turns, cpObserver(rec, before))
	h.prompt("first")
	h.prompt("second")
	h.prompt("third")
	res, err := h.rt.Session().Compact(context.Background(), session.CompactManual, 0, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Fatalf("%d requests: the planner ran although the extension supplied the text", n)
	}
	wantText := "[user]\nfirst\n(extension elided the rest)"
	if res.CompactedText != wantText || res.Rung != "extension" || res.FirstKeptEntryID == nil {
		t.Fatalf("result %+v", res)
	}
	if strings.Join(prepared, "\n") != "[user]\nfirst\n[assistant]\none\n[user]\nsecond\n[assistant]\ntwo" {
		t.Fatalf("prepared region %q", prepared)
	}
	if len(rec.done) != 1 || !rec.done[0].FromExtension || rec.done[0].CompactionEntry == nil {
		t.Fatalf("session_compact %+v", rec.done)
	}
	file := h.rt.Session().Store().SessionFile()

	// --continue: a new process opens the file; the context is the compaction, rebuilt.
	st, err := store.Open(file, "")
	if err != nil {
		t.Fatal(err)
	}
	cs := compactionEntries(st)
	if len(cs) != 1 || cs[0].Summary != wantText || cs[0].FromHook == nil || !*cs[0].FromHook {
		t.Fatalf("persisted compaction %+v", cs)
	}
	h2 := cpOpen(t, h.srv, st, h.dir)
	msgs := h2.rt.Session().Messages()
	wantCtx := compact.Preamble + wantText + "\n\n[user]\nthird\n[assistant]\nthree"
	if len(msgs) != 1 || llm.TextOf(msgs[0].Content, "") != wantCtx {
		t.Fatalf("resumed context %d messages: %q", len(msgs), llm.TextOf(msgs[0].Content, ""))
	}
	h2.prompt("fourth")
	req := h.requestMessages(3)
	if content(req[len(req)-2]) != wantCtx || content(req[len(req)-1]) != "fourth" {
		t.Fatalf("request after resume: %v", req)
	}
}

func TestCompactionCancelledByExtension(t *testing.T) {
	rec := &cpRec{}
	h := cpStart(t, []fakellm.Turn{{Text: "one"}, {Text: "two"}}, cpObserver(rec, func(*ext.SessionBeforeCompact) *ext.BeforeCompactResult {
		return &ext.BeforeCompactResult{Cancel: true}
	}))
	h.prompt("first")
	h.prompt("second")
	entries := len(h.rt.Session().Store().Entries())
	_, err := h.rt.Session().Compact(context.Background(), session.CompactManual, 0, nil, "")
	if err == nil || err.Error() != "Compaction cancelled" {
		t.Fatalf("err %v", err)
	}
	if len(rec.failed) != 1 || !rec.failed[0].Aborted || rec.failed[0].ErrorMessage != "" {
		t.Fatalf("session_compact_failed %+v", rec.failed)
	}
	if len(h.rt.Session().Store().Entries()) != entries {
		t.Fatal("cancelled compaction changed the session")
	}
}

func TestCompactionWhitespaceTextRejected(t *testing.T) {
	rec := &cpRec{}
	blank := " \n\t"
	h := cpStart(t, []fakellm.Turn{{Text: "one"}, {Text: "two"}}, cpObserver(rec, func(*ext.SessionBeforeCompact) *ext.BeforeCompactResult {
		return &ext.BeforeCompactResult{CompactedText: &blank}
	}))
	h.prompt("first")
	h.prompt("second")
	if _, err := h.rt.Session().Compact(context.Background(), session.CompactManual, 0, nil, ""); err == nil || !strings.Contains(err.Error(), "whitespace-only") {
		t.Fatalf("err %v", err)
	}
	if len(rec.failed) != 1 || !rec.failed[0].FromExtension {
		t.Fatalf("session_compact_failed %+v", rec.failed)
	}
}

func TestCompactionOverflowCompactsAndRetriesOnce(t *testing.T) {
	rec := &cpRec{}
	h := cpStart(t, []fakellm.Turn{
		{Text: "one"},
		{Error: &fakellm.APIError{Status: 400, Message: "This model's maximum context length is 1000 tokens"}},
		{Text: "1-2"},
		{Text: "fits now"},
	}, cpObserver(rec, nil))
	h.prompt("first")
	h.prompt("second")
	if n := len(h.srv.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
	if ev := rec.list(); !strings.HasPrefix(ev, "compaction_start:overflow:midTurn=true") || !strings.Contains(ev, "session_compact ") {
		t.Fatalf("events %s", ev)
	}
	msgs := h.rt.Session().Messages()
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleAssistant || llm.TextOf(last.Content, "") != "fits now" {
		t.Fatalf("last message %+v", last)
	}
}

func TestCompactionThresholdCancelSuppressesFollowUpRequest(t *testing.T) {
	rec := &cpRec{}
	h := cpStart(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("echo", map[string]any{"text": "hi"})}, Usage: &fakellm.Usage{Input: 800, Output: 100}},
		{Text: "must not be requested"},
	}, cpObserver(rec, func(*ext.SessionBeforeCompact) *ext.BeforeCompactResult {
		return &ext.BeforeCompactResult{Cancel: true}
	}))
	h.prompt("go")
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d requests: a cancelled threshold compaction must suppress the follow-up request", n)
	}
	if ev := rec.list(); ev != "compaction_start:threshold:midTurn=true auto_compaction_start:threshold session_before_compact:threshold session_compact_failed compaction_end:threshold:ok=false auto_compaction_end:threshold" {
		t.Fatalf("events %s", ev)
	}
	// The run ends with an error assistant message saying why nothing was sent (so print mode
	// exits 1 and says so), right after the tool result.
	msgs := h.rt.Session().Messages()
	last, prev := msgs[len(msgs)-1], msgs[len(msgs)-2]
	if last.Role != llm.RoleAssistant || last.StopReason != llm.StopError || !strings.Contains(last.ErrorMessage, "Compaction cancelled") || prev.Role != llm.RoleToolResult {
		t.Fatalf("last messages %s then %+v", prev.Role, last)
	}
	if len(compactionEntries(h.rt.Session().Store())) != 0 {
		t.Fatal("cancelled compaction was persisted")
	}
}

func TestCompactionDisabledNeverTriggers(t *testing.T) {
	h := cpStart(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("echo", map[string]any{"text": "hi"})}, Usage: &fakellm.Usage{Input: 800, Output: 100}},
		{Text: "done"},
	}, cpObserver(&cpRec{}, nil))
	h.rt.Session().SetAutoCompaction(false)
	h.prompt("go")
	if n := len(h.srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2 without compaction", n)
	}
}

func TestCompactionSummaryFormFollowsRowOne(t *testing.T) {
	for _, tc := range []struct {
		name  string
		moved bool
	}{{"same firstKeptEntryId", false}, {"moved firstKeptEntryId", true}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &cpRec{}
			h := cpStart(t, []fakellm.Turn{{Text: "one"}, {Text: "two"}}, cpObserver(rec, func(e *ext.SessionBeforeCompact) *ext.BeforeCompactResult {
				id := *e.Preparation.FirstKeptEntryID
				if tc.moved {
					id = "elsewhere"
				}
				return &ext.BeforeCompactResult{Compaction: &ext.CompactionResult{Summary: "summary text", FirstKeptEntryID: id}}
			}))
			h.prompt("first")
			h.prompt("second")
			res, err := h.rt.Session().Compact(context.Background(), session.CompactManual, 0, nil, "")
			if tc.moved {
				if err == nil || !strings.Contains(err.Error(), "cannot move it") {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil || res.CompactedText != "summary text" || res.Rung != "extension" {
				t.Fatalf("res %+v err %v", res, err)
			}
		})
	}
}

// A single prompt larger than the threshold leaves nothing to compact (it is the preserved
// tail): the request is sent anyway and the provider decides.
func TestCompactionNothingToCompactStillSends(t *testing.T) {
	h := cpStart(t, []fakellm.Turn{{Text: "took it"}})
	h.prompt(strings.Repeat("a long prompt ", 400))
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want the prompt sent once", n)
	}
	msgs := h.rt.Session().Messages()
	if last := msgs[len(msgs)-1]; last.StopReason == llm.StopError {
		t.Fatalf("the prompt was not sent: %s", last.ErrorMessage)
	}
}
