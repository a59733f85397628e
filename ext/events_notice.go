package ext

// Reliability and domain notices, user execution, MCP, UI and workflow events (events.md §3.8,
// §3.9, §3.10).

import "encoding/json"

// AutoRetryStart fires before an automatic retry.
type AutoRetryStart struct {
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
	ErrorID      string `json:"errorId,omitempty"`
}

// AutoRetryEnd fires when the retries end.
type AutoRetryEnd struct {
	Success     bool         `json:"success"`
	Attempt     int          `json:"attempt"`
	FinalError  string       `json:"finalError,omitempty"`
	RetryErrors []RetryError `json:"retryErrors,omitempty"`
}

// RetryError is one failed attempt of an automatic retry (oh-my-pi).
type RetryError struct {
	EntryID        string `json:"entryId"`
	PersistenceKey string `json:"persistenceKey,omitempty"`
	Note           string `json:"note"`
	RetryRecovery  any    `json:"retryRecovery"`
}

// RetryFallbackApplied fires when a fallback model is selected.
type RetryFallbackApplied struct {
	From string `json:"from"`
	To   string `json:"to"`
	Role string `json:"role"`
}

// RetryFallbackSucceeded fires when a fallback model actually succeeded.
type RetryFallbackSucceeded struct {
	Model string `json:"model"`
	Role  string `json:"role"`
}

// TTSRTriggered fires when stream rules interrupted generation.
type TTSRTriggered struct {
	Rules []any `json:"rules"`
}

// TodoReminder fires when unfinished todos remain.
type TodoReminder struct {
	Todos       []any `json:"todos"`
	Attempt     int   `json:"attempt"`
	MaxAttempts int   `json:"maxAttempts"`
}

// GoalUpdated fires when the goal or goal mode changed.
type GoalUpdated struct {
	Goal  any    `json:"goal"`
	State string `json:"state,omitempty"`
}

// CredentialDisabled fires when a credential was soft-disabled automatically; buffered (32,
// drop-oldest) until the runner binds.
type CredentialDisabled struct {
	Provider      string `json:"provider"`
	DisabledCause string `json:"disabledCause"`
}

// UserBash fires when the user runs !cmd or !!cmd.
type UserBash struct {
	Command            string `json:"command"`
	Cwd                string `json:"cwd"`
	ExcludeFromContext bool   `json:"excludeFromContext"`
}

// ExecResult is the outcome of a user command run by an extension instead of atomic.
type ExecResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode,omitempty"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// UserExecResult replaces execution (Result) or its backend (Operations); the first one wins
// (events.md §4 row 9).
type UserExecResult struct {
	Operations any         `json:"operations,omitempty"`
	Result     *ExecResult `json:"result,omitempty"`
}

// isSet: any returned object ends dispatch, even an empty one (a truthy object in JS, events.md
// §3.9 "the first truthy object returned ends dispatch").
func (r *UserExecResult) isSet() bool    { return r != nil }
func (r *UserExecResult) decisive() bool { return true }

// UserPython fires when the user runs $code or $$code (oh-my-pi).
type UserPython struct {
	Code               string `json:"code"`
	Cwd                string `json:"cwd"`
	ExcludeFromContext bool   `json:"excludeFromContext"`
}

