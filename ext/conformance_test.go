package ext

// Conformance of the runner with events.md, one subtest per row of Table: load order, payload
// fields and their JSON names, the combine rule (§3, §4), the error policy (§1.4), awaiting
// (§1.2) and pre-bind buffers (§1.6). Every row runs the generic suite of row[R, E, PE]; rows
// whose combine rule is not a notification add a few lines of their own (combine). The names
// covered must equal the table's names, so a new row without a conformance entry fails.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// ---------------------------------------------------------------------------------------------
// Harness

// harness is a runner with two extensions, ext-a and ext-b, loaded in that order, recording the
// errors its OnError listener receives.
type harness struct {
	r    *Runner
	apis map[string]API
	mu   sync.Mutex
	errs []*Error
}

func newHarness(t *testing.T, a, b Factory) *harness {
	t.Helper()
	h := &harness{r: NewRunner(nil), apis: map[string]API{}}
	h.r.OnError(func(e *Error) {
		h.mu.Lock()
		h.errs = append(h.errs, e)
		h.mu.Unlock()
	})
	wrap := func(path string, f Factory) Factory {
		return func(api API) error {
			h.apis[path] = api
			if f == nil {
				return nil
			}
			return f(api)
		}
	}
	if errs := h.r.Load(nil, []string{"ext-a", "ext-b"}, []Factory{wrap("ext-a", a), wrap("ext-b", b)}); len(errs) > 0 {
		t.Fatal(errs)
	}
	return h
}

func (h *harness) errors() []*Error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*Error(nil), h.errs...)
}

// wantErrors checks the reported errors: one per wanted extension path, each for event and with
// a message containing substr.
func (h *harness) wantErrors(t *testing.T, event, substr string, paths ...string) {
	t.Helper()
	errs := h.errors()
	var got []string
	for _, e := range errs {
		got = append(got, e.ExtensionPath)
		if e.Event != event || !strings.Contains(e.Message, substr) || e.Err == nil || e.Message != e.Err.Error() {
			t.Errorf("reported %+v, want event %q and a message containing %q", e, event, substr)
		}
	}
	if !slices.Equal(got, paths) {
		t.Errorf("errors reported for %v, want %v", got, paths)
	}
}

// onAll subscribes every fn, in order.
func onAll[R any, E any, PE interface {
	*E
	Event[R]
}](fns ...func(Context, PE) (R, error)) Factory {
	return func(api API) error {
		for _, fn := range fns {
			On[R, E, PE](api, fn)
		}
		return nil
	}
}

