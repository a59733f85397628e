package session

import (
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

// Stats are the counters of get_session_stats (rpc-and-json.md §3.6), computed over the agent
// context (the current branch).
type Stats struct {
	SessionFile       string     `json:"sessionFile,omitempty"`
	SessionID         string     `json:"sessionId"`
	UserMessages      int        `json:"userMessages"`
	AssistantMessages int        `json:"assistantMessages"`
	ToolCalls         int        `json:"toolCalls"`
	ToolResults       int        `json:"toolResults"`
	TotalMessages     int        `json:"totalMessages"`
	Tokens            TokenStats `json:"tokens"`
	// Cost is the summed cost of the assistant messages in US dollars.
	Cost float64 `json:"cost"`
	// ContextUsage is the estimated context-window use (Atomic); nil without a context window.
	ContextUsage *ext.ContextUsage `json:"contextUsage,omitempty"`
}

// TokenStats are summed assistant usages.
type TokenStats struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Total      int64 `json:"total"`
}

// Stats counts the messages, tool calls, tokens and cost of the context, as pi's
// getSessionStats does.
func (s *Session) Stats() (Stats, error) {
	if err := s.live("getSessionStats"); err != nil {
		return Stats{}, err
	}
	st := Stats{SessionID: s.store.SessionID()}
	if s.store.IsPersisted() || s.store.SessionFile() != "" {
		st.SessionFile = s.store.SessionFile()
	}
	msgs := s.agent.Messages()
	st.TotalMessages = len(msgs)
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleUser:
			st.UserMessages++
		case llm.RoleToolResult:
			st.ToolResults++
		case llm.RoleAssistant:
			st.AssistantMessages++
			st.ToolCalls += len(m.ToolCalls())
			st.Tokens.Input += m.Usage.Input
			st.Tokens.Output += m.Usage.Output
			st.Tokens.CacheRead += m.Usage.CacheRead
			st.Tokens.CacheWrite += m.Usage.CacheWrite
			st.Cost += m.Usage.Cost.Total
		}
	}
	t := &st.Tokens
	t.Total = t.Input + t.Output + t.CacheRead + t.CacheWrite
	if m := s.Model(); m != nil && m.ContextWindow > 0 {
		st.ContextUsage = s.newContext(s.runCtx()).GetContextUsage()
	}
	return st, nil
}
