package session_test

// Behaviour of the events whose results change what the session does (events.md §3.4–§3.6),
// observed at the provider and in the persisted session.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

func xtStr(s string) *string { return &s }

// ---------------------------------------------------------------------------------------------
// before_agent_start

func TestExtBeforeAgentStartChainsSystemPrompt(t *testing.T) {
	p := xtProvider()
	var seenBySecond, ctxInSecond, ctxInFirst string
	h := xtStart(t, p, []ext.Factory{
		func(a ext.API) error {
			ext.On(a, func(c ext.Context, e *ext.BeforeAgentStart) (*ext.BeforeAgentStartResult, error) {
				ctxInFirst = c.GetSystemPrompt()
				return &ext.BeforeAgentStartResult{SystemPrompt: xtStr(e.SystemPrompt + " +A")}, nil
			})
			return nil
		},
		func(a ext.API) error {
			ext.On(a, func(c ext.Context, e *ext.BeforeAgentStart) (*ext.BeforeAgentStartResult, error) {
				seenBySecond = e.SystemPrompt
				ctxInSecond = c.GetSystemPrompt()
				return &ext.BeforeAgentStartResult{SystemPrompt: xtStr(e.SystemPrompt + " +B")}, nil
			})
			return nil
		},
	}, func(o *session.Options) { o.SystemPrompt = "BASE" })
	h.mustPrompt("hi")
	if seenBySecond != "BASE +A" {
		t.Fatalf("second handler saw %q, want the chained BASE +A", seenBySecond)
	}
	if got := p.requests()[0].System; got != "BASE +A +B" {
		t.Fatalf("provider system prompt %q", got)
	}
	if ctxInFirst != "BASE" {
		t.Errorf("ctx.getSystemPrompt() in the first handler = %q, want BASE", ctxInFirst)
	}
	if ctxInSecond != "BASE +A" {
		t.Skipf("BUG: ctx.getSystemPrompt() during before_agent_start returns %q, want the chained %q (session/context.go extContext.GetSystemPrompt reads the agent config, not the chain)", ctxInSecond, "BASE +A")
	}
}

// When no handler changes the prompt, the per-turn override is reset to the base prompt.
func TestExtBeforeAgentStartOverrideIsPerPrompt(t *testing.T) {
	p := xtProvider()
	first := true
	h := xtStart(t, p, []ext.Factory{func(a ext.API) error {
		ext.On(a, func(_ ext.Context, e *ext.BeforeAgentStart) (*ext.BeforeAgentStartResult, error) {
			if first {
				first = false
				return &ext.BeforeAgentStartResult{SystemPrompt: xtStr("ONCE")}, nil
			}
			return nil, nil
		})
		return nil
	}}, func(o *session.Options) { o.SystemPrompt = "BASE" })
	h.mustPrompt("one")
	h.mustPrompt("two")
	reqs := p.requests()
	if reqs[0].System != "ONCE" || reqs[1].System != "BASE" {
		t.Fatalf("system prompts %q, %q; want ONCE then BASE", reqs[0].System, reqs[1].System)
	}
}

func TestExtBeforeAgentStartMessageInjectedAfterUserMessage(t *testing.T) {
	p := xtProvider()
	h := xtStart(t, p, []ext.Factory{
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.BeforeAgentStart) (*ext.BeforeAgentStartResult, error) {
				m := xtCustom("ctx-a", "injected A")
				return &ext.BeforeAgentStartResult{Message: &m}, nil
			})
			return nil
		},
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.BeforeAgentStart) (*ext.BeforeAgentStartResult, error) {
				m := xtCustom("ctx-b", "injected B")
				return &ext.BeforeAgentStartResult{Message: &m}, nil
			})
			return nil
		},
	}, nil)
	h.mustPrompt("question")
	if got := xtMsgs(p.requests()[0].Msgs); xtJoin(got) != "user:question ; user:injected A ; user:injected B" {
		t.Fatalf("provider messages %v", got)
	}
	got := xtEntries(h.s().Store())
	want := "message:user ; custom_message:ctx-a ; custom_message:ctx-b ; message:assistant"
	if !strings.HasSuffix(xtJoin(got), want) {
		t.Fatalf("entries %v, want to end with %s", got, want)
	}
}

// ---------------------------------------------------------------------------------------------
// input