// recorder collects handler tags; handlers may run on the notification goroutine.
type recorder struct {
	mu  sync.Mutex
	got []string
	// unordered: the row runs its handlers concurrently (session_shutdown), so String sorts.
	unordered bool
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func (r *recorder) String() string {
	l := r.list()
	if r.unordered {
		sort.Strings(l)
	}
	return strings.Join(l, ",")
}

// expect is the recorder string a row should produce: sorted for concurrent rows.
func expect(spec *Spec, want string) string {
	if !spec.Concurrent {
		return want
	}
	l := strings.Split(want, ",")
	sort.Strings(l)
	return strings.Join(l, ",")
}

func ptr[T any](v T) *T { return &v }

// ---------------------------------------------------------------------------------------------
// The generic suite

// conf is one conformance entry.
type conf struct {
	name string
	run  func(t *testing.T)
	// hasCombine and hasVary say whether the entry brings its own combine check and a payload
	// variation (needed by buffered rows).
	hasCombine, hasVary bool
}

// rowDef describes one row's test data.
type rowDef[E any] struct {
	// full sets every field of the payload (checked), so every JSON key is written.
	full E
	// keys are the JSON names events.md gives the payload's fields; nested pins the keys of
	// object-valued fields.
	keys   []string
	nested map[string][]string
	// vary returns the i-th distinct payload (buffered rows).
	vary func(e E, i int) E
	// combine checks the row's combine rule; nil for notifications (a generic check runs).
	combine func(t *testing.T)
}

// row builds the conformance entry of event name from its payload type E and result type R.
func row[R any, E any, PE interface {
	*E
	Event[R]
}](name string, d rowDef[E]) conf {
	return conf{
		name:       name,
		run:        func(t *testing.T) { runRow[R, E, PE](t, name, d) },
		hasCombine: d.combine != nil,
		hasVary:    d.vary != nil,
	}
}

func runRow[R any, E any, PE interface {
	*E
	Event[R]
}](t *testing.T, name string, d rowDef[E]) {
	spec, ok := Lookup(name)
	if !ok || spec.Name != name {
		t.Fatalf("no table row named %q", name)
	}
	var probe PE
	if probe.eventID() != spec.ID {
		t.Fatalf("%T is the payload of %s, not %s", probe, Table[probe.eventID()].Name, name)
	}
	if spec.Payload != reflect.TypeFor[E]() {
		t.Fatalf("row payload %v, test payload %v", spec.Payload, reflect.TypeFor[E]())
	}
	if rt := reflect.TypeFor[R](); spec.Result == nil && rt != reflect.TypeFor[None]() ||
		spec.Result != nil && rt != reflect.PointerTo(spec.Result) {
		t.Fatalf("row result %v, handlers return %v", spec.Result, rt)
	}
	ctx := context.Background()
	emit := func(r *Runner, e E) (E, R, error) { return Emit[R, E, PE](r, ctx, e) }

	// tagged returns a handler that records tag and checks it got the payload the emitter set.
	tagged := func(t *testing.T, rec *recorder, tag string) func(Context, PE) (R, error) {
		return func(_ Context, e PE) (R, error) {
			zero := neutral[R]()
			if !reflect.DeepEqual(*e, d.full) {
				t.Errorf("%s received %+v, the emitter set %+v", tag, *e, d.full)
			}
			rec.add(tag)
			return zero, nil
		}
	}

	t.Run("payload", func(t *testing.T) {
		checkAllSet(t, reflect.ValueOf(d.full), reflect.TypeFor[E]().Name())
		b, err := json.Marshal(d.full)
		if err != nil {
			t.Fatal(err)
		}
		checkKeys(t, "payload", b, d.keys)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Fatal(err)
		}
		for field, keys := range d.nested {
			checkKeys(t, field, obj[field], keys)
		}
		var doc []string
		for _, f := range fieldsOf(spec.Payload) {
			doc = append(doc, f.Name)
		}
		if !sameSet(doc, d.keys) {
			t.Errorf("TableJSON lists payload fields %v, want %v", doc, d.keys)
		}
		// The pointer a handler receives encodes the same way.
		rec := &recorder{unordered: spec.Concurrent}
		h := newHarness(t, onAll(func(_ Context, e PE) (R, error) {
			zero := neutral[R]()
			got, err := json.Marshal(e)
			if err != nil || string(got) != string(b) {
				t.Errorf("handler payload encodes as %s (%v), want %s", got, err, b)
			}
			rec.add("a")
			return zero, nil
		}), nil)
		h.r.Bind()
		emit(h.r, d.full)
		h.r.Drain()
		if rec.String() != expect(spec, "a") {
			t.Fatalf("delivered %v", rec.list())
		}
	})

	t.Run("order", func(t *testing.T) {
		rec := &recorder{unordered: spec.Concurrent}
		h := newHarness(t, onAll(tagged(t, rec, "a1"), tagged(t, rec, "a2")), onAll(tagged(t, rec, "b1")))
		// Registered after ext-b loaded: load order still puts it before ext-b's handler.
		On[R, E, PE](h.apis["ext-a"], tagged(t, rec, "a3"))
		h.r.Bind()
		want := []string{"a1", "a2", "a3", "b1"}
		for i := range 2 {
			emit(h.r, d.full)
			if !spec.Awaited {
				h.r.Drain()
			}
			got := rec.list()
			if len(got) != 4*(i+1) {
				t.Fatalf("after emit %d: delivered %v", i+1, got)
			}
			got = got[4*i:]
			if name == "session_shutdown" {
				// events.md §4 row 6: shutdown handlers run concurrently; only the set is fixed.
				sort.Strings(got)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("emit %d ran %v, want %v", i+1, got, want)
			}
		}
		if errs := h.errors(); len(errs) > 0 {
			t.Fatalf("unexpected errors %v", errs)
		}
	})

	failing := func(t *testing.T, panics bool) {
		rec := &recorder{unordered: spec.Concurrent}
		bad := func(_ Context, e PE) (R, error) {
			zero := neutral[R]()
			rec.add("a1")
			if panics {
				panic("boom")
			}
			return zero, errors.New("boom")
		}
		h := newHarness(t, onAll(bad, tagged(t, rec, "a2")), onAll(tagged(t, rec, "b1")))
		h.r.Bind()
		_, _, err := emit(h.r, d.full)
		h.r.Drain()
		h.wantErrors(t, name, "boom", "ext-a")
		if panics && !strings.Contains(h.errors()[0].Message, "panic") {
			t.Errorf("a panic is reported as %q", h.errors()[0].Message)
		}
		switch spec.Errors {
		case Isolate:
			if err != nil || rec.String() != expect(spec, "a1,a2,b1") {
				t.Fatalf("isolate: Emit error %v, ran %v (want a1,a2,b1)", err, rec.list())
			}
		case FailClosed:
			if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "ext-a") || !strings.Contains(err.Error(), "boom") {
				t.Fatalf("fail-closed: Emit error %v, want one wrapping ErrBlocked naming ext-a", err)
			}
			if rec.String() != expect(spec, "a1") {
				t.Fatalf("fail-closed: ran %v after the failure", rec.list())
			}
		}
	}
	t.Run("error", func(t *testing.T) { failing(t, false) })
	t.Run("panic", func(t *testing.T) { failing(t, true) })

	t.Run("awaiting", func(t *testing.T) {
		rec := &recorder{unordered: spec.Concurrent}
		gate := make(chan struct{})
		blocked := func(_ Context, e PE) (R, error) {
			zero := neutral[R]()
			<-gate
			rec.add("a1")
			return zero, nil
		}
		h := newHarness(t, onAll(blocked), onAll(tagged(t, rec, "b1")))
		h.r.Bind()
		done := make(chan struct{})
		go func() {
			emit(h.r, d.full)
			emit(h.r, d.full)
			close(done)
		}()
		if spec.Awaited {
			select {
			case <-done:
				t.Fatal("an awaited Emit returned while its handler was still running")
			case <-time.After(20 * time.Millisecond):
			}
			close(gate)
			<-done
			if rec.String() != expect(spec, "a1,b1,a1,b1") {
				t.Fatalf("delivered %v by the time Emit returned", rec.list())
			}
			return
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("a fire-and-forget Emit waited for its handlers")
		}
		if got := rec.list(); len(got) != 0 {
			t.Fatalf("delivered %v before the handler was released", got)
		}
		close(gate)
		h.r.Drain()
		if rec.String() != expect(spec, "a1,b1,a1,b1") {
			t.Fatalf("delivered %v after Drain, want a1,b1,a1,b1", rec.list())
		}
	})

	t.Run("binding", func(t *testing.T) {
		if spec.Buffer == 0 {
			// Not buffered: delivered to the subscribed handlers whether bound or not.
			rec := &recorder{unordered: spec.Concurrent}
			h := newHarness(t, onAll(tagged(t, rec, "a1")), onAll(tagged(t, rec, "b1")))
			emit(h.r, d.full)
			h.r.Drain()
			if rec.String() != expect(spec, "a1,b1") {
				t.Fatalf("unbound runner delivered %v", rec.list())
			}
			return
		}
		if d.vary == nil {
			t.Fatal("a buffered row needs vary")
		}
		rec := &recorder{unordered: spec.Concurrent}
		record := func(tag string) func(Context, PE) (R, error) {
			return func(_ Context, e PE) (R, error) {
				zero := neutral[R]()
				b, _ := json.Marshal(e)
				rec.add(tag + string(b))
				return zero, nil
			}
		}
		h := newHarness(t, onAll(record("a")), nil)
		n := spec.Buffer + 5
		for i := range n {
			emit(h.r, d.vary(d.full, i))
		}
		// A handler subscribed before Bind receives the buffered events too.
		On[R, E, PE](h.apis["ext-b"], record("b"))
		h.r.Drain()
		if got := rec.list(); len(got) != 0 {
			t.Fatalf("delivered %d events before Bind", len(got))
		}
		h.r.Bind()
		h.r.Drain()
		var want []string
		for i := n - spec.Buffer; i < n; i++ { // drop-oldest: the newest Buffer remain, in order
			b, _ := json.Marshal(d.vary(d.full, i))
			want = append(want, "a"+string(b), "b"+string(b))
		}
		if got := rec.list(); !slices.Equal(got, want) {
			t.Fatalf("after Bind delivered %d events:\n%v\nwant the newest %d:\n%v", len(got), got, spec.Buffer, want)
		}
		// Once bound, events are no longer buffered.
		emit(h.r, d.vary(d.full, n))
		h.r.Drain()
		if got := rec.list(); len(got) != len(want)+2 {
			t.Fatalf("after binding an event delivered %d times", len(got)-len(want))
		}
	})

	t.Run("combine", func(t *testing.T) {
		if d.combine != nil {
			d.combine(t)
			return
		}
		if spec.Combine != Notify {
			t.Fatalf("row combines by %v and needs its own combine check", spec.Combine)
		}
		// Notification: results are ignored, the payload is unchanged, every handler runs.
		rec := &recorder{unordered: spec.Concurrent}
		answer := func(_ Context, e PE) (R, error) {
			rec.add("a1")
			return reflect.New(reflect.TypeFor[R]().Elem()).Interface().(R), nil
		}
		h := newHarness(t, onAll(answer), onAll(tagged(t, rec, "b1")))
		h.r.Bind()
		out, res, err := emit(h.r, d.full)
		h.r.Drain()
		if err != nil || !reflect.ValueOf(&res).Elem().IsZero() || !reflect.DeepEqual(out, d.full) || rec.String() != expect(spec, "a1,b1") {
			t.Fatalf("notify: err=%v res=%v payload changed=%v ran=%v", err, res, !reflect.DeepEqual(out, d.full), rec.list())
		}
	})
}

// neutral is the result a handler returns to change nothing: nil, except for project_trust, whose
// handlers must answer (undecided passes the decision on).
func neutral[R any]() R {
	var zero R
	if _, ok := any(zero).(*ProjectTrustResult); ok {
		return any(&ProjectTrustResult{Trusted: "undecided"}).(R)
	}
	return zero
}

// checkAllSet fails for every exported, JSON-visible field of v left at its zero value.
func checkAllSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		if f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct {
			checkAllSet(t, v.Field(i), path)
			continue
		}
		if v.Field(i).IsZero() {
			t.Errorf("test payload leaves %s.%s unset", path, f.Name)
		}
	}
}

// checkKeys compares the keys of the JSON object b with want.
func checkKeys(t *testing.T, what string, b []byte, want []string) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatalf("%s: %s is not an object: %v", what, b, err)
	}
	var got []string
	for k := range obj {
		got = append(got, k)
	}
	if !sameSet(got, want) {
		sort.Strings(got)
		t.Errorf("%s JSON keys %v, events.md gives %v", what, got, want)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}

// ---------------------------------------------------------------------------------------------
// Test data

var (
	tMsg       = &llm.Message{Role: "user", Content: []llm.Content{llm.Text("hi")}, Timestamp: 1}
	tAssistant = &llm.Message{Role: "assistant", Content: []llm.Content{llm.Text("hello")}, Timestamp: 2}
	tEntry     = &store.Entry{Type: "custom", ID: "abcd1234", Timestamp: "2026-01-01T00:00:00.000Z", CustomType: "note", Data: json.RawMessage(`{"a":1}`)}
	tImages    = []llm.Content{llm.Image("aGk=", "image/png")}
	tStatus    = CompactionStatus{Reason: "threshold", Action: "context-full", MidTurn: true, Result: map[string]any{"tokensBefore": 10},
		Aborted: true, WillRetry: true, ErrorMessage: "e", Skipped: true, UnresolvedOverflow: true}
	tStatusKeys  = []string{"reason", "action", "midTurn", "result", "aborted", "willRetry", "errorMessage", "skipped", "unresolvedOverflow"}
	tLifecycle   = WorkflowLifecycle{Target: map[string]any{"kind": "stage"}, Status: "completed", PreviousStatus: "running", EventID: "ev1", Cursor: WorkflowCursor{Epoch: 1, Revision: 2}, Delivery: "live", Action: "run"}
	tLifeKeys    = []string{"target", "status", "previousStatus", "eventId", "cursor", "delivery", "action"}
	tCursorKeys  = map[string][]string{"cursor": {"epoch", "revision"}}
	tParameters  = CompactionParameters{CompressionRatio: 0.5, PreserveRecent: 4, Query: "q"}
	tParamKeys   = []string{"compression_ratio", "preserve_recent", "query"}
	tUIPrompt    = UIPrompt{Reason: "ui_prompt", Kind: "confirm", Title: "Sure?"}
	tUIKeys      = []string{"reason", "kind", "title"}
	tPrevSession = "/sessions/old.jsonl"
)

