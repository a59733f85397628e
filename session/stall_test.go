package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// A provider stream that goes silent (before the headers, after the first event, in the middle of
// the text) is cut at StreamDeadline and retried; the retry's answer ends the run.
func TestStreamDeadlineStallIsRetried(t *testing.T) {
	for _, c := range []struct {
		name string
		turn fakellm.Turn
	}{
		{"before headers", fakellm.Turn{Text: "never sent", Stall: fakellm.StallHeaders}},
		{"after the first event", fakellm.Turn{Text: "never sent", Stall: fakellm.StallEvents, StallAfter: 1}},
		{"mid-text", fakellm.Turn{Text: "The answer is forty-two", Chunks: 4, Stall: fakellm.StallEvents, StallAfter: 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{c.turn, {Text: "recovered"}}},
				RetryOptions{Enabled: true, MaxRetries: 2, BaseDelay: time.Millisecond, StreamDeadline: 300 * time.Millisecond}, nil)
			if err := h.s.Prompt(context.Background(), "hi", nil); err != nil {
				t.Fatal(err)
			}
			msgs := h.s.Messages()
			last := msgs[len(msgs)-1]
			if last.StopReason != llm.StopStop || llm.TextOf(last.Content, "") != "recovered" {
				t.Fatalf("last message %s %q %q, want the retried answer", last.StopReason, llm.TextOf(last.Content, ""), last.ErrorMessage)
			}
			ents := h.entries(t)
			if len(ents) != 3 || ents[1] != "assistant:error" {
				t.Fatalf("entries %v, want the stalled attempt kept as an error", ents)
			}
			if len(h.srv.Requests()) != 2 {
				t.Fatalf("requests %d, want 2", len(h.srv.Requests()))
			}
		})
	}
}

// When every attempt stalls the run ends with an error naming the stall.
func TestStreamDeadlineStallExhausted(t *testing.T) {
	stall := fakellm.Turn{Text: "x", Stall: fakellm.StallEvents, StallAfter: 1}
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{stall, stall}},
		RetryOptions{Enabled: true, MaxRetries: 1, BaseDelay: time.Millisecond, StreamDeadline: 200 * time.Millisecond}, nil)
	if err := h.s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	msgs := h.s.Messages()
	last := msgs[len(msgs)-1]
	if last.StopReason != llm.StopError || !strings.Contains(last.ErrorMessage, "stream stalled") || !strings.Contains(last.ErrorMessage, "streamDeadlineMs") {
		t.Fatalf("last message %s %q, want a stall error naming streamDeadlineMs", last.StopReason, last.ErrorMessage)
	}
}

// A retry-after longer than MaxRetryDelay is not waited for: the run fails at once and says why.
func TestRetryAfterLongerThanMaxRetryDelay(t *testing.T) {
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{
		{Error: &fakellm.APIError{Status: 429, Message: "slow down"}, Headers: map[string]string{"retry-after": "3600"}},
		{Text: "never"},
	}}, RetryOptions{Enabled: true, MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryDelay: time.Minute}, nil)
	if err := h.s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if len(h.delays) != 0 || len(h.srv.Requests()) != 1 {
		t.Fatalf("waited %v and sent %d requests; want no wait and 1 request", h.delays, len(h.srv.Requests()))
	}
	msgs := h.s.Messages()
	last := msgs[len(msgs)-1]
	if !strings.Contains(last.ErrorMessage, "429") || !strings.Contains(last.ErrorMessage, "retry.provider.maxRetryDelayMs") || !strings.Contains(last.ErrorMessage, "1h0m0s") {
		t.Fatalf("error %q does not say the server's delay was too long", last.ErrorMessage)
	}
}