func TestExtInputTransformAndHandled(t *testing.T) {
	p := xtProvider()
	var log xtLog
	h := xtStart(t, p, []ext.Factory{
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.Input) (*ext.InputResult, error) {
				log.add("A:%s:%s", e.Source, e.Text)
				switch {
				case strings.HasPrefix(e.Text, "swallow"):
					return &ext.InputResult{Action: "handled"}, nil
				case strings.HasPrefix(e.Text, "shout"):
					return &ext.InputResult{Action: "transform", Text: xtStr(strings.ToUpper(e.Text))}, nil
				}
				return &ext.InputResult{Action: "continue"}, nil
			})
			return nil
		},
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.Input) (*ext.InputResult, error) {
				log.add("B:%s", e.Text)
				if e.Text == "SHOUT" {
					return &ext.InputResult{Text: xtStr(e.Text + "!")}, nil // O's shape
				}
				return nil, nil
			})
			return nil
		},
	}, nil)
	h.mustPrompt("shout")
	if got := xtMsgs(p.requests()[0].Msgs); xtJoin(got) != "user:SHOUT!" {
		t.Fatalf("transformed prompt sent as %v", got)
	}
	h.mustPrompt("swallow this")
	if n := p.count(); n != 1 {
		t.Fatalf("handled input reached the provider (%d requests)", n)
	}
	if got := log.list(); xtJoin(got) != "A:interactive:shout ; B:SHOUT ; A:interactive:swallow this" {
		t.Fatalf("input dispatch %v (a handled result must stop later handlers)", got)
	}
	if got := xtEntries(h.s().Store()); strings.Count(xtJoin(got), "message:user") != 1 {
		t.Fatalf("handled input was persisted: %v", got)
	}
}

func TestExtInputSourceOption(t *testing.T) {
	var src string
	h := xtStart(t, xtProvider(), []ext.Factory{func(a ext.API) error {
		ext.On(a, func(_ ext.Context, e *ext.Input) (*ext.InputResult, error) { src = e.Source; return nil, nil })
		return nil
	}}, nil)
	if err := h.s().PromptWith(context.Background(), "x", session.PromptOptions{Source: "rpc"}); err != nil {
		t.Fatal(err)
	}
	if src != "rpc" {
		t.Fatalf("source %q, want rpc", src)
	}
}

// ---------------------------------------------------------------------------------------------
// context

func TestExtContextEventDeepCopyAndReplacement(t *testing.T) {
	p := xtProvider(xtCalls([3]string{"c1", "echo", `{"text":"v"}`}), xtSay("done"))
	h := xtStart(t, p, []ext.Factory{
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.ContextEvent) (*ext.ContextResult, error) {
				// Vandalise the copy in place: text, tool-call arguments, and the slice itself.
				for i := range e.Messages {
					m := &e.Messages[i]
					for j := range m.Content {
						if m.Content[j].Type == llm.ContentText {
							m.Content[j].Text = "MUTATED"
						}
						if m.Content[j].Arguments != nil {
							m.Content[j].Arguments["text"] = "MUTATED"
						}
					}
				}
				return nil, nil
			})
			return a.RegisterTool(xtEcho("echo"))
		},
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.ContextEvent) (*ext.ContextResult, error) {
				// Replace the list: keep the messages the first handler left, add a note.
				out := append([]llm.Message(nil), e.Messages...)
				out = append(out, llm.UserText("note from context", nil, 1))
				return &ext.ContextResult{Messages: out}, nil
			})
			return nil
		},
	}, nil)
	h.mustPrompt("original")
	reqs := p.requests()
	if got := xtMsgs(reqs[0].Msgs); xtJoin(got) != "user:MUTATED ; user:note from context" {
		t.Fatalf("first request %v, want the replacement (built on the mutated copy)", got)
	}
	// The session is untouched: context, store, and the arguments the tool actually ran with.
	sess := xtMsgs(h.s().Messages())
	if sess[0] != "user:original" || strings.Contains(xtJoin(sess), "MUTATED") || strings.Contains(xtJoin(sess), "note from context") {
		t.Fatalf("the context event changed the session: %v", sess)
	}
	if !xtContains(sess, "toolResult:echo v") {
		t.Fatalf("tool ran with mutated arguments: %v", sess)
	}
	for _, e := range h.s().Store().Entries() {
		if e.Message != nil && strings.Contains(llm.TextOf(e.Message.Content, ""), "MUTATED") {
			t.Fatalf("a mutation was persisted: %+v", e.Message)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// message_end

func TestExtMessageEndReplacement(t *testing.T) {
	p := xtProvider(xtSay("raw answer"), xtSay("second"))
	h := xtStart(t, p, []ext.Factory{func(a ext.API) error {
		ext.On(a, func(_ ext.Context, e *ext.MessageEnd) (*ext.MessageEndResult, error) {
			switch {
			case e.Message.Role == llm.RoleAssistant && llm.TextOf(e.Message.Content, "") == "raw answer":
				m := e.Message.Clone()
				m.Content = []llm.Content{llm.Text("redacted answer")}
				return &ext.MessageEndResult{Message: &m}, nil
			case e.Message.Role == llm.RoleUser && llm.TextOf(e.Message.Content, "") == "swap role":
				m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("hijack")}}
				return &ext.MessageEndResult{Message: &m}, nil
			}
			return nil, nil
		})
		return nil
	}}, nil)
	h.mustPrompt("first")
	st := h.s().Store()
	asst := xtFindEntry(st, func(e *store.Entry) bool { return e.Type == store.TypeMessage && e.Role() == llm.RoleAssistant })
	if got := llm.TextOf(asst.Message.Content, ""); got != "redacted answer" {
		t.Fatalf("persisted assistant text %q, want the replacement", got)
	}
	if got := xtMsgs(h.s().Messages()); got[1] != "assistant:redacted answer" {
		t.Fatalf("agent context %v", got)
	}

	h.mustPrompt("swap role")
	if got := xtMsgs(p.requests()[1].Msgs); got[1] != "assistant:redacted answer" || got[2] != "user:swap role" {
		t.Fatalf("second request %v: the replacement must be what later requests see and a role change must be rejected", got)
	}
	var users []string
	for _, e := range st.Entries() {
		if e.Type == store.TypeMessage && e.Role() == llm.RoleUser {
			users = append(users, llm.TextOf(e.Message.Content, ""))
		}
	}
	if xtJoin(users) != "first ; swap role" {
		t.Fatalf("user entries %v: a different-role replacement must be skipped", users)
	}
	var reported bool
	for _, e := range h.errors() {
		if e.Event == "message_end" && e.ExtensionPath == "go:ext-1" && strings.Contains(e.Message, "role") {
			reported = true
		}
	}
	if !reported {
		t.Fatalf("the rejected replacement was not reported: %+v", h.errors())
	}
}