// conformance is the table of conformance entries, one per event row.
func conformance() []conf {
	return []conf{
		// §3.1 Startup, trust, resources
		row[*ProjectTrustResult]("project_trust", rowDef[ProjectTrust]{
			full: ProjectTrust{Cwd: "/proj"}, keys: []string{"cwd"}, combine: combineProjectTrust}),
		row[*SessionDirectoryResult]("session_directory", rowDef[SessionDirectory]{
			full: SessionDirectory{Cwd: "/proj"}, keys: []string{"cwd"}, combine: combineSessionDirectory}),
		row[*ResourcesDiscoverResult]("resources_discover", rowDef[ResourcesDiscover]{
			full: ResourcesDiscover{Cwd: "/proj", Reason: "startup"}, keys: []string{"cwd", "reason"}, combine: combineResourcesDiscover}),
		// §3.2 Session lifecycle
		row[None]("session_start", rowDef[SessionStart]{
			full: SessionStart{Reason: "resume", PreviousSessionFile: tPrevSession}, keys: []string{"reason", "previousSessionFile"}}),
		row[None]("session_info_changed", rowDef[SessionInfoChanged]{
			full: SessionInfoChanged{Name: ptr("refactor")}, keys: []string{"name"}}),
		row[*CancelResult]("session_before_switch", rowDef[SessionBeforeSwitch]{
			full: SessionBeforeSwitch{Reason: "resume", TargetSessionFile: "/sessions/t.jsonl"}, keys: []string{"reason", "targetSessionFile"}, combine: combineBeforeSwitch}),
		row[None]("session_switch", rowDef[SessionSwitch]{
			full: SessionSwitch{Reason: "new", PreviousSessionFile: tPrevSession}, keys: []string{"reason", "previousSessionFile"}}),
		row[*SessionBeforeForkResult]("session_before_fork", rowDef[SessionBeforeFork]{
			full: SessionBeforeFork{EntryID: "e1", Position: "at"}, keys: []string{"entryId", "position"}, combine: combineBeforeFork}),
		row[None]("session_fork", rowDef[SessionFork]{
			full: SessionFork{PreviousSessionFile: tPrevSession}, keys: []string{"previousSessionFile"}}),
		row[None]("session_branch", rowDef[SessionBranch]{
			full: SessionBranch{PreviousSessionFile: tPrevSession}, keys: []string{"previousSessionFile"}}),
		row[None]("session_shutdown", rowDef[SessionShutdown]{
			full: SessionShutdown{Reason: "resume", TargetSessionFile: "/sessions/t.jsonl"}, keys: []string{"reason", "targetSessionFile"}}),
		// §3.3 Compaction and tree
		row[*BeforeCompactResult]("session_before_compact", rowDef[SessionBeforeCompact]{
			full: SessionBeforeCompact{Reason: "manual", Parameters: tParameters,
				Preparation: CompactionPreparation{Region: CompactionRegion{Lines: []string{"l1"}}, Lines: []string{"l1"}, FirstKeptEntryID: ptr("e9"), TokensBefore: 1000,
					MessagesToSummarize: []llm.Message{*tMsg}, TurnPrefixMessages: []llm.Message{*tMsg}, IsSplitTurn: true, PreviousSummary: "before",
					FileOps:  CompactionFileOps{Read: []string{"a.go"}, Written: []string{"b.go"}, Edited: []string{"c.go"}},
					Settings: CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20}},
				BranchEntries: []*store.Entry{tEntry}, CustomInstructions: "keep code"},
			keys: []string{"reason", "parameters", "preparation", "branchEntries", "customInstructions"},
			// events.md writes the A preparation as region.lines; the flat lines of earlier
			// payloads stay beside it, and pi's CompactionPreparation fields (P) join them.
			nested: map[string][]string{"parameters": tParamKeys, "preparation": {"region", "lines", "firstKeptEntryId", "tokensBefore",
				"messagesToSummarize", "turnPrefixMessages", "isSplitTurn", "previousSummary", "fileOps", "settings"}},
			combine: combineBeforeCompact}),
		row[*SessionCompactingResult]("session.compacting", rowDef[SessionCompacting]{
			full: SessionCompacting{SessionID: "s1", Messages: []llm.Message{*tMsg}}, keys: []string{"sessionId", "messages"}, combine: combineCompacting}),
		row[None]("session_compact", rowDef[SessionCompact]{
			full: SessionCompact{Reason: "manual", Parameters: tParameters, Result: map[string]any{"rung": "extension"}, CompactionEntry: tEntry, FromExtension: true},
			keys: []string{"reason", "parameters", "result", "compactionEntry", "fromExtension"}, nested: map[string][]string{"parameters": tParamKeys}}),
		row[None]("session_compact_failed", rowDef[SessionCompactFailed]{
			full: SessionCompactFailed{Reason: "overflow", ErrorMessage: "e", Aborted: true, WillRetry: true, FromExtension: true},
			keys: []string{"reason", "errorMessage", "aborted", "willRetry", "fromExtension"}}),
		row[None]("compaction_start", rowDef[CompactionStart]{full: CompactionStart{tStatus}, keys: tStatusKeys}),
		row[None]("compaction_end", rowDef[CompactionEnd]{full: CompactionEnd{tStatus}, keys: tStatusKeys}),
		row[None]("auto_compaction_start", rowDef[AutoCompactionStart]{full: AutoCompactionStart{tStatus}, keys: tStatusKeys}),
		row[None]("auto_compaction_end", rowDef[AutoCompactionEnd]{full: AutoCompactionEnd{tStatus}, keys: tStatusKeys}),
		row[*BeforeTreeResult]("session_before_tree", rowDef[SessionBeforeTree]{
			full: SessionBeforeTree{Preparation: TreePreparation{TargetID: "t", OldLeafID: ptr("o"), CommonAncestorID: ptr("c"),
				EntriesToSummarize: []*store.Entry{tEntry}, UserWantsSummary: true, CustomInstructions: "ci", ReplaceInstructions: true, Label: "l"}},
			keys: []string{"preparation"},
			nested: map[string][]string{"preparation": {"targetId", "oldLeafId", "commonAncestorId", "entriesToSummarize", "userWantsSummary",
				"customInstructions", "replaceInstructions", "label"}},
			combine: combineBeforeTree}),
		row[None]("session_tree", rowDef[SessionTree]{
			full: SessionTree{NewLeafID: ptr("n"), OldLeafID: ptr("o"), SummaryEntry: tEntry, FromExtension: true},
			keys: []string{"newLeafId", "oldLeafId", "summaryEntry", "fromExtension"}}),
		// §3.4 Prompt and provider
		row[*InputResult]("input", rowDef[Input]{
			full: Input{Text: "hello", Images: tImages, Source: "interactive", StreamingBehavior: "steer"},
			keys: []string{"text", "images", "source", "streamingBehavior"}, combine: combineInput}),
		row[*BeforeAgentStartResult]("before_agent_start", rowDef[BeforeAgentStart]{
			full: BeforeAgentStart{Prompt: "p", Images: tImages, SystemPrompt: "base", SystemPromptOptions: SystemPromptOptions{
				CustomPrompt: "c", SelectedTools: []string{"read"}, ToolSnippets: map[string]string{"read": "Read files"},
				PromptGuidelines: []string{"g"}, AppendSystemPrompt: "a", Cwd: "/proj", ContextFiles: []PromptContextFile{{Path: "/proj/AGENTS.md", Content: "c"}}, Skills: []PromptSkill{{Name: "s", Description: "d", FilePath: "/s/SKILL.md", BaseDir: "/s"}}}},
			keys: []string{"prompt", "images", "systemPrompt", "systemPromptOptions"},
			nested: map[string][]string{"systemPromptOptions": {"customPrompt", "selectedTools", "toolSnippets", "promptGuidelines",
				"appendSystemPrompt", "cwd", "contextFiles", "skills"}},
			combine: combineBeforeAgentStart}),
		row[*ContextResult]("context", rowDef[ContextEvent]{
			full: ContextEvent{Messages: []llm.Message{*tMsg}}, keys: []string{"messages"}, combine: combineContext}),
		row[None]("before_provider_headers", rowDef[BeforeProviderHeaders]{
			full: BeforeProviderHeaders{Headers: map[string]string{"x-a": "1"}, Provider: "anthropic", ModelID: "m"},
			keys: []string{"headers", "provider", "modelId"}, combine: combineProviderHeaders}),
		row[*PayloadResult]("before_provider_request", rowDef[BeforeProviderRequest]{
			full: BeforeProviderRequest{Payload: map[string]any{"model": "m"}}, keys: []string{"payload"}, combine: combineProviderRequest}),
		row[None]("provider_request", rowDef[ProviderRequest]{
			full: ProviderRequest{PayloadJSON: `{"model":"m"}`, Provider: "anthropic", ModelID: "m"}, keys: []string{"payloadJson", "provider", "modelId"}}),
		row[None]("after_provider_response", rowDef[AfterProviderResponse]{
			full: AfterProviderResponse{Status: 200, Headers: map[string]string{"x-request-id": "r"}, RequestID: "r", Metadata: map[string]any{"k": "v"}},
			keys: []string{"status", "headers", "requestId", "metadata"}}),
		// §3.5 Agent, turn and message
		row[None]("agent_start", rowDef[AgentStart]{keys: []string{}}),
		row[None]("agent_end", rowDef[AgentEnd]{
			full: AgentEnd{Messages: []llm.Message{*tMsg}, WillContinue: true}, keys: []string{"messages", "willContinue"}}),
		row[None]("agent_settled", rowDef[AgentSettled]{keys: []string{}}),
		row[*SessionStopResult]("session_stop", rowDef[SessionStop]{
			full:    SessionStop{Messages: []llm.Message{*tMsg}, TurnID: 3, LastAssistantMessage: tAssistant, SessionID: "s1", SessionFile: "/s.jsonl", StopHookActive: true},
			keys:    []string{"messages", "turn_id", "last_assistant_message", "session_id", "session_file", "stop_hook_active"},
			combine: combineSessionStop}),
		row[None]("turn_start", rowDef[TurnStart]{full: TurnStart{TurnIndex: 1, Timestamp: 1700000000000}, keys: []string{"turnIndex", "timestamp"}}),
		row[None]("turn_end", rowDef[TurnEnd]{
			full: TurnEnd{TurnIndex: 1, Message: tAssistant, ToolResults: []llm.Message{{Role: "toolResult", ToolCallID: "c1", ToolName: "read", Content: []llm.Content{llm.Text("ok")}}}},
			keys: []string{"turnIndex", "message", "toolResults"}}),
		row[None]("message_start", rowDef[MessageStart]{full: MessageStart{Message: tMsg}, keys: []string{"message"}}),
		row[None]("message_update", rowDef[MessageUpdate]{
			full: MessageUpdate{AssistantMessageEvent: &llm.Event{Type: "text_delta", Delta: "x"}, Message: tAssistant},
			keys: []string{"assistantMessageEvent", "message"}}),
		row[*MessageEndResult]("message_end", rowDef[MessageEnd]{full: MessageEnd{Message: tAssistant}, keys: []string{"message"}, combine: combineMessageEnd}),
		// §3.6 Tools
		row[None]("tool_execution_start", rowDef[ToolExecutionStart]{
			full: ToolExecutionStart{ToolCallID: "c1", ToolName: "read", Args: map[string]any{"path": "a"}, Intent: "look"},
			keys: []string{"toolCallId", "toolName", "args", "intent"}}),
		row[*ToolCallResult]("tool_call", rowDef[ToolCall]{
			full: ToolCall{ToolCallID: "c1", ToolName: "read", Input: map[string]any{"path": "a"}},
			keys: []string{"toolCallId", "toolName", "input"}, combine: combineToolCall}),
		row[None]("tool_execution_update", rowDef[ToolExecutionUpdate]{
			full: ToolExecutionUpdate{ToolCallID: "c1", ToolName: "bash", Args: map[string]any{"command": "ls"}, PartialResult: &ToolOutput{Content: []llm.Content{llm.Text("partial")}}},
			keys: []string{"toolCallId", "toolName", "args", "partialResult"}}),
		row[*ToolResultPatch]("tool_result", rowDef[ToolResult]{
			full: ToolResult{ToolCallID: "c1", ToolName: "read", Input: map[string]any{"path": "a"}, Content: []llm.Content{llm.Text("orig")}, Details: "d", IsError: true},
			keys: []string{"toolCallId", "toolName", "input", "content", "details", "isError"}, combine: combineToolResult}),
		row[None]("tool_execution_end", rowDef[ToolExecutionEnd]{
			full: ToolExecutionEnd{ToolCallID: "c1", ToolName: "read", Result: &ToolOutput{Content: []llm.Content{llm.Text("r")}}, IsError: true}, keys: []string{"toolCallId", "toolName", "result", "isError"}}),
		row[None]("tool_approval_requested", rowDef[ToolApprovalRequested]{
			full: ToolApprovalRequested{SessionID: "s", ToolCallID: "c1", ToolName: "bash", Reason: "r", ApprovalMode: "ask"},
			keys: []string{"sessionId", "toolCallId", "toolName", "reason", "approvalMode"}}),
		row[None]("tool_approval_resolved", rowDef[ToolApprovalResolved]{
			full: ToolApprovalResolved{SessionID: "s", ToolCallID: "c1", ToolName: "bash", Approved: true, Reason: "r"},
			keys: []string{"sessionId", "toolCallId", "toolName", "approved", "reason"}}),
		// §3.7 Model
		row[None]("model_select", rowDef[ModelSelect]{
			full: ModelSelect{Model: &llm.Model{ID: "m2"}, PreviousModel: &llm.Model{ID: "m1"}, Source: "fallback"}, keys: []string{"model", "previousModel", "source"}}),
		row[None]("thinking_level_select", rowDef[ThinkingLevelSelect]{
			full: ThinkingLevelSelect{Level: "high", PreviousLevel: "low"}, keys: []string{"level", "previousLevel"}}),
		// §3.8 Reliability and domain notices
		row[None]("auto_retry_start", rowDef[AutoRetryStart]{
			full: AutoRetryStart{Attempt: 1, MaxAttempts: 3, DelayMs: 500, ErrorMessage: "overloaded", ErrorID: "e1"},
			keys: []string{"attempt", "maxAttempts", "delayMs", "errorMessage", "errorId"}}),
		row[None]("auto_retry_end", rowDef[AutoRetryEnd]{
			full: AutoRetryEnd{Success: true, Attempt: 2, FinalError: "f", RetryErrors: []RetryError{{EntryID: "e", PersistenceKey: "k", Note: "n", RetryRecovery: "r"}}},
			keys: []string{"success", "attempt", "finalError", "retryErrors"}}),
		row[None]("retry_fallback_applied", rowDef[RetryFallbackApplied]{
			full: RetryFallbackApplied{From: "a", To: "b", Role: "default"}, keys: []string{"from", "to", "role"}}),
		row[None]("retry_fallback_succeeded", rowDef[RetryFallbackSucceeded]{
			full: RetryFallbackSucceeded{Model: "b", Role: "default"}, keys: []string{"model", "role"}}),
		row[None]("ttsr_triggered", rowDef[TTSRTriggered]{full: TTSRTriggered{Rules: []any{"r1"}}, keys: []string{"rules"}}),
		row[None]("todo_reminder", rowDef[TodoReminder]{
			full: TodoReminder{Todos: []any{"t1"}, Attempt: 1, MaxAttempts: 3}, keys: []string{"todos", "attempt", "maxAttempts"}}),
		row[None]("goal_updated", rowDef[GoalUpdated]{full: GoalUpdated{Goal: "ship", State: "active"}, keys: []string{"goal", "state"}}),
		row[None]("credential_disabled", rowDef[CredentialDisabled]{
			full: CredentialDisabled{Provider: "anthropic", DisabledCause: "invalid_grant"}, keys: []string{"provider", "disabledCause"},
			vary: func(e CredentialDisabled, i int) CredentialDisabled { e.Provider = fmt.Sprint("p", i); return e }}),
		// §3.9 User execution and MCP
		row[*UserExecResult]("user_bash", rowDef[UserBash]{
			full: UserBash{Command: "ls", Cwd: "/proj", ExcludeFromContext: true}, keys: []string{"command", "cwd", "excludeFromContext"},
			combine: func(t *testing.T) { combineUserExec(t, "user_bash", UserBash{Command: "ls"}) }}),
		row[*UserExecResult]("user_python", rowDef[UserPython]{
			full: UserPython{Code: "1+1", Cwd: "/proj", ExcludeFromContext: true}, keys: []string{"code", "cwd", "excludeFromContext"},
			combine: func(t *testing.T) { combineUserExec(t, "user_python", UserPython{Code: "1+1"}) }}),
		row[None]("mcp_notification", rowDef[MCPNotification]{
			full: MCPNotification{Server: "srv", Method: "notifications/progress", Params: map[string]any{"p": 1}}, keys: []string{"server", "method", "params"},
			vary: func(e MCPNotification, i int) MCPNotification { e.Method = fmt.Sprint("m", i); return e }}),
		// §3.10 Host, UI and workflow
		row[None]("ui_prompt_start", rowDef[UIPromptStart]{full: UIPromptStart{tUIPrompt}, keys: tUIKeys}),
		row[None]("ui_prompt_end", rowDef[UIPromptEnd]{full: UIPromptEnd{tUIPrompt}, keys: tUIKeys}),
		row[None]("entry_appended", rowDef[EntryAppended]{full: EntryAppended{Entry: tEntry}, keys: []string{"entry"}}),
		row[None]("workflow_lifecycle", rowDef[WorkflowLifecycle]{full: tLifecycle, keys: tLifeKeys, nested: tCursorKeys}),
		row[None]("workflow_activity_changed", rowDef[WorkflowActivityChanged]{
			full: WorkflowActivityChanged{Root: map[string]any{"id": "r"}, Cursor: WorkflowCursor{Epoch: 1, Revision: 3}}, keys: []string{"root", "cursor"}, nested: tCursorKeys}),
		row[None]("workflow_stage_completed", rowDef[WorkflowStageCompleted]{full: WorkflowStageCompleted{tLifecycle}, keys: tLifeKeys, nested: tCursorKeys}),
		row[None]("workflow_heartbeat", rowDef[WorkflowHeartbeat]{
			full: WorkflowHeartbeat{RunID: "run", RootID: "root", OwnerID: "owner", ScheduledAt: 1700000000000, IntervalMinutes: 5},
			keys: []string{"runId", "rootId", "ownerId", "scheduledAt", "intervalMinutes"}}),
	}
}

