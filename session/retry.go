package session

// Automatic retry of failed provider requests (events.md §3.8, rpc-and-json.md §5; pi's
// agent-session retry, Atomic's fallbackModels).
//
// A run that ends with a retryable failure (HTTP 408, 429, 5xx including Anthropic's 529,
// "overloaded", a reset or refused connection, a stream cut before any content) is retried: the
// session emits auto_retry_start{attempt, maxAttempts, delayMs, errorMessage}, waits the backoff
// (BaseDelay × 2^(attempt-1), capped at MaxDelay, or the server's retry-after / retry-after-ms),
// and continues the run from the context without the failed message. When a success follows,
// auto_retry_end{success:true, attempt} is emitted; when the retries end without one,
// auto_retry_end{success:false, attempt, finalError}. A retry-after longer than MaxRetryDelay
// (settings retry.provider.maxRetryDelayMs, default 60 s) is not waited for: it counts as the
// retries on that model being exhausted, and when no fallback is left the run fails at once with
// an error saying how long the server asked to wait.
//
// A stream the provider cut because the server went silent past StreamDeadline (settings
// streamDeadlineMs; llm/sse ErrStalled) is retried like a dropped connection, even when some
// content had arrived: the partial message is dropped from the context before the retry.
//
// After the retries on the primary model are exhausted, each fallback model is tried once, in
// order: retry_fallback_applied{from, to, role:"default"}, then the model switch
// (model_select{source:"fallback"} and the stream's model_changed), then the run continues. A
// fallback that works emits retry_fallback_succeeded{model, role} after auto_retry_end and stays
// selected; when every fallback failed the primary model is restored (model_select{restore}).
//
// The failed assistant messages are persisted once each, when they end (the session file keeps
// the history, as pi does), and removed from the agent context before each retry so the model
// never sees them and Continue can run; they are dropped from provider requests anyway
// (agent.ConvertToLLM). When the retries end without success the last failure stays the last
// message of the context, like a run that was never retried.
//
// The attempt of auto_retry_end counts the re-runs started: retries on the primary model plus
// fallback tries. agent_end.willContinue says whether a failure is about to be retried.
//
// An abort during the backoff (Session.Abort, ctx.abort() of an extension, cancellation of the
// prompt's context, or RPC abort_retry) ends the wait at once: auto_retry_end{success:false,
// finalError:"Retry cancelled"}, and the prompt settles (agent_settled once, from PromptWith).
// While a retry sequence runs the session counts as streaming: prompts are queued as steering
// or follow-up messages and delivered with the retried run.
//
// Retried: the runs of top-level prompts (PromptWith, so also an idle sendUserMessage), of
// turns started by extensions with triggerTurn or deliverAs "interrupt" (the same prompt path),
// and session_stop continuations. The zero Options.Retry disables retry (SDK default);
// cli fills it from settings.json, where it is on by default.
//
// Credentials: a provider whose requests fail with 401 or 403 twice in a row within the process
// is soft-disabled: credential_disabled{provider, disabledCause} is emitted once, later requests
// to it fail at once without a network call, and it is skipped as a fallback.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

// RetryOptions configure automatic retry. The zero value disables it.
type RetryOptions struct {
	Enabled    bool
	MaxRetries int
	// BaseDelay is the first backoff; each later one doubles, capped at MaxDelay (0: no cap).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryDelay is the longest server-requested delay (retry-after) that is waited for
	// (settings retry.provider.maxRetryDelayMs); a longer one fails the retries on this model at
	// once. 0 uses MaxDelay.
	MaxRetryDelay time.Duration
	// StreamDeadline is the longest silence of a provider stream before it is cut and retried
	// (settings streamDeadlineMs): before the response headers and between two events. 0: none.
	StreamDeadline time.Duration
	// Fallbacks are tried in order after the retries on the primary model are exhausted.
	Fallbacks []RetryFallback
	// Sleep waits d or until ctx ends (returning ctx's error); nil uses a timer. Tests inject
	// one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
}

// RetryFallback is one fallback model and the thinking level to use with it ("" keeps the
// current one, clamped).
type RetryFallback struct {
	Model         *llm.Model
	ThinkingLevel string
}

// ErrCredentialDisabled is returned for a request to a provider whose credential was
// soft-disabled after repeated 401/403 answers.
var ErrCredentialDisabled = errors.New("credential disabled")

