package ext

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// frameLog is an observer that records frames.
type frameLog struct {
	mu     sync.Mutex
	frames []WorkflowActivityFrame
}

func (l *frameLog) observe(f WorkflowActivityFrame) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.frames = append(l.frames, f)
	return nil
}

func (l *frameLog) get() []WorkflowActivityFrame {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]WorkflowActivityFrame(nil), l.frames...)
}

// wait returns the frames once there are at least n (fails after 5 s).
func (l *frameLog) wait(t testing.TB, n int) []WorkflowActivityFrame {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if fs := l.get(); len(fs) >= n {
			return fs
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d frames, want %d: %v", len(l.get()), n, kinds(l.get()))
		}
		time.Sleep(time.Millisecond)
	}
}

func kinds(fs []WorkflowActivityFrame) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%d", f.Kind, f.Cursor.Revision))
	}
	return strings.Join(out, ",")
}

// settle waits until the subscription's delivery goroutine has stopped.
func settle(t testing.TB, s *WorkflowActivitySubscription) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.hub.mu.Lock()
		busy := s.lease.delivering
		s.hub.mu.Unlock()
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("observer delivery did not settle")
		}
		time.Sleep(time.Millisecond)
	}
}

func diagCount(h *WorkflowActivityHub, kind string) int {
	n := 0
	for _, d := range h.Diagnostics() {
		if d.Kind == kind {
			n++
		}
	}
	return n
}

func wfRoot(id string, n int) WorkflowRootActivity {
	return WorkflowRootActivity{RootRunID: id, OwnerSessionID: "s1", State: "working", Reason: "executing", ActiveExecutionCount: n}
}

func mustObserve(t testing.TB, h *WorkflowActivityHub, fn WorkflowActivityObserver) *WorkflowActivitySubscription {
	t.Helper()
	s, err := h.Observe(fn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestWorkflowObserverGetsUnavailableThenPublisherEpoch(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	var log frameLog
	mustObserve(t, h, log.observe)
	fs := log.wait(t, 1)
	if fs[0].Kind != WorkflowFrameSnapshot || fs[0].Availability != WorkflowUnavailable || fs[0].Roots != nil {
		t.Fatalf("first frame %+v, want an unavailable snapshot", fs[0])
	}
	if diagCount(h, WorkflowSourceUnavailable) != 1 {
		t.Fatalf("diagnostics %v", h.Diagnostics())
	}
	p := h.RegisterPublisher()
	if err := p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady, Roots: []WorkflowRootActivity{wfRoot("a", 0)}}); err != nil {
		t.Fatal(err)
	}
	fs = log.wait(t, 3)
	if fs[1].Availability != WorkflowUnavailable || fs[1].Cursor.Epoch != p.Epoch() || fs[1].Cursor.Revision != 0 || fs[1].Cursor.Epoch == fs[0].Cursor.Epoch {
		t.Fatalf("new publisher frame %+v (old epoch %d)", fs[1], fs[0].Cursor.Epoch)
	}
	if fs[2].Availability != WorkflowReady || len(fs[2].Roots) != 1 || fs[2].Roots[0].RootRunID != "a" || fs[2].Cursor.Revision != 1 {
		t.Fatalf("ready snapshot %+v", fs[2])
	}
}

