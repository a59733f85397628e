package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// A provider that refuses an image (400 naming it) gets the request again once, with every image
// of the context replaced by a short placeholder; later turns no longer carry the image.
func TestRejectedImageBecomesPlaceholder(t *testing.T) {
	const reason = "image exceeds 5 MB maximum: 5316192 bytes > 5242880 bytes"
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{
		{Error: &fakellm.APIError{Status: 400, Type: "invalid_request_error", Message: reason}},
		{Text: "I cannot see the image, but here is my answer."},
		{Text: "second turn"},
	}}, RetryOptions{Enabled: false, BaseDelay: time.Millisecond}, nil)
	img := llm.Image(strings.Repeat("QUJD", 1000), "image/png")
	if err := h.s.Prompt(context.Background(), "what is this?", []llm.Content{img}); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests %d, want the rejected one and one retry", len(reqs))
	}
	if strings.Contains(string(reqs[1].Body), "QUJDQUJD") || !strings.Contains(string(reqs[1].Body), "[image omitted: the provider rejected it: 400 Bad Request: image exceeds 5 MB maximum") {
		t.Fatalf("retry body still carries the image or lacks the placeholder: %.400s", reqs[1].Body)
	}
	msgs := h.s.Messages()
	if last := msgs[len(msgs)-1]; last.StopReason != llm.StopStop {
		t.Fatalf("last message %s %q", last.StopReason, last.ErrorMessage)
	}
	if err := h.s.Prompt(context.Background(), "and now?", nil); err != nil {
		t.Fatal(err)
	}
	if reqs = h.srv.Requests(); len(reqs) != 3 || strings.Contains(string(reqs[2].Body), "QUJDQUJD") {
		t.Fatalf("the next turn carries the image again (%d requests)", len(reqs))
	}
	h.s.Runner().Drain()
	h.mu.Lock()
	cont := fmt.Sprint(h.cont)
	h.mu.Unlock()
	if cont != "[true false false]" {
		t.Errorf("agent_end willContinue %s, want [true false false]", cont)
	}
	// The session file keeps the user's image and the failed attempt.
	if got := strings.Join(h.entries(t), " "); got != "user: assistant:error assistant:stop user: assistant:stop" {
		t.Fatalf("entries %s", got)
	}
}

// A 400 that does not name an image is not retried.
func TestOther400IsNotRetried(t *testing.T) {
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{
		{Error: &fakellm.APIError{Status: 400, Message: "max_tokens is too large"}},
		{Text: "never"},
	}}, RetryOptions{Enabled: true, MaxRetries: 3, BaseDelay: time.Millisecond}, nil)
	img := llm.Image("QUJD", "image/png")
	if err := h.s.Prompt(context.Background(), "hi", []llm.Content{img}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("requests %d, want 1", n)
	}
}
