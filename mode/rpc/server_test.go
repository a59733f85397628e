package rpc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/internal/fakellm"
)

func TestHandlersCoverEverySpec(t *testing.T) {
	for name := range specs {
		if handlers[name] == nil {
			t.Errorf("command %s has no handler", name)
		}
	}
	for name := range handlers {
		if _, ok := specs[name]; !ok {
			t.Errorf("handler %s has no spec", name)
		}
	}
}

// A prompt whose model calls a tool: the response comes before agent_start, every event
// streams, and the state, messages and stats agree afterwards.
func TestPromptWithToolCallThenState(t *testing.T) {
	h := newHarness(t, script(
		fakellm.Turn{Text: "I'll look.", ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "echo from-tool"})}},
		textTurn("Done."),
	), harnessOptions{})
	h.send(`{"id":"p1","type":"prompt","message":"List the files here"}`)
	ri, r := h.waitFrom(0, "prompt response", func(m map[string]any) bool { return m["id"] == "p1" })
	if r["success"] != true || r["command"] != "prompt" {
		t.Fatalf("prompt response %v", r)
	}
	if _, ok := r["data"]; ok {
		t.Fatalf("prompt response carries data: %v", r)
	}
	si, _ := h.event(0, "agent_start")
	if ri > si {
		t.Fatalf("the prompt was answered after agent_start (line %d > %d)", ri, si)
	}
	_, end := h.event(si, "tool_execution_end")
	if !strings.Contains(fmt.Sprint(dig(end, "result", "content", 0, "text")), "from-tool") {
		t.Fatalf("tool_execution_end %v", end)
	}
	h.event(si, "agent_end")
	h.event(si, "agent_settled")
	for _, m := range h.out.snapshot() {
		if m["type"] == "message_update" {
			if _, ok := m["message"]; ok {
				t.Fatalf("message_update carries the partial message (Atomic sends the delta only): %v", m)
			}
			if _, ok := m["assistantMessageEvent"]; !ok {
				t.Fatalf("message_update without assistantMessageEvent: %v", m)
			}
		}
	}

	msgs := dig(h.ok("m", map[string]any{"type": "get_messages"}), "messages").([]any)
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, fmt.Sprint(dig(m, "role")))
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,assistant" {
		t.Fatalf("messages %v", roles)
	}
	st := h.ok("s", map[string]any{"type": "get_state"})
	for k, want := range map[string]any{"isStreaming": false, "messageCount": 4.0, "pendingMessageCount": 0.0, "thinkingLevel": "off", "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time", "isCompacting": false, "autoCompactionEnabled": true} {
		if got := dig(st, k); got != want {
			t.Errorf("get_state %s = %v, want %v", k, got, want)
		}
	}
	if dig(st, "model", "id") != "fake-model" || dig(st, "sessionId") == "" || dig(st, "sessionFile") == nil {
		t.Errorf("get_state %v", st)
	}
	stats := h.ok("st", map[string]any{"type": "get_session_stats"})
	for k, want := range map[string]float64{"userMessages": 1, "assistantMessages": 2, "toolCalls": 1, "toolResults": 1, "totalMessages": 4} {
		if got := dig(stats, k); got != want {
			t.Errorf("stats %s = %v, want %v", k, got, want)
		}
	}
	if dig(stats, "tokens", "total") == 0.0 || dig(stats, "contextUsage", "contextWindow") != 100000.0 {
		t.Errorf("stats %v", stats)
	}
	if got := dig(h.ok("t", map[string]any{"type": "get_last_assistant_text"}), "text"); got != "Done." {
		t.Errorf("last assistant text %v", got)
	}
}