func TestWorkflowObserverSnapshotFirstThenFIFO(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	p := h.RegisterPublisher()
	if err := p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady, Roots: []WorkflowRootActivity{wfRoot("a", 0)}}); err != nil {
		t.Fatal(err)
	}
	var log frameLog
	mustObserve(t, h, log.observe)
	const n = 50
	for i := 1; i <= n; i++ {
		if err := p.PublishChanged(wfRoot("a", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.PublishRemoved("a"); err != nil {
		t.Fatal(err)
	}
	fs := log.wait(t, n+2)
	if fs[0].Kind != WorkflowFrameSnapshot || fs[0].Availability != WorkflowReady || fs[0].Roots[0].ActiveExecutionCount != 0 {
		t.Fatalf("first frame %+v", fs[0])
	}
	for i := 1; i <= n; i++ {
		f := fs[i]
		if f.Kind != WorkflowFrameChanged || f.Root.ActiveExecutionCount != i || f.Cursor.Revision != fs[0].Cursor.Revision+int64(i) || f.Cursor.Epoch != p.Epoch() {
			t.Fatalf("frame %d = %+v (%s)", i, f, kinds(fs))
		}
	}
	if last := fs[n+1]; last.Kind != WorkflowFrameRemoved || last.RootRunID != "a" {
		t.Fatalf("last frame %+v", last)
	}
	if snap := h.Snapshot(); snap.Availability != WorkflowReady || len(snap.Roots) != 0 {
		t.Fatalf("snapshot after removal %+v", snap)
	}
}

func TestWorkflowObserverCallbacksAreSerialized(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	p := h.RegisterPublisher()
	var inside, max, total int
	var mu sync.Mutex
	done := make(chan struct{})
	mustObserve(t, h, func(f WorkflowActivityFrame) error {
		mu.Lock()
		inside++
		if inside > max {
			max = inside
		}
		mu.Unlock()
		time.Sleep(50 * time.Microsecond)
		mu.Lock()
		inside--
		total++
		if total == 201 {
			close(done)
		}
		mu.Unlock()
		return nil
	})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < 50; i++ {
				_ = p.PublishChanged(wfRoot(fmt.Sprint("r", g), i))
			}
		})
	}
	wg.Wait()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("frames not delivered")
	}
	if max != 1 {
		t.Fatalf("%d callbacks of one observer ran at once", max)
	}
}

func TestWorkflowSlowObserverDoesNotBlockPublisherOrOthers(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	p := h.RegisterPublisher()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	slow := mustObserve(t, h, func(WorkflowActivityFrame) error {
		select {
		case started <- struct{}{}:
		default:
		}
		<-release
		return nil
	})
	<-started
	var fast frameLog
	mustObserve(t, h, fast.observe)
	published := make(chan struct{})
	go func() {
		for i := 0; i < 100; i++ {
			_ = p.PublishChanged(wfRoot("a", i))
		}
		close(published)
	}()
	select {
	case <-published:
	case <-time.After(5 * time.Second):
		t.Fatal("a slow observer blocked the publisher")
	}
	fast.wait(t, 101)
	close(release)
	settle(t, slow)
}

func TestWorkflowObserverOverflowReplacesQueueWithSnapshot(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	p := h.RegisterPublisher()
	if err := p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady}); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	var log frameLog
	s := mustObserve(t, h, func(f WorkflowActivityFrame) error {
		_ = log.observe(f)
		select {
		case started <- struct{}{}:
			<-release // the first callback blocks while the queue fills
		default:
		}
		return nil
	})
	<-started
	for i := 0; i < WorkflowQueueLimit+1; i++ {
		if err := p.PublishChanged(wfRoot("a", i)); err != nil {
			t.Fatal(err)
		}
	}
	if diagCount(h, WorkflowObserverOverflow) != 1 {
		t.Fatalf("diagnostics %v", h.Diagnostics())
	}
	close(release)
	settle(t, s)
	fs := log.get()
	if len(fs) != 2 {
		t.Fatalf("got %d frames (%s), want the first snapshot and the replacement", len(fs), kinds(fs))
	}
	if want := h.Snapshot(); !reflect.DeepEqual(fs[1], want) {
		t.Fatalf("replacement %+v, want the current snapshot %+v", fs[1], want)
	}
	if fs[1].Roots[0].ActiveExecutionCount != WorkflowQueueLimit {
		t.Fatalf("replacement snapshot is stale: %+v", fs[1].Roots)
	}
	// Continuity resumes after the snapshot.
	_ = p.PublishRemoved("a")
	if fs := log.wait(t, 3); fs[2].Kind != WorkflowFrameRemoved {
		t.Fatalf("after overflow: %s", kinds(fs))
	}
}

// TestWorkflowDisposedObserverRunsNoQueuedCallback runs in a synctest bubble, so "no callback
// after dispose" is checked once every goroutine has settled rather than after a pause.
func TestWorkflowDisposedObserverRunsNoQueuedCallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewRunner(nil).WorkflowActivity()
		p := h.RegisterPublisher()
		release := make(chan struct{})
		started := make(chan struct{}, 1)
		var log frameLog
		s := mustObserve(t, h, func(f WorkflowActivityFrame) error {
			_ = log.observe(f)
			select {
			case started <- struct{}{}:
				<-release
			default:
			}
			return nil
		})
		<-started
		for i := 0; i < 5; i++ {
			_ = p.PublishChanged(wfRoot("a", i))
		}
		s.Dispose()
		s.Dispose()
		close(release) // the running callback finishes; nothing queued runs
		settle(t, s)
		_ = p.PublishChanged(wfRoot("a", 9))
		synctest.Wait() // every goroutine of the bubble is idle: a callback that would run has run
		if fs := log.get(); len(fs) != 1 {
			t.Fatalf("callbacks after dispose: %s", kinds(fs))
		}
		if n := diagCount(h, WorkflowObserverDisposed); n != 1 {
			t.Fatalf("ObserverDisposed recorded %d times", n)
		}
	})
}

