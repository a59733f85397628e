package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// retryHarness runs a session against a fake Anthropic server over loopback; the backoff clock
// is injected, so no test sleeps.
type retryHarness struct {
	srv    *fakellm.Server
	st     *store.Session
	s      *Session
	mu     sync.Mutex
	events []string // extension notices, in order
	stream []string // front-end stream events, in order
	sub    *Subscriber
	delays []time.Duration
	cont   []bool // agent_end.willContinue, per run
}

func retryModel(srv *fakellm.Server, id string) *llm.Model {
	return &llm.Model{ID: id, Name: id, Provider: "fake", API: llm.APIAnthropicMessages, BaseURL: srv.URL(), ContextWindow: 100000, MaxTokens: 4096}
}

func newRetryHarness(t *testing.T, script fakellm.Script, o RetryOptions, sleep func(ctx context.Context, d time.Duration) error) *retryHarness {
	t.Helper()
	srv, err := fakellm.Listen("127.0.0.1:0", script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	st, err := store.Create(dir, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := &retryHarness{srv: srv, st: st}
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		h.mu.Lock()
		h.delays = append(h.delays, d)
		h.mu.Unlock()
		if sleep != nil {
			return sleep(ctx, d)
		}
		return nil
	}
	for i := range o.Fallbacks {
		o.Fallbacks[i].Model = retryModel(srv, o.Fallbacks[i].Model.ID)
	}
	notices := func(api ext.API) error {
		ext.On(api, func(_ ext.Context, e *ext.AutoRetryStart) (ext.None, error) {
			h.add(fmt.Sprintf("ext:auto_retry_start %d/%d", e.Attempt, e.MaxAttempts))
			return nil, nil
		})
		ext.On(api, func(_ ext.Context, e *ext.AutoRetryEnd) (ext.None, error) {
			h.add(fmt.Sprintf("ext:auto_retry_end %v %d", e.Success, e.Attempt))
			return nil, nil
		})
		ext.On(api, func(_ ext.Context, e *ext.RetryFallbackApplied) (ext.None, error) {
			h.add("ext:retry_fallback_applied " + e.From + " -> " + e.To + " " + e.Role)
			return nil, nil
		})
		ext.On(api, func(_ ext.Context, e *ext.RetryFallbackSucceeded) (ext.None, error) {
			h.add("ext:retry_fallback_succeeded " + e.Model)
			return nil, nil
		})
		ext.On(api, func(_ ext.Context, e *ext.ModelSelect) (ext.None, error) {
			h.add("ext:model_select " + e.Source + " " + e.Model.ID)
			return nil, nil
		})
		ext.On(api, func(_ ext.Context, e *ext.AgentEnd) (ext.None, error) {
			h.mu.Lock()
			h.cont = append(h.cont, e.WillContinue)
			h.mu.Unlock()
			return nil, nil
		})
		ext.On(api, func(_ ext.Context, e *ext.CredentialDisabled) (ext.None, error) {
			h.add("ext:credential_disabled " + e.Provider)
			return nil, nil
		})
		return nil
	}
	s, err := New(Options{Store: st, Model: retryModel(srv, "primary"), Retry: o, Extensions: []ext.Factory{notices}, ExtensionPaths: []string{"go:notices"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background(), "startup", "")
	h.sub = s.Subscribe(func(e Event) {
		switch p := e.Payload.(type) {
		case *ext.MessageEnd:
			if p.Message.Role == llm.RoleAssistant {
				h.addStream("message_end assistant " + string(p.Message.StopReason))
			}
		case *ext.AgentEnd, *ext.AgentSettled, *ext.ModelSelect:
			h.addStream(e.Type)
		case *ext.AutoRetryStart, *ext.AutoRetryEnd, *ext.RetryFallbackApplied, *ext.RetryFallbackSucceeded:
			b, _ := json.Marshal(p)
			h.addStream(e.Type + " " + string(b))
		}
	}, SubscribeOptions{})
	t.Cleanup(h.sub.Close)
	h.s = s
	return h
}

func (h *retryHarness) add(s string) {
	h.mu.Lock()
	h.events = append(h.events, s)
	h.mu.Unlock()
}

func (h *retryHarness) addStream(s string) {
	h.mu.Lock()
	h.stream = append(h.stream, s)
	h.mu.Unlock()
}

// check compares the extension handlers' record ("ext:" items of want) and the front-end
// stream's record (the others), each in order: the stream is delivered on its own goroutine,
// so the two are not interleaved deterministically.
func (h *retryHarness) check(t *testing.T, want ...string) {
	t.Helper()
	h.s.Runner().Drain()
	h.sub.Sync()
	h.mu.Lock()
	defer h.mu.Unlock()
	var wantExt, wantStream []string
	for _, w := range want {
		if strings.HasPrefix(w, "ext:") {
			wantExt = append(wantExt, w)
		} else {
			wantStream = append(wantStream, w)
		}
	}
	if strings.Join(h.events, "\n") != strings.Join(wantExt, "\n") {
		t.Fatalf("extension events:\n%s\nwant:\n%s", strings.Join(h.events, "\n"), strings.Join(wantExt, "\n"))
	}
	if strings.Join(h.stream, "\n") != strings.Join(wantStream, "\n") {
		t.Fatalf("stream events:\n%s\nwant:\n%s", strings.Join(h.stream, "\n"), strings.Join(wantStream, "\n"))
	}
}

// entries lists the session file's message entries as role:stopReason, read back from disk.
func (h *retryHarness) entries(t *testing.T) []string {
	t.Helper()
	st, err := store.Open(h.st.SessionFile(), "")
	if err != nil {
		t.Fatalf("the session file does not load: %v", err)
	}
	var out []string
	for _, e := range st.Entries() {
		if e.Message != nil {
			out = append(out, e.Message.Role+":"+string(e.Message.StopReason))
		}
	}
	return out
}

func TestRetry429WithRetryAfterThenSuccess(t *testing.T) {
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{
		{Error: &fakellm.APIError{Status: 429, Message: "slow down"}, Headers: map[string]string{"retry-after": "7"}},
		{Text: "done"},
	}}, RetryOptions{Enabled: true, MaxRetries: 3, BaseDelay: 2 * time.Second, MaxDelay: time.Minute}, nil)
	if err := h.s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	h.check(t,
		"message_end assistant error",
		"agent_end",
		"ext:auto_retry_start 1/3",
		`auto_retry_start {"attempt":1,"maxAttempts":3,"delayMs":7000,"errorMessage":"429 Too Many Requests: slow down"}`,
		"message_end assistant stop",
		"agent_end",
		"ext:auto_retry_end true 1",
		`auto_retry_end {"success":true,"attempt":1}`,
		"agent_settled",
	)
	if fmt.Sprint(h.cont) != "[true false]" {
		t.Fatalf("willContinue %v", h.cont)
	}
	if fmt.Sprint(h.delays) != "[7s]" {
		t.Fatalf("delays %v, want the server's retry-after", h.delays)
	}
	if got := fmt.Sprint(h.entries(t)); got != "[user: assistant:error assistant:stop]" {
		t.Fatalf("session entries %s: each attempt persisted once", got)
	}
	if got := xtMsgsRoles(h.s.Messages()); got != "user assistant:stop" {
		t.Fatalf("context %s: the failure must be gone from the context", got)
	}
	if len(h.srv.Requests()) != 2 {
		t.Fatalf("%d requests", len(h.srv.Requests()))
	}
}

func xtMsgsRoles(msgs []llm.Message) string {
	var out []string
	for _, m := range msgs {
		r := m.Role
		if m.StopReason != "" {
			r += ":" + string(m.StopReason)
		}
		out = append(out, r)
	}
	return strings.Join(out, " ")
}

func TestRetryExhaustedThenFallbackSucceeds(t *testing.T) {
	fail := fakellm.Turn{Error: &fakellm.APIError{Status: 500, Message: "boom"}}
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{fail, fail, fail, {Text: "from the fallback"}}},
		RetryOptions{Enabled: true, MaxRetries: 2, BaseDelay: time.Second, MaxDelay: 1500 * time.Millisecond,
			Fallbacks: []RetryFallback{{Model: &llm.Model{ID: "backup"}}}}, nil)
	if err := h.s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	h.check(t,
		"message_end assistant error", "agent_end",
		"ext:auto_retry_start 1/2",
		`auto_retry_start {"attempt":1,"maxAttempts":2,"delayMs":1000,"errorMessage":"500 Internal Server Error: boom"}`,
		"message_end assistant error", "agent_end",
		"ext:auto_retry_start 2/2",
		`auto_retry_start {"attempt":2,"maxAttempts":2,"delayMs":1500,"errorMessage":"500 Internal Server Error: boom"}`,
		"message_end assistant error", "agent_end",
		"ext:retry_fallback_applied fake/primary -> fake/backup default",
		`retry_fallback_applied {"from":"fake/primary","to":"fake/backup","role":"default"}`,
		"ext:model_select fallback backup",
		"model_changed",
		"message_end assistant stop", "agent_end",
		"ext:auto_retry_end true 3",
		`auto_retry_end {"success":true,"attempt":3}`,
		"ext:retry_fallback_succeeded fake/backup",
		`retry_fallback_succeeded {"model":"fake/backup","role":"default"}`,
		"agent_settled",
	)
	if fmt.Sprint(h.cont) != "[true true true false]" {
		t.Fatalf("willContinue %v", h.cont)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[3].Body), `"model":"backup"`) || !strings.Contains(string(reqs[2].Body), `"model":"primary"`) {
		t.Fatalf("requests: %d", len(reqs))
	}
	if got := fmt.Sprint(h.entries(t)); got != "[user: assistant:error assistant:error assistant:error assistant:stop]" {
		t.Fatalf("session entries %s", got)
	}
	if h.s.Model().ID != "backup" {
		t.Fatalf("model %s: the working fallback stays selected", h.s.Model().ID)
	}
}

