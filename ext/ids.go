package ext

import "fmt"

// order is the checklist of events.md §5: Table lists the events in this order.
var order = []string{
	"project_trust", "session_directory", "resources_discover", "session_start", "session_info_changed",
	"session_before_switch", "session_switch", "session_before_fork", "session_fork", "session_branch",
	"session_shutdown",
	"session_before_compact", "session.compacting", "session_compact", "session_compact_failed",
	"compaction_start", "compaction_end", "auto_compaction_start", "auto_compaction_end",
	"session_before_tree", "session_tree",
	"input", "before_agent_start", "context", "before_provider_headers", "before_provider_request",
	"provider_request", "after_provider_response",
	"agent_start", "agent_end", "agent_settled", "session_stop", "turn_start", "turn_end",
	"message_start", "message_update", "message_end",
	"tool_execution_start", "tool_call", "tool_execution_update", "tool_result", "tool_execution_end",
	"tool_approval_requested", "tool_approval_resolved",
	"model_select", "thinking_level_select",
	"auto_retry_start", "auto_retry_end", "retry_fallback_applied", "retry_fallback_succeeded",
	"ttsr_triggered", "todo_reminder", "goal_updated", "credential_disabled",
	"user_bash", "user_python", "mcp_notification",
	"ui_prompt_start", "ui_prompt_end", "entry_appended",
	"workflow_lifecycle", "workflow_activity_changed", "workflow_stage_completed", "workflow_heartbeat",
}

// Table is the event table: every event atomic knows, one row each, in the order of the
// events.md §5 checklist (65 names; session_before_branch is an alias of session_before_fork,
// so it has no row of its own). IDs are row indices.
var Table = buildTable()

func buildTable() []Spec {
	rows := map[string]Spec{}
	for _, group := range [][]Spec{sessionRows, compactionRows, promptRows, agentRows, toolRows, modelRows, noticeRows} {
		for _, s := range group {
			if _, dup := rows[s.Name]; dup {
				panic("ext: event declared twice: " + s.Name)
			}
			rows[s.Name] = s
		}
	}
	out := make([]Spec, 0, len(order))
	for _, name := range order {
		s, ok := rows[name]
		if !ok {
			panic("ext: event in the checklist without a row: " + name)
		}
		out = append(out, s)
		delete(rows, name)
	}
	for name := range rows {
		panic("ext: event row missing from the checklist order: " + name)
	}
	return out
}

func mustID(name string) EventID {
	for i := range order {
		if order[i] == name {
			return EventID(i)
		}
	}
	panic(fmt.Sprintf("ext: unknown event %q", name))
}

// Event ids, one per row.
var (
	idProjectTrust            = mustID("project_trust")
	idSessionDirectory        = mustID("session_directory")
	idResourcesDiscover       = mustID("resources_discover")
	idSessionStart            = mustID("session_start")
	idSessionInfoChanged      = mustID("session_info_changed")
	idSessionBeforeSwitch     = mustID("session_before_switch")
	idSessionSwitch           = mustID("session_switch")
	idSessionBeforeFork       = mustID("session_before_fork")
	idSessionFork             = mustID("session_fork")
	idSessionBranch           = mustID("session_branch")
	idSessionShutdown         = mustID("session_shutdown")
	idSessionBeforeCompact    = mustID("session_before_compact")
	idSessionCompacting       = mustID("session.compacting")
	idSessionCompact          = mustID("session_compact")
	idSessionCompactFailed    = mustID("session_compact_failed")
	idCompactionStart         = mustID("compaction_start")
	idCompactionEnd           = mustID("compaction_end")
	idAutoCompactionStart     = mustID("auto_compaction_start")
	idAutoCompactionEnd       = mustID("auto_compaction_end")
	idSessionBeforeTree       = mustID("session_before_tree")
	idSessionTree             = mustID("session_tree")
	idInput                   = mustID("input")
	idBeforeAgentStart        = mustID("before_agent_start")
	idContext                 = mustID("context")
	idBeforeProviderHeaders   = mustID("before_provider_headers")
	idBeforeProviderRequest   = mustID("before_provider_request")
	idProviderRequest         = mustID("provider_request")
	idAfterProviderResponse   = mustID("after_provider_response")
	idAgentStart              = mustID("agent_start")
	idAgentEnd                = mustID("agent_end")
	idAgentSettled            = mustID("agent_settled")
	idSessionStop             = mustID("session_stop")
	idTurnStart               = mustID("turn_start")
	idTurnEnd                 = mustID("turn_end")
	idMessageStart            = mustID("message_start")
	idMessageUpdate           = mustID("message_update")
	idMessageEnd              = mustID("message_end")
	idToolExecutionStart      = mustID("tool_execution_start")
	idToolCall                = mustID("tool_call")
	idToolExecutionUpdate     = mustID("tool_execution_update")
	idToolResult              = mustID("tool_result")
	idToolExecutionEnd        = mustID("tool_execution_end")
	idToolApprovalRequested   = mustID("tool_approval_requested")
	idToolApprovalResolved    = mustID("tool_approval_resolved")
	idModelSelect             = mustID("model_select")
	idThinkingLevelSelect     = mustID("thinking_level_select")
	idAutoRetryStart          = mustID("auto_retry_start")
	idAutoRetryEnd            = mustID("auto_retry_end")
	idRetryFallbackApplied    = mustID("retry_fallback_applied")
	idRetryFallbackSucceeded  = mustID("retry_fallback_succeeded")
	idTTSRTriggered           = mustID("ttsr_triggered")
	idTodoReminder            = mustID("todo_reminder")
	idGoalUpdated             = mustID("goal_updated")
	idCredentialDisabled      = mustID("credential_disabled")
	idUserBash                = mustID("user_bash")
	idUserPython              = mustID("user_python")
	idMCPNotification         = mustID("mcp_notification")
	idUIPromptStart           = mustID("ui_prompt_start")
	idUIPromptEnd             = mustID("ui_prompt_end")
	idEntryAppended           = mustID("entry_appended")
	idWorkflowLifecycle       = mustID("workflow_lifecycle")
	idWorkflowActivityChanged = mustID("workflow_activity_changed")
	idWorkflowStageCompleted  = mustID("workflow_stage_completed")
	idWorkflowHeartbeat       = mustID("workflow_heartbeat")
)
