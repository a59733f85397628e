package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// scripted is a provider that plays turns through llm.Builder, as real providers do.
type scripted struct {
	mu    sync.Mutex
	turns []func(b *llm.Builder) llm.Message
	reqs  []*llm.Request
}

var testModel = &llm.Model{ID: "m", Provider: "p", API: "test"}

func (s *scripted) Stream(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
	s.mu.Lock()
	i := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	b := llm.NewBuilder(req.Model, emit)
	if i >= len(s.turns) {
		return b.Fail("script exhausted", false, req.Model)
	}
	return s.turns[i](b)
}

func textTurn(text string) func(*llm.Builder) llm.Message {
	return func(b *llm.Builder) llm.Message {
		i := b.StartText()
		b.AppendText(i, text)
		return b.Finish(llm.StopStop, testModel)
	}
}

func callsTurn(calls ...[3]string) func(*llm.Builder) llm.Message {
	return func(b *llm.Builder) llm.Message {
		for _, c := range calls {
			i := b.StartToolCall(c[0], c[1])
			b.AppendToolArgs(i, c[2])
			b.End(i)
		}
		return b.Finish(llm.StopToolUse, testModel)
	}
}

// sleepTool sleeps for args.ms milliseconds and echoes its id.
type sleepTool struct{}