func TestWorkflowObserverFailureIsDiagnosed(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	p := h.RegisterPublisher()
	bad := mustObserve(t, h, func(f WorkflowActivityFrame) error {
		if f.Kind == WorkflowFrameChanged {
			panic("boom")
		}
		return errors.New("observer failed")
	})
	var good frameLog
	mustObserve(t, h, good.observe)
	if err := p.PublishChanged(wfRoot("a", 1)); err != nil {
		t.Fatal(err)
	}
	good.wait(t, 2)
	settle(t, bad)
	if n := diagCount(h, WorkflowObserverDeliveryFailed); n != 2 {
		t.Fatalf("ObserverDeliveryFailed %d, want 2: %v", n, h.Diagnostics())
	}
}

func TestWorkflowPublisherReplacementAndDisposalFence(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	old := h.RegisterPublisher()
	_ = old.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady, Roots: []WorkflowRootActivity{wfRoot("a", 1)}})
	prev := h.Snapshot()
	p := h.RegisterPublisher()
	snap := h.Snapshot()
	if snap.Cursor.Epoch == prev.Cursor.Epoch || snap.Cursor.Epoch != p.Epoch() || snap.Cursor.Revision != 0 || snap.Availability != WorkflowUnavailable {
		t.Fatalf("after replacement %+v (previous %+v)", snap, prev)
	}
	if err := p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowRecovering}); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		old.PublishChanged(wfRoot("a", 2)),
		old.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady}),
		old.PublishRemoved("a"),
		old.PublishLifecycle(WorkflowLifecycle{EventID: "x"}),
		old.PublishHeartbeat(WorkflowHeartbeat{RunID: "r"}),
	} {
		if !errors.Is(err, ErrWorkflowPublisherFenced) {
			t.Fatalf("superseded publisher: %v", err)
		}
	}
	old.Dispose()
	if got := h.Snapshot(); got.Availability != WorkflowRecovering {
		t.Fatalf("the old publisher changed the source: %+v", got)
	}
	if diagCount(h, WorkflowPublisherFenced) != 5 || diagCount(h, WorkflowSourceRecovering) != 1 {
		t.Fatalf("diagnostics %v", h.Diagnostics())
	}
	// A change does not make a recovering source ready.
	_ = p.PublishChanged(wfRoot("b", 1))
	if got := h.Snapshot(); got.Availability != WorkflowRecovering || got.Roots != nil {
		t.Fatalf("change made the source ready: %+v", got)
	}
	p.Dispose()
	p.Dispose()
	got := h.Snapshot()
	if got.Availability != WorkflowUnavailable || got.Cursor.Epoch != p.Epoch() {
		t.Fatalf("after dispose %+v", got)
	}
	if err := p.PublishChanged(wfRoot("a", 3)); !errors.Is(err, ErrWorkflowPublisherFenced) {
		t.Fatalf("disposed publisher: %v", err)
	}
	if !reflect.DeepEqual(h.Snapshot(), got) {
		t.Fatal("a disposed publisher changed the state")
	}
}