// retryState is the session's retry bookkeeping; mu guards every field.
type retryState struct {
	mu       sync.Mutex
	enabled  bool
	cancel   context.CancelFunc // cancels the pending backoff; nil when none
	active   bool               // a retry sequence is running (backoff or retried run)
	aborted  bool               // AbortRetry was called during the sequence
	attempt  int                // retries made on the primary model in the current sequence
	fallback int                // index of the fallback in use; -1 on the primary
	status   int                // HTTP status of the latest provider response (0: none)
	header   http.Header        // its headers
	authFail map[string]int     // consecutive 401/403 answers per provider
	disabled map[string]string  // soft-disabled providers and the cause
}

func (s *Session) retryOpts() RetryOptions {
	o := s.opts.Retry
	s.retry.mu.Lock()
	o.Enabled = s.retry.enabled
	s.retry.mu.Unlock()
	return o
}

// SetAutoRetry turns automatic retry on or off (RPC set_auto_retry); it applies from the next
// failure.
func (s *Session) SetAutoRetry(enabled bool) {
	s.retry.mu.Lock()
	s.retry.enabled = enabled
	s.retry.mu.Unlock()
}

// AutoRetryEnabled reports whether automatic retry is on.
func (s *Session) AutoRetryEnabled() bool {
	s.retry.mu.Lock()
	defer s.retry.mu.Unlock()
	return s.retry.enabled
}

// AbortRetry cancels a pending retry backoff (RPC abort_retry); it reports whether one was
// pending. A retried run already streaming is not affected (use Abort).
func (s *Session) AbortRetry() bool {
	s.retry.mu.Lock()
	cancel := s.retry.cancel
	if s.retry.active {
		s.retry.aborted = true // an abort before the backoff starts still stops it
	}
	s.retry.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}

// IsRetrying reports whether a retry sequence is in progress (waiting or re-running).
func (s *Session) IsRetrying() bool {
	s.retry.mu.Lock()
	defer s.retry.mu.Unlock()
	return s.retry.active
}

// retryPrepare is the retry part of prepareRequest: it fails a request to a soft-disabled
// provider and wraps the request's hooks so the session sees every response's status and
// headers (for retry-after and the 401/403 count).
func (s *Session) retryPrepare(req *llm.Request) error {
	s.retry.mu.Lock()
	s.retry.status, s.retry.header = 0, nil
	s.retry.mu.Unlock()
	req.StreamDeadline = s.opts.Retry.StreamDeadline
	if err := s.credentialCheck(req.Model); err != nil {
		return err
	}
	out := &llm.Hooks{}
	if req.Hooks != nil {
		*out = *req.Hooks
	}
	next := out.AfterResponse
	out.AfterResponse = func(ctx context.Context, status int, headers http.Header) {
		s.retry.mu.Lock()
		s.retry.status, s.retry.header = status, headers.Clone()
		s.retry.mu.Unlock()
		if next != nil {
			next(ctx, status, headers)
		}
	}
	req.Hooks = out
	return nil
}

// credentialCheck fails a request to a soft-disabled provider.
func (s *Session) credentialCheck(m *llm.Model) error {
	if m == nil {
		return nil
	}
	s.retry.mu.Lock()
	cause, off := s.retry.disabled[m.Provider]
	s.retry.mu.Unlock()
	if off {
		return fmt.Errorf("%w: the credential of provider %q was disabled for this process after repeated authentication failures (%s); fix the key and restart", ErrCredentialDisabled, m.Provider, cause)
	}
	return nil
}

// noteAuth counts consecutive 401/403 answers of a provider and soft-disables it at the second.
func (s *Session) noteAuth(provider string, status int, msg string) {
	s.retry.mu.Lock()
	if s.retry.authFail == nil {
		s.retry.authFail, s.retry.disabled = map[string]int{}, map[string]string{}
	}
	if status != http.StatusUnauthorized && status != http.StatusForbidden {
		s.retry.authFail[provider] = 0
		s.retry.mu.Unlock()
		return
	}
	s.retry.authFail[provider]++
	n := s.retry.authFail[provider]
	_, already := s.retry.disabled[provider]
	cause := msg
	if len(cause) > 200 {
		cause = cause[:200]
	}
	disable := n >= 2 && !already
	if disable {
		s.retry.disabled[provider] = cause
	}
	s.retry.mu.Unlock()
	if disable {
		emit[ext.None](s, context.Background(), ext.CredentialDisabled{Provider: provider, DisabledCause: cause})
	}
}