func TestConformance(t *testing.T) {
	for _, c := range conformance() {
		t.Run(c.name, c.run)
	}
}

// TestConformanceCoversEveryRow fails when a table row has no conformance entry (or an entry
// names no row), so a new event cannot be added without its test.
func TestConformanceCoversEveryRow(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range conformance() {
		if covered[c.name] {
			t.Errorf("%s is covered twice", c.name)
		}
		covered[c.name] = true
		spec, ok := Lookup(c.name)
		switch {
		case !ok || spec.Name != c.name:
			t.Errorf("conformance entry %q names no table row", c.name)
		case spec.Combine != Notify && !c.hasCombine:
			t.Errorf("%s (%v) has no combine check", c.name, spec.Combine)
		case spec.Buffer > 0 && !c.hasVary:
			t.Errorf("%s is buffered and needs vary", c.name)
		}
	}
	var missing []string
	for _, s := range Table {
		if !covered[s.Name] {
			missing = append(missing, s.Name)
		}
	}
	if len(missing) > 0 || len(covered) != len(Table) {
		t.Fatalf("%d entries for %d rows; rows without a conformance test: %v", len(covered), len(Table), missing)
	}
}

// ---------------------------------------------------------------------------------------------
// Combine checks, one per non-notification row (events.md §3 and §4)

