package session

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

// StreamModel streams one assistant message on behalf of an extension (pi-ai's stream and
// complete called from an extension; ext.ModelStreamer). The request gets the session's HTTP
// client and stream deadline, the registry's credential when req.APIKey is empty (a
// soft-disabled credential fails at once), and the registry's headers under req.Headers. The
// extension hooks of the agent's own requests (before_provider_request…) do not run.
//
// A transient failure before any content (ext.Retryable: 408, 429, 5xx, overloaded, a reset
// connection, a stalled stream) is retried with the session's retry settings (when enabled),
// waiting the server's retry-after or the exponential backoff.
// The events of a failed attempt that is retried are not emitted past its start: the caller
// sees one start and one terminal event.
//
// ext.ModelCallOptionsOf(ctx) adjusts this call (pi-ai's maxRetries, maxRetryDelayMs,
// timeoutMs): MaxRetries replaces the number of retries, MaxRetryDelay the longest retry-after
// waited for, and Timeout bounds each attempt's wait for the response headers, counted from
// the send (an attempt past it fails with "Request timed out after …", which is retried). The
// hooks req carries (req.Hooks) run as well as the session's own.
func (s *Session) StreamModel(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
	if emit == nil {
		emit = func(llm.Event) {}
	}
	if req.Model == nil {
		return ext.StreamDirect(ctx, nil, req, emit)
	}
	if err := s.credentialCheck(req.Model); err != nil {
		return ext.FailedMessage(req, err, emit)
	}
	p := s.opts.Provider
	if p == nil {
		var err error
		if p, err = ProviderFor(req.Model.API); err != nil {
			return ext.FailedMessage(req, err, emit)
		}
	}
	if req.APIKey == "" && s.reg != nil {
		if key, err := s.reg.APIKey(req.Model.Provider); err == nil {
			req.APIKey = key
		}
	}
	if s.reg != nil {
		req.Headers = ext.MergeHeaders(s.reg.Headers(req.Model), req.Headers)
	}
	req.HTTPClient = s.http
	o := s.retryOpts()
	req.StreamDeadline = o.StreamDeadline
	maxRetries := 0
	if o.Enabled {
		maxRetries = o.MaxRetries
	}
	call := ext.ModelCallOptionsOf(ctx)
	if call.MaxRetries != nil {
		maxRetries = max(*call.MaxRetries, 0)
	}
	if call.MaxRetryDelay != nil {
		o.MaxRetryDelay = max(*call.MaxRetryDelay, 0)
	}
	var status int
	var header http.Header
	stopTimer := func() bool { return false }
	hooks := llm.Hooks{}
	if req.Hooks != nil {
		hooks = *req.Hooks
	}
	startTimer := func() {}
	onRequest := hooks.OnRequest
	hooks.OnRequest = func(hctx context.Context, body []byte) {
		startTimer() // the timeout counts from the send, after onPayload
		if onRequest != nil {
			onRequest(hctx, body)
		}
	}
	after := hooks.AfterResponse
	hooks.AfterResponse = func(hctx context.Context, st int, h http.Header) {
		stopTimer()
		status, header = st, h.Clone()
		if after != nil {
			after(hctx, st, h)
		}
	}
	req.Hooks = &hooks
	started := false
	for attempt := 0; ; attempt++ {
		status, header = 0, nil
		actx, cancel := ctx, context.CancelFunc(func() {})
		var timedOut atomic.Bool
		if call.Timeout > 0 {
			actx, cancel = context.WithCancel(ctx)
			startTimer = func() {
				t := time.AfterFunc(call.Timeout, func() { timedOut.Store(true); cancel() })
				stopTimer = t.Stop
			}
		}
		var held *llm.Event
		out := p.Stream(actx, req, func(ev llm.Event) {
			switch {
			case ev.Type == llm.EventStart && started:
				return // a retried attempt: the caller already saw the start
			case ev.Type == llm.EventError:
				e := ev
				if e.Message != nil {
					m := *e.Message
					e.Message = &m
				}
				held = &e // emitted unless the attempt is retried
				return
			}
			started = started || ev.Type == llm.EventStart
			emit(ev)
		})
		stopTimer()
		cancel()
		timeout := timedOut.Load() && ctx.Err() == nil
		if timeout {
			out.StopReason = llm.StopError
			out.ErrorMessage = fmt.Sprintf("Request timed out after %v (timeoutMs)", call.Timeout)
			if held != nil {
				m := out
				held.Reason, held.Message = llm.StopError, &m
			}
		}
		st := status
		if st < 400 {
			st = statusOf(out.ErrorMessage)
		}
		if out.StopReason == llm.StopError && attempt < maxRetries && ctx.Err() == nil && (timeout || retryable(&out, st)) {
			d := s.modelCallDelay(o, attempt+1, header)
			if o.MaxRetryDelay > 0 && d > o.MaxRetryDelay {
				d = -1
			}
			if d >= 0 {
				sleep := o.Sleep
				if sleep == nil {
					sleep = sleepCtx
				}
				if sleep(ctx, d) == nil {
					continue
				}
			}
		}
		if held != nil {
			emit(*held)
		}
		return out
	}
}

// modelCallDelay is the wait before retry attempt (1-based): the server's retry-after, else the
// exponential backoff of o.
func (s *Session) modelCallDelay(o RetryOptions, attempt int, h http.Header) time.Duration {
	if h != nil {
		if d, ok := RetryAfter(h, s.now()); ok {
			return d
		}
	}
	return backoffDelay(o, attempt)
}
