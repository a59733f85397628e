package ext

// Workflow activity hub (seed 000, "Workflow activity and lifecycle hooks"; events.md §1.6,
// §3.10). A workflow provider registers a publisher (API.RegisterWorkflowActivityPublisher) and
// publishes root activity snapshots, changes and removals plus lifecycle and heartbeat hooks;
// status consumers observe the activity with Context.ObserveWorkflowActivity.
//
// Rules:
//   - Frames carry a cursor {epoch, revision}. Each publisher starts a new epoch (unique in the
//     process) with an unavailable snapshot at revision 0; every later publication, lifecycle
//     hooks included, advances the revision, so activity revisions may have gaps.
//   - An observer first gets a snapshot (taken atomically with attaching it), then FIFO updates.
//     Its callbacks run one at a time on their own goroutine: a slow observer never delays the
//     publisher or other observers. Its queue holds at most WorkflowQueueLimit frames; on
//     overflow the pending frames are cleared and replaced by a fresh snapshot.
//   - After an observer is disposed none of its queued callbacks run; a running one finishes.
//   - Disposing or replacing a publisher fences it: its later publications are refused
//     (PublisherFenced), and hook handlers of its events that have not started are skipped.
//   - Hooks (workflow_lifecycle, workflow_activity_changed, workflow_stage_completed,
//     workflow_heartbeat) are delivered to the extensions' handlers asynchronously, in publication
//     order. Hooks published before the runner binds are held and delivered at Bind.
//   - The hub keeps the last WorkflowDiagnosticsLimit diagnostics (Diagnostics).
//   - Runner.Dispose disposes every observer and fences every publisher.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Availability of the workflow activity source.
const (
	WorkflowReady       = "ready"
	WorkflowRecovering  = "recovering"
	WorkflowUnavailable = "unavailable"
)

// Kinds of WorkflowActivityFrame.
const (
	WorkflowFrameSnapshot = "snapshot"
	WorkflowFrameChanged  = "changed"
	WorkflowFrameRemoved  = "removed"
)

// Kinds of WorkflowDiagnostic.
const (
	// WorkflowObserverDisposed: an observation lease was retired.
	WorkflowObserverDisposed = "ObserverDisposed"
	// WorkflowSourceRecovering: the provider is hydrating state.
	WorkflowSourceRecovering = "SourceRecovering"
	// WorkflowSourceUnavailable: no current source snapshot is known.
	WorkflowSourceUnavailable = "SourceUnavailable"
	// WorkflowObserverDeliveryFailed: an observer returned an error or panicked.
	WorkflowObserverDeliveryFailed = "ObserverDeliveryFailed"
	// WorkflowObserverOverflow: an observer's queue was full and was replaced by a snapshot.
	WorkflowObserverOverflow = "ObserverOverflow"
	// WorkflowPublisherFenced: a disposed or superseded publisher attempted publication.
	WorkflowPublisherFenced = "PublisherFenced"
)

// Caps of the hub (events.md §1.6).
const (
	// WorkflowQueueLimit is the most frames one observer's queue holds.
	WorkflowQueueLimit = 256
	// WorkflowDiagnosticsLimit is the most diagnostics the hub keeps.
	WorkflowDiagnosticsLimit = 256
)

// ErrWorkflowPublisherFenced is returned by the publish methods of a publisher that was
// disposed, replaced by a newer one, or whose runner was disposed.
var ErrWorkflowPublisherFenced = errors.New("workflow activity publisher is fenced (disposed or superseded)")

// WorkflowRootActivity is the activity summary of one root workflow run. A change replaces it
// as a whole.
type WorkflowRootActivity struct {
	RootRunID      string `json:"rootRunId"`
	OwnerSessionID string `json:"ownerSessionId"`
	// State is working, idle or blocked.
	State string `json:"state"`
	// Reason is executing, automatic_continuation, retrying, stopping, awaiting_input,
	// manual_intervention, paused or quiescent.
	Reason               string `json:"reason"`
	ActiveExecutionCount int    `json:"activeExecutionCount"`
	ActionableBlockCount int    `json:"actionableBlockCount"`
	NeedsAttention       bool   `json:"needsAttention"`
	// Graph is the run's topology and node statuses; nil when the publisher reports none.
	Graph *WorkflowRootGraph `json:"graph,omitempty"`
}

