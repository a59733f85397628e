package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// firstEntryID returns the id of the first entry of the RPC session (get_entries).
func (r *rpcProcess) firstEntryID() string {
	r.t.Helper()
	r.send(`{"id":"entries","type":"get_entries"}`)
	m := r.next(func(m map[string]any) bool { return m["id"] == "entries" })
	data, _ := m["data"].(map[string]any)
	entries, _ := data["entries"].([]any)
	if len(entries) == 0 {
		r.t.Fatalf("get_entries: %v", m)
	}
	return entries[0].(map[string]any)["id"].(string)
}

// response sends one RPC command and returns its response.
func (r *rpcProcess) response(id, cmd string) map[string]any {
	r.t.Helper()
	r.send(cmd)
	return r.next(func(m map[string]any) bool { return m["id"] == id && m["type"] == "response" })
}

// Issue 13 item 6: the seed's session_before_compact and session_before_tree samples run
// verbatim (both cancel; the compact one reads event.signal first); a probe sees
// preparation.region.lines deep-frozen and an AbortSignal, and its compactedText built from the
// region is what the compaction keeps; session_before_tree carries a signal.
func TestTSCompactAndTreeSignal(t *testing.T) {
	turns := []fakellm.Turn{{Text: "answer one"}, {Text: "answer two"}}
	p := newTSProbe(t, append(turns, turns...), "seed_compact.ts", "compact_region.ts")

	r := p.rpc("--no-session", "-e", "seed_compact.ts")
	r.prompt("1", "first question")
	r.prompt("2", "second question")
	if m := r.response("c", `{"id":"c","type":"compact"}`); m["success"] != false || !strings.Contains(fmt.Sprint(m["error"]), "ancel") {
		t.Fatalf("compact with the seed sample: %v", m)
	}
	target := r.firstEntryID()
	if m := r.response("t", fmt.Sprintf(`{"id":"t","type":"navigate_tree","targetId":%q}`, target)); m["success"] != true || fmt.Sprint(m["data"]) != "map[cancelled:true]" {
		t.Fatalf("navigate_tree with the seed sample: %v", m)
	}
	r.in.Close()
	r.wait()

	r = p.rpc("--no-session", "-e", "compact_region.ts")
	r.prompt("3", "first question")
	r.prompt("4", "second question")
	m := r.response("c2", `{"id":"c2","type":"compact"}`)
	if m["success"] != true {
		t.Fatalf("compact: %v", m)
	}
	summary := fmt.Sprint(m["data"])
	if !strings.Contains(summary, "REGION signal=true aborted=false frozen=true lines=") || !strings.Contains(summary, "first question") {
		t.Fatalf("compaction text %s", summary)
	}
	target = r.firstEntryID()
	r.send(fmt.Sprintf(`{"id":"t2","type":"navigate_tree","targetId":%q}`, target))
	if got := r.notifyText("TREE"); got != "TREE signal=true target="+target {
		t.Fatalf("session_before_tree: %q", got)
	}
}

