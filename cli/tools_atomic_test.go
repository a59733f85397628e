package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
)

// Issue 13 item 14: Atomic's search, todo and ask_user_question tools through the binary in
// print mode: --tools enables them, the model's calls run, and what they return reaches the
// next request.
func TestAtomicToolsPrint(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{
			fakellm.Call("search", map[string]any{"pattern": "needle", "paths": "notes"}),
			fakellm.Call("todo", map[string]any{"action": "create", "title": "Ship it"}),
			fakellm.Call("ask_user_question", map[string]any{"questions": []any{map[string]any{
				"question": "Which?", "header": "Pick", "options": []any{
					map[string]any{"label": "A", "description": "first"}, map[string]any{"label": "B", "description": "second"}}}}}),
		}},
		{Text: "done"},
	})
	writeText(t, filepath.Join(p.dir, "notes", "a.txt"), "hay\nneedle\n")
	out, _ := p.print("--no-session", "--tools", "read,search,todo,ask_user_question", "-p", "go")
	if out != "done\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(0, `"name":"search"`, `"name":"todo"`, `"name":"ask_user_question"`)
	p.requestLacks(0, `"name":"bash"`)
	p.requestHas(1, `# notes/\n[notes/a.txt#`, `]\n 1:hay\n*2:needle`, `\"title\": \"Ship it\"`, "UI not available (running in non-interactive mode)")
	ids, err := filepath.Glob(filepath.Join(p.dir, ".atomic", "todos", "*.md"))
	if err != nil || len(ids) != 1 || !strings.Contains(readText(t, ids[0]), `"title": "Ship it"`) {
		t.Fatalf("todo files %v (%v)", ids, err)
	}
}

// A todo claimed in a saved session names that session's id.
func TestAtomicTodoClaimsSession(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("todo", map[string]any{"action": "claim", "id": "TODO-0000abcd"})}},
		{Text: "claimed"},
	})
	file := filepath.Join(p.dir, ".atomic", "todos", "0000abcd.md")
	writeText(t, file, "{\n  \"id\": \"0000abcd\",\n  \"title\": \"Mine\",\n  \"tags\": [],\n  \"status\": \"open\",\n  \"created_at\": \"2026-01-01T00:00:00.000Z\"\n}\n")
	p.print("--tools", "todo", "-p", "claim it")
	sessions, _ := filepath.Glob(filepath.Join(p.agent, "sessions", "*", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions %v", sessions)
	}
	var header struct {
		ID string `json:"id"`
	}
	first, _, _ := strings.Cut(readText(t, sessions[0]), "\n")
	if err := json.Unmarshal([]byte(first), &header); err != nil || header.ID == "" {
		t.Fatalf("session header %q (%v)", first, err)
	}
	if got := readText(t, file); !strings.Contains(got, `"assigned_to_session": "`+header.ID+`"`) {
		t.Fatalf("todo after the claim:\n%s", got)
	}
	p.requestHas(1, `\"assigned_to_session\": \"`+header.ID)
}

