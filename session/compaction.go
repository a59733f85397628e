package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/atomic-cli/atomic/compact"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

// Compaction reasons (events.md §3.3).
const (
	CompactManual    = "manual"
	CompactThreshold = "threshold"
	CompactOverflow  = "overflow"
)

// Compaction defaults, used when the CompactionSettings field is zero.
const (
	DefaultCompressionRatio = 0.5
	DefaultPreserveRecent   = 2
	DefaultReserveTokens    = 16384
)

// CompactionSettings configure compaction (Options.Compaction). The zero value is automatic
// compaction with the defaults; the settings file fills these in.
type CompactionSettings struct {
	// Disabled turns the threshold and overflow triggers off; manual compaction still works.
	Disabled bool
	// ReserveTokens is the headroom kept free: a request is compacted first when the context
	// estimate exceeds contextWindow − ReserveTokens. 0: DefaultReserveTokens.
	ReserveTokens int64
	// CompressionRatio is the default fraction of compactable lines to keep. 0: the default.
	CompressionRatio float64
	// PreserveRecent is the default number of newest context-visible messages kept out of the
	// region. nil: DefaultPreserveRecent.
	PreserveRecent *int
}

// ErrCompactionCancelled is the error of a compaction that session_before_compact cancelled.
var ErrCompactionCancelled = errors.New("Compaction cancelled")

// ErrNothingToCompact is returned when the region before the preserved tail is empty.
var ErrNothingToCompact = errors.New("compact: nothing to compact: every context message is in the preserved tail")

// compaction is the single-flight state of a session's compactions: mu is held for a whole run,
// so runs never overlap.
type compaction struct {
	mu      sync.Mutex
	running atomic.Bool // a run holds mu
	autoMu  sync.Mutex  // guards auto, cancel and done
	auto    *bool       // set_auto_compaction override; nil: !Options.Compaction.Disabled
	cancel  context.CancelFunc
	done    chan struct{} // closed when the running compaction ends; nil when none runs
}

