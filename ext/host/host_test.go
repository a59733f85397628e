package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// The tests run the supervisor against a host written in Go: this test binary, re-executed with
// ATOMIC_FAKE_HOST=1, speaks the protocol the way a Python or Rust host would. An "extension" is
// a text file of directives:
//
//	on <event>      subscribe a handler; for tool_call it blocks every command with the reason
//	                "fake says no: <command>", except the commands "crash" (the host exits
//	                with code 3) and "hang" (the host stops its heartbeat and sleeps)
//	fail            the factory fails
//	slow <ms>       the factory runs synchronously for ms milliseconds, sending no heartbeat
//
// With ATOMIC_FAKE_QUEUED=1 it reports capabilities.queuedEvents, answers sync at once (it
// handles each event notification as it reads it) and reports a failure for turnIndex 13;
// ATOMIC_FAKE_BATCHES=1 adds capabilities.eventBatches, ATOMIC_FAKE_DELTAS=1 messageDeltas and
// deltaRuns.
func TestMain(m *testing.M) {
	if os.Getenv("ATOMIC_FAKE_HOST") == "1" {
		fakeHost()
		return
	}
	os.Exit(m.Run())
}

func fakeHost() {
	r := protocol.NewReader(os.NewFile(protocol.MainIn, "main-in"))
	w := protocol.NewWriter(os.NewFile(protocol.MainOut, "main-out"))
	// Noise on stdout is the host's log, never the protocol.
	fmt.Fprint(os.Stdout, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":99}}`)
	var beating atomic.Bool
	beating.Store(true)
	go func() {
		for {
			time.Sleep(20 * time.Millisecond)
			if beating.Load() {
				_ = w.Notify(protocol.MethodHeartbeat, nil)
			}
		}
	}()
	for {
		m, err := r.Read()
		if err != nil {
			os.Exit(0)
		}
		switch m.Method {
		case protocol.MethodInitialize:
			res := protocol.InitializeResult{ProtocolVersion: protocol.Version, Name: "fake"}
			if os.Getenv("ATOMIC_FAKE_QUEUED") == "1" {
				res.Capabilities = map[string]any{"queuedEvents": true, "eventBatches": os.Getenv("ATOMIC_FAKE_BATCHES") == "1"}
				if os.Getenv("ATOMIC_FAKE_DELTAS") == "1" {
					res.Capabilities["messageDeltas"] = true
					res.Capabilities["deltaRuns"] = true
				}
			}
			_ = w.Reply(m.ID, res, nil)
		case protocol.MethodSync:
			_ = w.Reply(m.ID, nil, nil)
		case protocol.MethodLoad:
			var p protocol.LoadParams
			_ = json.Unmarshal(m.Params, &p)
			b, _ := os.ReadFile(p.Path)
			n := 0
			var loadErr error
			for _, line := range strings.Split(string(b), "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) == 2 && f[0] == "on":
					_ = w.Notify(protocol.MethodOn, protocol.OnParams{ExtRef: protocol.ExtRef{Ext: p.Ext, Gen: p.Generation}, Handler: n, Event: f[1]})
					n++
				case len(f) == 1 && f[0] == "fail":
					loadErr = &protocol.Error{Code: protocol.CodeHandlerFailed, Message: "fake factory failed"}
				case len(f) == 2 && f[0] == "slow":
					ms, _ := strconv.Atoi(f[1])
					beating.Store(false)
					time.Sleep(time.Duration(ms) * time.Millisecond)
					beating.Store(true)
				}
			}
			_ = w.Reply(m.ID, protocol.LoadResult{Handlers: n}, loadErr)
		case protocol.MethodEvent:
			var p protocol.EventParams
			_ = json.Unmarshal(m.Params, &p)
			if m.IsNotification() {
				var turn struct {
					TurnIndex int `json:"turnIndex"`
				}
				_ = json.Unmarshal(p.Payload, &turn)
				if turn.TurnIndex == 13 {
					hs := p.Handlers
					if hs == nil {
						hs = []int{p.Handler}
					}
					for _, h := range hs {
						_ = w.Notify(protocol.MethodEventError, protocol.EventErrorParams{ExtRef: p.ExtRef, Handler: h, Event: p.Event, Message: "unlucky turn (at ext0.fake:1:1)"})
					}
				}
				continue
			}
			var payload struct {
				Input struct {
					Command string `json:"command"`
				} `json:"input"`
			}
			_ = json.Unmarshal(p.Payload, &payload)
			switch payload.Input.Command {
			case "crash":
				os.Exit(3)
			case "hang":
				beating.Store(false)
				time.Sleep(time.Minute)
			}
			res, _ := json.Marshal(map[string]any{"block": true, "reason": "fake says no: " + payload.Input.Command})
			_ = w.Reply(m.ID, protocol.EventResult{Result: res}, nil)
		case protocol.MethodShutdown:
			_ = w.Reply(m.ID, nil, nil)
			os.Exit(0)
		default:
			if m.IsRequest() {
				_ = w.Reply(m.ID, nil, protocol.Errorf(protocol.CodeMethodNotFound, "no %s", m.Method))
			}
		}
	}
}

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fake returns a supervisor of the fake host for extension files with the given directives.
func fake(t testing.TB, exts ...string) (*Supervisor, *logBuf) {
	t.Helper()
	return fakeWith(t, nil, exts...)
}

