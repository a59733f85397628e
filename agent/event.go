package agent

import (
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// Agent event types (events.md §3.5, §3.6; rpc-and-json.md §5).
const (
	EventAgentStart          = "agent_start"
	EventAgentEnd            = "agent_end"
	EventTurnStart           = "turn_start"
	EventTurnEnd             = "turn_end"
	EventMessageStart        = "message_start"
	EventMessageUpdate       = "message_update"
	EventMessageEnd          = "message_end"
	EventToolExecutionStart  = "tool_execution_start"
	EventToolExecutionUpdate = "tool_execution_update"
	EventToolExecutionEnd    = "tool_execution_end"
)

// Event is one step of a run. Fields by Type:
//
//	agent_start:           —
//	agent_end:             Messages (every message this run added, in order)
//	turn_start:            TurnIndex, Timestamp (Unix ms)
//	turn_end:              TurnIndex, Message (the assistant message), ToolResults (source order)
//	message_start/_end:    Message (user, assistant, toolResult or custom)
//	message_update:        Message (the partial assistant message, owned by the loop: read it
//	                       during the callback only), StreamEvent (the delta)
//	tool_execution_start:  ToolCallID, ToolName, Args
//	tool_execution_update: ToolCallID, ToolName, Args, Result (cumulative partial result)
//	tool_execution_end:    ToolCallID, ToolName, Result, IsError
//
// Message pointers stay valid after the callback except for message_update's.
type Event struct {
	Type        string
	TurnIndex   int
	Timestamp   int64
	Message     *llm.Message
	Messages    []llm.Message
	ToolResults []llm.Message
	StreamEvent *llm.Event
	ToolCallID  string
	ToolName    string
	Args        map[string]any
	Result      *tool.Result
	IsError     bool

	// Data carries the fields of session-level events (agent_settled, session_info_changed,
	// model_changed, …) that the session emits into the same ordered stream with Agent.Emit; it
	// must marshal to a JSON object, whose members follow "type".
	Data any
}