func TestWorkflowSnapshotShapes(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	p := h.RegisterPublisher()
	a, b := wfRoot("a", 1), wfRoot("b", 0)
	a2 := wfRoot("a", 7)
	a2.State, a2.Reason = "blocked", "awaiting_input"
	order := 3
	a2.Graph = &WorkflowRootGraph{Nodes: []WorkflowGraphNode{{Kind: "stage", ID: "s", RunID: "a", NodeID: "s", Name: "S", ParentIDs: []string{}, ExecutionOrder: &order, Status: "running"}}}
	if err := p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady, Roots: []WorkflowRootActivity{a, b, a2}}); err != nil {
		t.Fatal(err)
	}
	snap := h.Snapshot()
	if len(snap.Roots) != 2 || !reflect.DeepEqual(snap.Roots[0], a2) || !reflect.DeepEqual(snap.Roots[1], b) {
		t.Fatalf("duplicate ids must keep the last value at the first position: %+v", snap.Roots)
	}
	// Frames are copies: changing one does not change the hub.
	snap.Roots[0].Graph.Nodes[0].Name = "tampered"
	*snap.Roots[0].Graph.Nodes[0].ExecutionOrder = 99
	if again := h.Snapshot(); again.Roots[0].Graph.Nodes[0].Name != "S" || *again.Roots[0].Graph.Nodes[0].ExecutionOrder != 3 {
		t.Fatal("a snapshot shares state with the hub")
	}
	if err := p.PublishRemoved("absent"); err != nil {
		t.Fatalf("removing an absent id: %v", err)
	}
	if err := p.PublishSnapshot(WorkflowActivitySnapshot{Availability: "bogus"}); err == nil {
		t.Fatal("bad availability accepted")
	}
	// JSON shapes: a ready snapshot always has roots, zero counts included.
	_ = p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady})
	js, _ := json.Marshal(h.Snapshot())
	if !strings.Contains(string(js), `"availability":"ready","roots":[]`) {
		t.Fatalf("ready JSON %s", js)
	}
	_ = p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowRecovering, Roots: []WorkflowRootActivity{a}})
	js, _ = json.Marshal(h.Snapshot())
	if strings.Contains(string(js), "roots") || !strings.Contains(string(js), `"kind":"snapshot"`) {
		t.Fatalf("recovering JSON %s", js)
	}
	js, _ = json.Marshal(WorkflowActivityFrame{Kind: WorkflowFrameChanged, Root: &b})
	if !strings.Contains(string(js), `"activeExecutionCount":0`) || !strings.Contains(string(js), `"root":{"rootRunId":"b"`) {
		t.Fatalf("changed JSON %s", js)
	}
	js, _ = json.Marshal(WorkflowActivityFrame{Kind: WorkflowFrameRemoved, RootRunID: "b"})
	if string(js) != `{"kind":"removed","cursor":{"epoch":0,"revision":0},"rootRunId":"b"}` {
		t.Fatalf("removed JSON %s", js)
	}
}

func TestWorkflowDiagnosticsAreCapped(t *testing.T) {
	h := NewRunner(nil).WorkflowActivity()
	p := h.RegisterPublisher()
	p.Dispose()
	for i := 0; i < 1000; i++ {
		_ = p.PublishRemoved("")
	}
	d := h.Diagnostics()
	if len(d) != WorkflowDiagnosticsLimit {
		t.Fatalf("%d diagnostics kept, want %d", len(d), WorkflowDiagnosticsLimit)
	}
	for _, x := range d {
		if x.Kind != WorkflowPublisherFenced {
			t.Fatalf("oldest records were not dropped first: %v", x)
		}
	}
}

// hookLog records workflow hook deliveries by event name.
type hookLog struct {
	mu  sync.Mutex
	got []string
	lc  []WorkflowLifecycle
	sc  []WorkflowStageCompleted
	ac  []WorkflowActivityChanged
}

func (l *hookLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, s)
}

func (l *hookLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.got...)
}

func (l *hookLog) subscribe(api API, tag string) {
	On(api, func(_ Context, e *WorkflowLifecycle) (None, error) {
		l.mu.Lock()
		l.lc = append(l.lc, *e)
		l.mu.Unlock()
		l.add(tag + "lifecycle:" + e.EventID)
		return nil, nil
	})
	On(api, func(_ Context, e *WorkflowStageCompleted) (None, error) {
		l.mu.Lock()
		l.sc = append(l.sc, *e)
		l.mu.Unlock()
		l.add(tag + "stage_completed:" + e.EventID)
		return nil, nil
	})
	On(api, func(_ Context, e *WorkflowActivityChanged) (None, error) {
		l.mu.Lock()
		l.ac = append(l.ac, *e)
		l.mu.Unlock()
		l.add(tag + "activity_changed:" + e.Root.(WorkflowRootActivity).RootRunID)
		return nil, nil
	})
	On(api, func(_ Context, e *WorkflowHeartbeat) (None, error) {
		l.add(tag + "heartbeat:" + e.RunID)
		return nil, nil
	})
}

