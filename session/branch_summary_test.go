package session_test

// Acceptance tests of branch summaries for /tree navigation (issue 6 item 3), offline against
// the fake model over loopback HTTP: the summarizer is the fake model.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-cli/atomic/agent"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
)

// bsRec records the tree events extensions see.
type bsRec struct {
	mu     sync.Mutex
	before []ext.TreePreparation
	trees  []ext.SessionTree
}

// bsObserver records session_before_tree and session_tree; answer, when set, answers
// session_before_tree.
func bsObserver(r *bsRec, answer func(*ext.SessionBeforeTree) *ext.BeforeTreeResult) ext.Factory {
	return func(a ext.API) error {
		ext.On(a, func(_ ext.Context, e *ext.SessionBeforeTree) (*ext.BeforeTreeResult, error) {
			r.mu.Lock()
			r.before = append(r.before, e.Preparation)
			r.mu.Unlock()
			if answer != nil {
				return answer(e), nil
			}
			return nil, nil
		})
		ext.On(a, func(_ ext.Context, e *ext.SessionTree) (ext.None, error) {
			r.mu.Lock()
			r.trees = append(r.trees, *e)
			r.mu.Unlock()
			return nil, nil
		})
		return nil
	}
}

// bsTurns are the answers to two prompts: "first" (one), then "second", whose branch reads,
// writes and edits files before answering "two".
func bsTurns(more ...fakellm.Turn) []fakellm.Turn {
	return append([]fakellm.Turn{
		{Text: "one"},
		{ToolCalls: []fakellm.ToolCall{
			fakellm.Call("read", map[string]any{"path": "src/a.go"}),
			fakellm.Call("read", map[string]any{"path": "src/b.go"}),
			fakellm.Call("write", map[string]any{"path": "src/c.go", "content": "package c"}),
			fakellm.Call("edit", map[string]any{"path": "src/b.go", "oldText": "x", "newText": "y"}),
		}},
		{Text: "two"},
	}, more...)
}

// bsSetup runs the two prompts and returns the id of the assistant answer "one" (the target of
// the jump) and the leaf before the jump.
func bsSetup(h *cpH) (target, oldLeaf string) {
	h.t.Helper()
	h.prompt("first")
	h.prompt("second")
	st := h.rt.Session().Store()
	for _, e := range st.Branch("") {
		if e.Role() == llm.RoleAssistant {
			return e.ID, st.LeafID()
		}
	}
	h.t.Fatal("no assistant entry")
	return "", ""
}

func branchSummaries(st *store.Session) []*store.Entry {
	var out []*store.Entry
	for _, e := range st.Entries() {
		if e.Type == store.TypeBranchSummary {
			out = append(out, e)
		}
	}
	return out
}