// WorkflowRootGraph is the expanded graph of one root run, nested child runs included.
type WorkflowRootGraph struct {
	Nodes []WorkflowGraphNode `json:"nodes"`
	// RunPrompts are run-level prompts awaiting an answer.
	RunPrompts []WorkflowGraphRunPrompt `json:"runPrompts,omitempty"`
}

// WorkflowGraphNode is a stage or tool node of a WorkflowRootGraph.
type WorkflowGraphNode struct {
	Kind           string   `json:"kind"` // stage|tool
	ID             string   `json:"id"`
	RunID          string   `json:"runId"`
	NodeID         string   `json:"nodeId"`
	Name           string   `json:"name"`
	ParentIDs      []string `json:"parentIds"`
	ExecutionOrder *int     `json:"executionOrder,omitempty"`
	Depth          int      `json:"depth"`
	Status         string   `json:"status"`
	// PendingPrompt is a stage's prompt awaiting an answer.
	PendingPrompt *WorkflowGraphNodePrompt `json:"pendingPrompt,omitempty"`
	// Ordinal is a tool node's invocation ordinal within its run.
	Ordinal *int `json:"ordinal,omitempty"`
}

// WorkflowGraphNodePrompt is a human-input prompt waiting on a graph node.
type WorkflowGraphNodePrompt struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"` // input|confirm|select|editor|custom
	Message   string   `json:"message"`
	Choices   []string `json:"choices,omitempty"`
	CreatedAt int64    `json:"createdAt"`
}

// WorkflowGraphRunPrompt is a prompt raised by a run itself.
type WorkflowGraphRunPrompt struct {
	WorkflowGraphNodePrompt
	RunID string `json:"runId"`
}

// WorkflowTarget is the target of a WorkflowLifecycle event (its Target field): a run, stage,
// tool or prompt. A stage target whose status is completed also fires workflow_stage_completed.
type WorkflowTarget struct {
	Kind           string `json:"kind"` // run|stage|tool|prompt
	RunID          string `json:"runId"`
	StageID        string `json:"stageId,omitempty"`
	StageName      string `json:"stageName,omitempty"`
	ToolNodeID     string `json:"toolNodeId,omitempty"`
	ToolName       string `json:"toolName,omitempty"`
	PromptID       string `json:"promptId,omitempty"`
	PreviousStatus string `json:"previousStatus,omitempty"`
	Status         string `json:"status"`
	// Action is a run target's control action: quit, kill, pause or resume.
	Action string `json:"action,omitempty"`
}

// WorkflowActivitySnapshot is the input of PublishSnapshot: Roots count only when Availability
// is ready (nil then means known empty).
type WorkflowActivitySnapshot struct {
	Availability string
	Roots        []WorkflowRootActivity
}

// WorkflowActivityFrame is what an observer receives: a snapshot (Availability, and Roots when
// ready), a changed root (Root) or a removed root (RootRunID).
type WorkflowActivityFrame struct {
	Kind         string
	Cursor       WorkflowCursor
	Availability string
	Roots        []WorkflowRootActivity
	Root         *WorkflowRootActivity
	RootRunID    string
}