func TestWorkflowHooksHeldUntilBindThenDeliveredInOrder(t *testing.T) {
	r := NewRunner(nil)
	var log hookLog
	var pub *WorkflowActivityPublisher
	load(t, r, func(api API) error {
		log.subscribe(api, "")
		pub = api.RegisterWorkflowActivityPublisher()
		// Published during factory initialization: held until Bind.
		if err := pub.PublishLifecycle(WorkflowLifecycle{EventID: "e1", Target: WorkflowTarget{Kind: "stage", RunID: "r", StageID: "s1", Status: "completed"}}); err != nil {
			return err
		}
		return pub.PublishHeartbeat(WorkflowHeartbeat{RunID: "r", RootID: "r", IntervalMinutes: 5})
	})
	r.Drain()
	if got := log.list(); len(got) != 0 {
		t.Fatalf("delivered before Bind: %v", got)
	}
	r.Bind()
	for _, err := range []error{
		pub.PublishChanged(wfRoot("root1", 0)),
		pub.PublishLifecycle(WorkflowLifecycle{EventID: "e2", Target: map[string]any{"kind": "stage", "status": "failed"}}),
		pub.PublishLifecycle(WorkflowLifecycle{EventID: "e3", Status: "completed", Target: WorkflowTarget{Kind: "run", RunID: "r"}}),
		pub.PublishLifecycle(WorkflowLifecycle{EventID: "e4", Delivery: "replay", Target: &WorkflowTarget{Kind: "stage", Status: "completed", PreviousStatus: "running"}}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	r.Drain()
	want := []string{
		"lifecycle:e1", "stage_completed:e1", "heartbeat:r",
		"activity_changed:root1", "lifecycle:e2", "lifecycle:e3", "lifecycle:e4", "stage_completed:e4",
	}
	if got := log.list(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("hooks\n got %v\nwant %v", got, want)
	}
	lc, sc := log.lc, log.sc
	if lc[0].Cursor != sc[0].Cursor || lc[0].Cursor.Epoch != pub.Epoch() || lc[0].Delivery != "live" || lc[0].Status != "completed" {
		t.Fatalf("lifecycle %+v / stage_completed %+v", lc[0], sc[0])
	}
	if lc[3].Delivery != "replay" || lc[3].PreviousStatus != "running" || sc[1].EventID != "e4" || sc[1].Cursor != lc[3].Cursor {
		t.Fatalf("replay %+v / %+v", lc[3], sc[1])
	}
	if !(lc[0].Cursor.Revision < log.ac[0].Cursor.Revision && log.ac[0].Cursor.Revision < lc[1].Cursor.Revision) {
		t.Fatalf("cursors not increasing: %v %v %v", lc[0].Cursor, log.ac[0].Cursor, lc[1].Cursor)
	}
	for _, name := range []string{"workflow_lifecycle", "workflow_activity_changed", "workflow_stage_completed", "workflow_heartbeat"} {
		if s, _ := Lookup(name); !s.Emitted {
			t.Errorf("%s is emitted now; mark its row", name)
		}
	}
}

func TestWorkflowHooksFencedByPublisherReplacement(t *testing.T) {
	r := NewRunner(nil)
	started, release := make(chan struct{}), make(chan struct{})
	var log hookLog
	var first *WorkflowActivityPublisher
	var api2 API
	load(t, r,
		func(api API) error {
			On(api, func(_ Context, e *WorkflowLifecycle) (None, error) {
				log.add("a:" + e.EventID)
				if e.EventID == "e1" {
					close(started)
					<-release // awaiting: later handlers have not started
				}
				return nil, nil
			})
			first = api.RegisterWorkflowActivityPublisher()
			return nil
		},
		func(api API) error {
			api2 = api
			On(api, func(_ Context, e *WorkflowLifecycle) (None, error) {
				log.add("b:" + e.EventID)
				return nil, nil
			})
			On(api, func(_ Context, e *WorkflowHeartbeat) (None, error) {
				log.add("b:heartbeat")
				return nil, nil
			})
			return nil
		},
	)
	r.Bind()
	_ = first.PublishLifecycle(WorkflowLifecycle{EventID: "e1"})
	_ = first.PublishHeartbeat(WorkflowHeartbeat{RunID: "r"})
	<-started
	second := api2.RegisterWorkflowActivityPublisher() // fences the first publisher
	close(release)
	_ = second.PublishLifecycle(WorkflowLifecycle{EventID: "e2"})
	r.Drain()
	if got, want := strings.Join(log.list(), " "), "a:e1 a:e2 b:e2"; got != want {
		t.Fatalf("got %q, want %q (handlers of the fenced publisher that had not started are skipped)", got, want)
	}
}

func TestRunnerDisposeRetiresWorkflowObservation(t *testing.T) {
	r := NewRunner(nil)
	var log hookLog
	var pub *WorkflowActivityPublisher
	load(t, r, func(api API) error {
		log.subscribe(api, "")
		pub = api.RegisterWorkflowActivityPublisher()
		return nil
	})
	r.Bind()
	h := r.WorkflowActivity()
	var frames frameLog
	s := mustObserve(t, h, frames.observe)
	frames.wait(t, 1)
	r.Dispose()
	r.Dispose()
	if err := pub.PublishChanged(wfRoot("a", 1)); !errors.Is(err, ErrWorkflowPublisherFenced) {
		t.Fatalf("publisher after runner disposal: %v", err)
	}
	if p := h.RegisterPublisher(); !errors.Is(p.PublishHeartbeat(WorkflowHeartbeat{}), ErrWorkflowPublisherFenced) {
		t.Fatal("a publisher of a disposed hub is live")
	}
	late, err := h.Observe(frames.observe)
	if err != nil {
		t.Fatal(err)
	}
	late.Dispose()
	settle(t, s)
	r.Drain()
	if len(frames.get()) != 1 || len(log.list()) != 0 {
		t.Fatalf("after disposal: frames %s, hooks %v", kinds(frames.get()), log.list())
	}
	if n := diagCount(h, WorkflowObserverDisposed); n != 2 {
		t.Fatalf("ObserverDisposed %d, want 2 (the lease, the late observer)", n)
	}
}

func TestWorkflowFailedFactoryDisposesItsPublisher(t *testing.T) {
	r := NewRunner(nil)
	var pub *WorkflowActivityPublisher
	errs := r.Load(nil, []string{"bad"}, []Factory{func(api API) error {
		pub = api.RegisterWorkflowActivityPublisher()
		return errors.New("nope")
	}})
	if len(errs) != 1 {
		t.Fatal(errs)
	}
	if err := pub.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady}); !errors.Is(err, ErrWorkflowPublisherFenced) {
		t.Fatalf("publisher of a failed extension: %v", err)
	}
}