func TestNavigateTreeSummarizerSummaryReachesNextRequest(t *testing.T) {
	rec := &bsRec{}
	h := cpStart(t, bsTurns(
		fakellm.Turn{Text: "  Tried reading a.go and b.go.  ", Usage: &fakellm.Usage{Input: 300, Output: 12}},
		fakellm.Turn{Text: "three"},
	), bsObserver(rec, nil))
	target, oldLeaf := bsSetup(h)
	st := h.rt.Session().Store()

	cancelled, err := h.rt.NavigateTree(context.Background(), target, ext.NavigateOptions{Summarize: true, Label: "checkpoint"})
	if err != nil || cancelled {
		t.Fatalf("navigateTree: cancelled=%v err=%v", cancelled, err)
	}
	// The preparation: the abandoned entries run from after the target (the common ancestor) to
	// the old leaf.
	if len(rec.before) != 1 {
		t.Fatalf("%d session_before_tree", len(rec.before))
	}
	p := rec.before[0]
	if p.TargetID != target || p.OldLeafID == nil || *p.OldLeafID != oldLeaf || p.CommonAncestorID == nil ||
		*p.CommonAncestorID != target || !p.UserWantsSummary || p.Label != "checkpoint" {
		t.Fatalf("preparation %+v", p)
	}
	if n := len(p.EntriesToSummarize); n != 7 || p.EntriesToSummarize[0].Role() != llm.RoleUser ||
		p.EntriesToSummarize[n-1].ID != oldLeaf {
		t.Fatalf("entriesToSummarize: %d entries", n)
	}

	// The summarizer request: the fixed system prompt, the transcript of the abandoned branch
	// and the default instructions.
	reqs := h.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	msgs := h.requestMessages(3)
	if msgs[0]["role"] != "system" || content(msgs[0]) != session.BranchSummarySystemPrompt {
		t.Fatalf("summarizer system prompt %v", msgs[0])
	}
	prompt := content(msgs[len(msgs)-1])
	if !strings.HasPrefix(prompt, "<transcript>\n[user]\nsecond\n[assistant]\n[tool call: read] {\"path\":\"src/a.go\"}") ||
		strings.Contains(prompt, "first") || !strings.HasSuffix(prompt, "[assistant]\ntwo\n</transcript>\n\n"+session.BranchSummaryInstructions) {
		t.Fatalf("summarizer prompt:\n%s", prompt)
	}

	// The entry: a child of the target, details from the tool calls, usage, labelled.
	bs := branchSummaries(st)
	if len(bs) != 1 {
		t.Fatalf("%d branch summaries", len(bs))
	}
	e := bs[0]
	if e.Summary != "Tried reading a.go and b.go." || e.Parent() != target || e.FromID != target ||
		e.FromHook == nil || *e.FromHook || e.Usage == nil || e.Usage.Input != 300 || e.Usage.Output != 12 {
		t.Fatalf("branch summary %+v", e)
	}
	var d session.BranchSummaryDetails
	if err := json.Unmarshal(e.Details, &d); err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.ReadFiles, ",") != "src/a.go" || strings.Join(d.ModifiedFiles, ",") != "src/b.go,src/c.go" {
		t.Fatalf("details %+v", d)
	}
	if st.Label(e.ID) != "checkpoint" || st.Label(target) != "" {
		t.Fatal("the label is not on the summary entry")
	}
	reopened, err := store.Open(st.SessionFile(), "")
	if err != nil {
		t.Fatal(err)
	}
	if re := reopened.Entry(e.ID); re == nil || re.Usage == nil || re.Usage.Input != 300 || string(re.Details) != string(e.Details) {
		t.Fatalf("persisted branch summary %+v", re)
	}
	if len(rec.trees) != 1 || rec.trees[0].SummaryEntry == nil || rec.trees[0].SummaryEntry.ID != e.ID ||
		rec.trees[0].FromExtension || *rec.trees[0].OldLeafID != oldLeaf || *rec.trees[0].NewLeafID != st.LeafID() {
		t.Fatalf("session_tree %+v", rec.trees)
	}

	// The agent context is rebuilt: first, one, the summary.
	ctxMsgs := h.rt.Session().Messages()
	if len(ctxMsgs) != 3 || ctxMsgs[2].Role != llm.RoleBranchSummary {
		t.Fatalf("context after the jump: %d messages", len(ctxMsgs))
	}
	h.prompt("third")
	next := h.requestMessages(4)
	var roles []string
	for _, m := range next {
		if m["role"] != "system" {
			roles = append(roles, m["role"].(string))
		}
	}
	if got := strings.Join(roles, ","); got != "user,assistant,user,user" {
		t.Fatalf("next request roles %s", got)
	}
	if got := content(next[len(next)-2]); got != agent.BranchSummaryPrefix+"Tried reading a.go and b.go."+agent.BranchSummarySuffix {
		t.Fatalf("branch summary message %q", got)
	}
	if content(next[len(next)-1]) != "third" || content(next[len(next)-3]) != "one" {
		t.Fatalf("next request %v", next)
	}
}

