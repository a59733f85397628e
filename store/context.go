package store

import (
	"encoding/json"

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
}

// BuildContext resolves the LLM context of the path from a root to the leaf with pi's compaction
// semantics (§7): the newest compaction on the path contributes its summary first, then the path
// entries from its firstKeptEntryId (inclusive) up to it, then everything after it. Before the
// first entry (ResetLeaf, new session) the context is empty with thinking level "off". Opaque
// entries (unknown types, undecodable messages) are skipped.
func (s *Session) BuildContext() Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buildContext(s.path(s.leaf))
}

func (s *Session) buildContext(path []*Entry) Context {
	ctx := Context{ThinkingLevel: "off"}
	compaction := -1
	for i, e := range path {
		if e.opaque {
			continue
		}
		switch e.Type {
		case TypeThinkingLevelChange:
			ctx.ThinkingLevel = e.ThinkingLevel
		case TypeModelChange:
			ctx.Model = &ModelRef{Provider: e.Provider, ModelID: e.ModelID}
		case TypeMessage:
			var role, provider, model string
			if e.Message != nil {
				role, provider, model = e.Message.Role, e.Message.Provider, e.Message.Model
			} else {
				role, provider, model = e.role, e.provider, e.model
			}
			if role == llm.RoleAssistant {
				ctx.Model = &ModelRef{Provider: provider, ModelID: model}
			}
		case TypeCompaction:
			compaction = i
		}
	}
	from := 0
	if compaction >= 0 {
		c := path[compaction]
		ctx.Messages = make([]llm.Message, 0, len(path)-compaction)
		ctx.Messages = append(ctx.Messages, llm.Message{Role: llm.RoleCompactionSummary, Summary: c.Summary,
			TokensBefore: c.TokensBefore, Timestamp: isoMillis(c.Timestamp)})
		from = compaction + 1
		if c.FirstKeptEntryID != nil {
			for i := 0; i < compaction; i++ {
				if path[i].ID == *c.FirstKeptEntryID {
					for _, e := range path[i:compaction] {
						ctx.Messages = s.emit(ctx.Messages, e)
					}
					break
				}
			}
		}
	} else {
		ctx.Messages = make([]llm.Message, 0, len(path))
	}
	for _, e := range path[from:] {
		ctx.Messages = s.emit(ctx.Messages, e)
	}
	return ctx
}

// emit appends the context message of e, if it has one (§7 step 4).
func (s *Session) emit(out []llm.Message, e *Entry) []llm.Message {
	if e.opaque {
		return out
	}
	switch e.Type {
	case TypeMessage:
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