// Framing: bad frames are answered with errors and the next frame is served; CRLF, U+2028 and
// an unterminated last frame are handled.
func TestFramesAndErrors(t *testing.T) {
	h := newHarness(t, script(), harnessOptions{})
	h.send("this is not json")
	_, r := h.waitFrom(0, "parse error", func(m map[string]any) bool { return m["command"] == "parse" })
	if r["success"] != false || !strings.HasPrefix(fmt.Sprint(r["error"]), "Failed to parse command: ") || r["id"] != nil {
		t.Fatalf("parse error %v", r)
	}
	cases := []struct{ frame, id, command, errPart string }{
		{`[1,2]`, "", "parse", "JSON object"},
		{`{"id":"a"}`, "a", "parse", `"type"`},
		{`{"id":"b","type":7}`, "b", "parse", `"type"`},
		{`{"id":"c","type":"frobnicate"}`, "c", "frobnicate", "Unknown command: frobnicate"},
		{`{"id":"d","type":"prompt"}`, "d", "prompt", `"message" is required`},
		{`{"id":"e","type":"prompt","message":5}`, "e", "prompt", "message: expected a string, got number"},
		{`{"id":"f","type":"prompt","message":"x","streamingBehavior":"later"}`, "f", "prompt", "streamingBehavior"},
		{`{"id":"g","type":"set_thinking_level","level":"hot"}`, "g", "set_thinking_level", "Invalid thinking level"},
		{`{"id":"h","type":"prompt","message":"x","images":[{"type":"text","text":"no"}]}`, "h", "prompt", "images[0]"},
		{`{"id":"i","type":"set_steering_mode","mode":"some"}`, "i", "set_steering_mode", "mode must be"},
	}
	for _, c := range cases {
		mark := h.out.count()
		h.send(c.frame)
		var r map[string]any
		if c.id == "" {
			_, r = h.waitFrom(mark, c.frame, func(m map[string]any) bool { return m["type"] == "response" })
		} else {
			r = h.response(c.id)
		}
		if r["success"] != false || r["command"] != c.command || !strings.Contains(fmt.Sprint(r["error"]), c.errPart) {
			t.Errorf("%s: response %v", c.frame, r)
		}
	}
	h.send("{\"id\":\"crlf\",\"type\":\"get_state\"}\r\n")
	if r := h.response("crlf"); r["success"] != true {
		t.Fatalf("CRLF frame: %v", r)
	}
	h.send("{\"id\":\"ls\",\"type\":\"set_session_name\",\"name\":\"a\u2028b\u2029c\"}")
	h.response("ls")
	if got := dig(h.ok("ls2", map[string]any{"type": "get_state"}), "sessionName"); got != "a\u2028b\u2029c" {
		t.Fatalf("session name %q", got)
	}
	big := strings.Repeat("x", 3<<20)
	h.send(`{"id":"big","type":"set_session_name","name":"` + big + `"}`)
	if r := h.response("big"); r["success"] != true {
		t.Fatalf("3 MiB frame: %v", r)
	}
	h.send(`{"id":42,"type":"get_state"}`)
	_, r = h.waitFrom(0, "numeric id", func(m map[string]any) bool { return m["id"] == 42.0 })
	if r["success"] != true {
		t.Fatalf("numeric id: %v", r)
	}
	// The last frame without a newline is still served before the input ends.
	if _, err := h.in.Write([]byte(`{"id":"last","type":"get_state"}`)); err != nil {
		t.Fatal(err)
	}
	h.in.Close()
	if r := h.response("last"); r["success"] != true {
		t.Fatalf("unterminated last frame: %v", r)
	}
	if code := h.close(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if len(h.out.bad) > 0 {
		t.Fatalf("lines that are not JSON: %q", h.out.bad)
	}
}

// A prompt sent while streaming needs streamingBehavior; followUp queues it.
func TestPromptWhileStreaming(t *testing.T) {
	h := newHarness(t, script(slowTurn("one two three four five six seven eight nine ten"), textTurn("Followed up.")), harnessOptions{})
	mark := h.out.count()
	h.ok("p1", map[string]any{"type": "prompt", "message": "start"})
	h.event(mark, "message_update")
	r := h.call("p2", map[string]any{"type": "prompt", "message": "again"})
	if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "streamingBehavior") {
		t.Fatalf("prompt while streaming: %v", r)
	}
	h.ok("p3", map[string]any{"type": "prompt", "message": "after that", "streamingBehavior": "followUp"})
	if n := dig(h.ok("s", map[string]any{"type": "get_state"}), "pendingMessageCount"); n != 1.0 {
		t.Fatalf("pendingMessageCount %v", n)
	}
	h.event(mark, "agent_end")
	msgs := dig(h.ok("m", map[string]any{"type": "get_messages"}), "messages").([]any)
	if len(msgs) != 4 || dig(msgs, 2, "content", 0, "text") != "after that" || dig(msgs, 3, "content", 0, "text") != "Followed up." {
		t.Fatalf("messages %v", msgs)
	}
	for _, id := range []string{"p1", "p2", "p3"} {
		if n := h.countResponses(id); n != 1 {
			t.Fatalf("%s answered %d times", id, n)
		}
	}
}