var bg = context.Background()

// project_trust: the first yes/no wins and stops; undecided passes on; no result is an error
// (reported, next handler runs).
func combineProjectTrust(t *testing.T) {
	rec := &recorder{}
	answer := func(tag, trusted string) func(Context, *ProjectTrust) (*ProjectTrustResult, error) {
		return func(Context, *ProjectTrust) (*ProjectTrustResult, error) {
			rec.add(tag)
			if trusted == "" {
				return nil, nil
			}
			return &ProjectTrustResult{Trusted: trusted, Remember: true}, nil
		}
	}
	h := newHarness(t, onAll(answer("a1", "undecided"), answer("a2", "no")), onAll(answer("b1", "yes")))
	_, res, err := Emit[*ProjectTrustResult](h.r, bg, ProjectTrust{Cwd: "/p"})
	if err != nil || res == nil || res.Trusted != "no" || !res.Remember || rec.String() != "a1,a2" {
		t.Fatalf("res=%+v err=%v ran=%v; want no from a2, b1 skipped", res, err, rec.list())
	}

	rec = &recorder{}
	h = newHarness(t, onAll(answer("a1", ""), answer("a2", "undecided")), onAll(answer("b1", "yes")))
	_, res, _ = Emit[*ProjectTrustResult](h.r, bg, ProjectTrust{Cwd: "/p"})
	if res == nil || res.Trusted != "yes" || rec.String() != "a1,a2,b1" {
		t.Fatalf("res=%+v ran=%v; want yes from b1", res, rec.list())
	}
	h.wantErrors(t, "project_trust", "no result", "ext-a")

	h = newHarness(t, onAll(answer("a", "undecided")), nil)
	if _, res, _ = Emit[*ProjectTrustResult](h.r, bg, ProjectTrust{}); res != nil {
		t.Fatalf("all undecided gave %+v, want no decision", res)
	}
}

// session_directory: the last non-empty sessionDir wins.
func combineSessionDirectory(t *testing.T) {
	dir := func(d string) func(Context, *SessionDirectory) (*SessionDirectoryResult, error) {
		return func(Context, *SessionDirectory) (*SessionDirectoryResult, error) {
			return &SessionDirectoryResult{SessionDir: d}, nil
		}
	}
	h := newHarness(t, onAll(dir("/x"), dir("/y")), onAll(dir("")))
	if _, res, _ := Emit[*SessionDirectoryResult](h.r, bg, SessionDirectory{}); res == nil || res.SessionDir != "/y" {
		t.Fatalf("got %+v, want /y (an empty later one does not erase it)", res)
	}
}

// resources_discover: accumulates in load order, each contribution tagged with its extension.
func combineResourcesDiscover(t *testing.T) {
	h := newHarness(t,
		onAll(func(Context, *ResourcesDiscover) (*ResourcesDiscoverResult, error) {
			return &ResourcesDiscoverResult{SkillPaths: []string{"a/skills"}}, nil
		}, func(Context, *ResourcesDiscover) (*ResourcesDiscoverResult, error) { return nil, nil }),
		onAll(func(Context, *ResourcesDiscover) (*ResourcesDiscoverResult, error) {
			return &ResourcesDiscoverResult{PromptPaths: []string{"b/prompts"}, ThemePaths: []string{"b/themes"}}, nil
		}))
	out, _, err := Emit[*ResourcesDiscoverResult](h.r, bg, ResourcesDiscover{Cwd: "/p", Reason: "startup"})
	want := []DiscoveredResources{
		{ExtensionPath: "ext-a", ResourcesDiscoverResult: ResourcesDiscoverResult{SkillPaths: []string{"a/skills"}}},
		{ExtensionPath: "ext-b", ResourcesDiscoverResult: ResourcesDiscoverResult{PromptPaths: []string{"b/prompts"}, ThemePaths: []string{"b/themes"}}},
	}
	if err != nil || !reflect.DeepEqual(out.Contributed, want) {
		t.Fatalf("contributed %+v, want %+v", out.Contributed, want)
	}
}

