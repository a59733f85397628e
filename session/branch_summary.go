package session

// Branch summaries for /tree navigation (events.md §2 "/tree", §3.3; session-format.md §5.5).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/atomic-cli/atomic/compact"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// BranchSummarySystemPrompt is the fixed system prompt of the branch summarizer request.
const BranchSummarySystemPrompt = `You summarise a branch of a coding-agent conversation that the user is leaving. ` +
	`The conversation will continue from an earlier point without this branch, so your summary is the only ` +
	`record of it the agent will see. You never continue the conversation, answer its questions or call tools: ` +
	`you only write the summary.`

// BranchSummaryInstructions are the default instructions that follow the transcript in the
// summarizer request; NavigateOptions.CustomInstructions are appended to them, or replace them
// when ReplaceInstructions is set.
const BranchSummaryInstructions = `Summarise the branch in the transcript above so that the agent can make use of it later. Cover:
- what the user wanted on this branch;
- what was done, and the decisions taken and why;
- the files that were read, created or changed, with their paths;
- what worked, what failed and why, and what was left unfinished.
Be concise: short Markdown sections with bullet points. Keep exact names, paths, commands and error messages. ` +
	`Do not invent anything that is not in the transcript. Write only the summary.`

// branchSummaryReserve is the part of the context window kept free for the summary and the
// prompt around the transcript when the model does not say how many tokens it answers with.
const branchSummaryReserve = 4096

// BranchSummaryDetails are the default details of a generated branch_summary entry: the files
// the summarised branch read and modified (edit, write), sorted; a modified file is not listed as
// read.
type BranchSummaryDetails struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}

// treeBranch returns the deepest entry shared by the paths to oldLeaf and target ("" when they
// share none, or oldLeaf is "") and the entries of the old path after it, oldest first: the
// entries a /tree jump abandons.
func treeBranch(st *store.Session, oldLeaf, target string) (ancestor string, abandoned []*store.Entry) {
	if oldLeaf == "" {
		return "", nil
	}
	onTarget := make(map[string]bool)
	for _, e := range st.Branch(target) {
		onTarget[e.ID] = true
	}
	old := st.Branch(oldLeaf)
	cut := 0
	for i := len(old) - 1; i >= 0; i-- {
		if onTarget[old[i].ID] {
			ancestor, cut = old[i].ID, i+1
			break
		}
	}
	return ancestor, old[cut:]
}

// branchMessages returns the conversation of entries as messages (the context-visible kinds of
// session-format.md §7 step 4; a compaction contributes its summary).
func branchMessages(entries []*store.Entry) []llm.Message {
	var out []llm.Message
	for _, e := range entries {
		if e.Opaque() {
			continue
		}
		switch e.Type {
		case store.TypeMessage:
			if e.Message != nil {
				out = append(out, *e.Message)
			}
		case store.TypeCustomMessage:
			out = append(out, llm.Message{Role: llm.RoleCustom, CustomType: e.CustomType, Content: e.Content,
				ExcludeFromContext: e.ExcludeFromContext})
		case store.TypeBranchSummary:
			if e.Summary != "" {
				out = append(out, llm.Message{Role: llm.RoleBranchSummary, Summary: e.Summary, FromID: e.FromID})
			}
		case store.TypeCompaction:
			if e.Summary != "" {
				out = append(out, llm.Message{Role: llm.RoleCompactionSummary, Summary: e.Summary})
			}
		}
	}
	return out
}

