package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/atomic-cli/atomic/compact"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

// beforeRequest is the threshold trigger (agent.Hooks.BeforeRequest): before every provider
// request, including the follow-up after tool results, a context estimate above
// contextWindow − reserve (at most a quarter of the window) compacts first. A successful run hands its rebuilt context back to
// the loop; a cancelled or failed one suppresses the request.
func (s *Session) beforeRequest(ctx context.Context, msgs []llm.Message) ([]llm.Message, error) {
	m := s.Model()
	if !s.AutoCompaction() || m == nil || m.ContextWindow <= 0 {
		return nil, nil
	}
	reserve := s.opts.Compaction.ReserveTokens
	if reserve <= 0 {
		reserve = DefaultReserveTokens
	}
	// A window smaller than the reserve (small local models, tests) keeps a quarter free instead.
	reserve = min(reserve, int64(m.ContextWindow)/4)
	if contextTokens(msgs) <= int64(m.ContextWindow)-reserve {
		return nil, nil
	}
	_, out, err := s.compact(ctx, CompactThreshold, s.parameters(0, nil, ""), true)
	switch {
	case errors.Is(err, ErrNothingToCompact):
		// Only the preserved tail is left (one large prompt): send it and let the provider
		// decide; an overflow answer still gets its compaction attempt.
		return nil, nil
	case err != nil:
		s.compactionFailed(err)
		return nil, fmt.Errorf("automatic compaction failed, so the request was not sent: %w", err)
	}
	return out, nil
}

// overflow is the overflow trigger (agent.Hooks.Overflow): a context-too-long provider error
// compacts and retries the request once.
func (s *Session) overflow(ctx context.Context, failed *llm.Message, _ []llm.Message) ([]llm.Message, bool) {
	if !s.AutoCompaction() || !compact.IsOverflow(failed.ErrorMessage) {
		return nil, false
	}
	_, out, err := s.compact(ctx, CompactOverflow, s.parameters(0, nil, ""), true)
	if err != nil {
		s.compactionFailed(err)
		return nil, false
	}
	return out, true
}

func (s *Session) compactionFailed(err error) {
	if !errors.Is(err, ErrCompactionCancelled) {
		s.onErr(err)
	}
}

// compactAsync is ctx.compact: the run starts in the background once the agent is idle, and
// exactly one of onComplete and onError is called with its outcome.
func (s *Session) compactAsync(o ext.CompactOptions) {
	p := s.parameters(o.CompressionRatio, o.PreserveRecent, o.Query)
	s.inflight.add()
	go func() {
		defer s.inflight.done()
		ctx := s.life // cancelled by Shutdown
		var res *compact.Result
		err := s.agent.Wait(ctx)
		if err == nil {
			res, _, err = s.compact(ctx, CompactManual, p, false)
		}
		switch {
		case err != nil && o.OnError != nil:
			o.OnError(err)
		case err == nil && o.OnComplete != nil:
			o.OnComplete(res)
		}
	}()
}

// prePrompt is the pre-prompt compaction check (events.md §2 "Prompt (A)", step 5): before the
// user message is built, a context that would cross the threshold with the new prompt is
// compacted, so the prompt itself is never folded into the compacted region. Nothing to compact
// is not an error; a failed compaction is (the prompt is not sent).
func (s *Session) prePrompt(ctx context.Context, text string) error {
	m := s.Model()
	if !s.AutoCompaction() || m == nil || m.ContextWindow <= 0 {
		return nil
	}
	reserve := s.opts.Compaction.ReserveTokens
	if reserve <= 0 {
		reserve = DefaultReserveTokens
	}
	reserve = min(reserve, int64(m.ContextWindow)/4)
	if contextTokens(s.agent.Messages())+int64(len(text)+3)/4 <= int64(m.ContextWindow)-reserve {
		return nil
	}
	_, err := s.Compact(ctx, CompactThreshold, 0, nil, "")
	switch {
	case err == nil, errors.Is(err, ErrNothingToCompact):
		return nil
	default:
		s.compactionFailed(err)
		return fmt.Errorf("automatic compaction before the prompt failed, so the prompt was not sent: %w", err)
	}
}