func TestWorkflowObserveFromHandlerContext(t *testing.T) {
	r := NewRunner(nil)
	var log frameLog
	var sub *WorkflowActivitySubscription
	load(t, r, func(api API) error {
		On(api, func(c Context, _ *SessionStart) (None, error) {
			var err error
			sub, err = c.ObserveWorkflowActivity(log.observe)
			return nil, err
		})
		return nil
	})
	Emit[None](r, t.Context(), SessionStart{Reason: "startup"})
	if sub == nil {
		t.Fatal("no subscription")
	}
	p := r.WorkflowActivity().RegisterPublisher()
	_ = p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady})
	fs := log.wait(t, 3)
	if fs[2].Availability != WorkflowReady {
		t.Fatalf("frames %s", kinds(fs))
	}
	sub.Dispose()
	if _, err := (detachedContext{}).ObserveWorkflowActivity(log.observe); !errors.Is(err, ErrNoSession) {
		t.Fatalf("detached context without a runner: %v", err)
	}
}

func TestWorkflowHubConcurrent(t *testing.T) {
	r := NewRunner(nil)
	r.Bind()
	h := r.WorkflowActivity()
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Go(func() {
			p := h.RegisterPublisher()
			for i := 0; i < 100; i++ {
				_ = p.PublishChanged(wfRoot(fmt.Sprint(g), i))
				_ = p.PublishLifecycle(WorkflowLifecycle{EventID: fmt.Sprint(i)})
				if i%10 == 0 {
					_ = p.PublishSnapshot(WorkflowActivitySnapshot{Availability: WorkflowReady})
				}
			}
			p.Dispose()
		})
		wg.Go(func() {
			for i := 0; i < 20; i++ {
				s, _ := h.Observe(func(WorkflowActivityFrame) error { return nil })
				_ = h.Snapshot()
				_ = h.Diagnostics()
				s.Dispose()
			}
		})
	}
	wg.Wait()
	r.Dispose()
	r.Drain()
}
