package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/chat"
	"github.com/atomic-cli/atomic/store"
)

// addEntry shows one stored entry of the current branch (tui.md §6.1).
func (m *model) addEntry(e *store.Entry) {
	switch e.Type {
	case store.TypeMessage:
		if e.Message != nil {
			m.addMessage(e.Message, true)
		}
	case store.TypeCompaction:
		m.chat.Append(&chat.LabelBlock{Label: "compaction", Collapsed: fmt.Sprintf("Compacted from %s tokens", formatTokens(e.TokensBefore)), Heading: "Compaction summary", Body: e.Summary})
	case store.TypeBranchSummary:
		m.chat.Append(&chat.LabelBlock{Label: "branch", Collapsed: "Branch summary", Heading: "Branch Summary", Body: e.Summary})
	case store.TypeCustomMessage:
		if e.Display {
			m.chat.Append(m.customMessageBlock(e.CustomType, e.Content, e.Details))
		}
	case store.TypeCustom:
		if b := m.customEntryBlock(e.CustomType, e.Data); b != nil {
			m.chat.Append(b)
		}
	}
}

// addMessage shows a whole message (from the file, or one that arrived complete).
func (m *model) addMessage(msg *llm.Message, history bool) {
	switch msg.Role {
	case llm.RoleUser:
		n := 0
		for _, c := range msg.Content {
			if c.Type == llm.ContentImage {
				n++
			}
		}
		m.chat.Append(&chat.UserBlock{Text: llm.TextOf(msg.Content, "\n"), Images: n})
	case llm.RoleAssistant:
		b := &chat.AssistantBlock{StopReason: msg.StopReason, ErrorMessage: msg.ErrorMessage}
		for _, c := range msg.Content {
			if c.Type == llm.ContentToolCall {
				b.HasToolCalls = true
				continue
			}
			b.Content = append(b.Content, c)
		}
		m.chat.Append(b)
		for _, c := range msg.Content {
			if c.Type == llm.ContentToolCall {
				tb := &chat.ToolBlock{ID: c.ID, Name: c.Name, Args: c.Arguments, ArgsComplete: true}
				m.tools[c.ID] = tb
				m.attachToolRenderer(tb)
				m.chat.Append(tb)
			}
		}
	case llm.RoleToolResult:
		if tb := m.tools[msg.ToolCallID]; tb != nil {
			tb.Started, tb.Done, tb.IsError = true, true, msg.IsError
			tb.Result, tb.Details = msg.Content, msg.Details
			m.chat.Touch(tb)
			if history {
				delete(m.tools, msg.ToolCallID)
			}
		}
	case llm.RoleBashExecution:
		m.chat.Append(&chat.BashBlock{Command: msg.Command, Output: msg.Output, ExitCode: msg.ExitCode, Cancelled: msg.Cancelled, Excluded: msg.ExcludeFromContext, FullPath: msg.FullOutputPath, Truncated: msg.Truncated})
	case llm.RoleCustom:
		if msg.Display {
			m.chat.Append(m.customMessageBlock(msg.CustomType, msg.Content, msg.Details))
		}
	case llm.RoleCompactionSummary:
		m.chat.Append(&chat.LabelBlock{Label: "compaction", Collapsed: fmt.Sprintf("Compacted from %s tokens", formatTokens(msg.TokensBefore)), Heading: "Compaction summary", Body: msg.Summary})
	case llm.RoleBranchSummary:
		m.chat.Append(&chat.LabelBlock{Label: "branch", Collapsed: "Branch summary", Heading: "Branch Summary", Body: msg.Summary})
	}
}

