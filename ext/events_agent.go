package ext

import (
	"fmt"

	"github.com/atomic-cli/atomic/llm"
)

// Agent, turn and message events (events.md §3.5).

// AgentStart fires when a low-level run begins.
type AgentStart struct{}

// AgentEnd fires when a run ends; more runs may follow (WillContinue).
type AgentEnd struct {
	Messages     []llm.Message `json:"messages"`
	WillContinue bool          `json:"willContinue,omitempty"`
}

// AgentSettled fires exactly once per top-level prompt, after everything, even on error.
type AgentSettled struct{}

// SessionStop fires when the main session is about to settle (oh-my-pi); a handler may ask for
// one more pass (at most Cap consecutive continuations) or block.
type SessionStop struct {
	Messages             []llm.Message `json:"messages"`
	TurnID               int           `json:"turn_id"`
	LastAssistantMessage *llm.Message  `json:"last_assistant_message,omitempty"`
	SessionID            string        `json:"session_id"`
	SessionFile          string        `json:"session_file,omitempty"`
	StopHookActive       bool          `json:"stop_hook_active"`

	continuation *SessionStopResult
}

// SessionStopResult asks to continue with additional context, or blocks.
type SessionStopResult struct {
	Continue          bool   `json:"continue,omitempty"`
	AdditionalContext string `json:"additionalContext,omitempty"`
	Decision          string `json:"decision,omitempty"` // "block"
	Reason            string `json:"reason,omitempty"`
}

func (r *SessionStopResult) isSet() bool {
	return r != nil && (r.Decision == "block" || (r.Continue && (r.AdditionalContext != "" || r.Reason != "")))
}
func (r *SessionStopResult) vetoes() bool { return r.Decision == "block" }

// apply keeps the first continuation; a later block still wins (vetoes).
func (e *SessionStop) apply(res any) error {
	r := res.(*SessionStopResult)
	if r.Decision != "block" && e.continuation == nil {
		e.continuation = r
	}
	return nil
}

// kept makes the first continuation the combined result when no handler blocked (events.md
// §3.5: the first continue wins, later handlers still run).
func (e *SessionStop) kept() any {
	if e.continuation == nil {
		return nil
	}
	return e.continuation
}

// Continuation returns the first continue result of a dispatch, or nil.
func (e *SessionStop) Continuation() *SessionStopResult { return e.continuation }

// TurnStart fires at the start of each turn.
type TurnStart struct {
	TurnIndex int   `json:"turnIndex"`
	Timestamp int64 `json:"timestamp"` // Unix ms
}

// TurnEnd fires after the assistant message and its tool results.
type TurnEnd struct {
	TurnIndex   int           `json:"turnIndex"`
	Message     *llm.Message  `json:"message"`
	ToolResults []llm.Message `json:"toolResults"`
}

// MessageStart fires when a user, assistant, toolResult or custom message begins.
type MessageStart struct {
	Message *llm.Message `json:"message"`
}

// MessageUpdate fires for each assistant stream delta. Message is the cumulative snapshot
// (events.md §4 row 12); it is valid only during the handler call.
type MessageUpdate struct {
	AssistantMessageEvent *llm.Event   `json:"assistantMessageEvent"`
	Message               *llm.Message `json:"message,omitempty"`
	// Usage is the partial message's cumulative usage at this delta. It is set on the
	// front-end stream, where Message is nil unless the subscriber asked for snapshots
	// (session.SubscribeOptions); handlers read Message.Usage.
	Usage llm.Usage `json:"-"`
}

// MessageEnd fires when a message is final, before it is persisted; a result replaces it if the
// role matches (events.md §4 row 11).
type MessageEnd struct {
	Message *llm.Message `json:"message"`
}

// MessageEndResult replaces the message.
type MessageEndResult struct {
	Message *llm.Message `json:"message,omitempty"`
}

func (r *MessageEndResult) isSet() bool { return r != nil && r.Message != nil }
func (e *MessageEnd) apply(res any) error {
	m := res.(*MessageEndResult).Message
	if e.Message != nil && m.Role != e.Message.Role {
		return fmt.Errorf("message_end: a replacement must keep the role %q, got %q", e.Message.Role, m.Role)
	}
	e.Message = m
	return nil
}

func (*AgentStart) eventID() EventID    { return IDAgentStart }
func (*AgentEnd) eventID() EventID      { return IDAgentEnd }
func (*AgentSettled) eventID() EventID  { return IDAgentSettled }
func (*SessionStop) eventID() EventID   { return IDSessionStop }
func (*TurnStart) eventID() EventID     { return IDTurnStart }
func (*TurnEnd) eventID() EventID       { return IDTurnEnd }
func (*MessageStart) eventID() EventID  { return IDMessageStart }
func (*MessageUpdate) eventID() EventID { return IDMessageUpdate }
func (*MessageEnd) eventID() EventID    { return IDMessageEnd }

func (*AgentStart) resultOf(None)                {}
func (*AgentEnd) resultOf(None)                  {}
func (*AgentSettled) resultOf(None)              {}
func (*SessionStop) resultOf(*SessionStopResult) {}
func (*TurnStart) resultOf(None)                 {}
func (*TurnEnd) resultOf(None)                   {}
func (*MessageStart) resultOf(None)              {}
func (*MessageUpdate) resultOf(None)             {}
func (*MessageEnd) resultOf(*MessageEndResult)   {}

var agentRows = []Spec{
	{Name: "agent_start", Queued: true, Stream: "agent_start", Systems: "AOP", Family: "agent", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a low-level run begins", Payload: typeOf[AgentStart]()},
	{Name: "agent_end", Queued: true, Stream: "agent_end", Systems: "AOP", Family: "agent", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a run ends; more may follow", Payload: typeOf[AgentEnd]()},
	{Name: "agent_settled", Barrier: true, Ordered: true, Stream: "agent_settled", Systems: "A", Family: "agent", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "once per top-level prompt, after everything, even on error", Payload: typeOf[AgentSettled]()},
	{Name: "session_stop", Ordered: true, Systems: "O", Family: "agent", Combine: Veto, Errors: Isolate, Awaited: true, Emitted: true, Cap: 8, Doc: "the main session is about to settle; may continue (cap 8) or block", Payload: typeOf[SessionStop](), Result: typeOf[SessionStopResult]()},
	{Name: "turn_start", Queued: true, Stream: "turn_start", Systems: "AOP", Family: "agent", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a turn begins", Payload: typeOf[TurnStart]()},
	{Name: "turn_end", Queued: true, Stream: "turn_end", Systems: "AOP", Family: "agent", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "after the assistant message and its tool results", Payload: typeOf[TurnEnd]()},
	{Name: "message_start", Queued: true, Stream: "message_start", Systems: "AOP", Family: "agent", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a message begins", Payload: typeOf[MessageStart]()},
	{Name: "message_update", Queued: true, Stream: "message_update", Systems: "AOP", Family: "agent", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "an assistant stream delta", Payload: typeOf[MessageUpdate]()},
	{Name: "message_end", Ordered: true, Stream: "message_end", Systems: "AOP", Family: "agent", Combine: Chain, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a message is final, before it is persisted; same-role replacement", Payload: typeOf[MessageEnd](), Result: typeOf[MessageEndResult]()},
}
