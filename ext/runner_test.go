package ext

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

func load(t testing.TB, r *Runner, fs ...Factory) {
	t.Helper()
	if errs := r.Load(nil, []string{"ext-a", "ext-b", "ext-c"}, fs); len(errs) > 0 {
		t.Fatal(errs)
	}
}

func TestTableHasEveryChecklistEvent(t *testing.T) {
	if len(Table) != 64 {
		t.Fatalf("table has %d rows, want 64 (65 names with the session_before_branch alias)", len(Table))
	}
	for i, s := range Table {
		if s.ID != EventID(i) || s.Payload == nil {
			t.Errorf("row %d (%s): id %d, payload %v", i, s.Name, s.ID, s.Payload)
		}
	}
	if s, ok := Lookup("session_before_branch"); !ok || s.Name != "session_before_fork" {
		t.Fatal("alias session_before_branch does not resolve to session_before_fork")
	}
	if _, err := TableJSON(); err != nil {
		t.Fatal(err)
	}
}

func TestNoSubscriberEmitDoesNotAllocate(t *testing.T) {
	r := NewRunner(nil)
	allocs := testing.AllocsPerRun(1000, func() {
		Emit[None](r, context.Background(), TurnStart{TurnIndex: 1, Timestamp: 2})
		Emit[*ToolCallResult](r, context.Background(), ToolCall{ToolCallID: "x", ToolName: "bash"})
	})
	if allocs != 0 {
		t.Fatalf("emit without subscribers allocates %.1f times", allocs)
	}
}

func TestLoadOrderThenRegistrationOrder(t *testing.T) {
	r := NewRunner(nil)
	var got []string
	mk := func(tag string) func(Context, *TurnStart) (None, error) {
		return func(Context, *TurnStart) (None, error) { got = append(got, tag); return nil, nil }
	}
	load(t, r,
		func(api API) error { On(api, mk("a1")); On(api, mk("a2")); return nil },
		func(api API) error { On(api, mk("b1")); return nil },
	)
	Emit[None](r, context.Background(), TurnStart{})
	if strings.Join(got, ",") != "a1,a2,b1" {
		t.Fatalf("order %v", got)
	}
}

func TestToolCallVetoAndFailClosed(t *testing.T) {
	r := NewRunner(nil)
	var reported []*Error
	r.OnError(func(e *Error) { reported = append(reported, e) })
	calls := 0
	load(t, r,
		func(api API) error {
			On(api, func(_ Context, e *ToolCall) (*ToolCallResult, error) {
				calls++
				e.Input["edited"] = true // in place, seen by later handlers
				if e.ToolName == "rm" {
					return &ToolCallResult{Block: true, Reason: "no rm"}, nil
				}
				if e.ToolName == "boom" {
					panic("kaboom")
				}
				return nil, nil
			})
			return nil
		},
		func(api API) error {
			On(api, func(_ Context, e *ToolCall) (*ToolCallResult, error) {
				calls++
				if e.Input["edited"] != true {
					t.Error("in-place edit not visible to the next handler")
				}
				return nil, nil
			})
			return nil
		},
	)
	_, res, err := Emit[*ToolCallResult](r, context.Background(), ToolCall{ToolName: "rm", Input: map[string]any{}})
	if err != nil || res == nil || !res.Block || res.Reason != "no rm" || calls != 1 {
		t.Fatalf("veto: res=%+v err=%v calls=%d", res, err, calls)
	}
	_, _, err = Emit[*ToolCallResult](r, context.Background(), ToolCall{ToolName: "boom", Input: map[string]any{}})
	if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("a panicking tool_call handler must block: %v", err)
	}
	if len(reported) != 1 || reported[0].ExtensionPath != "ext-a" {
		t.Fatalf("reported %+v", reported)
	}
}

func TestChainPatchToolResult(t *testing.T) {
	r := NewRunner(nil)
	yes := true
	load(t, r,
		func(api API) error {
			On(api, func(_ Context, e *ToolResult) (*ToolResultPatch, error) {
				c := []llm.Content{llm.Text("patched")}
				return &ToolResultPatch{Content: &c}, nil
			})
			return nil
		},
		func(api API) error {
			On(api, func(_ Context, e *ToolResult) (*ToolResultPatch, error) {
				if llm.TextOf(e.Content, "") != "patched" {
					t.Error("second handler does not see the first patch")
				}
				return &ToolResultPatch{IsError: &yes}, nil
			})
			return nil
		},
	)
	out, _, _ := Emit[*ToolResultPatch](r, context.Background(), ToolResult{Content: []llm.Content{llm.Text("orig")}, Details: "d"})
	if llm.TextOf(out.Content, "") != "patched" || !out.IsError || out.Details != "d" {
		t.Fatalf("got %+v", out)
	}
}