// MarshalJSON writes the frame in the shape of its kind: a ready snapshot always has a roots
// array, other snapshots none; changed has root, removed rootRunId.
func (f WorkflowActivityFrame) MarshalJSON() ([]byte, error) {
	switch f.Kind {
	case WorkflowFrameChanged:
		return json.Marshal(struct {
			Kind   string                `json:"kind"`
			Cursor WorkflowCursor        `json:"cursor"`
			Root   *WorkflowRootActivity `json:"root"`
		}{f.Kind, f.Cursor, f.Root})
	case WorkflowFrameRemoved:
		return json.Marshal(struct {
			Kind      string         `json:"kind"`
			Cursor    WorkflowCursor `json:"cursor"`
			RootRunID string         `json:"rootRunId"`
		}{f.Kind, f.Cursor, f.RootRunID})
	}
	if f.Availability == WorkflowReady {
		roots := f.Roots
		if roots == nil {
			roots = []WorkflowRootActivity{}
		}
		return json.Marshal(struct {
			Kind         string                 `json:"kind"`
			Cursor       WorkflowCursor         `json:"cursor"`
			Availability string                 `json:"availability"`
			Roots        []WorkflowRootActivity `json:"roots"`
		}{f.Kind, f.Cursor, f.Availability, roots})
	}
	return json.Marshal(struct {
		Kind         string         `json:"kind"`
		Cursor       WorkflowCursor `json:"cursor"`
		Availability string         `json:"availability"`
	}{f.Kind, f.Cursor, f.Availability})
}

// WorkflowActivityObserver receives frames; an error (or a panic) is recorded as an
// ObserverDeliveryFailed diagnostic and delivery continues.
type WorkflowActivityObserver func(frame WorkflowActivityFrame) error

// WorkflowDiagnostic is one diagnostic record of the hub, with the cursor current at the time.
type WorkflowDiagnostic struct {
	Kind   string         `json:"kind"`
	Cursor WorkflowCursor `json:"cursor"`
}

// workflowEpochs numbers epochs across every hub of the process, so that no two publishers —
// even of different runtimes — share one.
var workflowEpochs atomic.Int64

// WorkflowActivityHub is the runner's workflow activity hub (Runner.WorkflowActivity). Safe for
// concurrent use.
type WorkflowActivityHub struct {
	r *Runner

	mu           sync.Mutex
	cursor       WorkflowCursor
	availability string
	order        []string                        // root ids in insertion order
	roots        map[string]WorkflowRootActivity // by root id
	leases       []*workflowLease
	diags        []WorkflowDiagnostic
	disposed     bool
	bound        bool
	held         []workflowHook // hooks published before Bind
}

type workflowLease struct {
	observer   WorkflowActivityObserver
	queue      []WorkflowActivityFrame
	delivering bool
	active     bool
}

// workflowHook is one hook event waiting for delivery; live reports whether its publisher is
// still current (checked before each handler starts).
type workflowHook struct {
	spec    *Spec
	payload any
	live    func() bool
}

func newWorkflowHub(r *Runner) *WorkflowActivityHub {
	return &WorkflowActivityHub{
		r:            r,
		cursor:       WorkflowCursor{Epoch: workflowEpochs.Add(1)},
		availability: WorkflowUnavailable,
		roots:        map[string]WorkflowRootActivity{},
	}
}

// WorkflowActivity returns the runner's workflow activity hub (created on first use).
func (r *Runner) WorkflowActivity() *WorkflowActivityHub {
	r.wfOnce.Do(func() { r.wf = newWorkflowHub(r) })
	return r.wf
}

// Diagnostics returns the retained diagnostic records, oldest first (at most
// WorkflowDiagnosticsLimit).
func (h *WorkflowActivityHub) Diagnostics() []WorkflowDiagnostic {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.diags)
}

// Snapshot returns the current snapshot frame.
func (h *WorkflowActivityHub) Snapshot() WorkflowActivityFrame {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.snapshotLocked()
}

func (h *WorkflowActivityHub) snapshotLocked() WorkflowActivityFrame {
	f := WorkflowActivityFrame{Kind: WorkflowFrameSnapshot, Cursor: h.cursor, Availability: h.availability}
	if h.availability == WorkflowReady {
		f.Roots = make([]WorkflowRootActivity, 0, len(h.order))
		for _, id := range h.order {
			f.Roots = append(f.Roots, h.roots[id].clone())
		}
	}
	return f
}