func TestRetryAbortDuringBackoff(t *testing.T) {
	t.Run("Abort", func(t *testing.T) { testRetryAbort(t, func(s *Session) { s.Abort() }) })
	t.Run("AbortRetry", func(t *testing.T) {
		testRetryAbort(t, func(s *Session) {
			if !s.IsStreaming() || !s.AbortRetry() {
				t.Error("no pending retry to abort, or not streaming during the backoff")
			}
		})
	})
}

func testRetryAbort(t *testing.T, abort func(*Session)) {
	var h *retryHarness
	sleep := func(ctx context.Context, d time.Duration) error {
		abort(h.s) // the user aborts while the session waits
		<-ctx.Done()
		return ctx.Err()
	}
	h = newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{
		{Error: &fakellm.APIError{Status: 529, Message: "Overloaded"}},
		{Text: "never"},
	}}, RetryOptions{Enabled: true, MaxRetries: 3, BaseDelay: time.Hour}, sleep)
	if err := h.s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	h.check(t,
		"message_end assistant error", "agent_end",
		"ext:auto_retry_start 1/3",
		`auto_retry_start {"attempt":1,"maxAttempts":3,"delayMs":3600000,"errorMessage":"529: Overloaded"}`,
		"ext:auto_retry_end false 1",
		`auto_retry_end {"success":false,"attempt":1,"finalError":"Retry cancelled"}`,
		"agent_settled",
	)
	if fmt.Sprint(h.cont) != "[true]" {
		t.Fatalf("willContinue %v", h.cont)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d requests after an abort during the backoff", n)
	}
	if got := fmt.Sprint(h.entries(t)); got != "[user: assistant:error]" {
		t.Fatalf("session entries %s", got)
	}
	if got := xtMsgsRoles(h.s.Messages()); got != "user assistant:error" {
		t.Fatalf("context %s", got)
	}
	if h.s.IsRetrying() {
		t.Fatal("still retrying")
	}
}