func TestIsolatedErrorRunsNextHandler(t *testing.T) {
	r := NewRunner(nil)
	var reported int
	r.OnError(func(*Error) { reported++ })
	ran := false
	load(t, r,
		func(api API) error {
			On(api, func(Context, *TurnEnd) (None, error) { return nil, errors.New("bad") })
			return nil
		},
		func(api API) error {
			On(api, func(Context, *TurnEnd) (None, error) { ran = true; return nil, nil })
			return nil
		},
	)
	_, _, err := Emit[None](r, context.Background(), TurnEnd{})
	if err != nil || !ran || reported != 1 {
		t.Fatalf("err=%v ran=%v reported=%d", err, ran, reported)
	}
}

func TestBufferedBeforeBind(t *testing.T) {
	r := NewRunner(nil)
	var got []string
	load(t, r, func(api API) error {
		On(api, func(_ Context, e *MCPNotification) (None, error) { got = append(got, e.Method); return nil, nil })
		return nil
	})
	for i := 0; i < 105; i++ {
		Emit[None](r, context.Background(), MCPNotification{Method: string(rune('a' + i%26))})
	}
	if len(got) != 0 {
		t.Fatal("delivered before bind")
	}
	r.Bind()
	r.Drain()
	if len(got) != 100 {
		t.Fatalf("delivered %d after bind, want the newest 100", len(got))
	}
}

func BenchmarkDispatchNoSubscriber(b *testing.B) {
	r := NewRunner(nil)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Emit[None](r, ctx, TurnStart{TurnIndex: i})
	}
}

func benchHandlers(b *testing.B, n int) {
	r := NewRunner(nil)
	fs := make([]Factory, n)
	for i := range fs {
		fs[i] = func(api API) error {
			On(api, func(_ Context, e *TurnStart) (None, error) { return nil, nil })
			return nil
		}
	}
	r.Load(nil, nil, fs)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Emit[None](r, ctx, TurnStart{TurnIndex: i})
	}
}

func BenchmarkDispatch1Handler(b *testing.B)   { benchHandlers(b, 1) }
func BenchmarkDispatch10Handlers(b *testing.B) { benchHandlers(b, 10) }

func TestHangingGuardFailsClosed(t *testing.T) {
	old := GuardTimeout
	GuardTimeout = 50 * time.Millisecond
	defer func() { GuardTimeout = old }()
	r := NewRunner(nil)
	release := make(chan struct{})
	defer close(release)
	load(t, r, func(api API) error {
		On(api, func(Context, *ToolCall) (*ToolCallResult, error) { <-release; return nil, nil })
		return nil
	})
	start := time.Now()
	_, _, err := Emit[*ToolCallResult](r, context.Background(), ToolCall{ToolName: "bash", Input: map[string]any{}})
	if !errors.Is(err, ErrBlocked) || time.Since(start) > 5*time.Second {
		t.Fatalf("a hanging tool_call handler must block after GuardTimeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Emit[*ToolCallResult](r, ctx, ToolCall{ToolName: "bash", Input: map[string]any{}}); !errors.Is(err, ErrBlocked) {
		t.Fatalf("an aborted tool_call must block: %v", err)
	}
}

// A runner's own guard bound (extensionHandlerTimeoutMs) replaces GuardTimeout, and the block
// names the extension whose handler did not answer, not "(timeout)".
func TestGuardTimeoutNamesTheExtension(t *testing.T) {
	r := NewRunner(nil)
	r.SetGuardTimeout(50 * time.Millisecond)
	var reported []*Error
	r.OnError(func(e *Error) { reported = append(reported, e) })
	release := make(chan struct{})
	defer close(release)
	load(t, r,
		func(api API) error {
			On(api, func(Context, *ToolCall) (*ToolCallResult, error) { return nil, nil })
			return nil
		},
		func(api API) error {
			On(api, func(Context, *ToolCall) (*ToolCallResult, error) { <-release; return nil, nil })
			return nil
		})
	_, _, err := Emit[*ToolCallResult](r, context.Background(), ToolCall{ToolName: "bash", Input: map[string]any{}})
	if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "the tool_call handler of ext-b did not answer within 50ms") {
		t.Fatalf("blocked with %v", err)
	}
	if len(reported) != 1 || reported[0].ExtensionPath != "ext-b" || reported[0].Event != "tool_call" {
		t.Fatalf("reported %+v, want one error of ext-b in tool_call", reported)
	}
}

// While a user dialog is open (HoldGuards) a fail-closed guard does not give up: the time is the
// user's, and the handler's answer after the dialog counts.
func TestGuardWaitsForDialogs(t *testing.T) {
	r := NewRunner(nil)
	const limit = 50 * time.Millisecond
	r.SetGuardTimeout(limit)
	answered := make(chan struct{})
	load(t, r, func(api API) error {
		On(api, func(Context, *ToolCall) (*ToolCallResult, error) {
			<-answered
			return &ToolCallResult{Block: true, Reason: "the user said no"}, nil
		})
		return nil
	})
	release := r.HoldGuards()
	// The user answers well after the guard's bound.
	time.AfterFunc(4*limit, func() {
		release()
		close(answered)
	})
	_, res, err := Emit[*ToolCallResult](r, context.Background(), ToolCall{ToolName: "bash", Input: map[string]any{}})
	if err != nil || res == nil || res.Reason != "the user said no" {
		t.Fatalf("result %+v, err %v; want the handler's answer after the dialog", res, err)
	}
}