func (h *WorkflowActivityHub) record(kind string) {
	h.diags = append(h.diags, WorkflowDiagnostic{Kind: kind, Cursor: h.cursor})
	if n := len(h.diags) - WorkflowDiagnosticsLimit; n > 0 {
		h.diags = slices.Delete(h.diags, 0, n)
	}
}

func (h *WorkflowActivityHub) advance() WorkflowCursor {
	h.cursor.Revision++
	return h.cursor
}

// Observe attaches observer: it receives the current snapshot first, then every later frame in
// order, one callback at a time. On a disposed hub the subscription is inert.
func (h *WorkflowActivityHub) Observe(observer WorkflowActivityObserver) (*WorkflowActivitySubscription, error) {
	if observer == nil {
		return nil, errors.New("observeWorkflowActivity: nil observer")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.disposed {
		h.record(WorkflowObserverDisposed)
		return &WorkflowActivitySubscription{}, nil
	}
	switch h.availability {
	case WorkflowRecovering:
		h.record(WorkflowSourceRecovering)
	case WorkflowUnavailable:
		h.record(WorkflowSourceUnavailable)
	}
	l := &workflowLease{observer: observer, active: true}
	h.leases = append(h.leases, l)
	h.enqueue(l, h.snapshotLocked())
	return &WorkflowActivitySubscription{hub: h, lease: l}, nil
}

// WorkflowActivitySubscription is an observation lease (ctx.observeWorkflowActivity).
type WorkflowActivitySubscription struct {
	hub   *WorkflowActivityHub
	lease *workflowLease
}

// Dispose retires the lease: no queued callback runs afterwards (one already running
// finishes). Idempotent.
func (s *WorkflowActivitySubscription) Dispose() {
	if s == nil || s.hub == nil {
		return
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	s.hub.disposeLease(s.lease)
}

func (h *WorkflowActivityHub) disposeLease(l *workflowLease) {
	if !l.active {
		return
	}
	l.active = false
	l.queue = nil
	if i := slices.Index(h.leases, l); i >= 0 {
		h.leases = slices.Delete(h.leases, i, i+1)
	}
	h.record(WorkflowObserverDisposed)
}

// enqueue queues f for l (a fresh snapshot replaces a full queue) and starts delivery.
func (h *WorkflowActivityHub) enqueue(l *workflowLease, f WorkflowActivityFrame) {
	if len(l.queue) >= WorkflowQueueLimit {
		clear(l.queue)
		l.queue = append(l.queue[:0], h.snapshotLocked())
		h.record(WorkflowObserverOverflow)
	} else {
		l.queue = append(l.queue, f)
	}
	if l.delivering {
		return
	}
	l.delivering = true
	go h.deliver(l)
}

func (h *WorkflowActivityHub) broadcast(f WorkflowActivityFrame) {
	for _, l := range h.leases {
		h.enqueue(l, f)
	}
}

// deliver runs l's callbacks in order until its queue is empty or it is disposed.
func (h *WorkflowActivityHub) deliver(l *workflowLease) {
	for {
		h.mu.Lock()
		if !l.active || len(l.queue) == 0 {
			l.delivering = false
			h.mu.Unlock()
			return
		}
		f := l.queue[0]
		l.queue[0] = WorkflowActivityFrame{}
		l.queue = l.queue[1:]
		h.mu.Unlock()
		if err := observe(l.observer, f.clone()); err != nil {
			h.mu.Lock()
			h.record(WorkflowObserverDeliveryFailed)
			h.mu.Unlock()
		}
	}
}

func observe(fn WorkflowActivityObserver, f WorkflowActivityFrame) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(f)
}

// RegisterPublisher makes a new publisher the hub's source: a new epoch starts with an
// unavailable snapshot (sent to every observer after the frames already queued), and the
// previous publisher is fenced. On a disposed hub the publisher is fenced from the start.
func (h *WorkflowActivityHub) RegisterPublisher() *WorkflowActivityPublisher {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := &WorkflowActivityPublisher{hub: h}
	if h.disposed {
		return p
	}
	p.active = true
	h.cursor = WorkflowCursor{Epoch: workflowEpochs.Add(1)}
	p.epoch = h.cursor.Epoch
	h.availability = WorkflowUnavailable
	h.order, h.roots = nil, map[string]WorkflowRootActivity{}
	h.record(WorkflowSourceUnavailable)
	h.broadcast(h.snapshotLocked())
	return p
}

// WorkflowActivityPublisher publishes a workflow provider's activity and hooks
// (pi.registerWorkflowActivityPublisher). Publications of a fenced publisher return
// ErrWorkflowPublisherFenced and are recorded as PublisherFenced. Safe for concurrent use.
type WorkflowActivityPublisher struct {
	hub    *WorkflowActivityHub
	epoch  int64
	active bool // guarded by hub.mu
}

// current reports whether p is the hub's live source; call with hub.mu held.
func (p *WorkflowActivityPublisher) current() bool {
	return p.active && !p.hub.disposed && p.hub.cursor.Epoch == p.epoch
}

// admit locks the hub and reports whether p may publish; on false the hub is unlocked and the
// refusal recorded.
func (p *WorkflowActivityPublisher) admit() bool {
	p.hub.mu.Lock()
	if p.current() {
		return true
	}
	p.hub.record(WorkflowPublisherFenced)
	p.hub.mu.Unlock()
	return false
}

func (p *WorkflowActivityPublisher) live() bool {
	p.hub.mu.Lock()
	defer p.hub.mu.Unlock()
	return p.current()
}

// Epoch is the epoch p publishes in.
func (p *WorkflowActivityPublisher) Epoch() int64 { return p.epoch }

// PublishSnapshot replaces everything known: ready with its roots (duplicate ids keep the last
// value at the first position), or recovering / unavailable without roots.
func (p *WorkflowActivityPublisher) PublishSnapshot(s WorkflowActivitySnapshot) error {
	switch s.Availability {
	case WorkflowReady, WorkflowRecovering, WorkflowUnavailable:
	default:
		return fmt.Errorf("publishSnapshot: availability %q (use ready, recovering or unavailable)", s.Availability)
	}
	if !p.admit() {
		return ErrWorkflowPublisherFenced
	}
	h := p.hub
	defer h.mu.Unlock()
	switch s.Availability {
	case WorkflowRecovering:
		h.record(WorkflowSourceRecovering)
	case WorkflowUnavailable:
		h.record(WorkflowSourceUnavailable)
	}
	h.availability = s.Availability
	h.order, h.roots = nil, map[string]WorkflowRootActivity{}
	if s.Availability == WorkflowReady {
		for _, root := range s.Roots {
			if _, dup := h.roots[root.RootRunID]; !dup {
				h.order = append(h.order, root.RootRunID)
			}
			h.roots[root.RootRunID] = root.clone()
		}
	}
	h.advance()
	h.broadcast(h.snapshotLocked())
	return nil
}

// PublishChanged replaces (or adds) one root and fires workflow_activity_changed with the same
// cursor as the observers' changed frame. It does not make an unknown source ready.
func (p *WorkflowActivityPublisher) PublishChanged(root WorkflowRootActivity) error {
	if !p.admit() {
		return ErrWorkflowPublisherFenced
	}
	h := p.hub
	defer h.mu.Unlock()
	if _, ok := h.roots[root.RootRunID]; !ok {
		h.order = append(h.order, root.RootRunID)
	}
	h.roots[root.RootRunID] = root.clone()
	cursor := h.advance()
	c := root.clone()
	h.broadcast(WorkflowActivityFrame{Kind: WorkflowFrameChanged, Cursor: cursor, Root: &c})
	h.emit(IDWorkflowActivityChanged, &WorkflowActivityChanged{Root: root.clone(), Cursor: cursor}, p)
	return nil
}

// PublishRemoved removes a root; removing an absent id is permitted.
func (p *WorkflowActivityPublisher) PublishRemoved(rootRunID string) error {
	if !p.admit() {
		return ErrWorkflowPublisherFenced
	}
	h := p.hub
	defer h.mu.Unlock()
	if _, ok := h.roots[rootRunID]; ok {
		delete(h.roots, rootRunID)
		h.order = slices.DeleteFunc(h.order, func(id string) bool { return id == rootRunID })
	}
	h.broadcast(WorkflowActivityFrame{Kind: WorkflowFrameRemoved, Cursor: h.advance(), RootRunID: rootRunID})
	return nil
}

// PublishLifecycle fires workflow_lifecycle with a host-supplied cursor (Delivery defaults to
// live; a replay keeps its EventID and "replay"), and workflow_stage_completed with the same
// envelope when the target is a stage whose status is completed. Status, PreviousStatus and
// Action are filled from a WorkflowTarget when left empty.
func (p *WorkflowActivityPublisher) PublishLifecycle(e WorkflowLifecycle) error {
	if !p.admit() {
		return ErrWorkflowPublisherFenced
	}
	h := p.hub
	defer h.mu.Unlock()
	kind, status := lifecycleTarget(&e)
	if e.Delivery == "" {
		e.Delivery = "live"
	}
	e.Cursor = h.advance()
	h.emit(IDWorkflowLifecycle, &e, p)
	if kind == "stage" && status == "completed" {
		h.emit(IDWorkflowStageCompleted, &WorkflowStageCompleted{e}, p)
	}
	return nil
}

// PublishHeartbeat fires workflow_heartbeat (observation only).
func (p *WorkflowActivityPublisher) PublishHeartbeat(e WorkflowHeartbeat) error {
	if !p.admit() {
		return ErrWorkflowPublisherFenced
	}
	defer p.hub.mu.Unlock()
	p.hub.emit(IDWorkflowHeartbeat, &e, p)
	return nil
}

// Dispose retires the publisher (idempotent). If it was the current source, the activity
// becomes unavailable and observers get that snapshot; hook handlers of its events that have
// not started are skipped.
func (p *WorkflowActivityPublisher) Dispose() {
	h := p.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if !p.active {
		return
	}
	cur := p.current()
	p.active = false
	if !cur {
		return
	}
	h.availability = WorkflowUnavailable
	h.order, h.roots = nil, map[string]WorkflowRootActivity{}
	h.advance()
	h.record(WorkflowSourceUnavailable)
	h.broadcast(h.snapshotLocked())
}

// lifecycleTarget returns the kind and status of e's target (a WorkflowTarget, a pointer to
// one, or a decoded JSON object), filling e's Status, PreviousStatus and Action from it when
// they are empty.
func lifecycleTarget(e *WorkflowLifecycle) (kind, status string) {
	var prev, action string
	switch t := e.Target.(type) {
	case WorkflowTarget:
		kind, status, prev, action = t.Kind, t.Status, t.PreviousStatus, t.Action
	case *WorkflowTarget:
		if t != nil {
			kind, status, prev, action = t.Kind, t.Status, t.PreviousStatus, t.Action
		}
	case map[string]any:
		kind, _ = t["kind"].(string)
		status, _ = t["status"].(string)
		prev, _ = t["previousStatus"].(string)
		action, _ = t["action"].(string)
	}
	if e.Status == "" {
		e.Status = status
	}
	if e.PreviousStatus == "" {
		e.PreviousStatus = prev
	}
	if e.Action == "" {
		e.Action = action
	}
	return kind, e.Status
}

// emit queues a hook event of publisher p on the runner's notification queue; call with h.mu
// held (so hooks keep publication order). Before the runner binds the hook is held; after, it is
// dropped at once when nobody subscribed. Runner.Drain waits for queued hooks.
func (h *WorkflowActivityHub) emit(id EventID, payload any, p *WorkflowActivityPublisher) {
	if h.r == nil {
		return
	}
	hk := workflowHook{spec: &Table[id], payload: payload, live: p.live}
	if !h.bound {
		h.held = append(h.held, hk)
		return
	}
	if h.r.Has(id) {
		h.post(hk)
	}
}

// post hands hk to the runner's queue (unbounded, so this never blocks under h.mu).
func (h *WorkflowActivityHub) post(hk workflowHook) {
	h.r.post(func() { h.r.dispatchFenced(hk.spec, hk.payload, hk.live) })
}

// bind releases the hooks held before the runner bound, in publication order, ahead of any
// later live publication.
func (h *WorkflowActivityHub) bind() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bound || h.disposed {
		return
	}
	h.bound = true
	held := h.held
	h.held = nil
	for _, hk := range held {
		h.post(hk)
	}
}