func TestSetAutoRetryToggles(t *testing.T) {
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{{Error: &fakellm.APIError{Status: 503, Message: "later"}}, {Text: "x"}}}, RetryOptions{Enabled: true, MaxRetries: 3}, nil)
	h.s.SetAutoRetry(false)
	if h.s.AutoRetryEnabled() {
		t.Fatal("still enabled")
	}
	h.s.Prompt(context.Background(), "hi", nil)
	h.check(t, "message_end assistant error", "agent_end", "agent_settled")
	if h.s.AbortRetry() {
		t.Fatal("AbortRetry reported a pending retry while idle")
	}
}

func TestRetryNotForClientErrorsOrWhenDisabled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		turn    fakellm.Turn
		enabled bool
	}{
		{"400", fakellm.Turn{Error: &fakellm.APIError{Status: 400, Message: "bad request"}}, true},
		{"disabled", fakellm.Turn{Error: &fakellm.APIError{Status: 503, Message: "later"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{tc.turn, {Text: "x"}}}, RetryOptions{Enabled: tc.enabled, MaxRetries: 3}, nil)
			h.s.Prompt(context.Background(), "hi", nil)
			h.check(t, "message_end assistant error", "agent_end", "agent_settled")
			if fmt.Sprint(h.cont) != "[false]" {
				t.Fatalf("willContinue %v", h.cont)
			}
		})
	}
}