func (sleepTool) Name() string        { return "sleep" }
func (sleepTool) Description() string { return "sleeps" }
func (sleepTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"ms":{"type":"number"}},"required":["ms"]}`)
}
func (sleepTool) Execute(ctx context.Context, c tool.Call, up func(tool.Result)) (tool.Result, error) {
	up(tool.TextResult("working", nil))
	select {
	case <-time.After(time.Duration(c.Args["ms"].(float64)) * time.Millisecond):
	case <-ctx.Done():
		return tool.Result{}, ctx.Err()
	}
	return tool.TextResult("slept "+c.ID, nil), nil
}

func record(a *Agent) func() []string {
	var mu sync.Mutex
	var got []string
	a.Subscribe(func(p ext.Payload) {
		mu.Lock()
		defer mu.Unlock()
		s := ext.SpecOf(p).Name
		switch e := p.(type) {
		case *ext.MessageStart:
			s += ":" + e.Message.Role
		case *ext.MessageEnd:
			s += ":" + e.Message.Role
		case *ext.ToolExecutionStart:
			s += ":" + e.ToolCallID
		case *ext.ToolExecutionEnd:
			s += ":" + e.ToolCallID
		case *ext.ToolExecutionUpdate, *ext.MessageUpdate:
			return
		}
		got = append(got, s)
	})
	return func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
}

func TestParallelToolOrder(t *testing.T) {
	p := &scripted{turns: []func(*llm.Builder) llm.Message{
		callsTurn([3]string{"a", "sleep", `{"ms":60}`}, [3]string{"b", "sleep", `{"ms":1}`}),
		textTurn("done"),
	}}
	a := New(Config{Provider: p, Model: testModel, Tools: []tool.Tool{sleepTool{}}})
	events := record(a)
	if err := a.Prompt(context.Background(), llm.UserText("go", nil, 1)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"agent_start", "turn_start", "message_start:user", "message_end:user",
		"message_start:assistant", "message_end:assistant",
		"tool_execution_start:a", "tool_execution_start:b",
		"tool_execution_end:b", "tool_execution_end:a", // completion order
		"message_start:toolResult", "message_end:toolResult", // source order: a then b
		"message_start:toolResult", "message_end:toolResult",
		"turn_end", "turn_start",
		"message_start:assistant", "message_end:assistant", "turn_end", "agent_end",
	}
	if got := events(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	msgs := a.Messages()
	if msgs[2].ToolCallID != "a" || msgs[3].ToolCallID != "b" {
		t.Fatalf("tool results not in source order: %+v", msgs)
	}
	// The second request carries the whole history.
	if n := len(p.reqs[1].Messages); n != 4 {
		t.Fatalf("second request has %d messages, want 4", n)
	}
}

func TestBadToolCallsBecomeErrorResults(t *testing.T) {
	p := &scripted{turns: []func(*llm.Builder) llm.Message{
		callsTurn(
			[3]string{"a", "sleep", `{"ms": 1`},    // malformed JSON
			[3]string{"b", "sleep", `{"ms":"x"}`},  // schema violation
			[3]string{"c", "nope", `{}`},           // unknown tool
			[3]string{"d", "sleep", `{"ms":"1"}`}), // coerced string number
		textTurn("ok"),
	}}
	a := New(Config{Provider: p, Model: testModel, Tools: []tool.Tool{sleepTool{}}})
	if err := a.Prompt(context.Background(), llm.UserText("go", nil, 1)); err != nil {
		t.Fatal(err)
	}
	msgs := a.Messages()
	checks := []struct {
		isErr bool
		has   string
	}{{true, "not a JSON object"}, {true, "Validation failed"}, {true, "Tool nope not found"}, {false, "slept d"}}
	for i, c := range checks {
		m := msgs[2+i]
		txt := llm.TextOf(m.Content, "")
		if m.IsError != c.isErr || !strings.Contains(txt, c.has) {
			t.Errorf("result %d: isError=%v text=%q, want isError=%v containing %q", i, m.IsError, txt, c.isErr, c.has)
		}
	}
}

func TestBeforeToolCallBlocksAndPanicsFailClosed(t *testing.T) {
	p := &scripted{turns: []func(*llm.Builder) llm.Message{
		callsTurn([3]string{"a", "sleep", `{"ms":1}`}, [3]string{"b", "sleep", `{"ms":1}`}),
		textTurn("ok"),
	}}
	a := New(Config{Provider: p, Model: testModel, Tools: []tool.Tool{sleepTool{}}, Hooks: Hooks{
		BeforeToolCall: func(_ context.Context, c *tool.Call) (*Block, error) {
			if c.ID == "a" {
				return &Block{Reason: "no a"}, nil
			}
			panic("boom")
		},
	}})
	if err := a.Prompt(context.Background(), llm.UserText("go", nil, 1)); err != nil {
		t.Fatal(err)
	}
	msgs := a.Messages()
	if txt := llm.TextOf(msgs[2].Content, ""); !msgs[2].IsError || txt != "no a" {
		t.Errorf("blocked call: %q", txt)
	}
	if txt := llm.TextOf(msgs[3].Content, ""); !msgs[3].IsError || !strings.Contains(txt, "boom") {
		t.Errorf("panicking hook must block: %q", txt)
	}
}

func TestTerminateOnlyWhenAllTerminate(t *testing.T) {
	p := &scripted{turns: []func(*llm.Builder) llm.Message{
		callsTurn([3]string{"a", "sleep", `{"ms":1}`}),
		textTurn("not reached"),
	}}
	a := New(Config{Provider: p, Model: testModel, Tools: []tool.Tool{sleepTool{}}, Hooks: Hooks{
		BeforeToolCall: func(context.Context, *tool.Call) (*Block, error) {
			return &Block{Reason: "stop here", Terminate: true}, nil
		},
	}})
	a.Prompt(context.Background(), llm.UserText("go", nil, 1))
	if len(p.reqs) != 1 {
		t.Fatalf("terminate ignored: %d requests", len(p.reqs))
	}
}

// TestAbortKeepsPartialMessage runs in a synctest bubble: the provider's pause is fake time, which
// passes only once the aborting goroutine has run, so the abort always lands mid-stream.
func TestAbortKeepsPartialMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		p := &scripted{turns: []func(*llm.Builder) llm.Message{
			func(b *llm.Builder) llm.Message {
				i := b.StartText()
				b.AppendText(i, "partial")
				close(started)
				time.Sleep(50 * time.Millisecond)
				return b.Fail("", true, testModel)
			},
		}}
		a := New(Config{Provider: p, Model: testModel})
		aborted := make(chan struct{})
		go func() { <-started; a.Abort(); close(aborted) }()
		a.Prompt(context.Background(), llm.UserText("go", nil, 1))
		select {
		case <-aborted:
		default:
			t.Fatal("the run ended before the abort")
		}
		msgs := a.Messages()
		last := msgs[len(msgs)-1]
		if last.StopReason != llm.StopAborted || llm.TextOf(last.Content, "") != "partial" {
			t.Fatalf("last message: %+v", last)
		}
	})
}

func TestSteerAndFollowUp(t *testing.T) {
	var a *Agent
	p := &scripted{turns: []func(*llm.Builder) llm.Message{
		func(b *llm.Builder) llm.Message {
			a.Steer(llm.UserText("steer", nil, 2))
			a.FollowUp(llm.UserText("follow", nil, 3))
			return callsTurn([3]string{"a", "sleep", `{"ms":1}`})(b)
		},
		textTurn("after steer"),
		textTurn("after follow-up"),
	}}
	a = New(Config{Provider: p, Model: testModel, Tools: []tool.Tool{sleepTool{}}})
	a.Prompt(context.Background(), llm.UserText("go", nil, 1))
	var roles []string
	for _, m := range a.Messages() {
		roles = append(roles, m.Role+":"+llm.TextOf(m.Content, ""))
	}
	want := "user:go assistant: toolResult:slept a user:steer assistant:after steer user:follow assistant:after follow-up"
	if strings.Join(roles, " ") != want {
		t.Fatalf("got %v", roles)
	}
}

func TestConvertRepairsOrphans(t *testing.T) {
	call := llm.Content{Type: llm.ContentToolCall, ID: "x", Name: "sleep"}
	in := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("hi")}},
		{Role: llm.RoleAssistant, Content: []llm.Content{call}, StopReason: llm.StopToolUse},
		{Role: llm.RoleToolResult, ToolCallID: "zzz"},
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("again")}},
		{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("half")}, StopReason: llm.StopAborted},
		{Role: llm.RoleCustom, Content: []llm.Content{llm.Text("note")}},
	}
	out := ConvertToLLM(in)
	var got []string
	for _, m := range out {
		got = append(got, m.Role+":"+llm.TextOf(m.Content, ""))
	}
	want := "user:hi assistant: toolResult:No result provided user:again user:note"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v", got)
	}
}

func TestLegacyEditArgumentsArePrepared(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/f.txt"
	if err := os.WriteFile(path, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &scripted{turns: []func(*llm.Builder) llm.Message{
		callsTurn([3]string{"a", "edit", `{"path":"f.txt","oldText":"world","newText":"there"}`}),
		textTurn("ok"),
	}}
	a := New(Config{Provider: p, Model: testModel, Tools: []tool.Tool{tool.NewEdit(dir, tool.EditOptions{})}})
	a.Prompt(context.Background(), llm.UserText("go", nil, 1))
	if res := a.Messages()[2]; res.IsError {
		t.Fatalf("legacy edit rejected: %s", llm.TextOf(res.Content, ""))
	}
	if b, _ := os.ReadFile(path); string(b) != "hello there\n" {
		t.Fatalf("file: %q", b)
	}
}

// A follow-up queued while agent_end is handled starts another run (events.md §2, step 12).
func TestFollowUpQueuedAtAgentEndRunsAgain(t *testing.T) {
	p := &scripted{turns: []func(*llm.Builder) llm.Message{textTurn("first"), textTurn("second")}}
	a := New(Config{Provider: p, Model: testModel})
	queued := false
	a.Subscribe(func(p ext.Payload) {
		if _, end := p.(*ext.AgentEnd); end && !queued {
			queued = true
			a.FollowUp(llm.UserText("more", nil, 2))
		}
	})
	events := record(a)
	a.Prompt(context.Background(), llm.UserText("go", nil, 1))
	if len(p.reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(p.reqs))
	}
	got := strings.Join(events(), " ")
	if strings.Count(got, "agent_start") != 2 || strings.Count(got, "agent_end") != 2 {
		t.Fatalf("want two runs: %s", got)
	}
}

// TestAdoptMessages checks that an adopted context becomes the agent's without a copy.
func TestAdoptMessages(t *testing.T) {
	a := New(Config{})
	msgs := make([]llm.Message, 2, 4)
	msgs[0], msgs[1] = llm.UserText("q", nil, 1), llm.UserText("r", nil, 2)
	if err := a.AdoptMessages(msgs); err != nil {
		t.Fatal(err)
	}
	got := a.Messages()
	if len(got) != 2 || &got[0] != &msgs[0] {
		t.Fatalf("adopted context copied or changed: %d messages", len(got))
	}
}

// handoffTool hands each call to an executor that takes calls in arrival order (as an extension
// host reads its requests): Execute queues the call's id, reports tool.Started, then waits for
// its turn to finish.
type handoffTool struct {
	mu   sync.Mutex
	seen []string
}

func (*handoffTool) Name() string        { return "handoff" }
func (*handoffTool) Description() string { return "hands the call over" }
func (*handoffTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (*handoffTool) ReportsStart() bool { return true }
func (h *handoffTool) Execute(ctx context.Context, c tool.Call, _ func(tool.Result)) (tool.Result, error) {
	h.mu.Lock()
	h.seen = append(h.seen, c.ID)
	h.mu.Unlock()
	tool.Started(ctx)
	return tool.TextResult("handed "+c.ID, nil), nil
}

// TestParallelToolsStartInOrder: a tool.StartReporter's parallel calls reach its executor in the
// model's order (pi starts each execute in order: its todo example numbers items by it).
func TestParallelToolsStartInOrder(t *testing.T) {
	var calls [][3]string
	var want []string
	for i := range 40 {
		id := fmt.Sprintf("c%02d", i)
		calls = append(calls, [3]string{id, "handoff", `{}`})
		want = append(want, id)
	}
	p := &scripted{turns: []func(*llm.Builder) llm.Message{callsTurn(calls...), textTurn("done")}}
	h := &handoffTool{}
	a := New(Config{Provider: p, Model: testModel, Tools: []tool.Tool{h}})
	if err := a.Prompt(context.Background(), llm.UserText("go", nil, 1)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.seen, " "); got != strings.Join(want, " ") {
		t.Fatalf("calls reached the executor as\n%s\nwant\n%s", got, strings.Join(want, " "))
	}
}