// steer mid-run is delivered before the next model call; abort mid-run ends it aborted and is
// answered once the session is idle.
func TestSteerAndAbortMidRun(t *testing.T) {
	h := newHarness(t, script(
		fakellm.Turn{Text: "Working.", ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "sleep 0.3; echo slept"})}},
		textTurn("Saw the steer."),
		slowTurn("a long answer that will be cut off before it ends properly"),
	), harnessOptions{})
	mark := h.out.count()
	h.ok("p1", map[string]any{"type": "prompt", "message": "do it"})
	h.event(mark, "tool_execution_start")
	h.ok("st", map[string]any{"type": "steer", "message": "also check the tests"})
	h.event(mark, "agent_end")
	msgs := dig(h.ok("m", map[string]any{"type": "get_messages"}), "messages").([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, fmt.Sprint(dig(m, "role")))
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,user,assistant" || dig(msgs, 3, "content", 0, "text") != "also check the tests" {
		t.Fatalf("after steer: %v", roles)
	}
	if r := h.call("st2", map[string]any{"type": "steer", "message": "/nope"}); r["success"] != true {
		t.Fatalf("steer of a non-command slash text: %v", r)
	}
	h.ok("clear", map[string]any{"type": "clear_queue"})

	mark = h.out.count()
	h.ok("p2", map[string]any{"type": "prompt", "message": "talk"})
	h.event(mark, "message_update")
	h.send(`{"id":"ab","type":"abort"}`)
	ai, _ := h.waitFrom(mark, "abort response", func(m map[string]any) bool { return m["id"] == "ab" })
	ei, end := h.event(mark, "agent_end")
	if ai < ei {
		t.Fatalf("abort answered before agent_end")
	}
	if dig(end, "messages", -1, "stopReason") != "aborted" {
		t.Fatalf("agent_end %v", end)
	}
	if st := h.ok("s", map[string]any{"type": "get_state"}); dig(st, "isStreaming") != false {
		t.Fatalf("streaming after abort: %v", st)
	}
}

// uiExtension registers commands that exercise ctx.ui and ctx.shutdown.
func uiExtension(api ext.API) error {
	cmd := func(name string, fn func(ctx context.Context, c ext.CommandContext, args string) error) {
		if err := api.RegisterCommand(name, ext.Command{Description: "test " + name, Handler: fn,
			Completions: func(p string) []ext.AutocompleteItem {
				return []ext.AutocompleteItem{{Value: p + "-a", Label: "A " + p, Description: "first"}, {Value: p + "-b"}}
			}}); err != nil {
			panic(err)
		}
	}
	cmd("ask", func(ctx context.Context, c ext.CommandContext, args string) error {
		ok := c.UI().Confirm(ctx, "Proceed?", args)
		c.UI().Notify(fmt.Sprintf("confirmed=%v hasUI=%v mode=%s", ok, c.HasUI(), c.Mode()), "")
		return nil
	})
	cmd("pick", func(ctx context.Context, c ext.CommandContext, args string) error {
		v, ok := c.UI().Select(ctx, "Pick one", strings.Fields(args))
		c.UI().Notify(fmt.Sprintf("picked=%q ok=%v", v, ok), "info")
		return nil
	})
	cmd("type", func(ctx context.Context, c ext.CommandContext, args string) error {
		ctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
		defer cancel()
		v, ok := c.UI().Input(ctx, "Type", "here")
		c.UI().Notify(fmt.Sprintf("typed=%q ok=%v", v, ok), "warning")
		return nil
	})
	cmd("edit", func(ctx context.Context, c ext.CommandContext, args string) error {
		v, ok := c.UI().Editor(ctx, "Edit", "prefilled")
		c.UI().Notify(fmt.Sprintf("edited=%q ok=%v", v, ok), "")
		return nil
	})
	cmd("decorate", func(ctx context.Context, c ext.CommandContext, args string) error {
		u := c.UI()
		u.SetStatus("k", "busy")
		u.SetStatus("k", "")
		u.SetWidget("w", []string{"l1", "l2"})
		u.SetWidget("w", nil)
		u.SetTitle("atomic test")
		u.SetEditorText("draft")
		return nil
	})
	cmd("quit", func(ctx context.Context, c ext.CommandContext, args string) error {
		c.Shutdown()
		return nil
	})
	cmd("fail", func(ctx context.Context, c ext.CommandContext, args string) error {
		return fmt.Errorf("it failed")
	})
	ext.On(api, func(c ext.Context, e *ext.UserBash) (*ext.UserExecResult, error) {
		if !strings.HasPrefix(e.Command, "fake:") {
			return nil, nil
		}
		code := 3
		return &ext.UserExecResult{Result: &ext.ExecResult{Output: "faked " + e.Command[5:], ExitCode: &code}}, nil
	})
	return api.RegisterShortcut("ctrl+t", ext.Shortcut{Description: "toggle", Handler: func(ctx context.Context, c ext.Context) error {
		c.UI().Notify("shortcut ran", "")
		return nil
	}})
}

func uiRequest(h *harness, from int, method string) (int, map[string]any) {
	h.t.Helper()
	return h.waitFrom(from, method+" request", func(m map[string]any) bool {
		return m["type"] == "extension_ui_request" && m["method"] == method
	})
}

func notice(h *harness, from int, prefix string) string {
	h.t.Helper()
	_, m := h.waitFrom(from, "notify "+prefix, func(m map[string]any) bool {
		return m["method"] == "notify" && strings.HasPrefix(fmt.Sprint(m["message"]), prefix)
	})
	return fmt.Sprint(m["message"])
}