// ---------------------------------------------------------------------------------------------
// tool_result

func TestExtToolResultPatchReachesProvider(t *testing.T) {
	p := xtProvider(xtCalls([3]string{"c1", "echo", `{"text":"secret"}`}, [3]string{"c2", "echo", `{"text":"plain"}`}), xtSay("done"))
	var seenIsError []bool
	h := xtStart(t, p, []ext.Factory{
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.ToolResult) (*ext.ToolResultPatch, error) {
				if e.Input["text"] == "secret" {
					c := []llm.Content{llm.Text("[redacted]")}
					return &ext.ToolResultPatch{Content: &c}, nil
				}
				return nil, nil
			})
			return a.RegisterTool(xtEcho("echo"))
		},
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.ToolResult) (*ext.ToolResultPatch, error) {
				if llm.TextOf(e.Content, "") == "[redacted]" { // sees the first patch
					yes := true
					var d any = map[string]any{"redacted": true}
					return &ext.ToolResultPatch{IsError: &yes, Details: &d}, nil
				}
				seenIsError = append(seenIsError, e.IsError)
				return nil, nil
			})
			return nil
		},
	}, nil)
	h.mustPrompt("go")
	var c1, c2 *llm.Message
	msgs := p.requests()[1].Msgs
	for i := range msgs {
		switch msgs[i].ToolCallID {
		case "c1":
			c1 = &msgs[i]
		case "c2":
			c2 = &msgs[i]
		}
	}
	if c1 == nil || llm.TextOf(c1.Content, "") != "[redacted]" || !c1.IsError {
		t.Fatalf("patched result at the provider: %+v", c1)
	}
	if c2 == nil || llm.TextOf(c2.Content, "") != "echo plain" || c2.IsError {
		t.Fatalf("unpatched result: %+v", c2)
	}
	e := xtFindEntry(h.s().Store(), func(e *store.Entry) bool {
		return e.Type == store.TypeMessage && e.Message.ToolCallID == "c1"
	})
	if e == nil || llm.TextOf(e.Message.Content, "") != "[redacted]" {
		t.Fatalf("persisted result %+v", e)
	}
	if d, _ := e.Message.Details.(map[string]any); d["redacted"] != true {
		t.Fatalf("details patch not persisted: %#v", e.Message.Details)
	}
}

// ---------------------------------------------------------------------------------------------
// tool_call

