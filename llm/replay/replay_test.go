package replay

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/internal/fixture"
	"github.com/atomic-cli/atomic/llm"
)

var scenario = fixture.Path("scenarios", "bash-ls.json")

// conversation returns a Chat Completions request body with n assistant turns.
func conversation(n int) string {
	msgs := []string{`{"role":"user","content":"List the files here"}`}
	for i := 0; i < n; i++ {
		msgs = append(msgs, `{"role":"assistant","content":"x"}`, `{"role":"tool","content":"a.txt","tool_call_id":"c"}`)
	}
	return `{"model":"fake-model","stream":true,"messages":[` + strings.Join(msgs, ",") + `]}`
}

func do(t *testing.T, c *http.Client, body string) (*http.Response, string, error) {
	t.Helper()
	resp, err := c.Post("http://replay.invalid/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func loadScenario(t *testing.T) fakellm.Script {
	t.Helper()
	s, err := fakellm.LoadScenario(scenario)
	if err != nil {
		t.Skipf("fixture not available: %v", err)
	}
	return s
}

func TestTransportAnswersByAssistantCount(t *testing.T) {
	script := loadScenario(t)
	f, err := FromScript(llm.APIOpenAICompletions, script)
	if err != nil {
		t.Fatal(err)
	}
	if f.Match != MatchAssistantCount || len(f.Turns) != 2 {
		t.Fatalf("file = %+v", f)
	}
	c := f.HTTPClient()
	for _, n := range []int{1, 0, 1} {
		resp, body, err := do(t, c, conversation(n))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := fakellm.Render(llm.APIOpenAICompletions, script.Turns[n], fakellm.Info{Turn: n, IncludeUsage: true})
		if body != string(want.Body) {
			t.Errorf("conversation with %d assistant turns: got\n%s\nwant\n%s", n, body, want.Body)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
			t.Errorf("status %d, header %v", resp.StatusCode, resp.Header)
		}
	}
}

func TestTransportFallsBackToCallOrder(t *testing.T) {
	f := &File{API: llm.APIAnthropicMessages, Turns: []Turn{{Body: "first"}, {Body: "second"}}}
	c := f.HTTPClient()
	for _, want := range []string{"first", "second"} {
		if _, body, err := do(t, c, `{"stream":true}`); err != nil || body != want {
			t.Errorf("got %q, %v; want %q", body, err, want)
		}
	}
	// A fresh transport counts from 0 again.
	if _, body, _ := do(t, f.HTTPClient(), `not json`); body != "first" {
		t.Errorf("fresh transport answered %q", body)
	}
}

func TestTransportRequestCountIgnoresConversation(t *testing.T) {
	f := &File{API: llm.APIOpenAICompletions, Match: MatchRequestCount, Turns: []Turn{{Body: "a"}, {Body: "b"}}}
	c := f.HTTPClient()
	for _, want := range []string{"a", "b"} {
		if _, body, _ := do(t, c, conversation(0)); body != want {
			t.Errorf("got %q, want %q", body, want)
		}
	}
}

func TestTransportPastTheEnd(t *testing.T) {
	f := &File{API: llm.APIOpenAICompletions, Turns: []Turn{{Body: "a"}}}
	_, _, err := do(t, f.HTTPClient(), conversation(3))
	if !errors.Is(err, ErrNoTurn) || !strings.Contains(err.Error(), "turn 3") || !strings.Contains(err.Error(), "holds 1 turns") {
		t.Errorf("err = %v", err)
	}
}

func TestTransportErrorTurn(t *testing.T) {
	f, err := FromScript(llm.APIAnthropicMessages, fakellm.Script{Turns: []fakellm.Turn{
		{Error: &fakellm.APIError{Status: 429, Message: "slow down"}, Headers: map[string]string{"Retry-After": "3"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	resp, body, err := do(t, f.HTTPClient(), `{"stream":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 429 || resp.Status != "429 Too Many Requests" || resp.Header.Get("Retry-After") != "3" ||
		body != `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}` {
		t.Errorf("got %s %v %s", resp.Status, resp.Header, body)
	}
}

func TestTransportTruncatedTurn(t *testing.T) {
	f, err := FromScript(llm.APIOpenAIResponses, fakellm.Script{Turns: []fakellm.Turn{{Text: "abcd", Chunks: 4, Drop: true, DropAfter: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Turns[0].Truncated {
		t.Fatal("rendered turn is not marked truncated")
	}
	_, body, err := do(t, f.HTTPClient(), `{"stream":true,"input":[]}`)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(body, `"delta":"a"`) || strings.Contains(body, `"delta":"b"`) {
		t.Errorf("err %v, body:\n%s", err, body)
	}
}

func TestTransportDelayStopsOnCancel(t *testing.T) {
	f := &File{API: llm.APIOpenAICompletions, Turns: []Turn{{Body: "data: 1\n\ndata: 2\n\n", DelayMS: 60_000}}}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://replay.invalid/chat/completions", strings.NewReader(conversation(0)))
	resp, err := f.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64)
	n, err := resp.Body.Read(buf)
	if err != nil || string(buf[:n]) != "data: 1\n\n" {
		t.Fatalf("first read %q, %v", buf[:n], err)
	}
	time.AfterFunc(10*time.Millisecond, cancel)
	start := time.Now()
	if _, err := resp.Body.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the delay ignored cancellation")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	f, err := FromScript(llm.APIAnthropicMessages, loadScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	f.Comment = "bash-ls for the demo"
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Marshal()
	b, _ := g.Marshal()
	if string(a) != string(b) {
		t.Errorf("round trip changed the file:\n%s\n%s", a, b)
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct{ json, want string }{
		{`{"api":"smoke-signals","turns":[]}`, `api "smoke-signals"`},
		{`{"api":"anthropic-messages","match":"random","turns":[]}`, `match "random"`},
		{`{"api":"anthropic-messages","turns":[{"status":42}]}`, "turn 0: status 42"},
		{`{"api":"anthropic-messages","turns":[{"bodyy":""}]}`, `unknown field "bodyy"`},
	}
	for _, c := range cases {
		if _, err := Parse([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want error containing %q", c.json, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestRecorderReplaysWhatTheServerSent(t *testing.T) {
	script := loadScenario(t)
	srv := fakellm.New(script)
	defer srv.Close()
	rec := NewRecorder(llm.APIOpenAICompletions, srv.Client().Transport)
	client := &http.Client{Transport: rec}
	var live []string
	for n := 0; n < 2; n++ {
		resp, err := client.Post(srv.URL()+"/v1/chat/completions", "application/json", strings.NewReader(conversation(n)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, string(b))
	}
	f := rec.File()
	if f.Match != MatchAssistantCount || len(f.Turns) != 2 {
		t.Fatalf("recorded %+v", f)
	}
	for k := range f.Turns[0].Headers {
		if k != "content-type" && k != "x-request-id" {
			t.Errorf("recorded header %q", k)
		}
	}
	if _, err := Parse(mustMarshal(t, f)); err != nil {
		t.Fatalf("recorded file does not parse: %v", err)
	}
	c := f.HTTPClient()
	for _, n := range []int{1, 0} {
		if _, body, err := do(t, c, conversation(n)); err != nil || body != live[n] {
			t.Errorf("replay of turn %d: %v\n%s\nwant\n%s", n, err, body, live[n])
		}
	}
}

func TestRecorderMarksDroppedAndRetriedTurns(t *testing.T) {
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{
		{Error: &fakellm.APIError{Status: 500}},
		{Text: "hello", Chunks: 2, Drop: true, DropAfter: 1},
	}})
	defer srv.Close()
	rec := NewRecorder(llm.APIOpenAICompletions, srv.Client().Transport)
	client := &http.Client{Transport: rec}
	for range 2 {
		resp, err := client.Post(srv.URL()+"/v1/chat/completions", "application/json", strings.NewReader(conversation(0)))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	f := rec.File()
	if f.Match != MatchRequestCount || len(f.Turns) != 2 || f.Turns[0].Status != 500 || f.Turns[0].Truncated || !f.Turns[1].Truncated {
		t.Fatalf("recorded %+v", f)
	}
	_, _, err := do(t, f.HTTPClient(), conversation(0))
	if err != nil {
		t.Errorf("first replayed call: %v", err)
	}
}

func mustMarshal(t *testing.T, f *File) []byte {
	t.Helper()
	b, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
