package agent

import (
	"fmt"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// Texts that wrap derived messages when they are sent to a model (session-format.md §7.1).
const (
	BranchSummaryPrefix     = "The conversation went down another branch and came back here. This is a summary of that branch:\n\n<summary>\n"
	BranchSummarySuffix     = "\n</summary>"
	CompactionSummaryPrefix = "Earlier parts of this conversation were compacted to save context. This is a summary of them:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
)

// ConvertToLLM turns the agent context into the messages a provider accepts (user, assistant,
// toolResult) per session-format.md §7.1, and repairs the sequence so every provider accepts it:
//
//   - bashExecution, custom, branchSummary and compactionSummary become user messages
//     (excludeFromContext ones are dropped);
//   - assistant messages that ended in error or were aborted are dropped (their partial tool
//     calls never ran);
//   - a tool call with no result before the next user or assistant message gets a synthetic
//     error result, and results with no matching call (or a duplicate) are dropped.
//
// The input is not modified.
func ConvertToLLM(msgs []llm.Message) []llm.Message {
	// A context of user, assistant and tool result messages only is passed on as it is (no copy).
	plain := true
	for i := range msgs {
		if r := msgs[i].Role; r != llm.RoleUser && r != llm.RoleAssistant && r != llm.RoleToolResult {
			plain = false
			break
		}
	}
	if plain {
		return llm.RepairToolCalls(msgs[:len(msgs):len(msgs)])
	}
	out := make([]llm.Message, 0, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult:
			out = append(out, *m)
		default:
			if u, ok := derivedUserMessage(m); ok {
				out = append(out, u)
			}
		}
	}
	return llm.RepairToolCalls(out)
}

func derivedUserMessage(m *llm.Message) (llm.Message, bool) {
	user := func(content []llm.Content) (llm.Message, bool) {
		return llm.Message{Role: llm.RoleUser, Content: content, Timestamp: m.Timestamp}, true
	}
	switch m.Role {
	case llm.RoleBashExecution:
		if m.ExcludeFromContext {
			return llm.Message{}, false
		}
		return user([]llm.Content{llm.Text(BashExecutionText(m))})
	case llm.RoleCustom:
		if m.ExcludeFromContext {
			return llm.Message{}, false
		}
		return user(m.Content)
	case llm.RoleBranchSummary:
		if m.Summary == "" {
			return llm.Message{}, false
		}
		return user([]llm.Content{llm.Text(BranchSummaryPrefix + m.Summary + BranchSummarySuffix)})
	case llm.RoleCompactionSummary:
		return user([]llm.Content{llm.Text(CompactionSummaryPrefix + m.Summary + CompactionSummarySuffix)})
	}
	return llm.Message{}, false
}

// BashExecutionText renders a user `!command` run for the model (session-format.md §7.1).
func BashExecutionText(m *llm.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ran `%s`\n", m.Command)
	if m.Output != "" {
		fmt.Fprintf(&b, "```\n%s\n```", strings.TrimRight(m.Output, "\n"))
	} else {
		b.WriteString("(no output)")
	}
	if m.Cancelled {
		b.WriteString("\n\n(command cancelled)")
	} else if m.ExitCode != nil && *m.ExitCode != 0 {
		fmt.Fprintf(&b, "\n\nCommand exited with code %d", *m.ExitCode)
	}
	if m.Truncated && m.FullOutputPath != "" {
		fmt.Fprintf(&b, "\n\n[Output truncated. Full output: %s]", m.FullOutputPath)
	}
	return b.String()
}