// branchFiles derives the default details from the read, edit and write tool calls of entries,
// and from the details of earlier generated branch summaries on them.
func branchFiles(entries []*store.Entry) BranchSummaryDetails {
	read, modified := map[string]bool{}, map[string]bool{}
	for _, e := range entries {
		switch {
		case e.Type == store.TypeMessage && e.Message != nil && e.Message.Role == llm.RoleAssistant:
			for _, c := range e.Message.ToolCalls() {
				p, _ := c.Arguments["path"].(string)
				if p == "" {
					continue
				}
				switch c.Name {
				case "read":
					read[p] = true
				case "edit", "write":
					modified[p] = true
				}
			}
		case e.Type == store.TypeBranchSummary && (e.FromHook == nil || !*e.FromHook) && e.Details != nil:
			var d BranchSummaryDetails
			if json.Unmarshal(e.Details, &d) == nil {
				for _, p := range d.ReadFiles {
					read[p] = true
				}
				for _, p := range d.ModifiedFiles {
					modified[p] = true
				}
			}
		}
	}
	d := BranchSummaryDetails{ReadFiles: []string{}, ModifiedFiles: []string{}}
	for p := range read {
		if !modified[p] {
			d.ReadFiles = append(d.ReadFiles, p)
		}
	}
	for p := range modified {
		d.ModifiedFiles = append(d.ModifiedFiles, p)
	}
	slices.Sort(d.ReadFiles)
	slices.Sort(d.ModifiedFiles)
	return d
}