// dispose disposes every observer, fences every publisher (so queued hooks run no handler) and
// drops held hooks.
func (h *WorkflowActivityHub) dispose() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.disposed {
		return
	}
	h.disposed = true
	h.held = nil
	for _, l := range slices.Clone(h.leases) {
		h.disposeLease(l)
	}
}

// dispatchFenced runs the handlers of a workflow hook in order, skipping the rest once live
// reports the publisher fenced (events.md §3.10). Errors are isolated and reported.
func (r *Runner) dispatchFenced(spec *Spec, payload any, live func() bool) {
	hs := (*r.handlers.Load())[spec.ID]
	var c Context
	for _, hd := range hs {
		if !live() {
			return
		}
		if c == nil {
			c = r.context(context.Background())
		}
		res, err := r.call(hd.fn, c, payload)
		if err == nil {
			_, err = checkResult(spec, payload, res)
		}
		if err != nil {
			r.report(&Error{ExtensionPath: hd.ext.Path, Event: spec.Name, Err: err, Message: err.Error()})
		}
	}
}

// clone returns a deep copy of the root, so observers and the hub never share mutable state.
func (a WorkflowRootActivity) clone() WorkflowRootActivity {
	if a.Graph == nil {
		return a
	}
	g := &WorkflowRootGraph{Nodes: slices.Clone(a.Graph.Nodes)}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		n.ParentIDs = slices.Clone(n.ParentIDs)
		if n.ExecutionOrder != nil {
			v := *n.ExecutionOrder
			n.ExecutionOrder = &v
		}
		if n.Ordinal != nil {
			v := *n.Ordinal
			n.Ordinal = &v
		}
		if n.PendingPrompt != nil {
			pp := *n.PendingPrompt
			pp.Choices = slices.Clone(pp.Choices)
			n.PendingPrompt = &pp
		}
	}
	if a.Graph.RunPrompts != nil {
		g.RunPrompts = slices.Clone(a.Graph.RunPrompts)
		for i := range g.RunPrompts {
			g.RunPrompts[i].Choices = slices.Clone(g.RunPrompts[i].Choices)
		}
	}
	a.Graph = g
	return a
}