// runRetrying runs first (a Prompt or Continue of the agent) and then retries its failures as
// the package comment describes. Its error is first's, or ctx's when a retried run could not
// start; provider failures stay in the messages.
func (s *Session) runRetrying(ctx context.Context, first func() error) error {
	if err := first(); err != nil {
		return err
	}
	o := s.retryOpts()
	last, status := s.lastFailure()
	if last != nil && imageRejected(last, status) && ctx.Err() == nil {
		// The provider refused an image (too large, unreadable): the images of the context become
		// placeholders and the run is tried once more, so later turns stop failing on them.
		if n := s.dropRejectedImages(last.ErrorMessage); n > 0 {
			if err := s.agent.Continue(ctx); err != nil {
				return err
			}
			last, status = s.lastFailure()
		}
	}
	if last == nil || !o.Enabled || !retryable(last, status) {
		return nil
	}
	s.retry.mu.Lock()
	s.retry.active, s.retry.aborted, s.retry.attempt, s.retry.fallback = true, false, 0, -1
	s.retry.mu.Unlock()
	defer func() {
		s.retry.mu.Lock()
		s.retry.active, s.retry.aborted, s.retry.cancel = false, false, nil
		s.retry.mu.Unlock()
	}()

	primary := s.Model()
	ectx := context.WithoutCancel(ctx) // the notices still reach handlers after an abort
	attempt, tries := 0, 0
	fallback := -1 // index into o.Fallbacks; -1 while on the primary
	var current *RetryFallback
	end := func(success bool, final string) {
		e := ext.AutoRetryEnd{Success: success, Attempt: tries, FinalError: final}
		emit[ext.None](s, ectx, e)
		if success && current != nil {
			f := ext.RetryFallbackSucceeded{Model: modelRef(current.Model), Role: "default"}
			emit[ext.None](s, ectx, f)
		}
	}
	for {
		if fallback < 0 && !retryable(last, status) {
			end(false, last.ErrorMessage)
			return nil
		}
		var delay time.Duration
		exhausted, tooLong := false, ""
		if fallback < 0 {
			attempt++
			s.retry.mu.Lock()
			s.retry.attempt = attempt
			s.retry.mu.Unlock()
			var server bool
			delay, server = s.retryDelay(o, attempt, status)
			limit := o.MaxRetryDelay
			if limit <= 0 {
				limit = o.MaxDelay
			}
			if server && limit > 0 && delay > limit {
				tooLong = fmt.Sprintf("%s (not retried: the server asked to wait %s, longer than retry.provider.maxRetryDelayMs %s)", errorText(last), delay.Round(time.Millisecond), limit)
			}
			exhausted = attempt > o.MaxRetries || tooLong != ""
		} else {
			exhausted = true
		}
		if exhausted {
			// Next fallback whose credential is usable.
			fallback++
			for fallback < len(o.Fallbacks) && (o.Fallbacks[fallback].Model == nil || s.credentialCheck(o.Fallbacks[fallback].Model) != nil) {
				fallback++
			}
			if fallback >= len(o.Fallbacks) {
				if current != nil {
					_ = s.setModel(primary, "restore")
				}
				final := last.ErrorMessage
				if tooLong != "" {
					final = tooLong
					s.noteFinalError(tooLong)
				}
				end(false, final)
				return nil
			}
			s.retry.mu.Lock()
			s.retry.fallback = fallback
			s.retry.mu.Unlock()
			from := s.Model()
			fb := o.Fallbacks[fallback]
			current = &fb
			a := ext.RetryFallbackApplied{From: modelRef(from), To: modelRef(fb.Model), Role: "default"}
			emit[ext.None](s, ectx, a)
			if err := s.setModel(fb.Model, "fallback"); err != nil {
				s.onErr(fmt.Errorf("session: fallback to %s: %w", modelRef(fb.Model), err))
				continue
			}
			if fb.ThinkingLevel != "" {
				_ = s.SetThinkingLevel(fb.ThinkingLevel)
			}
		} else {
			st := ext.AutoRetryStart{Attempt: attempt, MaxAttempts: o.MaxRetries, DelayMs: delay.Milliseconds(), ErrorMessage: errorText(last)}
			emit[ext.None](s, ectx, st)
		}

		failed := *last
		msgs := s.agent.Messages()
		if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleAssistant {
			_ = s.agent.SetMessages(msgs[:n-1])
		}
		tries++
		if err := s.backoff(ctx, o, delay); err != nil {
			// Put the failure back: the context ends where the session file's branch does.
			_ = s.agent.SetMessages(append(s.agent.Messages(), failed))
			end(false, "Retry cancelled")
			return nil
		}
		if err := s.agent.Continue(ctx); err != nil {
			end(false, err.Error())
			return err
		}
		last, status = s.lastFailure()
		if last == nil {
			if m := lastAssistant(s.agent.Messages()); m != nil && m.StopReason == llm.StopAborted {
				end(false, "aborted")
				return nil
			}
			end(true, "")
			return nil
		}
		if ctx.Err() != nil || !s.AutoRetryEnabled() {
			end(false, last.ErrorMessage)
			return nil
		}
	}
}

