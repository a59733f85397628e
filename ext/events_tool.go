package ext

import (
	"github.com/atomic-cli/atomic/llm"
)

// Tool events (events.md §3.6).

// ToolExecutionStart fires for each call in source order at preflight.
type ToolExecutionStart struct {
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Args       map[string]any `json:"args"`
	Intent     string         `json:"intent,omitempty"` // oh-my-pi
}

// ToolCall fires after tool_execution_start and argument validation, before execution. Input
// may be edited in place; a returned Input replaces it for later handlers and execution and is
// validated again (events.md §4 row 8). The first block wins; a handler error blocks
// (fail-closed).
type ToolCall struct {
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Input      map[string]any `json:"input"`
}

// ToolCallResult blocks the call (with Reason as the model's error text), asks to terminate
// the batch, or replaces the input.
type ToolCallResult struct {
	Block     bool           `json:"block,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	Terminate bool           `json:"terminate,omitempty"`
	Input     map[string]any `json:"input,omitempty"`
}

func (r *ToolCallResult) isSet() bool  { return r != nil && (r.Block || r.Input != nil || r.Terminate) }
func (r *ToolCallResult) vetoes() bool { return r.Block }
func (e *ToolCall) apply(res any) error {
	if in := res.(*ToolCallResult).Input; in != nil {
		e.Input = in
	}
	return nil
}

// ToolExecutionUpdate fires for each partial result.
type ToolExecutionUpdate struct {
	ToolCallID    string         `json:"toolCallId"`
	ToolName      string         `json:"toolName"`
	Args          map[string]any `json:"args"`
	PartialResult *ToolOutput    `json:"partialResult"`
}

// ToolResult fires after execution, before tool_execution_end; results patch it in turn.
type ToolResult struct {
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Input      map[string]any `json:"input"`
	Content    []llm.Content  `json:"content"`
	Details    any            `json:"details,omitempty"`
	IsError    bool           `json:"isError"`
}

// ToolResultPatch replaces the fields it sets; omitted fields keep their values.
type ToolResultPatch struct {
	Content *[]llm.Content `json:"content,omitempty"`
	Details *any           `json:"details,omitempty"`
	IsError *bool          `json:"isError,omitempty"`
}

func (r *ToolResultPatch) isSet() bool {
	return r != nil && (r.Content != nil || r.Details != nil || r.IsError != nil)
}
func (e *ToolResult) apply(res any) error {
	p := res.(*ToolResultPatch)
	if p.Content != nil {
		e.Content = *p.Content
	}
	if p.Details != nil {
		e.Details = *p.Details
	}
	if p.IsError != nil {
		e.IsError = *p.IsError
	}
	return nil
}

// ToolExecutionEnd fires when a call is finalised (completion order in parallel mode).
type ToolExecutionEnd struct {
	ToolCallID string      `json:"toolCallId"`
	ToolName   string      `json:"toolName"`
	Result     *ToolOutput `json:"result"`
	IsError    bool        `json:"isError"`
}

// ToolApprovalRequested fires when a call reaches a required approval gate (oh-my-pi).
type ToolApprovalRequested struct {
	SessionID    string `json:"sessionId"`
	ToolCallID   string `json:"toolCallId"`
	ToolName     string `json:"toolName"`
	Reason       string `json:"reason,omitempty"`
	ApprovalMode string `json:"approvalMode"`
}

// ToolApprovalResolved fires when the approval decision is made (oh-my-pi).
type ToolApprovalResolved struct {
	SessionID  string `json:"sessionId"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	Approved   bool   `json:"approved"`
	Reason     string `json:"reason,omitempty"`
}

func (*ToolExecutionStart) eventID() EventID    { return IDToolExecutionStart }
func (*ToolCall) eventID() EventID              { return IDToolCall }
func (*ToolExecutionUpdate) eventID() EventID   { return IDToolExecutionUpdate }
func (*ToolResult) eventID() EventID            { return IDToolResult }
func (*ToolExecutionEnd) eventID() EventID      { return IDToolExecutionEnd }
func (*ToolApprovalRequested) eventID() EventID { return IDToolApprovalRequested }
func (*ToolApprovalResolved) eventID() EventID  { return IDToolApprovalResolved }

func (*ToolExecutionStart) resultOf(None)     {}
func (*ToolCall) resultOf(*ToolCallResult)    {}
func (*ToolExecutionUpdate) resultOf(None)    {}
func (*ToolResult) resultOf(*ToolResultPatch) {}
func (*ToolExecutionEnd) resultOf(None)       {}
func (*ToolApprovalRequested) resultOf(None)  {}
func (*ToolApprovalResolved) resultOf(None)   {}

var toolRows = []Spec{
	{Name: "tool_execution_start", Queued: true, Stream: "tool_execution_start", Systems: "AOP", Family: "tool", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "each call, in source order, at preflight", Payload: typeOf[ToolExecutionStart]()},
	{Name: "tool_call", Barrier: true, Ordered: true, Editable: []string{"input"}, Systems: "AOP", Family: "tool", Combine: Veto, Errors: FailClosed, Awaited: true, Emitted: true, Doc: "after validation, before execution; the first block wins, errors block", Payload: typeOf[ToolCall](), Result: typeOf[ToolCallResult]()},
	{Name: "tool_execution_update", Queued: true, Stream: "tool_execution_update", Systems: "AOP", Family: "tool", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a partial result", Payload: typeOf[ToolExecutionUpdate]()},
	{Name: "tool_result", Ordered: true, Systems: "AOP", Family: "tool", Combine: ChainPatch, Errors: Isolate, Awaited: true, Emitted: true, Doc: "after execution, before tool_execution_end; partial patches chain", Payload: typeOf[ToolResult](), Result: typeOf[ToolResultPatch]()},
	{Name: "tool_execution_end", Queued: true, Stream: "tool_execution_end", Systems: "AOP", Family: "tool", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a call is finalised, in completion order", Payload: typeOf[ToolExecutionEnd]()},
	{Name: "tool_approval_requested", Systems: "O", Family: "tool", Combine: Notify, Errors: Isolate, Awaited: true, Doc: "a call reaches a required approval gate", Payload: typeOf[ToolApprovalRequested]()},
	{Name: "tool_approval_resolved", Systems: "O", Family: "tool", Combine: Notify, Errors: Isolate, Awaited: true, Doc: "the approval decision is made", Payload: typeOf[ToolApprovalResolved]()},
}
