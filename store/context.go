package store

import (
	"encoding/json"
	"strings"

	"github.com/atomic-cli/atomic/compact"
	"github.com/atomic-cli/atomic/llm"
)

// ModelRef names a model by provider and model id; it marshals as {"provider","modelId"}.
type ModelRef struct {
	Provider string `json:"provider"` // provider name, e.g. anthropic
	ModelID  string `json:"modelId"`  // model id within the provider
}

// Context is what the agent sends to the LLM for the current leaf (session-format.md §7). It
// marshals like pi's SessionContext.
type Context struct {
	// Messages in order. custom_message entries appear as role custom, branch summaries as role
	// branchSummary and the active compaction as role compactionSummary; converting them for a
	// provider is the caller's job (§7.1). Messages share content with the session's entries:
	// Clone one before modifying it.
	Messages []llm.Message `json:"messages"`
	// ThinkingLevel is the newest thinking_level_change on the path, "off" when there is none.
	ThinkingLevel string `json:"thinkingLevel"`
	// Model is the newest model_change or assistant message model on the path, nil when none.
	Model *ModelRef `json:"model"`
	// EntryIDs[i] is the id of the entry Messages[i] came from (the compaction entry for the
	// message that stands for an active compaction); not marshalled.
	EntryIDs []string `json:"-"`
}

// BuildContext resolves the LLM context of the path from a root to the leaf (§7). When the path
// holds an Atomic compaction (details.strategy "verbatim-lines"), the newest one is active and
// every pi summary compaction is inert: it becomes ONE custom message (customType "compaction",
// display true) whose text is compact.Preamble, the entry's summary and, when firstKeptEntryId is
// found before it, the kept entries up to it in the transcript grammar (images kept as image
// blocks); then everything after it. Otherwise pi's semantics apply: the newest compaction on the
// path contributes its summary first, then the path entries from its firstKeptEntryId
// (inclusive) up to it, then everything after it. Before the
// first entry (ResetLeaf, new session) the context is empty with thinking level "off". Opaque
// entries (unknown types, undecodable messages) are skipped.
func (s *Session) BuildContext() Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buildContext(s.leafPath())
}

// leafPath is the path to the leaf as entry indexes (nil before the first entry).
func (s *Session) leafPath() []int32 {
	if s.leaf == nil {
		return nil
	}
	return s.pathIdx(s.leaf.seq)
}

// ContextInfo is BuildContext without its messages: ThinkingLevel and Model as BuildContext
// gives them (Messages and EntryIDs nil), and empty true when BuildContext would give no message.
// It decodes no message but the first one the path contributes, so it is cheap on a long
// session.
func (s *Session) ContextInfo() (info Context, empty bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.leafPath()
	info, compaction, _ := s.contextHead(path)
	if compaction >= 0 {
		return info, false // the compaction stands for one message at least
	}
	var one []llm.Message
	for _, i := range path {
		if one = s.emitAt(one[:0], i); len(one) > 0 {
			return info, false
		}
	}
	return info, true
}

// contextHead reads the thinking level and model of path (entry indexes) without decoding
// messages or materializing lazy entries, and the position in path of its newest compaction and
// newest verbatim compaction (-1: none).
func (s *Session) contextHead(path []int32) (ctx Context, compaction, verbatim int) {
	ctx = Context{ThinkingLevel: "off"}
	compaction, verbatim = -1, -1
	var ref ModelRef // one allocation for the newest model, not one per assistant message
	haveRef := false
	refLazy := int32(-1) // the newest model is that of this lazy assistant message
	for i, k := range path {
		e := s.entries[k]
		if e == nil {
			if s.lazy[k].assistant {
				refLazy, haveRef = k, true
			}
			continue
		}
		if e.opaque {
			continue
		}
		switch e.Type {
		case TypeThinkingLevelChange:
			ctx.ThinkingLevel = e.ThinkingLevel
		case TypeModelChange:
			ref, haveRef, refLazy = ModelRef{Provider: e.Provider, ModelID: e.ModelID}, true, -1
		case TypeMessage:
			var role, provider, model string
			if e.Message != nil {
				role, provider, model = e.Message.Role, e.Message.Provider, e.Message.Model
			} else {
				role, provider, model = e.role, e.provider, e.model
			}
			if role == llm.RoleAssistant {
				ref, haveRef, refLazy = ModelRef{Provider: provider, ModelID: model}, true, -1
			}
		case TypeCompaction:
			compaction = i
			if isVerbatim(e) {
				verbatim = i
			}
		}
	}
	if refLazy >= 0 {
		r := &s.lazy[refLazy]
		var buf [24]field
		fields, _ := parseObject(s.data[r.msg:r.msgEnd], buf[:0])
		_, ref.Provider, ref.ModelID = messageHead(fields, nil)
	}
	if haveRef {
		ctx.Model = &ref
	}
	return ctx, compaction, verbatim
}