func TestExtToolCallBlockAndFailClosed(t *testing.T) {
	p := xtProvider(xtCalls(
		[3]string{"blocked", "echo", `{"text":"rm -rf"}`},
		[3]string{"broken", "echo", `{"text":"crash"}`},
		[3]string{"panicky", "echo", `{"text":"panic"}`},
		[3]string{"edited", "echo", `{"text":"fix me"}`},
	), xtSay("done"))
	var ran []string
	var laterSaw []string
	h := xtStart(t, p, []ext.Factory{
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.ToolCall) (*ext.ToolCallResult, error) {
				switch e.Input["text"] {
				case "rm -rf":
					return &ext.ToolCallResult{Block: true, Reason: "dangerous command"}, nil
				case "crash":
					return nil, errors.New("policy engine down")
				case "panic":
					panic("gate exploded")
				case "fix me":
					e.Input["text"] = "fixed" // in-place edit chains to execution
				}
				return nil, nil
			})
			return a.RegisterTool(ext.ToolDefinition{
				Name: "echo", Description: "echo",
				Execute: func(_ context.Context, _ ext.Context, call tool.Call, _ func(tool.Result)) (tool.Result, error) {
					ran = append(ran, call.ID+"="+call.Args["text"].(string))
					return tool.TextResult("ran "+call.Args["text"].(string), nil), nil
				},
			})
		},
		func(a ext.API) error {
			ext.On(a, func(_ ext.Context, e *ext.ToolCall) (*ext.ToolCallResult, error) {
				laterSaw = append(laterSaw, e.ToolCallID)
				return nil, nil
			})
			return nil
		},
	}, nil)
	h.mustPrompt("go")
	if xtJoin(ran) != "edited=fixed" {
		t.Fatalf("executed %v, want only the edited call with the edited input", ran)
	}
	if xtJoin(laterSaw) != "edited" {
		t.Fatalf("later handler saw %v: a block or failure must stop dispatch", laterSaw)
	}
	results := map[string]llm.Message{}
	for _, m := range p.requests()[1].Msgs {
		if m.Role == llm.RoleToolResult {
			results[m.ToolCallID] = m
		}
	}
	check := func(id, want string, isErr bool) {
		t.Helper()
		m := results[id]
		if got := llm.TextOf(m.Content, ""); !strings.Contains(got, want) || m.IsError != isErr {
			t.Errorf("%s: %q (isError %v), want %q (isError %v)", id, got, m.IsError, want, isErr)
		}
	}
	check("blocked", "dangerous command", true)
	check("broken", "policy engine down", true)
	check("panicky", "gate exploded", true)
	check("edited", "ran fixed", false)
	var reported int
	for _, e := range h.errors() {
		if e.Event == "tool_call" {
			reported++
		}
	}
	if reported != 2 {
		t.Fatalf("%d tool_call failures reported, want 2: %+v", reported, h.errors())
	}
}

// A blocked call that asks to terminate ends the run when it is the whole batch.
func TestExtToolCallBlockTerminate(t *testing.T) {
	p := xtProvider(xtCalls([3]string{"c1", "echo", `{"text":"x"}`}), xtSay("not reached"))
	h := xtStart(t, p, []ext.Factory{func(a ext.API) error {
		ext.On(a, func(_ ext.Context, e *ext.ToolCall) (*ext.ToolCallResult, error) {
			return &ext.ToolCallResult{Block: true, Reason: "stop", Terminate: true}, nil
		})
		return a.RegisterTool(xtEcho("echo"))
	}}, nil)
	h.mustPrompt("go")
	if n := p.count(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

// tool_call handlers see ctx.sessionManager synced through the assistant message that made the
// call (seed 004, "ctx.sessionManager").
func TestExtToolCallSessionManagerIsSynced(t *testing.T) {
	p := xtProvider(xtCalls([3]string{"c1", "echo", `{"text":"x"}`}), xtSay("done"))
	var leafRole, leafCall string
	h := xtStart(t, p, []ext.Factory{func(a ext.API) error {
		ext.On(a, func(c ext.Context, e *ext.ToolCall) (*ext.ToolCallResult, error) {
			if leaf := c.SessionManager().LeafEntry(); leaf != nil && leaf.Message != nil {
				leafRole = leaf.Message.Role
				if calls := leaf.Message.ToolCalls(); len(calls) == 1 {
					leafCall = calls[0].ID
				}
			}
			return nil, nil
		})
		return a.RegisterTool(xtEcho("echo"))
	}}, nil)
	h.mustPrompt("go")
	if leafRole != llm.RoleAssistant || leafCall != "c1" {
		t.Fatalf("tool_call saw leaf %s with call %q, want the assistant message calling c1", leafRole, leafCall)
	}
}