// imageRejected reports whether a failed request was a 400 (or 413) whose error names an image.
func imageRejected(m *llm.Message, status int) bool {
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		return false
	}
	return imageError.MatchString(m.ErrorMessage)
}

var imageError = regexp.MustCompile(`(?i)\bimages?\b|image_url|media.?type|base64`)

// hasImages reports whether some message holds an image.
func hasImages(msgs []llm.Message) bool {
	for _, m := range msgs {
		for _, c := range m.Content {
			if c.Type == llm.ContentImage {
				return true
			}
		}
	}
	return false
}

// ImagePlaceholder is the text an image becomes after the provider refused the request that
// carried it (reason is the provider's error, clipped).
func ImagePlaceholder(reason string) string {
	if len(reason) > 160 {
		reason = reason[:160] + "…"
	}
	return "[image omitted: the provider rejected it: " + reason + "]"
}

// dropRejectedImages replaces every image of the context with ImagePlaceholder and removes the
// failed assistant message at the end (it stays in the session file), so the run can continue.
// It returns the number of images replaced; 0 leaves the context as it was.
func (s *Session) dropRejectedImages(reason string) int {
	msgs := s.agent.Messages()
	n := 0
	out := make([]llm.Message, 0, len(msgs))
	for i, m := range msgs {
		if i == len(msgs)-1 && m.Role == llm.RoleAssistant && m.StopReason == llm.StopError {
			continue
		}
		var content []llm.Content
		for j, c := range m.Content {
			if c.Type != llm.ContentImage {
				continue
			}
			if content == nil {
				content = append([]llm.Content(nil), m.Content...)
			}
			content[j] = llm.Text(ImagePlaceholder(reason))
			n++
		}
		if content != nil {
			m.Content = content
		}
		out = append(out, m)
	}
	if n == 0 {
		return 0
	}
	_ = s.agent.SetMessages(out)
	return n
}

// noteFinalError replaces the error text of the failed message ending the context (the session
// file keeps the provider's own), so the run's outcome says why it was not retried.
func (s *Session) noteFinalError(msg string) {
	msgs := s.agent.Messages()
	n := len(msgs)
	if n == 0 || msgs[n-1].Role != llm.RoleAssistant || msgs[n-1].StopReason != llm.StopError {
		return
	}
	out := append([]llm.Message(nil), msgs...)
	out[n-1].ErrorMessage = msg
	_ = s.agent.SetMessages(out)
}

// retryWillContinue predicts, at agent_end, whether the run's failure will be retried or handed
// to a fallback (agent_end.willContinue, events.md §4 row 18). A server delay above MaxDelay
// is not foreseen.
func (s *Session) retryWillContinue(ctx context.Context) bool {
	o := s.retryOpts()
	if ctx.Err() != nil {
		return false
	}
	msgs := s.agent.Messages()
	if len(msgs) == 0 {
		return false
	}
	last := msgs[len(msgs)-1]
	s.retry.mu.Lock()
	status, active, aborted, attempt, fallback := s.retry.status, s.retry.active, s.retry.aborted, s.retry.attempt, s.retry.fallback
	s.retry.mu.Unlock()
	if status < 400 {
		status = statusOf(last.ErrorMessage)
	}
	if aborted || last.Role != llm.RoleAssistant || last.StopReason != llm.StopError {
		return false
	}
	if !active && imageRejected(&last, status) && hasImages(msgs) {
		return true // runRetrying replaces the images and runs once more, retry on or off
	}
	if !o.Enabled {
		return false
	}
	if !active {
		attempt, fallback = 0, -1
	}
	if fallback < 0 && !retryable(&last, status) {
		return false
	}
	if fallback < 0 && attempt < o.MaxRetries {
		return true
	}
	for i := fallback + 1; i < len(o.Fallbacks); i++ {
		if o.Fallbacks[i].Model != nil && s.credentialCheck(o.Fallbacks[i].Model) == nil {
			return true
		}
	}
	return false
}