// In RPC mode ask_user_question asks through extension_ui_request select and input, and the
// answers reach the model.
func TestAtomicAskUserQuestionRPC(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("ask_user_question", map[string]any{"questions": []any{
			map[string]any{"question": "Which color?", "header": "Color", "options": []any{
				map[string]any{"label": "Red", "description": "warm"}, map[string]any{"label": "Blue", "description": "cool"}}},
			map[string]any{"question": "Which name?", "header": "Name", "options": []any{
				map[string]any{"label": "Ann", "description": ""}, map[string]any{"label": "Bob", "description": ""}}},
		}})}},
		{Text: "thanks"},
	})
	r := p.rpc("--no-session", "--tools", "ask_user_question")
	b, _ := json.Marshal(map[string]any{"id": "1", "type": "prompt", "message": "ask me"})
	r.send(string(b))
	answer := func(method, value string) map[string]any {
		req := r.next(func(m map[string]any) bool { return m["type"] == "extension_ui_request" && m["method"] == method })
		b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": value})
		r.send(string(b))
		return req
	}
	first := answer("select", "Blue — cool")
	if first["title"] != "[Color] Which color?" || !strings.Contains(toJSON(first["options"]), `"Type something."`) {
		t.Fatalf("first dialog %v", first)
	}
	answer("select", "Type something.")
	answer("input", "Zoe")
	r.next(func(m map[string]any) bool { return m["type"] == "agent_settled" })
	p.requestHas(1, `User has answered your questions: \"Which color?\"=\"Blue\". \"Which name?\"=\"Zoe\".`)
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeText(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Where a PowerShell executable is on PATH the powershell tool exists and runs the command with
// PowerShell's arguments (the stand-in executable prints its argument vector).
func TestAtomicPowerShellTool(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh for the stand-in executable")
	}
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("powershell", map[string]any{"command": "Get-Date"})}},
		{Text: "ran"},
	})
	bin := t.TempDir()
	writeText(t, filepath.Join(bin, "pwsh"), "#!/bin/sh\nfor a in \"$@\"; do printf '<%s>' \"$a\"; done\n")
	if err := os.Chmod(filepath.Join(bin, "pwsh"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.env = append(p.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, _ := p.print("--no-session", "--tools", "read,powershell", "-p", "date")
	if out != "ran\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(0, `"name":"powershell"`)
	p.requestHas(1, `<-NoProfile><-NonInteractive><-ExecutionPolicy><Bypass><-Command>`, `Get-Date>`)
}

// Issue 13 item 14: isSearchToolResult and isPowerShellToolResult recognise results of the real
// search and powershell tools in a TypeScript tool_result handler (guards.ts).
func TestTSGuardsOnSearchAndPowerShell(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("search", map[string]any{"pattern": "guard", "paths": "g.txt"})}},
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("powershell", map[string]any{"command": "Get-Date"})}},
		{Text: "done"},
	}, "guards.ts")
	writeText(t, filepath.Join(p.dir, "g.txt"), "guard\n")
	bin := t.TempDir()
	writeText(t, filepath.Join(bin, "pwsh"), "#!/bin/sh\necho ps\n")
	if err := os.Chmod(filepath.Join(bin, "pwsh"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.env = append(p.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, _ := p.print("--no-session", "--tools", "search,powershell", "-e", "guards.ts", "-p", "run")
	if out != "done\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(1, "*1:guard", "GUARDS bash=false powershell=false search=true")
	p.requestHas(2, "GUARDS bash=false powershell=true search=false")
}

// createSearchTool from a TypeScript extension runs atomic's search built-in.
func TestTSCreateSearchTool(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("ext_search", map[string]any{"pattern": "needle", "i": true})}},
		{Text: "done"},
	}, "searchtool.ts")
	writeText(t, filepath.Join(p.dir, "sub", "n.txt"), "x\nNEEDLE\n")
	out, _ := p.print("--no-session", "-e", "searchtool.ts", "-p", "find")
	if out != "done\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(0, `"name":"ext_search"`, `"skip"`)
	p.requestHas(1, `# sub/\n[sub/n.txt#`, `*2:NEEDLE`)
}

// --tools chooses the built-ins even with --no-builtin-tools, which only empties the default set
// (Atomic's createAgentSession: the allowlist comes first).
func TestNoBuiltinToolsWithToolsList(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{{Text: "a"}, {Text: "b"}})
	p.print("--no-session", "--no-builtin-tools", "--tools", "search", "-p", "hi")
	p.requestHas(0, `"name":"search"`)
	p.requestLacks(0, `"name":"read"`, `"name":"bash"`)
	p.print("--no-session", "--no-builtin-tools", "-p", "hi")
	p.requestLacks(1, `"name":"search"`, `"name":"read"`)
}

// -nbt is pi's and Atomic's short form of --no-builtin-tools.
func TestNoBuiltinToolsShortForm(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{{Text: "a"}})
	if out, _ := p.print("--no-session", "-nbt", "-p", "hi"); out != "a\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestLacks(0, `"name":"read"`, `"name":"bash"`)
}
