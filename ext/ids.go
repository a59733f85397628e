package ext

import (
	"fmt"
	"sort"
)

// order is the checklist of events.md §5: Table lists these events first, in this order. A
// new event needs no entry here: rows not in the checklist follow it, in declaration order.
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

// Table is the event table: every event atomic knows, one row each — the events.md §5
// checklist first, in its order (65 names; session_before_branch is an alias of
// session_before_fork, so it has no row of its own), then any other declared row. IDs are row
// indices.
var Table = buildTable(sessionRows, compactionRows, promptRows, agentRows, toolRows, modelRows, noticeRows)

// buildTable orders the declared row groups: checklist events first, in checklist order, then
// the rest in declaration order. It panics on a duplicate row or a checklist event without one.
func buildTable(groups ...[]Spec) []Spec {
	var rows []Spec
	declared := map[string]bool{}
	for _, group := range groups {
		for _, s := range group {
			if declared[s.Name] {
				panic("ext: event declared twice: " + s.Name)
			}
			declared[s.Name] = true
			rows = append(rows, s)
		}
	}
	rank := make(map[string]int, len(order))
	for i, name := range order {
		if !declared[name] {
			panic("ext: event in the checklist without a row: " + name)
		}
		rank[name] = i
	}
	sort.SliceStable(rows, func(i, j int) bool {
		ri, iListed := rank[rows[i].Name]
		rj, jListed := rank[rows[j].Name]
		if iListed && jListed {
			return ri < rj
		}
		return iListed && !jListed
	})
	return rows
}

// mustID is the row index of the event name in Table; it panics for an undeclared name.
func mustID(name string) EventID {
	for i := range Table {
		if Table[i].Name == name {
			return EventID(i)
		}
	}
	panic(fmt.Sprintf("ext: unknown event %q", name))
}

// Event ids, one per row: emitters check Runner.Has(ID…) before building an expensive payload.
var (
	IDProjectTrust            = mustID("project_trust")
	IDSessionDirectory        = mustID("session_directory")
	IDResourcesDiscover       = mustID("resources_discover")
	IDSessionStart            = mustID("session_start")
	IDSessionInfoChanged      = mustID("session_info_changed")
	IDSessionBeforeSwitch     = mustID("session_before_switch")
	IDSessionSwitch           = mustID("session_switch")
	IDSessionBeforeFork       = mustID("session_before_fork")
	IDSessionFork             = mustID("session_fork")
	IDSessionBranch           = mustID("session_branch")
	IDSessionShutdown         = mustID("session_shutdown")
	IDSessionBeforeCompact    = mustID("session_before_compact")
	IDSessionCompacting       = mustID("session.compacting")
	IDSessionCompact          = mustID("session_compact")
	IDSessionCompactFailed    = mustID("session_compact_failed")
	IDCompactionStart         = mustID("compaction_start")
	IDCompactionEnd           = mustID("compaction_end")
	IDAutoCompactionStart     = mustID("auto_compaction_start")
	IDAutoCompactionEnd       = mustID("auto_compaction_end")
	IDSessionBeforeTree       = mustID("session_before_tree")
	IDSessionTree             = mustID("session_tree")
	IDInput                   = mustID("input")
	IDBeforeAgentStart        = mustID("before_agent_start")
	IDContext                 = mustID("context")
	IDBeforeProviderHeaders   = mustID("before_provider_headers")
	IDBeforeProviderRequest   = mustID("before_provider_request")
	IDProviderRequest         = mustID("provider_request")
	IDAfterProviderResponse   = mustID("after_provider_response")
	IDAgentStart              = mustID("agent_start")
	IDAgentEnd                = mustID("agent_end")
	IDAgentSettled            = mustID("agent_settled")
	IDSessionStop             = mustID("session_stop")
	IDTurnStart               = mustID("turn_start")
	IDTurnEnd                 = mustID("turn_end")
	IDMessageStart            = mustID("message_start")
	IDMessageUpdate           = mustID("message_update")
	IDMessageEnd              = mustID("message_end")
	IDToolExecutionStart      = mustID("tool_execution_start")
	IDToolCall                = mustID("tool_call")
	IDToolExecutionUpdate     = mustID("tool_execution_update")
	IDToolResult              = mustID("tool_result")
	IDToolExecutionEnd        = mustID("tool_execution_end")
	IDToolApprovalRequested   = mustID("tool_approval_requested")
	IDToolApprovalResolved    = mustID("tool_approval_resolved")
	IDModelSelect             = mustID("model_select")
	IDThinkingLevelSelect     = mustID("thinking_level_select")
	IDAutoRetryStart          = mustID("auto_retry_start")
	IDAutoRetryEnd            = mustID("auto_retry_end")
	IDRetryFallbackApplied    = mustID("retry_fallback_applied")
	IDRetryFallbackSucceeded  = mustID("retry_fallback_succeeded")
	IDTTSRTriggered           = mustID("ttsr_triggered")
	IDTodoReminder            = mustID("todo_reminder")
	IDGoalUpdated             = mustID("goal_updated")
	IDCredentialDisabled      = mustID("credential_disabled")
	IDUserBash                = mustID("user_bash")
	IDUserPython              = mustID("user_python")
	IDMCPNotification         = mustID("mcp_notification")
	IDUIPromptStart           = mustID("ui_prompt_start")
	IDUIPromptEnd             = mustID("ui_prompt_end")
	IDEntryAppended           = mustID("entry_appended")
	IDWorkflowLifecycle       = mustID("workflow_lifecycle")
	IDWorkflowActivityChanged = mustID("workflow_activity_changed")
	IDWorkflowStageCompleted  = mustID("workflow_stage_completed")
	IDWorkflowHeartbeat       = mustID("workflow_heartbeat")
)