func TestCredentialDisabledAfterRepeatedAuthFailures(t *testing.T) {
	deny := fakellm.Turn{Error: &fakellm.APIError{Status: 401, Message: "invalid x-api-key"}}
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{deny, deny, deny}}, RetryOptions{Enabled: true, MaxRetries: 3}, nil)
	for i := 0; i < 3; i++ {
		h.s.Prompt(context.Background(), "hi", nil)
	}
	h.check(t,
		"message_end assistant error", "agent_end", "agent_settled",
		"message_end assistant error", "agent_end", "ext:credential_disabled fake", "agent_settled",
		"message_end assistant error", "agent_end", "agent_settled",
	)
	if n := len(h.srv.Requests()); n != 2 {
		t.Fatalf("%d requests: a disabled credential must not be sent", n)
	}
	if last := h.s.Messages()[len(h.s.Messages())-1]; !strings.Contains(last.ErrorMessage, "credential disabled") {
		t.Fatalf("last error %q", last.ErrorMessage)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond, true},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(10 * time.Second).Format(http.TimeFormat)}}, 10 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{}, 0, false},
	} {
		got, ok := RetryAfter(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v: got %v %v, want %v %v", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRetryableClassification(t *testing.T) {
	for _, tc := range []struct {
		msg     string
		content bool
		want    bool
	}{
		{"429 Too Many Requests: x", false, true},
		{"503 Service Unavailable", false, true},
		{"529 Overloaded: Overloaded", false, true},
		{"400 Bad Request: prompt is too long", false, false},
		{"401 Unauthorized: bad key", false, false},
		{`Post "http://x": dial tcp: connection refused`, false, true},
		{"read tcp: connection reset by peer", false, true},
		{"unexpected EOF", false, true},
		{"unexpected EOF", true, false},
		{"stream ended before the response was complete: the server closed the stream without message_stop", false, true},
		{"something odd", false, false},
	} {
		m := &llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: tc.msg}
		if tc.content {
			m.Content = []llm.Content{llm.Text("partial")}
		}
		if got := retryable(m, statusOf(tc.msg)); got != tc.want {
			t.Errorf("%q (content %v): %v, want %v", tc.msg, tc.content, got, tc.want)
		}
	}
}

func TestRetryFallbacksAllFailRestoresPrimary(t *testing.T) {
	fail := fakellm.Turn{Error: &fakellm.APIError{Status: 503, Message: "later"}}
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{fail, fail, fail}},
		RetryOptions{Enabled: true, MaxRetries: 1, BaseDelay: time.Millisecond, Fallbacks: []RetryFallback{{Model: &llm.Model{ID: "backup"}}}}, nil)
	h.s.Prompt(context.Background(), "hi", nil)
	h.check(t,
		"message_end assistant error", "agent_end",
		"ext:auto_retry_start 1/1",
		`auto_retry_start {"attempt":1,"maxAttempts":1,"delayMs":1,"errorMessage":"503 Service Unavailable: later"}`,
		"message_end assistant error", "agent_end",
		"ext:retry_fallback_applied fake/primary -> fake/backup default",
		`retry_fallback_applied {"from":"fake/primary","to":"fake/backup","role":"default"}`,
		"ext:model_select fallback backup", "model_changed",
		"message_end assistant error", "agent_end",
		"ext:model_select restore primary", "model_changed",
		"ext:auto_retry_end false 2",
		`auto_retry_end {"success":false,"attempt":2,"finalError":"503 Service Unavailable: later"}`,
		"agent_settled",
	)
	if h.s.Model().ID != "primary" {
		t.Fatalf("model %s", h.s.Model().ID)
	}
	if got := fmt.Sprint(h.entries(t)); got != "[user: assistant:error assistant:error assistant:error]" {
		t.Fatalf("session entries %s", got)
	}
}

func TestRetryStreamCutBeforeContent(t *testing.T) {
	h := newRetryHarness(t, fakellm.Script{Turns: []fakellm.Turn{
		{Text: "lost", Drop: true, DropAfter: 0},
		{Text: "whole"},
	}}, RetryOptions{Enabled: true, MaxRetries: 1, BaseDelay: time.Millisecond}, nil)
	h.s.Prompt(context.Background(), "hi", nil)
	if got := xtMsgsRoles(h.s.Messages()); got != "user assistant:stop" {
		t.Fatalf("context %s (a stream cut before any content is retried)", got)
	}
}
