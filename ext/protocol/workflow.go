package protocol

import "encoding/json"

// The workflow activity channel (seed 000 "Workflow activity and lifecycle hooks";
// docs/extension-protocol.md "Workflow activity"): pi.registerWorkflowActivityPublisher and
// ctx.observeWorkflowActivity of a host extension, served by the core's workflow activity hub.
const (
	// MethodWorkflowRegister (host -> core, sync) registers a publisher for the extension
	// (ExtRef); the answer is a WorkflowPublisher.
	MethodWorkflowRegister = "workflow.register"
	// MethodWorkflowPublish (host -> core, sync) is one publication or the disposal of a
	// publisher (WorkflowPublishParams); the answer is a WorkflowPublishResult.
	MethodWorkflowPublish = "workflow.publish"
	// MethodWorkflowObserve (host -> core, sync) attaches an observer for a context
	// (WorkflowObserveParams); its frames arrive as MethodWorkflowFrame requests.
	MethodWorkflowObserve = "workflow.observe"
	// MethodWorkflowUnobserve (host -> core, notification) disposes an observation lease
	// (WorkflowObserveParams.Sub).
	MethodWorkflowUnobserve = "workflow.unobserve"
	// MethodWorkflowFrame (core -> host, request) delivers one frame to an observer
	// (WorkflowFrameParams); the core sends the next frame of that observer only after the
	// answer, so callbacks of one observer never overlap. An error answer is recorded as an
	// ObserverDeliveryFailed diagnostic.
	MethodWorkflowFrame = "workflow.frame"
)

// WorkflowPublisher answers MethodWorkflowRegister: the publisher's id (for
// WorkflowPublishParams) and the epoch it publishes in.
type WorkflowPublisher struct {
	Publisher int64 `json:"publisher"`
	Epoch     int64 `json:"epoch"`
}

// WorkflowPublishParams are one call of a publisher: Method is snapshot, changed, removed,
// lifecycle, heartbeat or dispose; Value is its argument (a snapshot {availability, roots}, a
// root, a rootRunId string, a lifecycle or heartbeat event; none for dispose).
type WorkflowPublishParams struct {
	Publisher int64           `json:"publisher"`
	Method    string          `json:"method"`
	Value     json.RawMessage `json:"value,omitempty"`
}

// WorkflowPublishResult answers MethodWorkflowPublish: Fenced is set when the publisher was
// disposed or superseded and the publication refused (recorded as a PublisherFenced
// diagnostic, not an error).
type WorkflowPublishResult struct {
	Fenced bool `json:"fenced,omitempty"`
}

// WorkflowObserveParams name the context an observer attaches through (Ctx, for
// MethodWorkflowObserve) and the host's id of the observer (Sub).
type WorkflowObserveParams struct {
	Ctx int64 `json:"ctx,omitempty"`
	Sub int64 `json:"sub"`
}

// WorkflowFrameParams deliver Frame (the hub's frame JSON: kind, cursor and availability/roots,
// root or rootRunId) to observer Sub.
type WorkflowFrameParams struct {
	Sub   int64           `json:"sub"`
	Frame json.RawMessage `json:"frame"`
}
