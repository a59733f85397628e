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
// not modified; a conversation that needs no repair comes back as msgs itself (cut to its
// length), not a copy: a long session's context is not copied once more per request.
func RepairToolCalls(msgs []Message) []Message {
	// out stays nil while every message so far is kept in place (the first same of msgs); the
	// first repair copies that prefix.
	var out []Message
	same := 0
	own := func() {
		if out == nil {
			out = make([]Message, same, len(msgs)+1)
			copy(out, msgs[:same])
		}
	}
	keep := func(i int) {
		if out == nil && same == i {
			same++
			return
		}
		own()
		out = append(out, msgs[i])
	}
	var pending []Content         // tool calls of the last kept assistant message
	answered := map[string]bool{} // ids of pending calls answered so far
	flush := func() {
		for _, c := range pending {
			if !answered[c.ID] {
				own()
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
	for i := range msgs {
		msg := &msgs[i]
		switch msg.Role {
		case RoleAssistant:
			flush()
			if msg.StopReason == StopError || msg.StopReason == StopAborted {
				own()
				continue
			}
			keep(i)
			pending = msg.ToolCalls()
		case RoleToolResult:
			if isPending(msg.ToolCallID) && !answered[msg.ToolCallID] {
				answered[msg.ToolCallID] = true
				keep(i)
			} else {
				own()
			}
		case RoleUser:
			flush()
			keep(i)
		default:
			keep(i)
		}
	}
	flush()
	if out == nil {
		return msgs[:same:same]
	}
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