func (s *Session) buildContext(path []int32) Context {
	ctx, compaction, verbatim := s.contextHead(path)
	from := 0
	if verbatim >= 0 {
		ctx.Messages, ctx.EntryIDs = s.emitVerbatim(path, verbatim)
		from = verbatim + 1
	} else if compaction >= 0 {
		c := s.entries[path[compaction]] // compactions are never lazy
		ctx.Messages = make([]llm.Message, 0, len(path)-compaction+spareMessages)
		ctx.Messages = append(ctx.Messages, llm.Message{Role: llm.RoleCompactionSummary, Summary: c.Summary,
			TokensBefore: c.TokensBefore, Timestamp: isoMillis(c.Timestamp)})
		ctx.EntryIDs = append(ctx.EntryIDs, c.ID)
		from = compaction + 1
		if c.FirstKeptEntryID != nil {
			for i := 0; i < compaction; i++ {
				if s.idAt(int(path[i])) == *c.FirstKeptEntryID {
					for _, k := range path[i:compaction] {
						ctx.Messages, ctx.EntryIDs = s.emitID(ctx.Messages, ctx.EntryIDs, k)
					}
					break
				}
			}
		}
	} else {
		ctx.Messages = make([]llm.Message, 0, len(path)+spareMessages)
		ctx.EntryIDs = make([]string, 0, len(path))
	}
	for _, k := range path[from:] {
		ctx.Messages, ctx.EntryIDs = s.emitID(ctx.Messages, ctx.EntryIDs, k)
	}
	return ctx
}

// spareMessages is the room BuildContext leaves after the messages, so the agent that adopts them
// appends the next prompt and answer without copying a long context.
const spareMessages = 8

// emitID is emitAt that also records the entry id of the message it added.
func (s *Session) emitID(out []llm.Message, ids []string, i int32) ([]llm.Message, []string) {
	n := len(out)
	out = s.emitAt(out, i)
	if len(out) > n {
		ids = append(ids, s.idAt(int(i)))
	}
	return out, ids
}

// emitAt is emit for entry i: a lazy message entry is decoded straight from the file buffer into
// the context and stays lazy; only one the fast decoder declines is materialized (emit then
// decodes it with llm's decoder, or finds it opaque).
func (s *Session) emitAt(out []llm.Message, i int32) []llm.Message {
	if s.entries[i] == nil {
		r := &s.lazy[i]
		n := len(out)
		out = append(out, llm.Message{})
		if decodeMessageInto(&out[n], s.data[r.msg:r.msgEnd]) {
			return out
		}
		out[n] = llm.Message{}
		out = out[:n]
	}
	return s.emit(out, s.at(int(i)))
}

// isVerbatim reports whether a compaction entry is an Atomic verbatim-lines one (§5.4).
func isVerbatim(e *Entry) bool {
	if e.Type != TypeCompaction || len(e.Details) == 0 {
		return false
	}
	var d struct {
		Strategy string `json:"strategy"`
	}
	return json.Unmarshal(e.Details, &d) == nil && d.Strategy == compact.Strategy
}

// emitVerbatim builds the one custom message of the active verbatim compaction at path[at] (§7
// step 5, Atomic).
func (s *Session) emitVerbatim(path []int32, at int) ([]llm.Message, []string) {
	c := s.entries[path[at]] // compactions are never lazy
	var b strings.Builder
	b.WriteString(compact.Preamble)
	b.WriteString(c.Summary)
	var images []llm.Content
	if c.FirstKeptEntryID != nil {
		for i := 0; i < at; i++ {
			if s.idAt(int(path[i])) != *c.FirstKeptEntryID {
				continue
			}
			var kept []llm.Message
			for _, k := range path[i:at] {
				kept = s.emitAt(kept, k)
			}
			var lines []string
			for j := range kept {
				lines = compact.RenderMessage(lines, &kept[j])
				for _, blk := range kept[j].Content {
					if blk.Type == llm.ContentImage {
						images = append(images, blk)
					}
				}
			}
			if len(lines) > 0 {
				b.WriteString("\n\n")
				b.WriteString(strings.Join(lines, "\n"))
			}
			break
		}
	}
	content := append([]llm.Content{llm.Text(b.String())}, images...)
	msgs := make([]llm.Message, 0, len(path)-at+spareMessages)
	msgs = append(msgs, llm.Message{Role: llm.RoleCustom, CustomType: compact.CustomType, Content: content,
		Display: true, Timestamp: isoMillis(c.Timestamp)})
	return msgs, []string{c.ID}
}

// emit appends the context message of e, if it has one (§7 step 4).
func (s *Session) emit(out []llm.Message, e *Entry) []llm.Message {
	if e.opaque {
		return out
	}
	switch e.Type {
	case TypeMessage:
		// A message not decoded yet is decoded straight into the context, and the entry keeps its
		// raw bytes: the context is the only decoded copy (a long session's entries are mostly
		// read for the context alone).
		if e.Message == nil && e.msgRaw != nil {
			n := len(out)
			out = append(out, llm.Message{})
			if decodeMessageInto(&out[n], e.msgRaw) {
				return out
			}
			out[n] = llm.Message{}
			out = out[:n]
		}
		if s.ready(e); e.Message != nil {
			out = append(out, *e.Message)
		}
	case TypeCustomMessage:
		out = append(out, llm.Message{Role: llm.RoleCustom, CustomType: e.CustomType, Content: e.Content,
			ContentIsString: e.ContentIsString, Display: e.Display, Details: detailsValue(e.Details),
			ExcludeFromContext: e.ExcludeFromContext, Timestamp: isoMillis(e.Timestamp)})
	case TypeBranchSummary:
		if e.Summary != "" {
			out = append(out, llm.Message{Role: llm.RoleBranchSummary, Summary: e.Summary, FromID: e.FromID,
				Timestamp: isoMillis(e.Timestamp)})
		}
	}
	return out
}

// detailsValue keeps absent details absent (a nil json.RawMessage in an any is not nil).
func detailsValue(d []byte) any {
	if d == nil {
		return nil
	}
	return json.RawMessage(d)
}