// fakeWith is fake with the supervisor options changed by edit (nil: none).
func fakeWith(t testing.TB, edit func(*Options), exts ...string) (*Supervisor, *logBuf) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, src := range exts {
		p := filepath.Join(dir, fmt.Sprintf("ext%d.fake", i))
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	log := &logBuf{}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := Options{
		Name:      "fake",
		Command:   func() ([]string, error) { return []string{exe}, nil },
		Env:       append(os.Environ(), "ATOMIC_FAKE_HOST=1"),
		Logf:      log.logf,
		WarnAfter: 100 * time.Millisecond, DeadAfter: 400 * time.Millisecond,
	}
	if edit != nil {
		edit(&o)
	}
	s := New(o, paths)
	t.Cleanup(func() { _ = s.Close() })
	return s, log
}

func load(t testing.TB, s *Supervisor) (*ext.Runner, *[]*ext.Error) {
	t.Helper()
	r := ext.NewRunner(nil)
	var mu sync.Mutex
	errs := &[]*ext.Error{}
	r.OnError(func(e *ext.Error) {
		mu.Lock()
		*errs = append(*errs, e)
		mu.Unlock()
	})
	r.Load(nil, s.Paths(), s.Factories())
	return r, errs
}

func toolCall(r *ext.Runner, command string) (*ext.ToolCallResult, error) {
	_, res, err := ext.Emit[*ext.ToolCallResult](r, context.Background(), ext.ToolCall{ToolCallID: "c", ToolName: "bash", Input: map[string]any{"command": command}})
	return res, err
}

