package store

import "github.com/atomic-cli/atomic/llm"

// UsageTotals sums the usage of every assistant message in the file, on every branch and before
// any compaction: what pi's footer shows (it sums sessionManager.getEntries(), not the current
// context). Messages not decoded yet are not decoded: only their usage member is read.
func (s *Session) UsageTotals() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t llm.Usage
	for i, e := range s.entries {
		if e == nil { // a lazy entry: read its usage from the file buffer
			r := &s.lazy[i]
			if !r.assistant {
				continue
			}
			if u, ok := rawUsage(s.data[r.msg:r.msgEnd]); ok {
				addUsage(&t, u)
				continue
			}
			e = s.at(i)
		}
		if e.Type != TypeMessage || e.opaque {
			continue
		}
		if e.Message == nil {
			if e.role != llm.RoleAssistant {
				continue
			}
			if u, ok := rawUsage(e.msgRaw); ok {
				addUsage(&t, u)
				continue
			}
			s.ready(e)
		}
		if m := e.Message; m != nil && m.Role == llm.RoleAssistant {
			addUsage(&t, m.Usage)
		}
	}
	return t
}

// rawUsage reads the usage member of an undecoded message; false when it cannot (the caller
// decodes the message).
func rawUsage(raw []byte) (llm.Usage, bool) {
	var u llm.Usage
	var buf [32]field
	fields, ok := parseObject(raw, buf[:0])
	if !ok {
		return u, false
	}
	for i := range fields {
		f := &fields[i]
		if f.esc {
			return u, false
		}
		if string(f.key) == "usage" {
			if isNull(f.val) {
				return u, true
			}
			return u, usageFast(f.val, &u)
		}
	}
	return u, true // no usage member: zero
}

func addUsage(t *llm.Usage, u llm.Usage) {
	t.Input += u.Input
	t.Output += u.Output
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.TotalTokens += u.TotalTokens
	t.Cost.Input += u.Cost.Input
	t.Cost.Output += u.Cost.Output
	t.Cost.CacheRead += u.Cost.CacheRead
	t.Cost.CacheWrite += u.Cost.CacheWrite
	t.Cost.Total += u.Cost.Total
}