// BranchSummaryPrompt returns the user message of the summarizer request: the transcript of
// msgs between <transcript> tags, then the instructions. custom is appended to the default
// instructions, or replaces them when replace is set and custom is not blank. When the
// transcript is longer than maxTokens (estimated; <= 0: no limit), its oldest lines are left out
// and a note says how many.
func BranchSummaryPrompt(msgs []llm.Message, custom string, replace bool, maxTokens int64) string {
	lines := compact.Render(msgs)
	omitted := 0
	if maxTokens > 0 {
		budget := maxTokens * 4
		size := int64(0)
		for _, l := range lines {
			size += int64(len(l)) + 1
		}
		for omitted < len(lines) && size > budget {
			size -= int64(len(lines[omitted])) + 1
			omitted++
		}
	}
	var b strings.Builder
	b.WriteString("<transcript>\n")
	if omitted > 0 {
		fmt.Fprintf(&b, "(%d earlier lines omitted)\n", omitted)
	}
	for _, l := range lines[omitted:] {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("</transcript>\n\n")
	custom = strings.TrimSpace(custom)
	switch {
	case replace && custom != "":
		b.WriteString(custom)
	case custom != "":
		b.WriteString(BranchSummaryInstructions)
		b.WriteString("\n\nAdditional instructions from the user:\n")
		b.WriteString(custom)
	default:
		b.WriteString(BranchSummaryInstructions)
	}
	return b.String()
}

// summarizeBranch asks the session's model for a summary of entries.
func (s *Session) summarizeBranch(ctx context.Context, entries []*store.Entry, custom string, replace bool) (string, *llm.Usage, error) {
	cfg := s.agent.Config()
	m := cfg.Model
	if m == nil || cfg.Provider == nil {
		return "", nil, errors.New("navigateTree: no model available to summarize the branch")
	}
	var budget int64
	if m.ContextWindow > 0 {
		reserve := int64(m.MaxTokens)
		if reserve <= 0 {
			reserve = branchSummaryReserve
		}
		budget = max(int64(m.ContextWindow)-reserve-compact.EstimateTokens(BranchSummarySystemPrompt+BranchSummaryInstructions+custom), 256)
	}
	prompt := BranchSummaryPrompt(branchMessages(entries), custom, replace, budget)
	req := &llm.Request{Model: m, SystemPrompt: BranchSummarySystemPrompt,
		Messages: []llm.Message{llm.UserText(prompt, nil, s.now().UnixMilli())}}
	if err := s.prepareRequest(ctx, req); err != nil {
		return "", nil, fmt.Errorf("navigateTree: summarizer request: %w", err)
	}
	req.Hooks = nil
	out := cfg.Provider.Stream(ctx, req, func(llm.Event) {})
	if out.StopReason == llm.StopAborted || ctx.Err() != nil {
		return "", nil, context.Canceled
	}
	if out.StopReason == llm.StopError {
		msg := out.ErrorMessage
		if msg == "" {
			msg = string(out.StopReason)
		}
		return "", nil, fmt.Errorf("navigateTree: summarizer request failed: %s", msg)
	}
	text := strings.TrimSpace(llm.TextOf(out.Content, ""))
	if text == "" {
		return "", nil, errors.New("navigateTree: the summarizer returned an empty summary")
	}
	usage := out.Usage
	return text, &usage, nil
}

// navigateTree is the body of Runtime.NavigateTree once the target is known to exist and the
// agent is idle: the preparation, session_before_tree (cancel, summary, overrides field by field
// from the one winning object), the summarizer when a summary is wanted, there is something to
// summarise and no extension supplied one, the leaf move (with the branch_summary entry), the
// label, the rebuilt agent context and session_tree. A failed summarizer leaves the leaf where it
// was and returns the error; an aborted one (ctx cancelled) reports cancelled.
func (s *Session) navigateTree(ctx context.Context, targetID string, o ext.NavigateOptions) (bool, error) {
	oldLeaf := s.store.LeafID()
	ancestor, abandoned := treeBranch(s.store, oldLeaf, targetID)
	prep := ext.TreePreparation{TargetID: targetID, EntriesToSummarize: abandoned, UserWantsSummary: o.Summarize,
		CustomInstructions: o.CustomInstructions, ReplaceInstructions: o.ReplaceInstructions, Label: o.Label}
	if prep.EntriesToSummarize == nil {
		prep.EntriesToSummarize = []*store.Entry{}
	}
	if oldLeaf != "" {
		prep.OldLeafID = &oldLeaf
	}
	if ancestor != "" {
		prep.CommonAncestorID = &ancestor
	}
	custom, replace, label := o.CustomInstructions, o.ReplaceInstructions, o.Label
	var supplied *ext.TreeSummary
	if s.runner.Has(ext.IDSessionBeforeTree) {
		_, res, _ := emit[*ext.BeforeTreeResult](s, ctx, ext.SessionBeforeTree{Preparation: prep})
		if res != nil {
			if res.Cancel {
				return true, nil
			}
			if res.Summary != nil && o.Summarize {
				supplied = res.Summary
			}
			if res.CustomInstructions != nil {
				custom = *res.CustomInstructions
			}
			if res.ReplaceInstructions != nil {
				replace = *res.ReplaceInstructions
			}
			if res.Label != nil {
				label = *res.Label
			}
		}
	}

	var (
		summary  string
		details  any
		usage    *llm.Usage
		fromHook bool
	)
	switch {
	case supplied != nil:
		summary, details, fromHook = supplied.Summary, supplied.Details, true
	case o.Summarize && len(abandoned) > 0:
		text, u, err := s.summarizeBranch(ctx, abandoned, custom, replace)
		if errors.Is(err, context.Canceled) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		summary, details, usage = text, branchFiles(abandoned), u
	}

	var summaryEntry *store.Entry
	if summary != "" {
		var id string
		var err error
		if fromHook {
			id, err = s.store.BranchWithSummary(targetID, summary, details, true)
		} else {
			id, err = s.store.BranchWithSummaryUsage(targetID, summary, details, false, usage)
		}
		if err != nil {
			return false, err
		}
		summaryEntry = s.store.Entry(id)
	} else if err := s.store.SetLeaf(targetID); err != nil {
		return false, err
	}
	if label != "" {
		target := targetID
		if summaryEntry != nil {
			target = summaryEntry.ID
		}
		if _, err := s.store.AppendLabelChange(target, label); err != nil {
			return false, err
		}
	}
	if err := s.agent.AdoptMessages(s.store.BuildContext().Messages); err != nil {
		return false, err
	}
	newLeaf := s.store.LeafID()
	ev := ext.SessionTree{NewLeafID: &newLeaf, SummaryEntry: summaryEntry, FromExtension: summaryEntry != nil && fromHook}
	if oldLeaf != "" {
		ev.OldLeafID = &oldLeaf
	}
	emit[ext.None](s, ctx, ev)
	return false, nil
}