func TestEventRoundTrip(t *testing.T) {
	s, _ := fake(t, "on tool_call\n")
	r, errs := load(t, s)
	if len(*errs) > 0 {
		t.Fatal((*errs)[0])
	}
	res, err := toolCall(r, "ls")
	if err != nil || res == nil || !res.Block || res.Reason != "fake says no: ls" {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if r.Has(ext.IDTurnStart) {
		t.Fatal("an unsubscribed event has a handler")
	}
}

func TestLoadFailureIsReportedAndOthersLoad(t *testing.T) {
	s, _ := fake(t, "on tool_call\nfail\n", "on tool_call\n")
	r, errs := load(t, s)
	if len(*errs) != 1 || (*errs)[0].Event != "load" || !strings.Contains((*errs)[0].Message, "ext0.fake failed to load: fake factory failed") {
		t.Fatalf("errors %v", *errs)
	}
	// The failed extension's handler was removed; the second one answers.
	if res, err := toolCall(r, "ls"); err != nil || res == nil || !res.Block {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

func TestCrashFailsClosedAndRestarts(t *testing.T) {
	s, log := fake(t, "on tool_call\n")
	r, _ := load(t, s)
	_, err := toolCall(r, "crash")
	if !errors.Is(err, ext.ErrBlocked) || !strings.Contains(err.Error(), "exited with code 3 during the tool_call handler of") {
		t.Fatalf("err %v", err)
	}
	// The host is restarted and the extension loaded again: the next call is answered.
	res, err := toolCall(r, "ls")
	if err != nil || res == nil || res.Reason != "fake says no: ls" {
		t.Fatalf("after the restart: res %+v, err %v", res, err)
	}
	if s.Restarts() != 1 || !strings.Contains(log.String(), "restarting it") {
		t.Fatalf("restarts %d, log %q", s.Restarts(), log)
	}
}

func TestHangIsNamedThenUnresponsive(t *testing.T) {
	s, log := fake(t, "on tool_call\n")
	r, _ := load(t, s)
	_, err := toolCall(r, "hang")
	if !errors.Is(err, ext.ErrBlocked) || !strings.Contains(err.Error(), "unresponsive for 400ms (no heartbeat) while running the tool_call handler of") {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(log.String(), "the tool_call handler of") || !strings.Contains(log.String(), "has blocked the host for") {
		t.Fatalf("the stuck callback was not named: %q", log)
	}
	if res, err := toolCall(r, "ls"); err != nil || res == nil {
		t.Fatalf("after the restart: res %+v, err %v", res, err)
	}
}

// NoticeAfter (the interactive mode's) keeps a stall shorter than it out of the log; the host is
// still declared unresponsive after DeadAfter.
func TestShortStallIsNotNoticed(t *testing.T) {
	s, log := fakeWith(t, func(o *Options) { o.NoticeAfter = time.Hour }, "on tool_call\n")
	r, _ := load(t, s)
	_, err := toolCall(r, "hang")
	if !errors.Is(err, ext.ErrBlocked) || !strings.Contains(err.Error(), "unresponsive for 400ms") {
		t.Fatalf("err %v", err)
	}
	if strings.Contains(log.String(), "has blocked the host") {
		t.Fatalf("a stall shorter than NoticeAfter was logged: %q", log)
	}
}

func TestCrashLoopDisablesTheHost(t *testing.T) {
	s, log := fake(t, "on tool_call\n")
	s.opts.MaxRestarts = 2
	r, _ := load(t, s)
	for i := 0; i < 3; i++ {
		_, _ = toolCall(r, "crash")
	}
	_, err := toolCall(r, "ls")
	if err == nil || !strings.Contains(err.Error(), "disabled for this run") {
		t.Fatalf("err %v; log %q", err, log)
	}
}

func TestNewGenerationReloads(t *testing.T) {
	s, _ := fake(t, "on tool_call\n")
	load(t, s)
	r2, _ := load(t, s) // a reload: the factories run again on a new runner
	if res, err := toolCall(r2, "ls"); err != nil || res == nil {
		t.Fatalf("new generation: res %+v, err %v", res, err)
	}
	s.mu.Lock()
	n := s.gen.n
	s.mu.Unlock()
	if n != 2 {
		t.Fatalf("generation %d, want 2", n)
	}
}

func TestEventParamsEncoding(t *testing.T) {
	got := eventParams(2, 3, 4, "tool_call", []byte(`{"toolName":"bash"}`), 5, true)
	want, _ := json.Marshal(protocol.EventParams{ExtRef: protocol.ExtRef{Ext: 2, Gen: 3}, Handler: 4, Event: "tool_call", Payload: json.RawMessage(`{"toolName":"bash"}`), Ctx: 5, Signal: true})
	if string(got) != string(want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestQueuedEvents: with capabilities.queuedEvents, a queued event is one notification and the
// dispatch does not wait; agent_settled sends one sync (none when nothing was queued since) and
// hands the failures the host reported to the runner, naming the failed event.
func TestQueuedEvents(t *testing.T) {
	t.Setenv("ATOMIC_FAKE_QUEUED", "1")
	s, _ := fake(t, "on turn_start\n")
	r, errs := load(t, s)
	if !r.Has(ext.IDAgentSettled) || !r.Has(ext.IDToolCall) {
		t.Fatal("the agent_settled and tool_call barriers are not subscribed")
	}
	ctx := context.Background()
	before := s.Sent()
	for i := 0; i < 20; i++ {
		ext.Emit[ext.None](r, ctx, ext.TurnStart{TurnIndex: i})
	}
	if got := s.Sent() - before; got != 20 {
		t.Fatalf("%d messages for 20 queued events; want 20 notifications", got)
	}
	ext.Emit[ext.None](r, ctx, ext.AgentSettled{})
	ext.Emit[ext.None](r, ctx, ext.AgentSettled{})
	if got := s.Sent() - before; got != 21 {
		t.Fatalf("%d messages after two agent_settled; want 20 notifications and one sync", got)
	}
	var msgs []string
	for _, e := range *errs {
		msgs = append(msgs, e.Event+": "+e.Message)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "unlucky turn (at ext0.fake:1:1)") {
		t.Fatalf("errors %q; want the failure of turn 13 once", msgs)
	}
	if strings.HasPrefix(msgs[0], "agent_settled:") && !strings.Contains(msgs[0], "turn_start handler: unlucky") {
		t.Fatalf("reported at the barrier without naming turn_start: %q", msgs[0])
	}
}

// TestQueuedEventsNeedTheCapability: a host without capabilities.queuedEvents gets every event as
// a request, and no barriers are added.
func TestQueuedEventsNeedTheCapability(t *testing.T) {
	s, _ := fake(t, "on turn_start\n")
	r, _ := load(t, s)
	if r.Has(ext.IDAgentSettled) || r.Has(ext.IDToolCall) {
		t.Fatal("barriers subscribed for a host without queued events")
	}
	before := s.Sent()
	ext.Emit[ext.None](r, context.Background(), ext.TurnStart{TurnIndex: 1})
	if got := s.Sent() - before; got != 1 {
		t.Fatalf("%d messages for one event", got)
	}
}

// TestSlowLoadIsNotKilled: a factory that runs synchronously (no heartbeat) for longer than
// DeadAfter but within LoadTimeout loads, and the host is not restarted (issue 9 item 8).
func TestSlowLoadIsNotKilled(t *testing.T) {
	s, log := fake(t, "slow 1000\non tool_call\n")
	r, errs := load(t, s)
	if len(*errs) > 0 {
		t.Fatalf("load: %v\nlog:\n%s", (*errs)[0], log)
	}
	if res, err := toolCall(r, "ls"); err != nil || res == nil || res.Reason != "fake says no: ls" {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if l := log.String(); strings.Contains(l, "unresponsive") || !strings.Contains(l, "loading") {
		t.Fatalf("log %q: want the slow load named, no restart", l)
	}
}

// TestLoadTimeout: a factory still running at LoadTimeout fails to load, naming the timeout.
func TestLoadTimeout(t *testing.T) {
	s, log := fakeWith(t, func(o *Options) { o.LoadTimeout = 300 * time.Millisecond }, "slow 1500\non tool_call\n")
	_, errs := load(t, s)
	if len(*errs) != 1 || !strings.Contains((*errs)[0].Message, "did not finish within 300ms") {
		t.Fatalf("errors %v; log:\n%s", *errs, log)
	}
}