// session_before_switch: cancel short-circuits; no cancel, no result.
func combineBeforeSwitch(t *testing.T) {
	rec := &recorder{}
	cancel := func(tag string, c bool) func(Context, *SessionBeforeSwitch) (*CancelResult, error) {
		return func(Context, *SessionBeforeSwitch) (*CancelResult, error) {
			rec.add(tag)
			return &CancelResult{Cancel: c}, nil
		}
	}
	h := newHarness(t, onAll(cancel("a1", false), cancel("a2", true)), onAll(cancel("b1", false)))
	if _, res, _ := Emit[*CancelResult](h.r, bg, SessionBeforeSwitch{Reason: "new"}); res == nil || !res.Cancel || rec.String() != "a1,a2" {
		t.Fatalf("res=%+v ran=%v; want cancel by a2 and b1 skipped", res, rec.list())
	}
	h = newHarness(t, onAll(cancel("a", false)), onAll(cancel("b", false)))
	if _, res, _ := Emit[*CancelResult](h.r, bg, SessionBeforeSwitch{Reason: "new"}); res != nil {
		t.Fatalf("no cancel gave %+v", res)
	}
}

// session_before_fork: cancel short-circuits, else the last result setting a field wins and a
// later {} does not erase it; handlers under the alias session_before_branch join the same
// ordered list.
func combineBeforeFork(t *testing.T) {
	rec := &recorder{}
	res := func(tag string, r *SessionBeforeForkResult) func(Context, *SessionBeforeFork) (*SessionBeforeForkResult, error) {
		return func(Context, *SessionBeforeFork) (*SessionBeforeForkResult, error) { rec.add(tag); return r, nil }
	}
	h := newHarness(t, onAll(res("a1", &SessionBeforeForkResult{SkipConversationRestore: true})), func(api API) error {
		_, err := api.OnName("session_before_branch", func(_ Context, p any) (any, error) {
			if p.(*SessionBeforeFork).EntryID != "e1" {
				t.Error("alias handler got the wrong payload")
			}
			rec.add("b1")
			return &SessionBeforeForkResult{}, nil
		})
		return err
	})
	On(h.apis["ext-a"], res("a2", nil))
	_, got, _ := Emit[*SessionBeforeForkResult](h.r, bg, SessionBeforeFork{EntryID: "e1", Position: "before"})
	if got == nil || !got.SkipConversationRestore || got.Cancel || rec.String() != "a1,a2,b1" {
		t.Fatalf("got %+v ran %v; want a1's result kept through a later {} and the alias handler last", got, rec.list())
	}
	rec = &recorder{}
	h = newHarness(t, onAll(res("a1", &SessionBeforeForkResult{Cancel: true})), onAll(res("b1", nil)))
	if _, got, _ = Emit[*SessionBeforeForkResult](h.r, bg, SessionBeforeFork{}); got == nil || !got.Cancel || rec.String() != "a1" {
		t.Fatalf("got %+v ran %v; want cancel short-circuit", got, rec.list())
	}
}

// session_before_compact: cancel short-circuits; else the last result setting a field wins as a
// whole (no merge) and {} is a no-op (§4 rows 1, 24).
func combineBeforeCompact(t *testing.T) {
	rec := &recorder{}
	res := func(tag string, r *BeforeCompactResult) func(Context, *SessionBeforeCompact) (*BeforeCompactResult, error) {
		return func(Context, *SessionBeforeCompact) (*BeforeCompactResult, error) { rec.add(tag); return r, nil }
	}
	text := &BeforeCompactResult{CompactedText: ptr("short")}
	summary := &BeforeCompactResult{Compaction: &CompactionResult{Summary: "s", FirstKeptEntryID: "e9"}}
	h := newHarness(t, onAll(res("a1", text), res("a2", &BeforeCompactResult{})), onAll(res("b1", nil)))
	if _, got, _ := Emit[*BeforeCompactResult](h.r, bg, SessionBeforeCompact{}); got != text {
		t.Fatalf("got %+v; want a1's compactedText kept through {} and nil", got)
	}
	h = newHarness(t, onAll(res("a1", text)), onAll(res("b1", summary)))
	if _, got, _ := Emit[*BeforeCompactResult](h.r, bg, SessionBeforeCompact{}); got != summary || got.CompactedText != nil {
		t.Fatalf("got %+v; want b1's result as a whole", got)
	}
	rec = &recorder{}
	h = newHarness(t, onAll(res("a1", &BeforeCompactResult{Cancel: true})), onAll(res("b1", text)))
	if _, got, _ := Emit[*BeforeCompactResult](h.r, bg, SessionBeforeCompact{}); got == nil || !got.Cancel || rec.String() != "a1" {
		t.Fatalf("got %+v ran %v; want cancel short-circuit", got, rec.list())
	}
}

// session.compacting: the last result that sets a field wins whole, without merging.
func combineCompacting(t *testing.T) {
	res := func(r *SessionCompactingResult) func(Context, *SessionCompacting) (*SessionCompactingResult, error) {
		return func(Context, *SessionCompacting) (*SessionCompactingResult, error) { return r, nil }
	}
	first := &SessionCompactingResult{Prompt: "p"}
	second := &SessionCompactingResult{Context: []string{"c"}}
	h := newHarness(t, onAll(res(first), res(second)), onAll(res(&SessionCompactingResult{})))
	if _, got, _ := Emit[*SessionCompactingResult](h.r, bg, SessionCompacting{}); got != second || got.Prompt != "" {
		t.Fatalf("got %+v; want the second result whole", got)
	}
}

// session_before_tree: cancel short-circuits; else one winning object (later {} ignored).
func combineBeforeTree(t *testing.T) {
	rec := &recorder{}
	res := func(tag string, r *BeforeTreeResult) func(Context, *SessionBeforeTree) (*BeforeTreeResult, error) {
		return func(Context, *SessionBeforeTree) (*BeforeTreeResult, error) { rec.add(tag); return r, nil }
	}
	label := &BeforeTreeResult{Label: ptr("l"), Summary: &TreeSummary{Summary: "s"}}
	h := newHarness(t, onAll(res("a1", &BeforeTreeResult{CustomInstructions: ptr("ci")}), res("a2", label)), onAll(res("b1", &BeforeTreeResult{})))
	if _, got, _ := Emit[*BeforeTreeResult](h.r, bg, SessionBeforeTree{}); got != label || got.CustomInstructions != nil {
		t.Fatalf("got %+v; want a2's object whole", got)
	}
	rec = &recorder{}
	h = newHarness(t, onAll(res("a1", &BeforeTreeResult{Cancel: true})), onAll(res("b1", label)))
	if _, got, _ := Emit[*BeforeTreeResult](h.r, bg, SessionBeforeTree{}); got == nil || !got.Cancel || rec.String() != "a1" {
		t.Fatalf("got %+v ran %v; want cancel short-circuit", got, rec.list())
	}
}

// input: transforms chain (a transform without images keeps them), continue changes nothing,
// the first handled stops and marks the input handled (§4 row 2).
func combineInput(t *testing.T) {
	rec := &recorder{}
	in := Input{Text: "orig", Images: tImages, Source: "rpc"}
	h := newHarness(t,
		onAll(func(_ Context, e *Input) (*InputResult, error) {
			rec.add("a1")
			return &InputResult{Action: "transform", Text: ptr(e.Text + "+a")}, nil
		}, func(_ Context, e *Input) (*InputResult, error) {
			rec.add("a2")
			return &InputResult{Action: "continue"}, nil
		}),
		onAll(func(_ Context, e *Input) (*InputResult, error) {
			rec.add("b1")
			if e.Text != "orig+a" || !reflect.DeepEqual(e.Images, tImages) {
				t.Errorf("b1 sees %q %v; want the chained text and the kept images", e.Text, e.Images)
			}
			return &InputResult{Text: ptr(e.Text + "+b"), Images: &[]llm.Content{}}, nil // O shape
		}))
	out, _, _ := Emit[*InputResult](h.r, bg, in)
	if out.Text != "orig+a+b" || len(out.Images) != 0 || out.Handled || rec.String() != "a1,a2,b1" {
		t.Fatalf("out %+v ran %v", out, rec.list())
	}

	for _, handled := range []*InputResult{{Action: "handled"}, {Handled: true}} {
		rec = &recorder{}
		h = newHarness(t,
			onAll(func(_ Context, e *Input) (*InputResult, error) {
				rec.add("a1")
				return &InputResult{Text: ptr("t")}, nil
			}, func(_ Context, e *Input) (*InputResult, error) { rec.add("a2"); return handled, nil }),
			onAll(func(_ Context, e *Input) (*InputResult, error) { rec.add("b1"); return nil, nil }))
		out, res, _ := Emit[*InputResult](h.r, bg, in)
		if !out.Handled || res != handled || out.Text != "t" || rec.String() != "a1,a2" {
			t.Fatalf("handled %+v: out %+v res %+v ran %v; want a2 to stop dispatch", handled, out, res, rec.list())
		}
	}
}