func TestNavigateTreeCustomInstructionsReachSummarizer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    ext.NavigateOptions
		answer  *ext.BeforeTreeResult
		want    string
		notWant string
	}{
		{name: "appended", opts: ext.NavigateOptions{Summarize: true, CustomInstructions: "Focus on error handling."},
			want: session.BranchSummaryInstructions + "\n\nAdditional instructions from the user:\nFocus on error handling."},
		{name: "replaced", opts: ext.NavigateOptions{Summarize: true, CustomInstructions: "One line only.", ReplaceInstructions: true},
			want: "</transcript>\n\nOne line only.", notWant: session.BranchSummaryInstructions},
		{name: "overridden by the extension", opts: ext.NavigateOptions{Summarize: true, CustomInstructions: "ignored"},
			answer: &ext.BeforeTreeResult{CustomInstructions: ptr("From the extension."), ReplaceInstructions: ptr(true), Label: ptr("ext-label")},
			want:   "</transcript>\n\nFrom the extension.", notWant: "ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &bsRec{}
			h := cpStart(t, bsTurns(fakellm.Turn{Text: "summary"}), bsObserver(rec, func(*ext.SessionBeforeTree) *ext.BeforeTreeResult { return tc.answer }))
			target, _ := bsSetup(h)
			if _, err := h.rt.NavigateTree(context.Background(), target, tc.opts); err != nil {
				t.Fatal(err)
			}
			msgs := h.requestMessages(3)
			prompt := content(msgs[len(msgs)-1])
			if !strings.HasSuffix(prompt, tc.want) || (tc.notWant != "" && strings.Contains(prompt, tc.notWant)) {
				t.Fatalf("summarizer prompt:\n%s", prompt)
			}
			if tc.answer != nil {
				st := h.rt.Session().Store()
				if bs := branchSummaries(st); len(bs) != 1 || st.Label(bs[0].ID) != "ext-label" {
					t.Fatal("the extension's label is not on the summary entry")
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestNavigateTreeExtensionSuppliedSummary(t *testing.T) {
	rec := &bsRec{}
	h := cpStart(t, bsTurns(fakellm.Turn{Text: "three"}), bsObserver(rec, func(*ext.SessionBeforeTree) *ext.BeforeTreeResult {
		return &ext.BeforeTreeResult{Summary: &ext.TreeSummary{Summary: "from the extension", Details: map[string]any{"k": 1}}}
	}))
	target, _ := bsSetup(h)
	if _, err := h.rt.NavigateTree(context.Background(), target, ext.NavigateOptions{Summarize: true}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Fatalf("%d requests: the summarizer ran although an extension supplied the summary", n)
	}
	st := h.rt.Session().Store()
	bs := branchSummaries(st)
	if len(bs) != 1 || bs[0].Summary != "from the extension" || bs[0].FromHook == nil || !*bs[0].FromHook ||
		bs[0].Usage != nil || string(bs[0].Details) != `{"k":1}` {
		t.Fatalf("branch summaries %+v", bs)
	}
	if len(rec.trees) != 1 || !rec.trees[0].FromExtension || rec.trees[0].SummaryEntry == nil {
		t.Fatalf("session_tree %+v", rec.trees)
	}
	h.prompt("third")
	next := h.requestMessages(3)
	if got := content(next[len(next)-2]); got != agent.BranchSummaryPrefix+"from the extension"+agent.BranchSummarySuffix {
		t.Fatalf("branch summary message %q", got)
	}

	// Without summarize the extension's summary is ignored: the leaf just moves.
	leafBefore := st.LeafID()
	if _, err := h.rt.NavigateTree(context.Background(), target, ext.NavigateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(branchSummaries(st)) != 1 || st.LeafID() != target || leafBefore == target {
		t.Fatal("an unrequested summary was written")
	}
}

func TestNavigateTreeCancelledByExtension(t *testing.T) {
	rec := &bsRec{}
	h := cpStart(t, bsTurns(), bsObserver(rec, func(*ext.SessionBeforeTree) *ext.BeforeTreeResult {
		return &ext.BeforeTreeResult{Cancel: true, Summary: &ext.TreeSummary{Summary: "unused"}}
	}))
	target, oldLeaf := bsSetup(h)
	st := h.rt.Session().Store()
	entries, msgs := len(st.Entries()), len(h.rt.Session().Messages())
	cancelled, err := h.rt.NavigateTree(context.Background(), target, ext.NavigateOptions{Summarize: true, Label: "x"})
	if err != nil || !cancelled {
		t.Fatalf("cancelled=%v err=%v", cancelled, err)
	}
	if st.LeafID() != oldLeaf || len(st.Entries()) != entries || len(h.rt.Session().Messages()) != msgs ||
		len(h.srv.Requests()) != 3 || len(rec.trees) != 0 {
		t.Fatal("a cancelled navigation changed the session")
	}
}

func TestNavigateTreeSummarizerFailureKeepsLeaf(t *testing.T) {
	rec := &bsRec{}
	h := cpStart(t, bsTurns(fakellm.Turn{Error: &fakellm.APIError{Status: 400, Message: "summarizer exploded"}}), bsObserver(rec, nil))
	target, oldLeaf := bsSetup(h)
	st := h.rt.Session().Store()
	entries, msgs := len(st.Entries()), len(h.rt.Session().Messages())
	cancelled, err := h.rt.NavigateTree(context.Background(), target, ext.NavigateOptions{Summarize: true, Label: "x"})
	if err == nil || cancelled || !strings.Contains(err.Error(), "summarizer exploded") {
		t.Fatalf("cancelled=%v err=%v", cancelled, err)
	}
	if st.LeafID() != oldLeaf || len(st.Entries()) != entries || len(h.rt.Session().Messages()) != msgs || len(rec.trees) != 0 {
		t.Fatal("a failed summarizer changed the session")
	}
}

func TestNavigateTreeWithoutSummaryLabelsTarget(t *testing.T) {
	rec := &bsRec{}
	h := cpStart(t, bsTurns(), bsObserver(rec, nil))
	target, _ := bsSetup(h)
	st := h.rt.Session().Store()
	if _, err := h.rt.NavigateTree(context.Background(), target, ext.NavigateOptions{Label: "here"}); err != nil {
		t.Fatal(err)
	}
	if len(h.srv.Requests()) != 3 || len(branchSummaries(st)) != 0 || st.Label(target) != "here" {
		t.Fatal("navigation without summarize ran the summarizer or missed the label")
	}
	if len(rec.trees) != 1 || rec.trees[0].SummaryEntry != nil || rec.trees[0].FromExtension {
		t.Fatalf("session_tree %+v", rec.trees)
	}
	if got := len(h.rt.Session().Messages()); got != 2 {
		t.Fatalf("context after the jump: %d messages", got)
	}
}

func TestBranchSummaryPromptKeepsNewestLinesWithinBudget(t *testing.T) {
	var msgs []llm.Message
	for i := 0; i < 50; i++ {
		msgs = append(msgs, llm.UserText(strings.Repeat("x", 39), nil, 0)) // "[user]" + 39 bytes: 47 bytes with newlines
	}
	msgs = append(msgs, llm.UserText("newest", nil, 0))
	p := session.BranchSummaryPrompt(msgs, "", false, 25) // 100 bytes of transcript
	if !strings.HasPrefix(p, "<transcript>\n(") || !strings.Contains(p, "earlier lines omitted)\n") ||
		!strings.Contains(p, "[user]\nnewest\n</transcript>") {
		t.Fatalf("prompt:\n%s", p)
	}
	if full := session.BranchSummaryPrompt(msgs, "", false, 0); strings.Contains(full, "omitted") {
		t.Fatal("no budget still omitted lines")
	}
}
