package agent

import (
	"context"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// Hooks are the points where the session and the extension runner act on a run. Every field is
// optional. Hooks are called from the loop goroutine, except AfterToolCall, which runs on the
// goroutine of the finished tool call (calls of one batch finish concurrently).
type Hooks struct {
	// TransformContext receives the messages about to be sent (before conversion to provider
	// roles) and returns the list to send. The messages are the agent's own: a hook that edits
	// them works on a deep copy (llm.Message.Clone). Used by the `context` event (events.md §3.4).
	TransformContext func(ctx context.Context, messages []llm.Message) []llm.Message

	// BeforeToolCall runs after tool_execution_start and argument validation, before execution
	// (`tool_call`, events.md §3.6). It may edit call.Args in place. A non-nil Block stops the call.
	// An error blocks the call too (fail-closed), with the error as the reason.
	BeforeToolCall func(ctx context.Context, call *tool.Call) (*Block, error)

	// ToolContext, when set, returns the context a tool call executes with (derived from ctx):
	// the session adds what built-in tools may know of it (tool.WithEnv).
	ToolContext func(ctx context.Context) context.Context

	// AfterToolCall may replace the result of an executed call (`tool_result`, events.md §3.6).
	AfterToolCall func(ctx context.Context, call tool.Call, result tool.Result) tool.Result

	// MessageEnd may replace a finished message in place before it joins the context and its
	// message_end event is emitted (its role is kept). Used by the `message_end` event.
	MessageEnd func(ctx context.Context, m *llm.Message)

	// PrepareRequest is called before every provider request to fill per-request fields that can
	// change during a run (API key, headers, provider hooks). It may return an error, which ends
	// the turn with an error assistant message.
	PrepareRequest func(ctx context.Context, req *llm.Request) error

	// BeforeRequest runs before every provider request of a run, before TransformContext, with
	// the current context. A non-nil replace becomes the context (compaction rebuilt it). A
	// non-nil stop error ends the turn without a request: the run ends with an error assistant
	// message carrying stop's text, so front-ends report it (a failed automatic compaction).
	BeforeRequest func(ctx context.Context, messages []llm.Message) (replace []llm.Message, stop error)

	// Overflow runs once per run when a request failed because the context is too long; messages
	// is the context without the failed assistant message. ok true replaces the context with
	// replace and retries the request once; false keeps the failure.
	Overflow func(ctx context.Context, failed *llm.Message, messages []llm.Message) (replace []llm.Message, ok bool)
}

// Block is a BeforeToolCall veto.
type Block struct {
	Reason    string // shown to the model as the error text; empty: "Tool execution was blocked"
	Terminate bool   // ask the agent to stop after this batch (events.md §3.6)
}