// before_agent_start: systemPrompt chains (string or blocks), messages accumulate in order.
func combineBeforeAgentStart(t *testing.T) {
	m1 := CustomMessage{CustomType: "a", Content: []llm.Content{llm.Text("1")}, Display: true}
	m2 := CustomMessage{CustomType: "b", Content: []llm.Content{llm.Text("2")}}
	h := newHarness(t,
		onAll(func(_ Context, e *BeforeAgentStart) (*BeforeAgentStartResult, error) {
			return &BeforeAgentStartResult{SystemPrompt: ptr(e.SystemPrompt + "+a"), Message: &m1}, nil
		}, func(_ Context, e *BeforeAgentStart) (*BeforeAgentStartResult, error) {
			return &BeforeAgentStartResult{Message: &m2}, nil // message only: the prompt is kept
		}),
		onAll(func(_ Context, e *BeforeAgentStart) (*BeforeAgentStartResult, error) {
			if e.SystemPrompt != "base+a" {
				t.Errorf("b1 sees system prompt %q", e.SystemPrompt)
			}
			return &BeforeAgentStartResult{SystemPromptBlocks: []string{e.SystemPrompt, "b"}}, nil
		}))
	out, _, _ := Emit[*BeforeAgentStartResult](h.r, bg, BeforeAgentStart{SystemPrompt: "base"})
	if out.SystemPrompt != "base+a\n\nb" || !reflect.DeepEqual(out.Messages, []CustomMessage{m1, m2}) {
		t.Fatalf("prompt %q messages %+v", out.SystemPrompt, out.Messages)
	}
}

// context: a returned messages list replaces the working list for the next handler.
func combineContext(t *testing.T) {
	replaced := []llm.Message{*tAssistant}
	h := newHarness(t,
		onAll(func(_ Context, e *ContextEvent) (*ContextResult, error) {
			return &ContextResult{Messages: replaced}, nil
		}),
		onAll(func(_ Context, e *ContextEvent) (*ContextResult, error) {
			if !reflect.DeepEqual(e.Messages, replaced) {
				t.Errorf("b1 sees %v, want a1's messages", e.Messages)
			}
			return nil, nil
		}))
	out, _, _ := Emit[*ContextResult](h.r, bg, ContextEvent{Messages: []llm.Message{*tMsg}})
	if !reflect.DeepEqual(out.Messages, replaced) {
		t.Fatalf("messages %v", out.Messages)
	}
}

// before_provider_headers: edits are in place and seen by later handlers; results are ignored.
func combineProviderHeaders(t *testing.T) {
	h := newHarness(t,
		onAll(func(_ Context, e *BeforeProviderHeaders) (None, error) {
			e.Headers["x-added"] = "1"
			delete(e.Headers, "x-default")
			return nil, nil
		}),
		onAll(func(_ Context, e *BeforeProviderHeaders) (None, error) {
			if e.Headers["x-added"] != "1" {
				t.Error("b1 does not see a1's header")
			}
			return nil, nil
		}))
	hdr := map[string]string{"x-default": "d"}
	Emit[None](h.r, bg, BeforeProviderHeaders{Headers: hdr})
	if !reflect.DeepEqual(hdr, map[string]string{"x-added": "1"}) {
		t.Fatalf("headers %v", hdr)
	}
}

// before_provider_request: a nil *PayloadResult keeps the payload; PayloadResult{Payload: nil}
// replaces it with null; replacements chain.
func combineProviderRequest(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t,
		onAll(func(_ Context, e *BeforeProviderRequest) (*PayloadResult, error) { rec.add("a1"); return nil, nil },
			func(_ Context, e *BeforeProviderRequest) (*PayloadResult, error) {
				rec.add(fmt.Sprint("a2:", e.Payload))
				return &PayloadResult{Payload: "replaced"}, nil
			}),
		onAll(func(_ Context, e *BeforeProviderRequest) (*PayloadResult, error) {
			rec.add(fmt.Sprint("b1:", e.Payload))
			return &PayloadResult{Payload: nil}, nil
		}))
	out, _, _ := Emit[*PayloadResult](h.r, bg, BeforeProviderRequest{Payload: "orig"})
	if out.Payload != nil || rec.String() != "a1,a2:orig,b1:replaced" {
		t.Fatalf("payload %v ran %v; want null after the chain", out.Payload, rec.list())
	}
	if b, _ := json.Marshal(out); string(b) != `{"payload":null}` {
		t.Fatalf("encodes as %s", b)
	}
}

// session_stop: a block wins even after an earlier continue; otherwise the first continue with
// context wins while later handlers still run; an empty continue is ignored.
func combineSessionStop(t *testing.T) {
	rec := &recorder{}
	res := func(tag string, r *SessionStopResult) func(Context, *SessionStop) (*SessionStopResult, error) {
		return func(Context, *SessionStop) (*SessionStopResult, error) { rec.add(tag); return r, nil }
	}
	empty := &SessionStopResult{Continue: true}
	c1 := &SessionStopResult{Continue: true, AdditionalContext: "one"}
	c2 := &SessionStopResult{Continue: true, AdditionalContext: "two"}
	h := newHarness(t, onAll(res("a1", empty), res("a2", c1)), onAll(res("b1", c2)))
	out, got, _ := Emit[*SessionStopResult](h.r, bg, SessionStop{})
	if got != c1 || out.Continuation() != c1 || rec.String() != "a1,a2,b1" {
		t.Fatalf("got %+v continuation %+v ran %v; want the first non-empty continue, all run", got, out.Continuation(), rec.list())
	}
	rec = &recorder{}
	block := &SessionStopResult{Decision: "block", Reason: "no"}
	h = newHarness(t, onAll(res("a1", c1), res("a2", block)), onAll(res("b1", c2)))
	out, got, _ = Emit[*SessionStopResult](h.r, bg, SessionStop{})
	if got != block || out.Continuation() != c1 || rec.String() != "a1,a2" {
		t.Fatalf("got %+v continuation %+v ran %v; want the block, first continue kept", got, out.Continuation(), rec.list())
	}
	h = newHarness(t, onAll(res("a", empty)), nil)
	if out, got, _ = Emit[*SessionStopResult](h.r, bg, SessionStop{}); got != nil || out.Continuation() != nil {
		t.Fatalf("an empty continue gave %+v", got)
	}
}

// message_end: same-role replacements chain; another role is rejected, reported and skipped.
func combineMessageEnd(t *testing.T) {
	r1 := &llm.Message{Role: "assistant", Content: []llm.Content{llm.Text("r1")}}
	h := newHarness(t,
		onAll(func(_ Context, e *MessageEnd) (*MessageEndResult, error) { return &MessageEndResult{Message: r1}, nil }),
		onAll(func(_ Context, e *MessageEnd) (*MessageEndResult, error) {
			if e.Message != r1 {
				t.Error("b1 does not see a1's replacement")
			}
			return &MessageEndResult{Message: &llm.Message{Role: "user"}}, nil
		}, func(_ Context, e *MessageEnd) (*MessageEndResult, error) {
			if e.Message != r1 {
				t.Error("the rejected replacement reached b2")
			}
			return nil, nil
		}))
	out, _, err := Emit[*MessageEndResult](h.r, bg, MessageEnd{Message: tAssistant})
	if err != nil || out.Message != r1 {
		t.Fatalf("message %+v err %v; want a1's replacement", out.Message, err)
	}
	h.wantErrors(t, "message_end", "role", "ext-b")
}