// MCPNotification is a notification from an MCP server; buffered (100, drop-oldest) until the
// runner binds. Server is the server's name in the MCP configuration, Method the JSON-RPC method
// as sent, and Params the params as sent (a json.RawMessage from atomic's MCP manager; nil when
// the notification had none). It carries no authority: validate it before use.
type MCPNotification struct {
	Server string `json:"server"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// UIPrompt is the payload of ui_prompt_start and ui_prompt_end.
type UIPrompt struct {
	Reason string `json:"reason"` // ui_prompt|project_trust
	Kind   string `json:"kind"`   // select|confirm|input|editor|custom
	Title  string `json:"title,omitempty"`
}

// UIPromptStart is ui_prompt_start.
type UIPromptStart struct{ UIPrompt }

// UIPromptEnd is ui_prompt_end.
type UIPromptEnd struct{ UIPrompt }

// WorkflowLifecycle is a workflow target's status change.
type WorkflowLifecycle struct {
	Target         any            `json:"target"`
	Status         string         `json:"status"`
	PreviousStatus string         `json:"previousStatus,omitempty"`
	EventID        string         `json:"eventId"`
	Cursor         WorkflowCursor `json:"cursor"`
	Delivery       string         `json:"delivery"` // live|replay
	Action         string         `json:"action,omitempty"`
	// Attribution holds the envelope's other members a publisher supplied (ownership,
	// timestamps, names: seed 000 preserves them), by name, as they came; in JSON they sit
	// beside the named fields, which win over a member of the same name.
	Attribution map[string]json.RawMessage `json:"-"`
}

// workflowLifecycleJSON is WorkflowLifecycle without its methods.
type workflowLifecycleJSON WorkflowLifecycle

// MarshalJSON writes the named fields and the Attribution members.
func (e WorkflowLifecycle) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(workflowLifecycleJSON(e))
	if err != nil || len(e.Attribution) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range e.Attribution {
		if _, named := m[k]; !named && k != "type" {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the named fields and keeps every other member (but "type") in
// Attribution.
func (e *WorkflowLifecycle) UnmarshalJSON(b []byte) error {
	var v workflowLifecycleJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, k := range []string{"target", "status", "previousStatus", "eventId", "cursor", "delivery", "action", "type"} {
		delete(m, k)
	}
	v.Attribution = nil
	if len(m) > 0 {
		v.Attribution = m
	}
	*e = WorkflowLifecycle(v)
	return nil
}

// WorkflowCursor orders workflow frames: Epoch changes when the publisher is replaced.
type WorkflowCursor struct {
	Epoch    int64 `json:"epoch"`
	Revision int64 `json:"revision"`
}

// WorkflowActivityChanged carries a replaced root activity.
type WorkflowActivityChanged struct {
	Root   any            `json:"root"`
	Cursor WorkflowCursor `json:"cursor"`
}

// WorkflowStageCompleted fires when a stage completed.
type WorkflowStageCompleted struct{ WorkflowLifecycle }

// WorkflowHeartbeat is a scheduler heartbeat.
type WorkflowHeartbeat struct {
	RunID           string `json:"runId"`
	RootID          string `json:"rootId"`
	OwnerID         string `json:"ownerId"`
	ScheduledAt     int64  `json:"scheduledAt"`
	IntervalMinutes int    `json:"intervalMinutes"`
}

func (*AutoRetryStart) eventID() EventID          { return IDAutoRetryStart }
func (*AutoRetryEnd) eventID() EventID            { return IDAutoRetryEnd }
func (*RetryFallbackApplied) eventID() EventID    { return IDRetryFallbackApplied }
func (*RetryFallbackSucceeded) eventID() EventID  { return IDRetryFallbackSucceeded }
func (*TTSRTriggered) eventID() EventID           { return IDTTSRTriggered }
func (*TodoReminder) eventID() EventID            { return IDTodoReminder }
func (*GoalUpdated) eventID() EventID             { return IDGoalUpdated }
func (*CredentialDisabled) eventID() EventID      { return IDCredentialDisabled }
func (*UserBash) eventID() EventID                { return IDUserBash }
func (*UserPython) eventID() EventID              { return IDUserPython }
func (*MCPNotification) eventID() EventID         { return IDMCPNotification }
func (*UIPromptStart) eventID() EventID           { return IDUIPromptStart }
func (*UIPromptEnd) eventID() EventID             { return IDUIPromptEnd }
func (*WorkflowLifecycle) eventID() EventID       { return IDWorkflowLifecycle }
func (*WorkflowActivityChanged) eventID() EventID { return IDWorkflowActivityChanged }
func (*WorkflowStageCompleted) eventID() EventID  { return IDWorkflowStageCompleted }
func (*WorkflowHeartbeat) eventID() EventID       { return IDWorkflowHeartbeat }

func (*AutoRetryStart) resultOf(None)          {}
func (*AutoRetryEnd) resultOf(None)            {}
func (*RetryFallbackApplied) resultOf(None)    {}
func (*RetryFallbackSucceeded) resultOf(None)  {}
func (*TTSRTriggered) resultOf(None)           {}
func (*TodoReminder) resultOf(None)            {}
func (*GoalUpdated) resultOf(None)             {}
func (*CredentialDisabled) resultOf(None)      {}
func (*UserBash) resultOf(*UserExecResult)     {}
func (*UserPython) resultOf(*UserExecResult)   {}
func (*MCPNotification) resultOf(None)         {}
func (*UIPromptStart) resultOf(None)           {}
func (*UIPromptEnd) resultOf(None)             {}
func (*WorkflowLifecycle) resultOf(None)       {}
func (*WorkflowActivityChanged) resultOf(None) {}
func (*WorkflowStageCompleted) resultOf(None)  {}
func (*WorkflowHeartbeat) resultOf(None)       {}

var noticeRows = []Spec{
	{Name: "auto_retry_start", Stream: "auto_retry_start", Systems: "O", Family: "reliability", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "before an automatic retry", Payload: typeOf[AutoRetryStart]()},
	{Name: "auto_retry_end", Stream: "auto_retry_end", Systems: "O", Family: "reliability", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "the retries ended", Payload: typeOf[AutoRetryEnd]()},
	{Name: "retry_fallback_applied", Stream: "retry_fallback_applied", Systems: "O", Family: "reliability", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a fallback model was selected", Payload: typeOf[RetryFallbackApplied]()},
	{Name: "retry_fallback_succeeded", Stream: "retry_fallback_succeeded", Systems: "O", Family: "reliability", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a fallback model succeeded", Payload: typeOf[RetryFallbackSucceeded]()},
	{Name: "ttsr_triggered", Systems: "O", Family: "reliability", Combine: Notify, Errors: Isolate, Awaited: true, Doc: "stream rules interrupted generation", Payload: typeOf[TTSRTriggered]()},
	{Name: "todo_reminder", Systems: "O", Family: "reliability", Combine: Notify, Errors: Isolate, Awaited: true, Doc: "unfinished todos remain", Payload: typeOf[TodoReminder]()},
	{Name: "goal_updated", Systems: "O", Family: "reliability", Combine: Notify, Errors: Isolate, Awaited: true, Doc: "the goal or goal mode changed", Payload: typeOf[GoalUpdated]()},
	{Name: "credential_disabled", Systems: "O", Family: "reliability", Combine: Notify, Errors: Isolate, Awaited: true, Buffer: 32, Emitted: true, Doc: "a credential was soft-disabled automatically", Payload: typeOf[CredentialDisabled]()},
	{Name: "user_bash", Systems: "AOP", Family: "user", Combine: FirstWins, Errors: Isolate, Awaited: true, Emitted: true, Doc: "the user runs !cmd or !!cmd", Payload: typeOf[UserBash](), Result: typeOf[UserExecResult]()},
	{Name: "user_python", Systems: "O", Family: "user", Combine: FirstWins, Errors: Isolate, Awaited: true, Doc: "the user runs $code or $$code", Payload: typeOf[UserPython](), Result: typeOf[UserExecResult]()},
	{Name: "mcp_notification", Systems: "O", Family: "mcp", Combine: Notify, Errors: Isolate, Awaited: true, Buffer: 100, Emitted: true, Doc: "an MCP server notification", Payload: typeOf[MCPNotification]()},
	{Name: "ui_prompt_start", Systems: "A", Family: "ui", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "a blocking UI prompt opens (coalesced into one outer span)", Payload: typeOf[UIPromptStart]()},
	{Name: "ui_prompt_end", Systems: "A", Family: "ui", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "every prompt of the span settled", Payload: typeOf[UIPromptEnd]()},
	{Name: "workflow_lifecycle", Systems: "A", Family: "workflow", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "a workflow run, stage, tool or prompt changed status", Payload: typeOf[WorkflowLifecycle]()},
	{Name: "workflow_activity_changed", Systems: "A", Family: "workflow", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "a root activity was replaced", Payload: typeOf[WorkflowActivityChanged]()},
	{Name: "workflow_stage_completed", Systems: "A", Family: "workflow", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "a workflow stage completed", Payload: typeOf[WorkflowStageCompleted]()},
	{Name: "workflow_heartbeat", Systems: "A", Family: "workflow", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "a scheduler heartbeat", Payload: typeOf[WorkflowHeartbeat]()},
}