// Issue 13 item 4: a TypeScript tool's withFileMutationQueue shares the built-in edit's queue,
// keyed by the real path: the tool (through a symlink alias) and atomic's Go edit change the
// same file in one parallel batch, the edit arriving while the tool holds the file, and neither
// update is lost.
func TestTSFileMutationQueueShared(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{
			fakellm.Call("append_line", map[string]any{"path": "alias.txt", "line": "APPENDED"}),
			fakellm.Call("edit_builtin", map[string]any{"path": "target.txt", "oldText": "alpha", "newText": "EDITED"}),
		}},
		{Text: "done"},
	}, "mutation.ts")
	target := filepath.Join(p.dir, "target.txt")
	if err := os.WriteFile(target, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(p.dir, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	out, _ := p.print("--no-session", "-e", "mutation.ts", "-p", "change the file")
	if out != "done\n" {
		t.Fatalf("stdout %q", out)
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(got); !strings.Contains(s, "EDITED") || !strings.Contains(s, "APPENDED") {
		t.Fatalf("a mutation was lost: %q", s)
	}
}

// Issue 13 item 7: the seed's newSession sample (setup appends a message to the new session's
// SessionManager, withSession's ctx.sendUserMessage starts a turn there) and its handoff pattern
// run verbatim; the replacement ctx's sendMessage sends a custom message. RPC mode, then print.
func TestTSWithSessionContext(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{{Text: "one"}, {Text: "two"}, {Text: "three"}, {Text: "four"}, {Text: "five"}}, "withsession.ts")
	r := p.rpc("-e", "withsession.ts")
	r.prompt("1", "hello")
	r.prompt("2", "/seednew")
	p.requestHas(1, "Context from previous session...", "Continue in the replacement session")
	p.requestLacks(1, "hello")
	r.prompt("3", "/handoff")
	p.requestHas(2, "Continue from the replacement session")
	p.requestLacks(2, "Context from previous session...")
	r.prompt("4", "/custom")
	p.requestHas(3, "CUSTOM-IN-REPLACEMENT")
	r.in.Close()
	r.wait()

	out, _ := p.print("-e", "withsession.ts", "-p", "/handoff")
	if out != "five\n" {
		t.Fatalf("print /handoff: stdout %q", out)
	}
	p.requestHas(4, "Continue from the replacement session")
}

// Issue 13 item 5: user_bash returning { operations } runs the user's command through them —
// option 1 of the seed's sample (custom operations) and option 2 (a wrapper of
// createLocalBashOperations that sources ~/.profile) verbatim — and the output and exit code are
// the command's result, which reaches the model with the next prompt.
func TestTSUserBashOperations(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{{Text: "seen"}}, "userbash_opt1.ts", "userbash_opt2.ts")
	p.env = append(p.env, "SHELL=/bin/bash")
	if err := os.WriteFile(filepath.Join(p.agent, ".profile"), []byte("export PROBE_PROFILE=loaded\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	r := p.rpc("--no-session", "-e", "userbash_opt1.ts")
	m := r.response("b1", `{"id":"b1","type":"bash","command":"uname -a"}`)
	data, _ := m["data"].(map[string]any)
	if m["success"] != true || data["output"] != "remote ran <uname -a> in "+p.dir+"\n" || data["exitCode"] != float64(3) {
		t.Fatalf("option 1: %v", m)
	}
	r.prompt("1", "what ran?")
	p.requestHas(0, "remote ran <uname -a>")
	r.in.Close()
	r.wait()

	r = p.rpc("--no-session", "-e", "userbash_opt2.ts")
	m = r.response("b2", `{"id":"b2","type":"bash","command":"echo profile=$PROBE_PROFILE; exit 4"}`)
	data, _ = m["data"].(map[string]any)
	if m["success"] != true || data["output"] != "profile=loaded\n" || data["exitCode"] != float64(4) {
		t.Fatalf("option 2: %v", m)
	}
}

// Issue 13 items 10 and 11: getAllTools returns promptGuidelines and a full sourceInfo (builtin
// for the built-ins; for an extension's tool, where the extension was found), and
// getCommands the same sourceInfo; before_agent_start's systemPromptOptions has the custom
// prompt's parts, the tools with snippets and guidelines, the appended text, the cwd, the
// context files and the skills; setActiveTools inside before_agent_start changes the prompt of
// that same turn.
func TestTSToolInfoAndPromptOptions(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{{Text: "ok"}}, "toolinfo.ts")
	if err := os.WriteFile(filepath.Join(p.agent, "AGENTS.md"), []byte("GLOBAL-AGENTS-RULES\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(p.agent, "skills", "probe-skill")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: probe-skill\ndescription: A probe skill\n---\nDo the probe.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := p.print("--no-session", "-e", "toolinfo.ts", "--append-system-prompt", "APPENDED-TEXT", "-p", "hi")
	_, line, ok := strings.Cut(stderr, "PROBE ")
	if !ok {
		t.Fatalf("no probe output:\n%s", stderr)
	}
	line, _, _ = strings.Cut(line, "\n")
	var got struct {
		Options struct {
			SelectedTools      []string          `json:"selectedTools"`
			ToolSnippets       map[string]string `json:"toolSnippets"`
			PromptGuidelines   []string          `json:"promptGuidelines"`
			AppendSystemPrompt string            `json:"appendSystemPrompt"`
			Cwd                string            `json:"cwd"`
			ContextFiles       []struct{ Path, Content string }
			Skills             []struct{ Name, FilePath string }
		} `json:"options"`
		Tools []struct {
			Name             string
			PromptGuidelines []string
			SourceInfo       map[string]string
		}
		Cmds []struct{ SourceInfo map[string]string }
	}
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	o := got.Options
	if !slices.Contains(o.SelectedTools, "probe_tool") || !slices.Contains(o.SelectedTools, "read") || o.ToolSnippets["probe_tool"] != "PROBE-SNIPPET" ||
		!slices.Contains(o.PromptGuidelines, "PROBE-GUIDELINE") || o.AppendSystemPrompt != "APPENDED-TEXT" || o.Cwd != p.dir {
		t.Errorf("systemPromptOptions %+v", o)
	}
	if len(o.ContextFiles) != 1 || o.ContextFiles[0].Content != "GLOBAL-AGENTS-RULES\n" || len(o.Skills) != 1 || o.Skills[0].Name != "probe-skill" {
		t.Errorf("systemPromptOptions context files %+v, skills %+v", o.ContextFiles, o.Skills)
	}
	// As in pi 0.73.1: an -e extension's sourceInfo is source cli, scope temporary, origin
	// top-level (no baseDir); its tools and commands report the same; a built-in tool's path is
	// <builtin:name>.
	ext := filepath.Join(p.dir, "toolinfo.ts")
	wantExt := map[string]string{"path": ext, "source": "cli", "scope": "temporary", "origin": "top-level"}
	for _, tl := range got.Tools {
		switch tl.Name {
		case "read":
			if !maps.Equal(tl.SourceInfo, map[string]string{"path": "<builtin:read>", "source": "builtin", "scope": "temporary", "origin": "top-level"}) || len(tl.PromptGuidelines) == 0 {
				t.Errorf("read %+v", tl)
			}
		case "probe_tool":
			if !maps.Equal(tl.SourceInfo, wantExt) || !slices.Equal(tl.PromptGuidelines, []string{"PROBE-GUIDELINE"}) {
				t.Errorf("probe_tool %+v", tl)
			}
		}
	}
	if len(got.Cmds) != 1 || !maps.Equal(got.Cmds[0].SourceInfo, wantExt) {
		t.Errorf("getCommands %+v", got.Cmds)
	}
	// setActiveTools(["read","bash"]) in before_agent_start: this turn's prompt and tools drop
	// probe_tool, edit and write.
	p.requestHas(0, "APPENDED-TEXT", "GLOBAL-AGENTS-RULES", "- bash:")
	p.requestLacks(0, "PROBE-SNIPPET", "PROBE-GUIDELINE", `"name":"probe_tool"`, `"name":"edit"`)
}

// Issue 13 item 18: a host blocked for longer than the heartbeat gap is not restarted before
// extensionHandlerTimeoutMs: a factory busy for 1.2 s loads, and a tool that blocks for 1.5 s
// in execSync returns its result, twice, with its in-memory count kept between the calls.
func TestTSBusyHostNotRestarted(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("slow_sync", map[string]any{})}},
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("slow_sync", map[string]any{})}},
		{Text: "done"},
	}, "busy.ts")
	out, _ := p.print("--no-session", "-e", "busy.ts", "-p", "run it twice")
	if out != "done\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(1, "SLOW-DONE calls=1")
	p.requestHas(2, "SLOW-DONE calls=2")
}

// Issue 13 item 14: --no-builtin-tools starts without the built-in tools while an extension's
// tools stay enabled (seed 004).
func TestTSNoBuiltinTools(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{{Text: "ok"}}, "results.ts")
	out, _ := p.print("--no-session", "--no-builtin-tools", "-e", "results.ts", "-p", "hi")
	if out != "ok\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(0, `"name":"returns_error"`, `"name":"throws_error"`)
	p.requestLacks(0, `"name":"read"`, `"name":"bash"`, `"name":"edit"`, `"name":"write"`)
}

// Issue 13 item 14: the type guards isBashToolResult, isPowerShellToolResult and
// isSearchToolResult are exported and tell a bash result from others.
func TestTSToolResultGuards(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "echo hi"})}},
		{Text: "done"},
	}, "guards.ts")
	out, _ := p.print("--no-session", "-e", "guards.ts", "-p", "run")
	if out != "done\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(1, "GUARDS bash=true powershell=false search=false")
}