// tool_call: in-place edits and returned input chain; the first block wins and stops.
func combineToolCall(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t,
		onAll(func(_ Context, e *ToolCall) (*ToolCallResult, error) {
			rec.add("a1")
			e.Input["inplace"] = true
			return nil, nil
		}, func(_ Context, e *ToolCall) (*ToolCallResult, error) {
			rec.add("a2")
			if e.Input["inplace"] != true {
				t.Error("a2 does not see a1's in-place edit")
			}
			return &ToolCallResult{Input: map[string]any{"path": "b"}}, nil
		}),
		onAll(func(_ Context, e *ToolCall) (*ToolCallResult, error) {
			rec.add(fmt.Sprint("b1:", e.Input["path"]))
			return nil, nil
		}))
	out, res, err := Emit[*ToolCallResult](h.r, bg, ToolCall{ToolName: "read", Input: map[string]any{"path": "a"}})
	if err != nil || res == nil || res.Block || out.Input["path"] != "b" || rec.String() != "a1,a2,b1:b" {
		t.Fatalf("out %+v res %+v err %v ran %v", out, res, err, rec.list())
	}
	rec = &recorder{}
	h = newHarness(t,
		onAll(func(_ Context, e *ToolCall) (*ToolCallResult, error) {
			rec.add("a1")
			return &ToolCallResult{Block: true, Reason: "no", Terminate: true}, nil
		}),
		onAll(func(_ Context, e *ToolCall) (*ToolCallResult, error) {
			rec.add("b1")
			return &ToolCallResult{Block: true, Reason: "later"}, nil
		}))
	_, res, err = Emit[*ToolCallResult](h.r, bg, ToolCall{ToolName: "rm", Input: map[string]any{}})
	if err != nil || res == nil || !res.Block || res.Reason != "no" || !res.Terminate || rec.String() != "a1" {
		t.Fatalf("res %+v err %v ran %v; want the first block", res, err, rec.list())
	}
	// An aborted context after a handler blocks too (fail-closed, events.md §1.4).
	ctx, cancel := context.WithCancel(bg)
	h = newHarness(t, onAll(func(_ Context, e *ToolCall) (*ToolCallResult, error) { cancel(); return nil, nil }), nil)
	if _, _, err = Emit[*ToolCallResult](h.r, ctx, ToolCall{}); !errors.Is(err, ErrBlocked) {
		t.Fatalf("abort during tool_call: %v, want ErrBlocked", err)
	}
}

// tool_result: partial patches chain; omitted fields keep their values.
func combineToolResult(t *testing.T) {
	patched := []llm.Content{llm.Text("patched")}
	var details any = map[string]any{"k": 1}
	h := newHarness(t,
		onAll(func(_ Context, e *ToolResult) (*ToolResultPatch, error) {
			return &ToolResultPatch{Content: &patched, IsError: ptr(false)}, nil
		}),
		onAll(func(_ Context, e *ToolResult) (*ToolResultPatch, error) {
			if llm.TextOf(e.Content, "") != "patched" || e.IsError || e.Details != "d" {
				t.Errorf("b1 sees %+v, want a1's patch over the original", e)
			}
			return &ToolResultPatch{Details: &details}, nil
		}, func(_ Context, e *ToolResult) (*ToolResultPatch, error) { return &ToolResultPatch{}, nil }))
	out, _, _ := Emit[*ToolResultPatch](h.r, bg, ToolResult{Content: []llm.Content{llm.Text("orig")}, Details: "d", IsError: true})
	if llm.TextOf(out.Content, "") != "patched" || out.IsError || !reflect.DeepEqual(out.Details, details) {
		t.Fatalf("got %+v", out)
	}
}

// user_bash, user_python: the first result wins and later handlers do not run (§4 row 9).
func combineUserExec[E any, PE interface {
	*E
	Event[*UserExecResult]
}](t *testing.T, name string, payload E) {
	rec := &recorder{}
	win := &UserExecResult{Result: &ExecResult{Output: "from a2", ExitCode: ptr(0)}}
	h := newHarness(t,
		onAll[*UserExecResult, E, PE](
			func(Context, PE) (*UserExecResult, error) { rec.add("a1"); return nil, nil },
			func(Context, PE) (*UserExecResult, error) { rec.add("a2"); return win, nil }),
		onAll[*UserExecResult, E, PE](func(Context, PE) (*UserExecResult, error) {
			rec.add("b1")
			return &UserExecResult{Operations: "ops"}, nil
		}))
	_, res, _ := Emit[*UserExecResult, E, PE](h.r, bg, payload)
	if res != win || rec.String() != "a1,a2" {
		t.Fatalf("%s: res %+v ran %v; want a2's result, b1 skipped", name, res, rec.list())
	}
	rec = &recorder{}
	h = newHarness(t, onAll[*UserExecResult, E, PE](func(Context, PE) (*UserExecResult, error) { rec.add("a1"); return nil, nil }),
		onAll[*UserExecResult, E, PE](func(Context, PE) (*UserExecResult, error) {
			rec.add("b1")
			return &UserExecResult{Operations: "ops"}, nil
		}))
	if _, res, _ = Emit[*UserExecResult, E, PE](h.r, bg, payload); res == nil || res.Operations != "ops" || rec.String() != "a1,b1" {
		t.Fatalf("%s: res %+v ran %v; want b1's operations", name, res, rec.list())
	}
}

// A handler subscribed by name that returns a value of the wrong type is reported as failing;
// it does not crash the emitter (the combine rule would otherwise panic on it).
func TestUntypedHandlerWithWrongResultType(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, func(api API) error {
		_, err := api.OnName("tool_result", func(Context, any) (any, error) { rec.add("a1"); return map[string]any{"isError": true}, nil })
		return err
	}, onAll(func(_ Context, e *ToolResult) (*ToolResultPatch, error) { rec.add("b1"); return nil, nil }))
	out, _, err := Emit[*ToolResultPatch](h.r, bg, ToolResult{})
	if err != nil || out.IsError || rec.String() != "a1,b1" {
		t.Fatalf("out %+v err %v ran %v", out, err, rec.list())
	}
	h.wantErrors(t, "tool_result", "want *ToolResultPatch", "ext-a")
}

// TestConformanceRules pins each row's dispatch rules as events.md states them (§1.2, §1.4,
// §1.6, §3, §4), independently of Table, so a wrong flag in the table cannot make the runner
// and the suite above agree on the wrong behaviour. Rows not listed are awaited, isolated
// notifications without a buffer.
func TestConformanceRules(t *testing.T) {
	combine := map[string]Combine{
		"project_trust": FirstWins, "session_directory": LastWins, "resources_discover": Accumulate,
		"session_before_switch": Veto, "session_before_fork": Veto, "session_before_compact": Veto,
		"session.compacting": LastWins, "session_before_tree": Veto,
		"input":              Veto, // transforms chain, the first handled short-circuits
		"before_agent_start": Chain, "context": Chain, "before_provider_request": Chain,
		"session_stop": Veto, "message_end": Chain,
		"tool_call": Veto, "tool_result": ChainPatch, "user_bash": FirstWins, "user_python": FirstWins,
	}
	failClosed := map[string]bool{"tool_call": true}
	fireAndForget := map[string]bool{
		"session_info_changed": true, "thinking_level_select": true, "ui_prompt_start": true, "ui_prompt_end": true,
		"entry_appended": true, "workflow_lifecycle": true, "workflow_activity_changed": true,
		"workflow_stage_completed": true, "workflow_heartbeat": true,
	}
	buffer := map[string]int{"credential_disabled": 32, "mcp_notification": 100}
	caps := map[string]int{"session_stop": 8}
	aliases := map[string][]string{"session_before_fork": {"session_before_branch"}}
	for _, s := range Table {
		wantErr := Isolate
		if failClosed[s.Name] {
			wantErr = FailClosed
		}
		if s.Combine != combine[s.Name] || s.Errors != wantErr || s.Awaited == fireAndForget[s.Name] ||
			s.Buffer != buffer[s.Name] || s.Cap != caps[s.Name] || !slices.Equal(s.Aliases, aliases[s.Name]) {
			t.Errorf("%s: combine %v errors %v awaited %v buffer %d cap %d aliases %v; events.md: %v %v %v %d %d %v",
				s.Name, s.Combine, s.Errors, s.Awaited, s.Buffer, s.Cap, s.Aliases,
				combine[s.Name], wantErr, !fireAndForget[s.Name], buffer[s.Name], caps[s.Name], aliases[s.Name])
		}
	}
}