// The extension UI sub-protocol: dialogs answered by the client, defaults on cancel, mismatch
// and timeout, fire-and-forget requests, hasUI and mode.
func TestExtensionUI(t *testing.T) {
	h := newHarness(t, script(), harnessOptions{exts: []ext.Factory{uiExtension}})
	mark := h.out.count()
	h.send(`{"id":"a1","type":"prompt","message":"/ask really?"}`)
	_, req := uiRequest(h, mark, "confirm")
	if req["title"] != "Proceed?" || req["message"] != "really?" || len(fmt.Sprint(req["id"])) != 36 {
		t.Fatalf("confirm request %v", req)
	}
	if _, ok := req["timeout"]; ok {
		t.Fatalf("confirm without a deadline carries a timeout: %v", req)
	}
	// get_state is an ordinary command: it waits behind the prompt; abort jumps the queue.
	h.send(`{"id":"queued","type":"get_state"}`)
	h.send(`{"id":"jump","type":"abort"}`)
	h.response("jump")
	if h.countResponses("queued") != 0 {
		t.Fatal("get_state was answered before the prompt ahead of it")
	}
	h.send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": true})
	if got := notice(h, mark, "confirmed="); got != "confirmed=true hasUI=true mode=rpc" {
		t.Fatalf("notice %q", got)
	}
	if r := h.response("a1"); r["success"] != true {
		t.Fatalf("/ask response %v", r)
	}
	h.response("queued")
	// A late answer to the finished dialog is ignored.
	h.send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": false})

	mark = h.out.count()
	h.send(`{"id":"a2","type":"prompt","message":"/ask again"}`)
	_, req = uiRequest(h, mark, "confirm")
	h.send(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": "yes"}) // mismatched field
	if got := notice(h, mark, "confirmed="); !strings.HasPrefix(got, "confirmed=false") {
		t.Fatalf("mismatched answer gave %q", got)
	}

	mark = h.out.count()
	h.send(`{"id":"s1","type":"prompt","message":"/pick red green"}`)
	_, req = uiRequest(h, mark, "select")
	if fmt.Sprint(req["options"]) != "[red green]" {
		t.Fatalf("select request %v", req)
	}
	h.send(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": "green"})
	if got := notice(h, mark, "picked="); got != `picked="green" ok=true` {
		t.Fatalf("select gave %q", got)
	}
	mark = h.out.count()
	h.send(`{"id":"s2","type":"prompt","message":"/pick red green"}`)
	_, req = uiRequest(h, mark, "select")
	h.send(map[string]any{"type": "extension_ui_response", "id": req["id"], "cancelled": true})
	if got := notice(h, mark, "picked="); got != `picked="" ok=false` {
		t.Fatalf("cancelled select gave %q", got)
	}

	mark = h.out.count()
	h.send(`{"id":"i1","type":"prompt","message":"/type"}`)
	_, req = uiRequest(h, mark, "input")
	if ms, ok := req["timeout"].(float64); !ok || ms <= 0 || ms > 150 || req["placeholder"] != "here" {
		t.Fatalf("input request %v", req)
	}
	if got := notice(h, mark, "typed="); got != `typed="" ok=false` {
		t.Fatalf("timed-out input gave %q", got)
	}
	_, n := h.waitFrom(mark, "warning", func(m map[string]any) bool { return m["notifyType"] == "warning" })
	if n == nil {
		t.Fatal("no warning notify")
	}

	mark = h.out.count()
	h.send(`{"id":"e1","type":"prompt","message":"/edit"}`)
	_, req = uiRequest(h, mark, "editor")
	if req["prefill"] != "prefilled" {
		t.Fatalf("editor request %v", req)
	}
	if _, ok := req["timeout"]; ok {
		t.Fatalf("editor request carries a timeout: %v", req)
	}
	h.send(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": "new text"})
	if got := notice(h, mark, "edited="); got != `edited="new text" ok=true` {
		t.Fatalf("editor gave %q", got)
	}

	mark = h.out.count()
	h.ok("d", map[string]any{"type": "prompt", "message": "/decorate"})
	var got []string
	for _, m := range h.out.snapshot()[mark:] {
		if m["type"] != "extension_ui_request" {
			continue
		}
		delete(m, "id")
		delete(m, "type")
		got = append(got, fmt.Sprint(m))
	}
	want := []string{
		"map[method:setStatus statusKey:k statusText:busy]",
		"map[method:setStatus statusKey:k]",
		"map[method:setWidget widgetKey:w widgetLines:[l1 l2]]",
		"map[method:setWidget widgetKey:w]",
		"map[method:setTitle title:atomic test]",
		"map[method:set_editor_text text:draft]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("fire-and-forget requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if r := h.call("f", map[string]any{"type": "prompt", "message": "/fail"}); r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "it failed") {
		t.Fatalf("/fail: %v", r)
	}
	if r := h.call("sq", map[string]any{"type": "steer", "message": "/ask x"}); r["success"] != false {
		t.Fatalf("steer of an extension command: %v", r)
	}
	cmds := dig(h.ok("c", map[string]any{"type": "get_commands"}), "commands").([]any)
	if len(cmds) != 7 || dig(cmds, 0, "name") != "ask" || dig(cmds, 0, "source") != "extension" || dig(cmds, 0, "sourceInfo", "path") != "<sdk:test-1>" {
		t.Fatalf("get_commands %v", cmds)
	}
	if c := h.ok("cc", map[string]any{"type": "get_command_completions", "commandName": "ask", "argumentPrefix": "x"}); fmt.Sprint(dig(c, "completions")) != "[map[description:first label:A x value:x-a] map[label:x-b value:x-b]]" {
		t.Fatalf("completions %v", c)
	}
	if c := h.ok("cc2", map[string]any{"type": "get_command_completions", "commandName": "none"}); dig(c, "completions") != nil {
		t.Fatalf("completions of an unknown command %v", c)
	}
	if s := h.ok("sc", map[string]any{"type": "get_shortcuts"}); fmt.Sprint(dig(s, "shortcuts")) != "[map[description:toggle key:ctrl+t]]" {
		t.Fatalf("shortcuts %v", s)
	}
	mark = h.out.count()
	h.ok("is", map[string]any{"type": "invoke_shortcut", "key": "ctrl+t"})
	notice(h, mark, "shortcut ran")
	if r := h.call("is2", map[string]any{"type": "invoke_shortcut", "key": "nope"}); r["error"] != "Shortcut not found: nope" {
		t.Fatalf("unknown shortcut: %v", r)
	}
}

// Dialogs pending when the input ends resolve to their defaults, so shutdown never hangs.
func TestDialogsResolveAtEOF(t *testing.T) {
	h := newHarness(t, script(), harnessOptions{exts: []ext.Factory{uiExtension}})
	h.send(`{"id":"a","type":"prompt","message":"/ask x"}`)
	uiRequest(h, 0, "confirm")
	if code := h.close(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := notice(h, 0, "confirmed="); !strings.HasPrefix(got, "confirmed=false") {
		t.Fatalf("notice %q", got)
	}
	if h.countResponses("a") != 1 {
		t.Fatal("the prompt was not answered before exit")
	}
}

// ctx.shutdown() ends Serve at the next idle point: at once when idle, after the run otherwise.
func TestShutdownWaitsForIdle(t *testing.T) {
	h := newHarness(t, script(slowTurn("streaming for a while, then done, then the end")), harnessOptions{exts: []ext.Factory{uiExtension}})
	mark := h.out.count()
	h.ok("p", map[string]any{"type": "prompt", "message": "go"})
	h.event(mark, "message_update")
	h.ok("q", map[string]any{"type": "prompt", "message": "/quit"})
	select {
	case <-h.code:
		t.Fatal("Serve ended while the agent was streaming")
	case <-time.After(100 * time.Millisecond):
	}
	h.event(mark, "agent_end")
	select {
	case code := <-h.code:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		h.code <- code
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not end after the run")
	}
}

// Direct bash: output, streaming updates with the id, the record in the context, exclusion,
// abort_bash and a user_bash handler that replaces execution.
func TestBash(t *testing.T) {
	h := newHarness(t, script(textTurn("ok")), harnessOptions{exts: []ext.Factory{uiExtension}})
	data := h.ok("b1", map[string]any{"type": "bash", "command": "echo hi; printf '\\033[31mred\\033[0m\\r\\n' >&2; exit 2"})
	if dig(data, "output") != "hi\nred\n" || dig(data, "exitCode") != 2.0 || dig(data, "cancelled") != false || dig(data, "truncated") != false {
		t.Fatalf("bash result %v", data)
	}
	_, up := h.waitFrom(0, "bash update", func(m map[string]any) bool { return m["type"] == "bash_execution_update" })
	if up["id"] != "b1" || up["channel"] != "stdout" || !strings.Contains(fmt.Sprint(up["delta"]), "hi") {
		t.Fatalf("bash_execution_update %v", up)
	}
	h.ok("b2", map[string]any{"type": "user_bash", "command": "echo secret", "excludeFromContext": true})
	data = h.ok("b3", map[string]any{"type": "bash", "command": "fake:thing"})
	if dig(data, "output") != "faked thing" || dig(data, "exitCode") != 3.0 {
		t.Fatalf("user_bash replacement %v", data)
	}
	msgs := dig(h.ok("m", map[string]any{"type": "get_messages"}), "messages").([]any)
	saved := 0
	for _, e := range h.rt.Session().Store().Entries() {
		if e.Role() == "bashExecution" {
			saved++
		}
	}
	if saved != 3 {
		t.Fatalf("%d bashExecution entries saved, want 3", saved)
	}
	if len(msgs) != 3 || dig(msgs, 0, "role") != "bashExecution" || dig(msgs, 0, "command") != "echo hi; printf '\\033[31mred\\033[0m\\r\\n' >&2; exit 2" || dig(msgs, 1, "excludeFromContext") != true || dig(msgs, 2, "output") != "faked thing" {
		t.Fatalf("bash records %v", msgs)
	}

	h.send(`{"id":"long","type":"bash","command":"echo started; sleep 20"}`)
	h.waitFrom(0, "long started", func(m map[string]any) bool { return m["id"] == "long" && m["type"] == "bash_execution_update" })
	h.ok("ab", map[string]any{"type": "abort_bash", "requestId": "long"})
	r := h.response("long")
	if dig(r, "data", "cancelled") != true || dig(r, "data", "exitCode") != nil || dig(r, "data", "output") != "started\n" {
		t.Fatalf("aborted bash %v", r)
	}

	// The next prompt sends the records to the model, except the excluded one.
	h.ok("p", map[string]any{"type": "prompt", "message": "what ran?"})
	h.event(0, "agent_end")
	body := string(h.srv.Requests()[0].Body)
	if !strings.Contains(body, "Ran `echo hi") || !strings.Contains(body, "Command exited with code 2") || strings.Contains(body, "secret") || !strings.Contains(body, "(command cancelled)") {
		t.Fatalf("request body lacks the bash records or leaks the excluded one: %s", body)
	}
}

// Commands whose subsystem does not exist answer with an error naming it; toggles are recorded.
func TestUnavailableCommands(t *testing.T) {
	h := newHarness(t, script(), harnessOptions{})
	for _, typ := range []string{"refresh_models", "login_provider", "pause_queued_messages", "import_session"} {
		cmd := map[string]any{"type": typ, "provider": "x", "inputPath": "/x"}
		r := h.call("u-"+typ, cmd)
		if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "not available") {
			t.Errorf("%s: %v", typ, r)
		}
	}
	h.ok("ac", map[string]any{"type": "set_auto_compaction", "enabled": false})
	h.ok("ar", map[string]any{"type": "set_auto_retry", "enabled": false})
	h.ok("abr", map[string]any{"type": "abort_retry"}) // no retry pending: a no-op
	st := h.ok("s", map[string]any{"type": "get_state"})
	if dig(st, "autoCompactionEnabled") != false || dig(st, "autoRetryEnabled") != false {
		t.Fatalf("toggles not recorded: %v", st)
	}
}

// Models, thinking levels and queue modes.
func TestModelsAndThinking(t *testing.T) {
	h := newHarness(t, script(), harnessOptions{})
	models := dig(h.ok("am", map[string]any{"type": "get_available_models"}), "models").([]any)
	var ids []string
	for _, m := range models {
		ids = append(ids, fmt.Sprint(dig(m, "provider"))+"/"+fmt.Sprint(dig(m, "id")))
	}
	if !strings.Contains(strings.Join(ids, ","), "fakellm/fake-model,fakellm/fake-reasoner") {
		t.Fatalf("available models %v", ids)
	}
	if r := h.call("bad", map[string]any{"type": "set_model", "provider": "fakellm", "modelId": "nope"}); r["error"] != "Model not found: fakellm/nope" {
		t.Fatalf("unknown model: %v", r)
	}
	if levels := dig(h.ok("l0", map[string]any{"type": "get_available_thinking_levels"}), "levels"); fmt.Sprint(levels) != "[off]" {
		t.Fatalf("levels of a non-reasoning model %v", levels)
	}
	if d := h.ok("ct0", map[string]any{"type": "cycle_thinking_level"}); d != nil {
		t.Fatalf("cycle_thinking_level without reasoning: %v", d)
	}
	m := h.ok("sm", map[string]any{"type": "set_model", "provider": "fakellm", "modelId": "fake-reasoner"})
	if dig(m, "id") != "fake-reasoner" || dig(m, "reasoning") != true {
		t.Fatalf("set_model %v", m)
	}
	if levels := dig(h.ok("l1", map[string]any{"type": "get_available_thinking_levels"}), "levels"); fmt.Sprint(levels) != "[off minimal low medium high]" {
		t.Fatalf("levels %v", levels)
	}
	h.ok("tl", map[string]any{"type": "set_thinking_level", "level": "high"})
	if d := h.ok("ct", map[string]any{"type": "cycle_thinking_level"}); dig(d, "level") != "off" {
		t.Fatalf("cycle from high: %v", d)
	}
	h.ok("max", map[string]any{"type": "set_thinking_level", "level": "max"})
	if st := h.ok("s", map[string]any{"type": "get_state"}); dig(st, "thinkingLevel") != "high" || dig(st, "model", "id") != "fake-reasoner" {
		t.Fatalf("state %v", st)
	}
	c := h.ok("cm", map[string]any{"type": "cycle_model", "direction": "backward"})
	if dig(c, "model", "id") != "fake-model" || dig(c, "isScoped") != false || dig(c, "thinkingLevel") != "off" {
		t.Fatalf("cycle_model %v", c)
	}
	h.ok("sq", map[string]any{"type": "set_steering_mode", "mode": "all"})
	h.ok("fq", map[string]any{"type": "set_follow_up_mode", "mode": "all"})
	if st := h.ok("s2", map[string]any{"type": "get_state"}); dig(st, "steeringMode") != "all" || dig(st, "followUpMode") != "all" {
		t.Fatalf("queue modes %v", st)
	}
	_, ev := h.event(0, "model_changed")
	if dig(ev, "model", "id") != "fake-reasoner" {
		t.Fatalf("model_changed %v", ev)
	}
}

// Session commands: names, entries, tree, labels, fork, clone, new and switch.
func TestSessionCommands(t *testing.T) {
	h := newHarness(t, script(textTurn("First answer."), textTurn("Second answer.")), harnessOptions{})
	mark := h.out.count()
	h.ok("p1", map[string]any{"type": "prompt", "message": "first"})
	h.event(mark, "agent_settled")
	mark = h.out.count()
	h.ok("p2", map[string]any{"type": "prompt", "message": "second"})
	h.event(mark, "agent_settled")
	first := dig(h.ok("st", map[string]any{"type": "get_state"}), "sessionFile").(string)

	if r := h.call("n0", map[string]any{"type": "set_session_name", "name": "  "}); r["error"] != "Session name cannot be empty" {
		t.Fatalf("empty name: %v", r)
	}
	h.ok("n1", map[string]any{"type": "set_session_name", "name": "  my work "})
	_, ev := h.event(0, "session_info_changed")
	if ev["name"] != "my work" {
		t.Fatalf("session_info_changed %v", ev)
	}
	fm := dig(h.ok("fm", map[string]any{"type": "get_fork_messages"}), "messages").([]any)
	if len(fm) != 2 || dig(fm, 1, "text") != "second" {
		t.Fatalf("fork messages %v", fm)
	}
	secondID := dig(fm, 1, "entryId").(string)
	all := h.ok("e", map[string]any{"type": "get_entries"})
	entries := dig(all, "entries").([]any)
	if dig(all, "leafId") != dig(entries, -1, "id") {
		t.Fatalf("leafId %v", all)
	}
	since := dig(h.ok("e2", map[string]any{"type": "get_entries", "since": secondID}), "entries").([]any)
	if len(since) == 0 || dig(since, 0, "message", "role") != "assistant" {
		t.Fatalf("entries since %v", since)
	}
	if r := h.call("e3", map[string]any{"type": "get_entries", "since": "nothere"}); r["error"] != "Entry not found: nothere" {
		t.Fatalf("unknown since: %v", r)
	}
	h.ok("lb", map[string]any{"type": "set_label", "entryId": secondID, "label": "mark"})
	tree := h.ok("t", map[string]any{"type": "get_tree"})
	if len(dig(tree, "tree").([]any)) != 1 || dig(tree, "leafId") == nil {
		t.Fatalf("tree %v", tree)
	}
	if r := h.call("f0", map[string]any{"type": "fork", "entryId": dig(entries, 0, "id")}); r["success"] != false {
		t.Fatalf("fork at a non-user entry: %v", r)
	}
	f := h.ok("f", map[string]any{"type": "fork", "entryId": secondID})
	if dig(f, "text") != "second" || dig(f, "cancelled") != false {
		t.Fatalf("fork %v", f)
	}
	st := h.ok("st2", map[string]any{"type": "get_state"})
	if dig(st, "messageCount") != 2.0 || dig(st, "sessionFile") == first {
		t.Fatalf("state after fork %v", st)
	}
	if c := h.ok("cl", map[string]any{"type": "clone"}); dig(c, "cancelled") != false {
		t.Fatalf("clone %v", c)
	}
	n := h.ok("new", map[string]any{"type": "new_session"})
	if dig(n, "cancelled") != false {
		t.Fatalf("new_session %v", n)
	}
	st = h.ok("st3", map[string]any{"type": "get_state"})
	if dig(st, "messageCount") != 0.0 {
		t.Fatalf("state after new_session %v", st)
	}
	if r := h.call("sw0", map[string]any{"type": "switch_session", "sessionPath": filepath.Join(h.dir, "none.jsonl")}); r["success"] != false {
		t.Fatalf("switch to a missing file: %v", r)
	}
	if _, err := os.Stat(first); err != nil {
		t.Fatal(err)
	}
	h.ok("sw", map[string]any{"type": "switch_session", "sessionPath": first})
	st = h.ok("st4", map[string]any{"type": "get_state"})
	if dig(st, "sessionFile") != first || dig(st, "messageCount") != 4.0 || dig(st, "sessionName") != "my work" {
		t.Fatalf("state after switch %v", st)
	}
	h.ok("rl", map[string]any{"type": "reload"})
	h.ok("nav", map[string]any{"type": "navigate_tree", "targetId": secondID})
}

// Every command is answered exactly once, also when the same id is reused.
func TestEveryFrameAnsweredOnce(t *testing.T) {
	h := newHarness(t, script(), harnessOptions{tools: []string{}})
	var ids []string
	for i := 0; i < 50; i++ {
		id := fmt.Sprintf("x%d", i)
		ids = append(ids, id)
		switch i % 5 {
		case 0:
			h.send(`{"id":"` + id + `","type":"get_state"}`)
		case 1:
			h.send(`{"id":"` + id + `","type":"abort"}`)
		case 2:
			h.send(`{"id":"` + id + `","type":"what"}`)
		case 3:
			h.send(`{"id":"` + id + `","type":"bash","command":"true"}`)
		case 4:
			h.send(`{"id":"` + id + `","type":"abort_bash"}`)
		}
	}
	h.close()
	for _, id := range ids {
		if n := h.countResponses(id); n != 1 {
			t.Errorf("%s answered %d times", id, n)
		}
	}
}

// A failing extension handler is reported as an extension_error line (written by the mode).
func TestExtensionErrorLine(t *testing.T) {
	failing := func(api ext.API) error {
		ext.On(api, func(c ext.Context, e *ext.TurnStart) (ext.None, error) { return nil, fmt.Errorf("boom") })
		return nil
	}
	h := newHarness(t, script(textTurn("ok")), harnessOptions{exts: []ext.Factory{failing}})
	h.ok("p", map[string]any{"type": "prompt", "message": "hi"})
	_, e := h.event(0, "extension_error")
	if e["extensionPath"] != "go:test-1" || e["event"] != "turn_start" || e["error"] != "boom" || len(e) != 4 {
		t.Fatalf("extension_error %v", e)
	}
}

// Images sent with a prompt join the user message after its text.
func TestPromptImages(t *testing.T) {
	h := newHarness(t, script(textTurn("A pixel.")), harnessOptions{})
	h.ok("p", map[string]any{"type": "prompt", "message": "what is this?", "images": []any{map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}}})
	h.event(0, "agent_settled")
	msgs := dig(h.ok("m", map[string]any{"type": "get_messages"}), "messages").([]any)
	if dig(msgs, 0, "content", 0, "text") != "what is this?" || dig(msgs, 0, "content", 1, "type") != "image" || dig(msgs, 0, "content", 1, "mimeType") != "image/png" {
		t.Fatalf("user message %v", dig(msgs, 0))
	}
}

// The settings shellPath and shellCommandPrefix reach the user's shell commands (pi's
// executeBash): the command runs as `<shellPath> -c "<prefix>\n<command>"` and is recorded as
// typed; a shellPath that does not exist fails the command with "Custom shell path not found".
func TestBashShellSettings(t *testing.T) {
	dir := t.TempDir()
	shell := filepath.Join(dir, "myshell")
	if err := os.WriteFile(shell, []byte("#!/bin/sh\necho via myshell\nexec /bin/sh \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, script(), harnessOptions{shellPath: shell, shellPrefix: "PREFIXED=yes"})
	data := h.ok("b1", map[string]any{"type": "bash", "command": "echo prefix=$PREFIXED"})
	if dig(data, "output") != "via myshell\nprefix=yes\n" {
		t.Fatalf("bash through the shell settings: %v", data)
	}
	msgs := dig(h.ok("m", map[string]any{"type": "get_messages"}), "messages").([]any)
	if len(msgs) != 1 || dig(msgs, 0, "command") != "echo prefix=$PREFIXED" {
		t.Fatalf("the record does not keep the command as typed: %v", msgs)
	}

	missing := newHarness(t, script(), harnessOptions{shellPath: filepath.Join(dir, "nosuchshell")})
	r := missing.call("b2", map[string]any{"type": "bash", "command": "true"})
	if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "Custom shell path not found: "+filepath.Join(dir, "nosuchshell")) {
		t.Fatalf("a missing shellPath: %v", r)
	}
}