// waitCompaction waits until no compaction runs (issue 10 item 16): a session is not idle while
// it compacts, and a prompt sent then is run after it, on the compacted context, instead of
// beside the planner request. It returns ctx's error if ctx ends first.
func (s *Session) waitCompaction(ctx context.Context) error {
	for {
		s.compaction.autoMu.Lock()
		done := s.compaction.done
		s.compaction.autoMu.Unlock()
		if done == nil {
			return nil
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// AbortCompaction cancels the running compaction, if any (RPC abort_compaction): it ends as
// aborted and the session is unchanged.
func (s *Session) AbortCompaction() {
	s.compaction.autoMu.Lock()
	cancel := s.compaction.cancel
	s.compaction.autoMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// SetAutoCompaction turns the threshold and overflow triggers on or off (RPC set_auto_compaction).
func (s *Session) SetAutoCompaction(on bool) {
	s.compaction.autoMu.Lock()
	s.compaction.auto = &on
	s.compaction.autoMu.Unlock()
}

// IsCompacting reports whether a compaction is running (RPC get_state isCompacting).
func (s *Session) IsCompacting() bool { return s.compaction.running.Load() }

// AutoCompaction reports whether the threshold and overflow triggers are on.
func (s *Session) AutoCompaction() bool {
	s.compaction.autoMu.Lock()
	defer s.compaction.autoMu.Unlock()
	if s.compaction.auto != nil {
		return *s.compaction.auto
	}
	return !s.opts.Compaction.Disabled
}

// parameters fills the unset fields of p from the settings. ratio <= 0 and preserve < 0 are unset.
func (s *Session) parameters(ratio float64, preserve *int, query string) compact.Parameters {
	c := s.opts.Compaction
	p := compact.Parameters{CompressionRatio: ratio, Query: query}
	if p.CompressionRatio <= 0 {
		p.CompressionRatio = c.CompressionRatio
	}
	if p.CompressionRatio <= 0 {
		p.CompressionRatio = DefaultCompressionRatio
	}
	p.CompressionRatio = min(p.CompressionRatio, 1)
	switch {
	case preserve != nil && *preserve >= 0:
		p.PreserveRecent = *preserve
	case c.PreserveRecent != nil:
		p.PreserveRecent = *c.PreserveRecent
	default:
		p.PreserveRecent = DefaultPreserveRecent
	}
	return p
}

// preparation is the prepared region of one compaction run.
type preparation struct {
	lines        []string
	firstKept    *string
	region       []llm.Message // the context messages the lines render
	tail         []llm.Message // context-visible messages from firstKept on, rendered after the text
	tokensBefore int64
}

// prepare splits the active transcript into the region and the newest p.PreserveRecent
// context-visible messages, or a few more when the tail would otherwise start inside a tool
// call/result pair (pairSafeCut).
func (s *Session) prepare(p compact.Parameters) (*preparation, error) {
	sc := s.store.BuildContext()
	msgs := sc.Messages
	cut := len(msgs)
	for n := 0; n < p.PreserveRecent && cut > 0; {
		cut--
		if visible(&msgs[cut]) {
			n++
		}
	}
	// Invisible messages just before the tail stay in the region; the tail starts at a visible one.
	for cut < len(msgs) && !visible(&msgs[cut]) {
		cut++
	}
	cut = pairSafeCut(msgs, cut)
	prep := &preparation{tokensBefore: contextTokens(msgs)}
	prep.lines = compact.Render(msgs[:cut])
	prep.region = msgs[:cut]
	if len(prep.lines) == 0 {
		return nil, ErrNothingToCompact
	}
	if cut < len(msgs) {
		id := sc.EntryIDs[cut]
		prep.firstKept = &id
		prep.tail = msgs[cut:]
	}
	return prep, nil
}

// pairSafeCut moves a cut that would start the kept tail on a tool result (inside a tool
// call/result pair) back to the assistant message that made the call, so the call and its
// results are kept together: a reader that replays the kept entries as messages (pi reads
// firstKeptEntryId so) must never see a tool result without its call (issue 10 item 4). When
// that leaves nothing to compact, the cut moves forward past the results instead and the whole
// pair is compacted.
func pairSafeCut(msgs []llm.Message, cut int) int {
	if cut >= len(msgs) || msgs[cut].Role != llm.RoleToolResult {
		return cut
	}
	back := cut
	for back > 0 && msgs[back].Role == llm.RoleToolResult {
		back--
	}
	if back > 0 && msgs[back].Role == llm.RoleAssistant {
		return back
	}
	for cut < len(msgs) && msgs[cut].Role == llm.RoleToolResult {
		cut++
	}
	return cut
}

// visible reports whether m reaches the provider (agent.ConvertToLLM drops the rest).
func visible(m *llm.Message) bool {
	if m.Role == llm.RoleAssistant {
		return m.StopReason != llm.StopError && m.StopReason != llm.StopAborted
	}
	return !m.ExcludeFromContext
}

// contextTokens estimates the context size: the newest successful assistant message's usage
// plus about a token per 4 bytes of every later message (images at a fixed estimate).
func contextTokens(msgs []llm.Message) int64 {
	var tokens int64
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant && msgs[i].StopReason != llm.StopError && msgs[i].StopReason != llm.StopAborted {
			u := msgs[i].Usage
			tokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
			last = i
			break
		}
	}
	for i := range msgs[last+1:] {
		tokens += llm.EstimateTokens(&msgs[last+1+i]) // an image counts llm.ImageTokens
	}
	return tokens
}

// Compact runs one verbatim-lines compaction (events.md §2 "/compact and auto-compaction"):
// compaction_start, the preparation, session_before_compact (may cancel or supply compactedText),
// the planner when no text came back, the compaction entry, the rebuilt agent context,
// session_compact and compaction_end; auto_compaction_start/end too for reasons other than
// manual. On failure or cancellation session_compact_failed and compaction_end{aborted or
// errorMessage} fire and the session is unchanged. ratio <= 0 and preserve nil (or negative) take
// the settings. Runs are serialised; Compact first waits until the agent is idle, so it must not
// be called from the agent loop (the triggers use compact with midTurn instead).
func (s *Session) Compact(ctx context.Context, reason string, ratio float64, preserve *int, query string) (*compact.Result, error) {
	if err := s.agent.Wait(ctx); err != nil {
		return nil, err
	}
	res, _, err := s.compact(ctx, reason, s.parameters(ratio, preserve, query), false)
	return res, err
}

func (s *Session) compact(ctx context.Context, reason string, p compact.Parameters, midTurn bool) (*compact.Result, []llm.Message, error) {
	if err := s.live("compact"); err != nil {
		return nil, nil, err
	}
	s.compaction.mu.Lock()
	defer s.compaction.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	s.compaction.autoMu.Lock()
	s.compaction.cancel = cancel
	s.compaction.done = done
	s.compaction.autoMu.Unlock()
	s.compaction.running.Store(true)
	defer func() {
		s.compaction.running.Store(false)
		s.compaction.autoMu.Lock()
		s.compaction.cancel = nil
		s.compaction.done = nil
		s.compaction.autoMu.Unlock()
		close(done)
		cancel()
	}()
	status := ext.CompactionStatus{Reason: reason, MidTurn: midTurn}
	if reason != CompactManual {
		status.Action = "context-full"
	}
	s.compactionStatus(ctx, true, status)
	res, msgs, fromExt, err := s.runCompaction(ctx, reason, p)
	if err != nil {
		aborted := errors.Is(err, ErrCompactionCancelled) || ctx.Err() != nil
		failed := ext.SessionCompactFailed{Reason: reason, Aborted: aborted, FromExtension: fromExt}
		status.Aborted = aborted
		if !errors.Is(err, ErrCompactionCancelled) {
			failed.ErrorMessage, status.ErrorMessage = err.Error(), err.Error()
		}
		emit[ext.None](s, ctx, failed)
		s.compactionStatus(ctx, false, status)
		return nil, nil, err
	}
	status.Result = res
	status.WillRetry = reason == CompactOverflow
	s.compactionStatus(ctx, false, status)
	return res, msgs, nil
}

// compactionStatus emits compaction_start/end to extensions and the session stream, and
// auto_compaction_start/end to extensions for runs that are not manual (events.md §4 row 13).
func (s *Session) compactionStatus(ctx context.Context, start bool, st ext.CompactionStatus) {
	if start {
		emit[ext.None](s, ctx, ext.CompactionStart{CompactionStatus: st})
		if st.Reason != CompactManual {
			emit[ext.None](s, ctx, ext.AutoCompactionStart{CompactionStatus: st})
		}
		return
	}
	emit[ext.None](s, ctx, ext.CompactionEnd{CompactionStatus: st})
	if st.Reason != CompactManual {
		emit[ext.None](s, ctx, ext.AutoCompactionEnd{CompactionStatus: st})
	}
}

func (s *Session) runCompaction(ctx context.Context, reason string, p compact.Parameters) (res *compact.Result, msgs []llm.Message, fromExt bool, err error) {
	prep, err := s.prepare(p)
	if err != nil {
		return nil, nil, false, err
	}
	text, rung, fromExt, err := s.extensionText(ctx, reason, p, prep)
	if err != nil {
		return nil, nil, fromExt, err
	}
	var st compact.Stats
	var planner *compact.PlannerModel
	if rung == "" {
		var answer string
		answer, planner, err = s.plan(ctx, prep.lines, p)
		if err != nil {
			return nil, nil, false, err
		}
		ranges, err := compact.ParseRanges(answer, len(prep.lines))
		if err != nil {
			return nil, nil, false, err
		}
		text, st = compact.Reconstruct(prep.lines, ranges)
		rung = compact.RungPlanned
	} else {
		st = compact.Stats{LinesBefore: len(prep.lines), LinesKept: strings.Count(text, "\n") + 1, RangeCount: 0}
		st.LinesDeleted = max(st.LinesBefore-st.LinesKept, 0)
	}
	after := compact.Preamble + text
	if len(prep.tail) > 0 {
		after += "\n\n" + strings.Join(compact.Render(prep.tail), "\n")
	}
	st.Finish(prep.tokensBefore, compact.EstimateTokens(after))
	details := compact.Details{Strategy: compact.Strategy, PromptVersion: compact.PromptVersion, Parameters: p,
		Stats: st, Rung: rung, PlannerModel: planner}
	first := ""
	if prep.firstKept != nil {
		first = *prep.firstKept
	}
	if ctx.Err() != nil {
		return nil, nil, fromExt, ctx.Err()
	}
	id, err := s.store.AppendCompaction(text, first, prep.tokensBefore, details, fromExt)
	if err != nil {
		return nil, nil, fromExt, fmt.Errorf("compact: saving the compaction: %w", err)
	}
	res = &compact.Result{CompactedText: text, FirstKeptEntryID: prep.firstKept, TokensBefore: prep.tokensBefore,
		PromptVersion: compact.PromptVersion, Parameters: p, Rung: rung, Stats: st, PlannerModel: planner}
	msgs = s.store.BuildContext().Messages
	if !s.agent.IsRunning() {
		if err := s.agent.SetMessages(msgs); err != nil {
			return nil, nil, fromExt, err
		}
	}
	emit[ext.None](s, ctx, ext.SessionCompact{Reason: reason, Parameters: extParams(p), Result: res,
		CompactionEntry: s.store.Entry(id), FromExtension: fromExt})
	return res, msgs, fromExt, nil
}

func extParams(p compact.Parameters) ext.CompactionParameters {
	return ext.CompactionParameters{CompressionRatio: p.CompressionRatio, PreserveRecent: p.PreserveRecent, Query: p.Query}
}

// extensionText runs session_before_compact on a deep copy of the preparation. rung is "" when
// no extension supplied text (the planner runs), compact.RungExtension when one did.
func (s *Session) extensionText(ctx context.Context, reason string, p compact.Parameters, prep *preparation) (text, rung string, fromExt bool, err error) {
	if !s.runner.Has(ext.IDSessionBeforeCompact) {
		return "", "", false, nil
	}
	ev := ext.SessionBeforeCompact{Reason: reason, Parameters: extParams(p),
		Preparation:   s.extPreparation(prep),
		BranchEntries: s.store.Branch(""),
	}
	if prep.firstKept != nil {
		id := *prep.firstKept
		ev.Preparation.FirstKeptEntryID = &id
	}
	_, r, _ := emit[*ext.BeforeCompactResult](s, ctx, ev)
	switch {
	case r == nil:
		return "", "", false, nil
	case r.Cancel:
		return "", "", false, ErrCompactionCancelled
	case r.CompactedText != nil:
		text = *r.CompactedText
	case r.Compaction != nil:
		want := ""
		if prep.firstKept != nil {
			want = *prep.firstKept
		}
		if r.Compaction.FirstKeptEntryID != want {
			return "", "", true, fmt.Errorf("compact: session_before_compact returned firstKeptEntryId %q, but the prepared region ends before %q; an extension cannot move it", r.Compaction.FirstKeptEntryID, want)
		}
		text = r.Compaction.Summary
	default:
		return "", "", false, nil
	}
	if strings.TrimSpace(text) == "" {
		return "", "", true, errors.New("compact: session_before_compact returned a whitespace-only compactedText; return the complete replacement of the prepared region")
	}
	return text, compact.RungExtension, true, nil
}

// extPreparation is session_before_compact's preparation: the seed's region lines and pi's
// message view of the same region (its messages, the previous summary, the files its tool calls
// touched, the settings).
func (s *Session) extPreparation(prep *preparation) ext.CompactionPreparation {
	out := ext.CompactionPreparation{Region: ext.CompactionRegion{Lines: append([]string(nil), prep.lines...)},
		Lines: append([]string(nil), prep.lines...), TokensBefore: prep.tokensBefore,
		MessagesToSummarize: make([]llm.Message, 0, len(prep.region)), TurnPrefixMessages: []llm.Message{}}
	seen := map[string]bool{}
	add := func(list *[]string, kind, path string) {
		if path != "" && !seen[kind+"\x00"+path] {
			seen[kind+"\x00"+path] = true
			*list = append(*list, path)
		}
	}
	ops := &out.FileOps
	ops.Read, ops.Written, ops.Edited = []string{}, []string{}, []string{}
	for _, m := range prep.region {
		if m.Role == llm.RoleCompactionSummary {
			out.PreviousSummary = m.Summary
			continue
		}
		out.MessagesToSummarize = append(out.MessagesToSummarize, m)
		for _, c := range m.Content {
			if c.Type != llm.ContentToolCall {
				continue
			}
			path, _ := c.Arguments["path"].(string)
			switch c.Name {
			case "read":
				add(&ops.Read, "r", path)
			case "write":
				add(&ops.Written, "w", path)
			case "edit":
				add(&ops.Edited, "e", path)
			}
		}
	}
	reserve := s.opts.Compaction.ReserveTokens
	if reserve <= 0 {
		reserve = DefaultReserveTokens
	}
	var kept int64
	for i := range prep.tail {
		kept += llm.EstimateTokens(&prep.tail[i])
	}
	out.Settings = ext.CompactionSettings{Enabled: s.AutoCompaction(), ReserveTokens: reserve, KeepRecentTokens: kept}
	return out
}

// plan asks the session's model for the deleted line ranges.
func (s *Session) plan(ctx context.Context, lines []string, p compact.Parameters) (string, *compact.PlannerModel, error) {
	cfg := s.agent.Config()
	m := cfg.Model
	req := &llm.Request{Model: m, SystemPrompt: compact.PlannerSystemPrompt,
		Messages: []llm.Message{llm.UserText(compact.PlannerPrompt(lines, p), nil, s.now().UnixMilli())}}
	if err := s.prepareRequest(ctx, req); err != nil {
		return "", nil, fmt.Errorf("compact: planner request: %w", err)
	}
	req.Hooks = nil
	out := cfg.Provider.Stream(ctx, req, func(llm.Event) {})
	if out.StopReason == llm.StopError || out.StopReason == llm.StopAborted {
		msg := out.ErrorMessage
		if msg == "" {
			msg = string(out.StopReason)
		}
		return "", nil, fmt.Errorf("compact: planner request failed: %s", msg)
	}
	return llm.TextOf(out.Content, ""), &compact.PlannerModel{Provider: m.Provider, ID: m.ID}, nil
}