// backoff waits d, cancellable by AbortRetry, Abort and ctx.
func (s *Session) backoff(ctx context.Context, o RetryOptions, d time.Duration) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.retry.mu.Lock()
	s.retry.cancel = cancel
	aborted := s.retry.aborted
	s.retry.mu.Unlock()
	if aborted {
		cancel()
	}
	defer func() {
		s.retry.mu.Lock()
		s.retry.cancel = nil
		s.retry.mu.Unlock()
	}()
	if d <= 0 {
		return wctx.Err()
	}
	sleep := o.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	if err := sleep(wctx, d); err != nil {
		return err
	}
	return wctx.Err()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lastFailure returns the last message of the context when it is an assistant message that
// ended in error, with the HTTP status of the request that produced it (0 when unknown), and
// counts authentication failures.
func (s *Session) lastFailure() (*llm.Message, int) {
	msgs := s.agent.Messages()
	if len(msgs) == 0 {
		return nil, 0
	}
	m := msgs[len(msgs)-1]
	s.retry.mu.Lock()
	status := s.retry.status
	s.retry.mu.Unlock()
	if m.Role != llm.RoleAssistant || m.StopReason != llm.StopError {
		if m.Role == llm.RoleAssistant && m.Provider != "" {
			s.noteAuth(m.Provider, status, "")
		}
		return nil, 0
	}
	if status == 0 || status < 400 {
		status = statusOf(m.ErrorMessage)
	}
	if m.Provider != "" && !errors.Is(s.credentialCheck(&llm.Model{Provider: m.Provider}), ErrCredentialDisabled) {
		s.noteAuth(m.Provider, status, m.ErrorMessage)
	}
	return &m, status
}

// retryDelay is the wait before attempt (1-based) and whether the server asked for it.
func (s *Session) retryDelay(o RetryOptions, attempt, status int) (time.Duration, bool) {
	s.retry.mu.Lock()
	h := s.retry.header
	s.retry.mu.Unlock()
	if status != 0 && h != nil {
		if d, ok := RetryAfter(h, s.now()); ok {
			return d, true
		}
	}
	return backoffDelay(o, attempt), false
}

// backoffDelay is BaseDelay × 2^(attempt-1), capped at MaxDelay.
func backoffDelay(o RetryOptions, attempt int) time.Duration {
	d := o.BaseDelay
	for i := 1; i < attempt && (o.MaxDelay <= 0 || d < o.MaxDelay); i++ {
		d *= 2
	}
	if o.MaxDelay > 0 && d > o.MaxDelay {
		d = o.MaxDelay
	}
	return d
}

// RetryAfter reads a server-requested delay: retry-after-ms (milliseconds), else retry-after as
// seconds or an HTTP date (relative to now; a past date is 0).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0, false
	}
	if sec, err := strconv.ParseFloat(v, 64); err == nil && sec >= 0 {
		return time.Duration(sec * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

var (
	statusPrefix   = regexp.MustCompile(`^(\d{3})\b`)
	stalled        = regexp.MustCompile(`\bstream stalled\b`)
	transientError = regexp.MustCompile(`(?i)overloaded|rate.?limit|too many requests|service.?unavailable|bad gateway|gateway.?timeout|connection.?(reset|refused|error)|econnreset|econnrefused|broken pipe|other side closed|unexpected eof|fetch failed|upstream.?connect|reset before headers|server.?error|internal.?error|stream ended before the response was complete`)
)

func statusOf(msg string) int {
	if m := statusPrefix.FindStringSubmatch(strings.TrimSpace(msg)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// retryable reports whether a failed assistant message is worth retrying: a retryable HTTP
// status, or a transient transport or stream failure before any content arrived.
func retryable(m *llm.Message, status int) bool {
	if m == nil || m.StopReason != llm.StopError {
		return false
	}
	switch {
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500 && status <= 599:
		return true
	case status >= 400:
		return false
	}
	if stalled.MatchString(m.ErrorMessage) {
		return true // cut by streamDeadlineMs: retried even after output, like pi's dropped streams
	}
	if hasContent(m) {
		return false // a cut after output: retrying would repeat it
	}
	return transientError.MatchString(m.ErrorMessage)
}

func hasContent(m *llm.Message) bool {
	for _, c := range m.Content {
		switch c.Type {
		case llm.ContentText:
			if c.Text != "" {
				return true
			}
		case llm.ContentThinking:
			if c.Thinking != "" {
				return true
			}
		case llm.ContentToolCall:
			return true
		}
	}
	return false
}

func errorText(m *llm.Message) string {
	if m.ErrorMessage == "" {
		return "Unknown error"
	}
	return m.ErrorMessage
}

func lastAssistant(msgs []llm.Message) *llm.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			return &msgs[i]
		}
	}
	return nil
}

func modelRef(m *llm.Model) string {
	if m == nil {
		return ""
	}
	return m.Provider + "/" + m.ID
}