func (f WorkflowActivityFrame) clone() WorkflowActivityFrame {
	if f.Roots != nil {
		roots := make([]WorkflowRootActivity, len(f.Roots))
		for i, r := range f.Roots {
			roots[i] = r.clone()
		}
		f.Roots = roots
	}
	if f.Root != nil {
		c := f.Root.clone()
		f.Root = &c
	}
	return f
}

// RegisterWorkflowActivityPublisher registers a workflow activity publisher
// (pi.registerWorkflowActivityPublisher): the runner's hub starts a new epoch with it and
// fences the previous one. It is disposed when the extension fails to load or the runner is
// disposed.
func (a *api) RegisterWorkflowActivityPublisher() *WorkflowActivityPublisher {
	p := a.runner.WorkflowActivity().RegisterPublisher()
	a.mu.Lock()
	a.unsubs = append(a.unsubs, p.Dispose)
	a.mu.Unlock()
	return p
}

// ObserveWorkflowActivity is Context.ObserveWorkflowActivity without a session: it observes the
// runner's hub.
func (d detachedContext) ObserveWorkflowActivity(observer WorkflowActivityObserver) (*WorkflowActivitySubscription, error) {
	if d.r == nil {
		return nil, ErrNoSession
	}
	return d.r.WorkflowActivity().Observe(observer)
}