// onEvent applies one session event to the screen.
func (m *model) onEvent(ev any) tea.Cmd {
	switch e := ev.(type) {
	case evMessageEnd:
		m.footerAdd(e.m)
		m.refreshComps()
	case evAgentEnd:
		m.refreshComps()
	case evSession:
		switch e.typ {
		case "model_changed", "thinking_level_changed", "session_info_changed", "compaction_end",
			"session_started", "entry_appended", "auto_retry_end":
			m.footerCache = nil
			m.refreshComps()
		}
	}
	switch e := ev.(type) {
	case evAgentStart:
		m.agentRunning = true
	case evAgentEnd:
		m.agentRunning = false
		m.cur = nil
	case evMessageStart:
		switch e.m.Role {
		case llm.RoleAssistant:
			m.cur = &chat.AssistantBlock{Streaming: true}
			m.chat.Append(m.cur)
		case llm.RoleUser:
			m.dropPending(llm.TextOf(e.m.Content, "\n"))
			m.addMessage(e.m, false)
		case llm.RoleToolResult:
			// shown through the tool execution events
		default:
			m.addMessage(e.m, false)
		}
	case evDelta:
		if m.cur == nil {
			m.cur = &chat.AssistantBlock{Streaming: true}
			m.chat.Append(m.cur)
		}
		m.cur.AppendDelta(e.idx, e.typ, e.delta)
		m.chat.Touch(m.cur)
	case evToolCall:
		if m.cur != nil {
			m.cur.HasToolCalls = true
		}
		id := e.call.ID
		tb := m.tools[id]
		if tb == nil {
			tb = &chat.ToolBlock{ID: id, Name: e.call.Name}
			m.tools[id] = tb
			m.attachToolRenderer(tb)
			m.chat.Append(tb)
		}
		if e.call.Name != "" {
			tb.Name = e.call.Name
		}
		if e.call.Arguments != nil {
			tb.Args = e.call.Arguments
		}
		tb.ArgsComplete = e.complete
		m.chat.Touch(tb)
	case evMessageEnd:
		if e.m.Role == llm.RoleAssistant && m.cur != nil {
			b := m.cur
			b.Streaming = false
			b.StopReason, b.ErrorMessage = e.m.StopReason, e.m.ErrorMessage
			var content []llm.Content
			for _, c := range e.m.Content {
				if c.Type == llm.ContentToolCall {
					b.HasToolCalls = true
					if tb := m.tools[c.ID]; tb != nil {
						tb.Args, tb.ArgsComplete = c.Arguments, true
						m.chat.Touch(tb)
					}
					continue
				}
				content = append(content, c)
			}
			b.SetContent(content)
			m.chat.Touch(b)
			m.cur = nil
		}
	case evToolStart:
		tb := m.tools[e.id]
		if tb == nil {
			tb = &chat.ToolBlock{ID: e.id, Name: e.name, Args: e.args, ArgsComplete: true}
			m.tools[e.id] = tb
			m.attachToolRenderer(tb)
			m.chat.Append(tb)
		}
		tb.Started = true
		m.chat.Touch(tb)
	case evToolUpdate:
		if tb := m.tools[e.id]; tb != nil {
			tb.Result, tb.Details = e.content, e.details
			m.chat.Touch(tb)
		}
	case evToolEnd:
		if tb := m.tools[e.id]; tb != nil {
			tb.Result, tb.Details, tb.IsError, tb.Done = e.content, e.details, e.isError, true
			m.chat.Touch(tb)
			delete(m.tools, e.id)
		}
	case evSession:
		return m.onSessionEvent(e)
	}
	return nil
}

func (m *model) onSessionEvent(e evSession) tea.Cmd {
	data := func() map[string]any {
		b, err := json.Marshal(e.data)
		if err != nil {
			return nil
		}
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return out
	}
	switch e.typ {
	case "auto_retry_start":
		d := data()
		m.retry = fmt.Sprintf("Retrying (%v/%v) in %.0fs... (%s to cancel)", d["attempt"], d["maxAttempts"], toFloat(d["delayMs"])/1000, m.km.Hint("app.interrupt"))
	case "auto_retry_end":
		m.retry = ""
		if d := data(); d["success"] == false {
			if fe, _ := d["finalError"].(string); fe != "" {
				m.notice("error", "Retry failed: "+fe)
			}
		}
	case "compaction_start":
		m.compacting = true
	case "compaction_end":
		m.compacting = false
		d := data()
		msg, _ := d["errorMessage"].(string)
		switch {
		case d["aborted"] == true && d["reason"] == "manual":
			// pi: a cancelled /compact is an error line, not the abort's cause.
			m.notice("error", "Compaction cancelled")
		case d["aborted"] == true:
			m.notice("info", "Auto-compaction cancelled")
		case msg != "":
			m.notice("error", "Compaction failed: "+msg)
		}
	case "model_changed", "thinking_level_changed", "session_info_changed":
		// the footer and border read the session directly; nothing to keep
	case "retry_fallback_applied":
		d := data()
		m.notice("warning", fmt.Sprintf("Falling back from %v to %v", d["from"], d["to"]))
	case "entry_appended":
		d := data()
		if ent, ok := d["entry"].(map[string]any); ok {
			switch ent["type"] {
			case store.TypeCompaction:
				tb, _ := ent["tokensBefore"].(float64)
				sum, _ := ent["summary"].(string)
				m.chat.Append(&chat.LabelBlock{Label: "compaction", Collapsed: fmt.Sprintf("Compacted from %s tokens", formatTokens(int64(tb))), Heading: "Compaction summary", Body: sum})
			case store.TypeBranchSummary:
				sum, _ := ent["summary"].(string)
				m.chat.Append(&chat.LabelBlock{Label: "branch", Collapsed: "Branch summary", Heading: "Branch Summary", Body: sum})
			}
		}
	}
	return nil
}

func toFloat(v any) float64 {
	f, _ := v.(float64)
	return f
}

func (m *model) dropPending(text string) {
	text = strings.TrimSpace(text)
	for i, p := range m.pending {
		if strings.TrimSpace(p.text) == text {
			m.pending = append(m.pending[:i], m.pending[i+1:]...)
			return
		}
	}
}
