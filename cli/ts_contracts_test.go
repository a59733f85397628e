package cli

import (
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
)

// Issue 13 item 12: a context handler editing event.messages in place and a
// before_provider_request handler editing event.payload in place change what the provider is
// sent, in print and RPC mode, as in pi.
func TestTSInPlaceEdits(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{{Text: "ok"}, {Text: "ok"}}, "inplace.ts")
	out, _ := p.print("--no-session", "-e", "inplace.ts", "-p", "SECRET-hello")
	if out != "ok\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(0, "REDACTED-hello", "INPLACE-CTX-NOTE", `"metadata":{"user_id":"inplace-payload"}`)
	p.requestLacks(0, "SECRET-hello")

	r := p.rpc("--no-session", "-e", "inplace.ts")
	r.prompt("1", "SECRET-again")
	p.requestHas(1, "REDACTED-again", "INPLACE-CTX-NOTE", `"metadata":{"user_id":"inplace-payload"}`)
	p.requestLacks(1, "SECRET-again")
}

// Issue 13 item 13: a TypeScript tool's returned isError does not make an error result (only a
// throw does); sendUserMessage sends an image given in the seed's {source:{type:"base64",…}}
// shape; session_shutdown carries targetSessionFile for a new session and a fork.
func TestTSResultsAndShutdownTarget(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("returns_error", map[string]any{})}},
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("throws_error", map[string]any{})}},
		{Text: "done"},
		{Text: "an image"},
		{Text: "again"},
	}, "results.ts")
	out, _ := p.print("--no-session", "-e", "results.ts", "-p", "use the tools")
	if out != "done\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(1, "RETURNED-VALUE")
	p.requestLacks(1, `"is_error":true`)
	p.requestHas(2, "THROWN-ERROR", `"is_error":true`)

	r := p.rpc("-e", "results.ts")
	r.send(`{"id":"i","type":"prompt","message":"/img"}`)
	r.next(func(m map[string]any) bool { return m["type"] == "agent_settled" })
	p.requestHas(3, "describe this image", `"type":"image"`, `"media_type":"image/png"`, "iVBORw0KGgo")

	r.send(`{"id":"n","type":"prompt","message":"/newsession"}`)
	if got := r.notifyText("SHUTDOWN"); !strings.HasPrefix(got, "SHUTDOWN reason=new target=/") || !strings.HasSuffix(got, ".jsonl") {
		t.Fatalf("new: %q", got)
	}
	r.prompt("p", "hello")
	r.send(`{"id":"f","type":"prompt","message":"/forkfirst"}`)
	if got := r.notifyText("SHUTDOWN"); !strings.HasPrefix(got, "SHUTDOWN reason=fork target=/") || !strings.HasSuffix(got, ".jsonl") {
		t.Fatalf("fork: %q", got)
	}
}
