package llm

// RepairToolCalls returns a conversation every provider API accepts (session-format.md §7,
// Atomic's derived-context repairs):
//
//   - assistant messages that ended in error or were aborted are dropped (their content may stop
//     anywhere, and their tool calls never ran);
//   - tool results that do not answer a call of the assistant message just before them, or
//     answer one twice, are dropped;
//   - a tool call left without a result gets an error result "No result provided", placed before
//     the next user or assistant message.
//
// Messages of roles other than user, assistant and toolResult are passed through. The input is
// not modified; a conversation that needs no repair comes back with the same messages.
func RepairToolCalls(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	var pending []Content         // tool calls of the last kept assistant message
	answered := map[string]bool{} // ids of pending calls answered so far
	flush := func() {
		for _, c := range pending {
			if !answered[c.ID] {
				out = append(out, Message{
					Role: RoleToolResult, ToolCallID: c.ID, ToolName: c.Name,
					Content: []Content{Text("No result provided")}, IsError: true,
				})
			}
		}
		pending = nil
		clear(answered)
	}
	isPending := func(id string) bool {
		for _, c := range pending {
			if c.ID == id {
				return true
			}
		}
		return false
	}
	for _, msg := range msgs {
		switch msg.Role {
		case RoleAssistant:
			flush()
			if msg.StopReason == StopError || msg.StopReason == StopAborted {
				continue
			}
			out = append(out, msg)
			pending = msg.ToolCalls()
		case RoleToolResult:
			if isPending(msg.ToolCallID) && !answered[msg.ToolCallID] {
				answered[msg.ToolCallID] = true
				out = append(out, msg)
			}
		case RoleUser:
			flush()
			out = append(out, msg)
		default:
			out = append(out, msg)
		}
	}
	flush()
	return out
}

// SanitizeToolCallID makes a tool call id of another provider acceptable to an API that allows
// only [a-zA-Z0-9_-] and at most maxLen bytes: every other byte becomes '_' and the id is cut to
// maxLen bytes. An acceptable id comes back unchanged. It is a pure function, so a call and its
// result still match after conversion.
func SanitizeToolCallID(id string, maxLen int) string {
	ok := len(id) <= maxLen
	for i := 0; ok && i < len(id); i++ {
		ok = isIDByte(id[i])
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i, c := range b {
		if !isIDByte(c) {
			b[i] = '_'
		}
	}
	if len(b) > maxLen {
		b = b[:maxLen]
	}
	return string(b)
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
