package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// Workflow activity for hosts (seed 000 "Workflow activity and lifecycle hooks"): a host
// extension's pi.registerWorkflowActivityPublisher() is a publisher of the runner's hub, kept
// here by id; its ctx.observeWorkflowActivity(observer) is an observer of the hub whose frames
// go to the host as workflow.frame requests, one at a time (the hub runs an observer's
// callbacks in order and the next starts after the host answered). Publishers and observers of
// a host process are disposed when it goes away.

var (
	wfPublisherSeq atomic.Int64
	wfPublishers   sync.Map // publisher id -> *wfPublisher
	wfObservers    sync.Map // wfObserverKey -> *wfObserver
)

// wfObserver is an observer's lease; done closes when it is disposed (ending its watch of the
// host process).
type wfObserver struct {
	lease *ext.WorkflowActivitySubscription
	done  chan struct{}
	once  sync.Once
}

// dispose retires the lease and ends the watch (idempotent).
func (o *wfObserver) dispose() {
	o.once.Do(func() {
		o.lease.Dispose()
		close(o.done)
	})
}

// wfPublisher is a host's publisher; done closes when it is disposed (ending its watch of the
// host process).
type wfPublisher struct {
	pub  *ext.WorkflowActivityPublisher
	done chan struct{}
	once sync.Once
}

// dispose retires the publisher and ends the watch (idempotent).
func (w *wfPublisher) dispose() {
	w.once.Do(func() {
		w.pub.Dispose()
		close(w.done)
	})
}

// wfObserverKey names an observer: the host process and the host's id of it.
type wfObserverKey struct {
	p   *process
	sub int64
}

// workflowRegister serves workflow.register.
func workflowRegister(s *Supervisor, p *process, a *protocol.ExtRef, api ext.API, _ *generation) (any, error) {
	pub := api.RegisterWorkflowActivityPublisher()
	id := wfPublisherSeq.Add(1)
	w := &wfPublisher{pub: pub, done: make(chan struct{})}
	wfPublishers.Store(id, w)
	go func() {
		select {
		case <-p.done:
			wfPublishers.Delete(id)
			w.dispose()
		case <-w.done:
		}
	}()
	return protocol.WorkflowPublisher{Publisher: id, Epoch: pub.Epoch()}, nil
}

// workflowSnapshot is the JSON shape of publishSnapshot's argument.
type workflowSnapshot struct {
	Availability string                     `json:"availability"`
	Roots        []ext.WorkflowRootActivity `json:"roots"`
}

// workflowPublish serves workflow.publish.
func workflowPublish(_ *Supervisor, _ *process, params json.RawMessage) (any, error) {
	var a protocol.WorkflowPublishParams
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	v, ok := wfPublishers.Load(a.Publisher)
	if !ok {
		return protocol.WorkflowPublishResult{Fenced: true}, nil
	}
	w := v.(*wfPublisher)
	pub := w.pub
	decode := func(dst any) error {
		if len(a.Value) == 0 {
			return protocol.Errorf(protocol.CodeInvalidParams, "workflow publisher.%s: no argument", a.Method)
		}
		if err := json.Unmarshal(a.Value, dst); err != nil {
			return protocol.Errorf(protocol.CodeInvalidParams, "workflow publisher.%s: %v", a.Method, err)
		}
		return nil
	}
	var err error
	switch a.Method {
	case "snapshot":
		var snap workflowSnapshot
		if err = decode(&snap); err == nil {
			err = pub.PublishSnapshot(ext.WorkflowActivitySnapshot{Availability: snap.Availability, Roots: snap.Roots})
		}
	case "changed":
		var root ext.WorkflowRootActivity
		if err = decode(&root); err == nil {
			err = pub.PublishChanged(root)
		}
	case "removed":
		var id string
		if err = decode(&id); err == nil {
			err = pub.PublishRemoved(id)
		}
	case "lifecycle":
		var e ext.WorkflowLifecycle
		if err = decode(&e); err == nil {
			err = pub.PublishLifecycle(e)
		}
	case "heartbeat":
		var e ext.WorkflowHeartbeat
		if err = decode(&e); err == nil {
			err = pub.PublishHeartbeat(e)
		}
	case "dispose":
		wfPublishers.Delete(a.Publisher)
		w.dispose()
	default:
		return nil, protocol.Errorf(protocol.CodeMethodNotFound, "workflow publisher.%s is not a publisher method", a.Method)
	}
	if errors.Is(err, ext.ErrWorkflowPublisherFenced) {
		return protocol.WorkflowPublishResult{Fenced: true}, nil
	}
	if err != nil {
		return nil, err
	}
	return protocol.WorkflowPublishResult{}, nil
}

// workflowObserve serves workflow.observe: the observer sends each frame to the host and waits
// for its answer (bounded by extensionHandlerTimeoutMs; a host that goes away fails it at once).
func workflowObserve(s *Supervisor, p *process, params json.RawMessage) (any, error) {
	a, c, err := ctxCall(s, params, func(a *protocol.WorkflowObserveParams) int64 { return a.Ctx })
	if err != nil {
		return nil, err
	}
	sub := a.Sub
	observer := func(f ext.WorkflowActivityFrame) error {
		raw, err := json.Marshal(f)
		if err != nil {
			return fmt.Errorf("workflow activity frame: %v", err)
		}
		_, err = p.callWithin(context.Background(), s.opts.HandlerTimeout, 0, protocol.MethodWorkflowFrame,
			protocol.WorkflowFrameParams{Sub: sub, Frame: raw}, "the workflow activity observer", nil)
		return err
	}
	lease, err := c.ObserveWorkflowActivity(observer)
	if err != nil {
		return nil, err
	}
	key := wfObserverKey{p: p, sub: sub}
	o := &wfObserver{lease: lease, done: make(chan struct{})}
	if old, loaded := wfObservers.Swap(key, o); loaded {
		old.(*wfObserver).dispose()
	}
	go func() {
		select {
		case <-p.done:
			wfObservers.CompareAndDelete(key, o)
			o.dispose()
		case <-o.done:
		}
	}()
	return nil, nil
}

// workflowUnobserve serves workflow.unobserve (idempotent).
func workflowUnobserve(_ *Supervisor, p *process, params json.RawMessage) (any, error) {
	var a protocol.WorkflowObserveParams
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	if v, ok := wfObservers.LoadAndDelete(wfObserverKey{p: p, sub: a.Sub}); ok {
		v.(*wfObserver).dispose()
	}
	return nil, nil
}

func init() {
	methods[protocol.MethodWorkflowRegister] = withAPI(workflowRegister)
	methods[protocol.MethodWorkflowPublish] = workflowPublish
	methods[protocol.MethodWorkflowObserve] = workflowObserve
	methods[protocol.MethodWorkflowUnobserve] = workflowUnobserve
}
