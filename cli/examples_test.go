package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// The example extensions of pi (badlogic/pi-mono) and Atomic (bastani-inc/atomic), vendored
// unchanged under testdata/examples (see its README.md for the commits and licenses), run
// through the binary against the fake LLM (issue 13, second acceptance item). Each case checks
// what the example's header comment says it does. Examples that need the terminal UI are run
// by the UI tests; exampleInventory lists every example with what happens to it here.

// exampleCase is one example extension run: files are paths under testdata/examples/<project>
// copied into the project directory (the first is the extension passed with -e), turns what
// the fake model answers, and check runs the binary and asserts the header's behaviour.
type exampleCase struct {
	files []string
	turns []fakellm.Turn
	check func(t *testing.T, p *tsProbe, ext string)
}

// exampleInventory is every example extension of pi 0.73.1 and of Atomic (helper modules
// without a default export left out), with what this file does with it: "run" (a case of
// exampleCases checks its header's behaviour; "summarize" runs in the pi_/atomic_example_summarize
// scripts), "ui" (it needs the terminal UI: the UI tests run it), or the reason it is not run.
var exampleInventory = map[string]string{
	"auto-commit-on-exit": "run", "bash-spawn-hook": "run", "bookmark": "run", "claude-rules": "run",
	"commands": "run", "confirm-destructive": "run", "custom-compaction": "run", "dirty-repo-guard": "run",
	"dynamic-resources": "run", "dynamic-tools": "run", "event-bus": "run", "handoff": "run", "hello": "run",
	"inline-bash": "run", "input-transform": "run", "message-renderer": "run", "model-status": "run",
	"notify": "run", "permission-gate": "run", "pirate": "run", "plan-mode": "run", "preset": "run",
	"prompt-customizer": "run", "protected-paths": "run", "provider-payload": "run", "qna": "run",
	"reload-runtime": "run", "rpc-demo": "run", "send-user-message": "run", "session-name": "run",
	"shutdown-command": "run", "status-line": "run", "structured-output": "run", "summarize": "run",
	"system-prompt-header": "run", "timed-confirm": "run", "todo": "run", "tool-override": "run",
	"trigger-compact": "run", "truncated-tool": "run",
	"atomic/input-transform-streaming": "run", "atomic/project-trust": "run",

	"border-status-editor": "ui", "built-in-tool-renderer": "ui", "custom-footer": "ui", "custom-header": "ui",
	"doom-overlay": "ui", "github-issue-autocomplete": "ui", "hidden-thinking-label": "ui",
	"interactive-shell": "ui", "minimal-mode": "ui", "modal-editor": "ui", "overlay-qa-tests": "ui",
	"overlay-test": "ui", "question": "ui", "questionnaire": "ui", "rainbow-editor": "ui", "snake": "ui",
	"space-invaders": "ui", "tic-tac-toe": "ui", "titlebar-spinner": "ui", "tools": "ui",
	"widget-placement": "ui", "working-indicator": "ui", "working-message-test": "ui",

	"custom-provider-anthropic":    "imports @anthropic-ai/sdk, which the example installs with npm",
	"custom-provider-gitlab-duo":   "needs a GitLab account and its Duo service",
	"sandbox":                      "imports @anthropic-ai/sandbox-runtime, which the example installs with npm",
	"with-deps":                    "imports ms, which the example installs with npm",
	"atomic/gondolin":              "imports @earendil-works/gondolin, which the example installs with npm",
	"ssh":                          "needs an ssh server",
	"mac-system-theme":             "runs macOS's defaults command",
	"file-trigger":                 "watches the fixed path /tmp/agent-trigger.txt, shared by every process on the machine",
	"git-checkpoint":               "restores code on a fork made during a run (its checkpoints are cleared at agent_end); not driven yet",
	"subagent":                     "starts agent subprocesses (pi/atomic --mode json) with agent definition files; not driven yet",
	"atomic/git-merge-and-resolve": "fetches and merges the branch's upstream after each turn; not driven yet",
}

// newExample copies files of testdata/examples/<project> into a fresh project directory and
// starts a fake anthropic-messages server playing turns; the fake also serves the built-in
// google/gemini-2.5-flash and openai/gpt-5.2 models, which examples pick by name.
func newExample(t *testing.T, project string, turns []fakellm.Turn, files ...string) (*tsProbe, string) {
	t.Helper()
	p := newTSProbe(t, turns)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("testdata", "examples", project, f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(p.dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	url := baseURL(p.srv, llm.APIAnthropicMessages)
	model := func(id string) map[string]any {
		return map[string]any{"id": id, "name": id, "contextWindow": 100000, "maxTokens": 4096, "input": []string{"text", "image"}}
	}
	provider := func(ids ...string) map[string]any {
		ms := []any{}
		for _, id := range ids {
			ms = append(ms, model(id))
		}
		return map[string]any{"baseUrl": url, "api": llm.APIAnthropicMessages, "apiKey": "fake-key", "models": ms}
	}
	cfg, _ := json.Marshal(map[string]any{"providers": map[string]any{
		"fake":   provider("fake-model", "other-model"),
		"google": provider("gemini-2.5-flash"),
	}})
	if err := os.WriteFile(filepath.Join(p.agent, "models.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(p.agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}, "defaultProvider": "fake", "defaultModel": "fake-model"}`)
	return p, filepath.Join(p.dir, files[0])
}

// status waits for the next setStatus request of key and returns its text ("" when cleared).
func (r *rpcProcess) status(key string) string {
	r.t.Helper()
	m := r.next(func(m map[string]any) bool { return m["method"] == "setStatus" && m["statusKey"] == key })
	s, _ := m["statusText"].(string)
	return s
}

// answer sends the extension_ui_response of dialog req with the given field ("value",
// "confirmed" or "cancelled").
func (r *rpcProcess) answer(req map[string]any, field string, v any) {
	r.t.Helper()
	b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req["id"], field: v})
	r.send(string(b))
}

// dialog waits for the next dialog request of method.
func (r *rpcProcess) dialog(method string) map[string]any {
	r.t.Helper()
	return r.next(func(m map[string]any) bool { return m["type"] == "extension_ui_request" && m["method"] == method })
}

// gitInit makes dir a git repository with one commit of everything in it.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init"},
		{"config", "user.name", "t"}, {"config", "user.email", "t@example.com"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// firstUserEntryID returns the id of the session's first user message entry (get_entries).
func (r *rpcProcess) firstUserEntryID() string {
	r.t.Helper()
	m := r.response("entries", `{"id":"entries","type":"get_entries"}`)
	data, _ := m["data"].(map[string]any)
	entries, _ := data["entries"].([]any)
	for _, e := range entries {
		e := e.(map[string]any)
		if msg, _ := e["message"].(map[string]any); e["type"] == "message" && msg["role"] == "user" {
			return e["id"].(string)
		}
	}
	r.t.Fatalf("get_entries has no user message: %v", m)
	return ""
}

func toolTurn(name, args string) fakellm.Turn {
	return fakellm.Turn{ToolCalls: []fakellm.ToolCall{{Name: name, Arguments: json.RawMessage(args)}}}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// both is a case that runs the same way for the pi and the Atomic copy of an example.
func both(cases map[string]exampleCase, name string, c exampleCase) {
	cases["pi/"+name] = c
	cases["atomic/"+name] = c
}

func exampleCases() map[string]exampleCase {
	cases := map[string]exampleCase{}

	// "Hello Tool - Minimal custom tool example": the model calls hello and reads the greeting.
	both(cases, "hello", exampleCase{
		files: []string{"hello.ts"},
		turns: []fakellm.Turn{toolTurn("hello", `{"name":"World"}`), {Text: "done"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			p.print("--no-session", "-e", ext, "-p", "greet the world")
			p.requestHas(0, `"name":"hello"`, "A simple greeting tool")
			p.requestHas(1, "Hello, World!")
		},
	})

	// "Blocks write and edit operations to protected paths."
	both(cases, "protected-paths", exampleCase{
		files: []string{"protected-paths.ts"},
		turns: []fakellm.Turn{toolTurn("write", `{"path":".env","content":"KEY=1"}`), {Text: "done"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			p.print("--no-session", "-e", ext, "-p", "write the env")
			p.requestHas(1, `Path \".env\" is protected`)
			if _, err := os.Stat(filepath.Join(p.dir, ".env")); err == nil {
				t.Fatal(".env was written")
			}
		},
	})

	// "Prompts for confirmation before running potentially dangerous bash commands": without a
	// UI (print mode) such a command is blocked; a harmless one runs.
	both(cases, "permission-gate", exampleCase{
		files: []string{"permission-gate.ts"},
		turns: []fakellm.Turn{
			{ToolCalls: []fakellm.ToolCall{
				{Name: "bash", Arguments: json.RawMessage(`{"command":"rm -rf victim"}`)},
				{Name: "bash", Arguments: json.RawMessage(`{"command":"echo harmless"}`)},
			}},
			{Text: "done"},
		},
		check: func(t *testing.T, p *tsProbe, ext string) {
			if err := os.Mkdir(filepath.Join(p.dir, "victim"), 0o755); err != nil {
				t.Fatal(err)
			}
			p.print("--no-session", "-e", ext, "-p", "clean up")
			p.requestHas(1, "Dangerous command blocked (no UI for confirmation)", "harmless")
			if _, err := os.Stat(filepath.Join(p.dir, "victim")); err != nil {
				t.Fatal("the blocked rm -rf ran")
			}
		},
	})

	// pi: "Summarizes ALL messages (messagesToSummarize + turnPrefixMessages)" with
	// google/gemini-2.5-flash through pi-ai's complete, and keeps only that summary.
	cases["pi/custom-compaction"] = exampleCase{
		files: []string{"custom-compaction.ts"},
		turns: []fakellm.Turn{{Text: "first answer"}, {Text: "second answer"}, {Text: "## Goals\nFULL SUMMARY"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.prompt("a", "remember the red key")
			r.prompt("b", "and the green gate")
			r.send(`{"id":"c","type":"compact"}`)
			if got := r.notifyText("Custom compaction: summarizing"); !strings.HasPrefix(got, "Custom compaction: summarizing 2 messages") || !strings.HasSuffix(got, "with gemini-2.5-flash...") {
				t.Fatalf("notify %q", got)
			}
			resp := r.next(func(m map[string]any) bool { return m["id"] == "c" })
			if resp["success"] != true {
				t.Fatalf("compact: %v", resp)
			}
			p.requestHas(2, `"model":"gemini-2.5-flash"`, "You are a conversation summarizer", "remember the red key", "first answer")
			p.requestLacks(2, "green gate")
			data, _ := json.Marshal(resp["data"])
			if !strings.Contains(string(data), "FULL SUMMARY") {
				t.Fatalf("compaction result %s", data)
			}
		},
	}

	// Atomic: "extensions may replace the prepared region string before Atomic resolves model
	// credentials. The runtime keeps the boundary and persists this text verbatim." The example
	// keeps the first line and the lines in Atomic's "[User]: …" grammar; atomic's region lines
	// are "[user]" headers followed by the text, so only the first line is kept.
	cases["atomic/custom-compaction"] = exampleCase{
		files: []string{"custom-compaction.ts"},
		turns: []fakellm.Turn{{Text: "first answer\nwith a second line"}, {Text: "second answer"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.prompt("a", "remember the red key")
			r.prompt("b", "and the green gate")
			resp := r.response("c", `{"id":"c","type":"compact"}`)
			if resp["success"] != true {
				t.Fatalf("compact: %v", resp)
			}
			data, _ := json.Marshal(resp["data"])
			if s := string(data); !strings.Contains(s, `"compactedText":"[user]"`) || !strings.Contains(s, `"rung":"extension"`) || !strings.Contains(s, `"linesBefore":5`) {
				t.Fatalf("compaction result %s", data)
			}
			if n := len(p.srv.Requests()); n != 2 {
				t.Fatalf("the planner ran: %d requests", n)
			}
		},
	}

	// "Demonstrates modifying the system prompt in before_agent_start": /pirate turns pirate
	// mode on, and the next turn's system prompt says so.
	both(cases, "pirate", exampleCase{
		files: []string{"pirate.ts"},
		turns: []fakellm.Turn{{Text: "plain"}, {Text: "Arrr"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			p.print("--no-session", "-e", ext, "-p", "first", "/pirate", "second")
			p.requestLacks(0, "PIRATE MODE")
			p.requestHas(1, "You are now in PIRATE MODE")
		},
	})

	// "Scans the project's .claude/rules/ folder for rule files and lists them in the system
	// prompt."
	both(cases, "claude-rules", exampleCase{
		files: []string{"claude-rules.ts"},
		turns: []fakellm.Turn{{Text: "ok"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			writeFile(t, filepath.Join(p.dir, ".claude", "rules", "testing.md"), "# Testing\nRun go test.\n")
			writeFile(t, filepath.Join(p.dir, ".claude", "rules", "backend", "api.md"), "# API\n")
			p.print("--no-session", "-e", ext, "-p", "hi")
			p.requestHas(0, "The following project rules are available in .claude/rules/", "- .claude/rules/testing.md", "- .claude/rules/backend/api.md")
		},
	})

	// "Overrides the read tool to log all file access to a log file" (in the agent directory)
	// and to block sensitive paths; the built-in read is replaced.
	both(cases, "tool-override", exampleCase{
		files: []string{"tool-override.ts"},
		turns: []fakellm.Turn{
			{ToolCalls: []fakellm.ToolCall{
				{Name: "read", Arguments: json.RawMessage(`{"path":"notes.txt"}`)},
				{Name: "read", Arguments: json.RawMessage(`{"path":".env"}`)},
			}},
			{Text: "done"},
		},
		check: func(t *testing.T, p *tsProbe, ext string) {
			writeFile(t, filepath.Join(p.dir, "notes.txt"), "line one\nline two\n")
			writeFile(t, filepath.Join(p.dir, ".env"), "SECRET=1\n")
			p.print("--no-session", "-e", ext, "-p", "read")
			p.requestHas(1, "line one", "Access denied: \\\".env\\\" matches a blocked pattern")
			p.requestLacks(1, "SECRET=1")
			log, err := os.ReadFile(filepath.Join(p.agent, "read-access.log"))
			if err != nil || !strings.Contains(string(log), "ALLOWED: "+filepath.Join(p.dir, "notes.txt")) || !strings.Contains(string(log), "BLOCKED: ") {
				t.Fatalf("read-access.log: %v\n%s", err, log)
			}
		},
	})

	// "Registers one tool during session_start": the model is offered echo_session at once.
	both(cases, "dynamic-tools", exampleCase{
		files: []string{"dynamic-tools.ts"},
		turns: []fakellm.Turn{toolTurn("echo_session", `{"message":"hi there"}`), {Text: "done"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			p.print("--no-session", "-e", ext, "-p", "echo")
			p.requestHas(0, `"name":"echo_session"`, "Use echo_session when the user asks for exact echo output.")
			p.requestHas(1, "[session] hi there")
		},
	})

	// "Registers a todo tool for the LLM to manage todos", state in the tool results' details.
	both(cases, "todo", exampleCase{
		files: []string{"todo.ts"},
		turns: []fakellm.Turn{
			toolTurn("todo", `{"action":"add","text":"buy milk"}`),
			toolTurn("todo", `{"action":"add","text":"walk dog"}`),
			toolTurn("todo", `{"action":"toggle","id":1}`),
			toolTurn("todo", `{"action":"list"}`),
			{Text: "done"},
		},
		check: func(t *testing.T, p *tsProbe, ext string) {
			p.print("--no-session", "-e", ext, "-p", "plan")
			p.requestHas(1, "Added todo #1: buy milk")
			p.requestHas(3, "Todo #1 completed")
			p.requestHas(4, "[x] #1: buy milk", "[ ] #2: walk dog")
		},
	})

	// "Adjusts command, cwd, and env before execution": the bash tool runs with the spawn
	// hook's PI_SPAWN_HOOK=1 and after sourcing ~/.profile.
	both(cases, "bash-spawn-hook", exampleCase{
		files: []string{"bash-spawn-hook.ts"},
		turns: []fakellm.Turn{toolTurn("bash", `{"command":"echo hook=$PI_SPAWN_HOOK profile=$FROM_PROFILE"}`), {Text: "done"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			writeFile(t, filepath.Join(p.agent, ".profile"), "export FROM_PROFILE=yes\n")
			p.print("--no-session", "-e", ext, "-p", "run")
			p.requestHas(1, "hook=1 profile=yes")
		},
	})

	// "expands inline bash commands in user prompts": !{command} is replaced by its output
	// before the prompt is sent.
	both(cases, "inline-bash", exampleCase{
		files: []string{"inline-bash.ts"},
		turns: []fakellm.Turn{{Text: "ok"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			p.print("--no-session", "-e", ext, "-p", "The word is !{echo expanded-$((6*7))}")
			p.requestHas(0, "expanded-42")
			p.requestLacks(0, "!{echo")
		},
	})

	// "Demonstrates the project_trust event" (issue 13 item 18): in RPC mode the handler gets
	// the client's dialogs before the session exists; its answer decides whether the project's
	// AGENTS.md (a trust input) is read, and session_start runs after the decision.
	cases["atomic/project-trust"] = exampleCase{
		files: []string{"project-trust.ts"},
		turns: []fakellm.Turn{{Text: "one"}, {Text: "two"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			writeFile(t, filepath.Join(p.dir, "AGENTS.md"), "PROJECT RULE XYZZY\n")
			for _, c := range []struct {
				choice  string
				trusted bool
			}{{"Trust this session", true}, {"Do not trust this session", false}} {
				r := p.rpc("--no-session", "-e", ext)
				if got := r.notifyText("project_trust fired for "); !strings.HasSuffix(got, "(mode: rpc, load: 1)") {
					t.Fatalf("notify %q", got)
				}
				sel := r.next(func(m map[string]any) bool { return m["method"] == "select" })
				if !strings.HasPrefix(sel["title"].(string), "Project trust for:") {
					t.Fatalf("select %v", sel)
				}
				b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": sel["id"], "value": c.choice})
				r.send(string(b))
				r.notifyText("project-trust example loaded after trust resolution in ")
				n := len(p.srv.Requests())
				r.prompt("p", "hi")
				if c.trusted {
					p.requestHas(n, "PROJECT RULE XYZZY")
				} else {
					p.requestLacks(n, "PROJECT RULE XYZZY")
				}
				r.in.Close()
				if code := r.wait(); code != 0 {
					t.Fatalf("exit code %d", code)
				}
			}
		},
	}

	// "Shows pi.events for communication between extensions": the session_start emit and /emit
	// reach the listener, which notifies.
	both(cases, "event-bus", exampleCase{
		files: []string{"event-bus.ts"},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.notifyText("Event from event-bus-example: Session started")
			r.send(`{"id":"e","type":"prompt","message":"/emit ping pong"}`)
			r.notifyText("Event from /emit command: ping pong")
		},
	})

	// "Shows setSessionName/getSessionName".
	both(cases, "session-name", exampleCase{
		files: []string{"session-name.ts"},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.send(`{"id":"a","type":"prompt","message":"/session-name"}`)
			r.notifyText("No session name set")
			r.send(`{"id":"b","type":"prompt","message":"/session-name Alpha run"}`)
			r.notifyText("Session named: Alpha run")
			r.send(`{"id":"c","type":"prompt","message":"/session-name"}`)
			r.notifyText("Session: Alpha run")
			if st := r.response("s", `{"id":"s","type":"get_state"}`); st["data"].(map[string]any)["sessionName"] != "Alpha run" {
				t.Fatalf("state %v", st)
			}
		},
	})

	// "Shows setLabel to mark entries with labels": /bookmark labels the last assistant message
	// and /unbookmark finds the label again through sessionManager.getLabel and removes it.
	both(cases, "bookmark", exampleCase{
		files: []string{"bookmark.ts"},
		turns: []fakellm.Turn{{Text: "answer"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.send(`{"id":"a","type":"prompt","message":"/bookmark"}`)
			r.notifyText("No assistant message to bookmark")
			r.prompt("p", "hi")
			r.send(`{"id":"b","type":"prompt","message":"/bookmark milestone"}`)
			r.notifyText("Bookmarked as: milestone")
			r.send(`{"id":"c","type":"prompt","message":"/unbookmark"}`)
			r.notifyText("Removed bookmark: milestone")
			r.send(`{"id":"d","type":"prompt","message":"/unbookmark"}`)
			r.notifyText("No bookmarked entry found")
		},
	})

	// "shows model changes in the status bar" through model_select.
	both(cases, "model-status", exampleCase{
		files: []string{"model-status.ts"},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "--model", "fake/fake-model", "-e", ext)
			r.send(`{"id":"m","type":"set_model","provider":"fake","modelId":"other-model"}`)
			r.notifyText("Model: fake/other-model")
			if got := r.status("model"); got != "🤖 other-model" {
				t.Fatalf("status %q", got)
			}
		},
	})

	// "displaying persistent status text in the footer. Shows turn progress."
	both(cases, "status-line", exampleCase{
		files: []string{"status-line.ts"},
		turns: []fakellm.Turn{{Text: "ok"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			if got := r.status("status-demo"); !strings.Contains(got, "Ready") {
				t.Fatalf("status %q", got)
			}
			r.send(`{"id":"p","type":"prompt","message":"hi"}`)
			if got := r.status("status-demo"); !strings.Contains(got, "Turn 1...") {
				t.Fatalf("status %q", got)
			}
			if got := r.status("status-demo"); !strings.Contains(got, "Turn 1 complete") {
				t.Fatalf("status %q", got)
			}
		},
	})

	// "Demonstrates ctx.getSystemPrompt()": the status shows the system prompt's length.
	both(cases, "system-prompt-header", exampleCase{
		files: []string{"system-prompt-header.ts"},
		turns: []fakellm.Turn{{Text: "ok"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.send(`{"id":"p","type":"prompt","message":"hi"}`)
			got := r.status("system-prompt")
			var n int
			if _, err := fmt.Sscanf(got, "System: %d chars", &n); err != nil || n < 100 {
				t.Fatalf("status %q", got)
			}
			r.next(func(m map[string]any) bool { return m["type"] == "agent_settled" })
			var body struct {
				System []struct{ Text string } `json:"system"`
			}
			if err := json.Unmarshal([]byte(p.request(0)), &body); err != nil || len(body.System) == 0 {
				t.Fatalf("request system: %v", err)
			}
			if len(body.System[0].Text) != n && len([]rune(body.System[0].Text)) != n {
				t.Fatalf("status says %d chars, the system prompt has %d", n, len(body.System[0].Text))
			}
		},
	})

	// "Demonstrates the pi.getCommands() API by providing a /commands command": the list comes
	// up in a selector, and picking a command offers its source path.
	both(cases, "commands", exampleCase{
		files: []string{"commands.ts"},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.send(`{"id":"c","type":"prompt","message":"/commands extension"}`)
			sel := r.dialog("select")
			opts, _ := json.Marshal(sel["options"])
			if sel["title"] != "Available Commands" || !strings.Contains(string(opts), `"--- Extensions ---"`) || !strings.Contains(string(opts), `"/commands - List available slash commands"`) {
				t.Fatalf("select %v", sel)
			}
			r.answer(sel, "value", "/commands - List available slash commands")
			conf := r.dialog("confirm")
			if msg, _ := conf["message"].(string); !strings.Contains(msg, ext) {
				t.Fatalf("confirm %v", conf)
			}
			r.answer(conf, "confirmed", true)
			if got := r.notifyText("/"); got != ext {
				t.Fatalf("notify %q, want %q", got, ext)
			}
		},
	})

	// "/trigger-compact" compacts at once through ctx.compact, with onComplete.
	both(cases, "trigger-compact", exampleCase{
		files: []string{"trigger-compact.ts"},
		turns: []fakellm.Turn{{Text: "one"}, {Text: "two"}, {Text: "NONE"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.prompt("a", "first")
			r.prompt("b", "second")
			r.send(`{"id":"c","type":"prompt","message":"/trigger-compact"}`)
			r.notifyText("Compaction started")
			r.notifyText("Compaction completed")
			p.requestHas(2, "first")
		},
	})

	// "Demonstrates pi.sendUserMessage()": /ask sends a real user message that starts a turn.
	both(cases, "send-user-message", exampleCase{
		files: []string{"send-user-message.ts"},
		turns: []fakellm.Turn{{Text: "4"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			p.print("--no-session", "-e", ext, "-p", "/ask What is 2+2?")
			p.requestHas(0, `"role":"user"`, "What is 2+2?")
		},
	})

	// "Adds a /quit command"; a tool "shuts down after completing work": the process exits by
	// itself once the run is idle.
	both(cases, "shutdown-command", exampleCase{
		files: []string{"shutdown-command.ts"},
		turns: []fakellm.Turn{toolTurn("finish_and_exit", `{}`), {Text: "bye"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.send(`{"id":"p","type":"prompt","message":"finish"}`)
			if code := r.wait(); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			p.requestHas(1, "Shutdown requested. Exiting after this response.")
			r2 := p.rpc("--no-session", "-e", ext)
			r2.send(`{"id":"q","type":"prompt","message":"/quit"}`)
			if code := r2.wait(); code != 0 {
				t.Fatalf("exit code %d", code)
			}
		},
	})

	// "Sends a native terminal notification when Pi agent is done" (OSC 777 on a plain
	// terminal). What an extension writes to process.stdout goes to atomic's stderr (stdout
	// carries print/JSON/RPC output), which is the same terminal in the interactive mode.
	both(cases, "notify", exampleCase{
		files: []string{"notify.ts"},
		turns: []fakellm.Turn{{Text: "ok"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			out, errs := p.print("--no-session", "-e", ext, "-p", "hi")
			if out != "ok\n" || !strings.Contains(errs, "\x1b]777;notify;") || !strings.Contains(errs, "Ready for input") {
				t.Fatalf("stdout %q, stderr %q", out, errs)
			}
		},
	})

	// "demonstrates the input event": "?quick …" is rewritten, "ping" and "time" are answered
	// without the model.
	both(cases, "input-transform", exampleCase{
		files: []string{"input-transform.ts"},
		turns: []fakellm.Turn{{Text: "TypeScript is JavaScript with types."}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.send(`{"id":"a","type":"prompt","message":"ping"}`)
			r.notifyText("pong")
			r.prompt("b", "?quick What is TypeScript?")
			p.requestHas(0, "Respond briefly in 1-2 sentences: What is TypeScript?")
			if n := len(p.srv.Requests()); n != 1 {
				t.Fatalf("%d requests: ping reached the model", n)
			}
		},
	})

	// "Prompts for confirmation before destructive session actions (clear, switch, branch)":
	// refusing the dialogs cancels new_session and fork.
	both(cases, "confirm-destructive", exampleCase{
		files: []string{"confirm-destructive.ts"},
		turns: []fakellm.Turn{{Text: "answer"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("-e", ext)
			r.prompt("p", "keep me")
			r.send(`{"id":"n","type":"new_session"}`)
			conf := r.dialog("confirm")
			if conf["title"] != "Clear session?" {
				t.Fatalf("confirm %v", conf)
			}
			r.answer(conf, "confirmed", false)
			r.notifyText("Clear cancelled")
			if resp := r.next(func(m map[string]any) bool { return m["id"] == "n" }); resp["data"].(map[string]any)["cancelled"] != true {
				t.Fatalf("new_session %v", resp)
			}
			r.send(`{"id":"f","type":"fork","entryId":"` + r.firstUserEntryID() + `"}`)
			sel := r.dialog("select")
			if title, _ := sel["title"].(string); !strings.HasPrefix(title, "Fork from entry ") {
				t.Fatalf("select %v", sel)
			}
			r.answer(sel, "value", "No, stay in current session")
			r.notifyText("Fork cancelled")
			if resp := r.next(func(m map[string]any) bool { return m["id"] == "f" }); resp["data"].(map[string]any)["cancelled"] != true {
				t.Fatalf("fork %v", resp)
			}
		},
	})

	// "Prevents session changes when there are uncommitted git changes."
	both(cases, "dirty-repo-guard", exampleCase{
		files: []string{"dirty-repo-guard.ts"},
		check: func(t *testing.T, p *tsProbe, ext string) {
			gitInit(t, p.dir)
			writeFile(t, filepath.Join(p.dir, "dirty.txt"), "uncommitted\n")
			r := p.rpc("-e", ext)
			r.send(`{"id":"n","type":"new_session"}`)
			sel := r.dialog("select")
			if sel["title"] != "You have 1 uncommitted file(s). new session anyway?" {
				t.Fatalf("select %v", sel)
			}
			r.answer(sel, "value", "No, let me commit first")
			r.notifyText("Commit your changes first")
			if resp := r.next(func(m map[string]any) bool { return m["id"] == "n" }); resp["data"].(map[string]any)["cancelled"] != true {
				t.Fatalf("new_session %v", resp)
			}
		},
	})

	// "Automatically commits changes when the agent exits", with the last assistant message's
	// first line as the commit message.
	for _, c := range []struct{ project, prefix string }{{"pi", "[pi]"}, {"atomic", "[pi]"}} {
		prefix := c.prefix
		cases[c.project+"/auto-commit-on-exit"] = exampleCase{
			files: []string{"auto-commit-on-exit.ts"},
			turns: []fakellm.Turn{toolTurn("write", `{"path":"feature.txt","content":"new\n"}`), {Text: "Added the feature file\nDetails follow."}},
			check: func(t *testing.T, p *tsProbe, ext string) {
				gitInit(t, p.dir)
				p.print("--no-session", "-e", ext, "-p", "add a feature")
				out, err := exec.Command("git", "-C", p.dir, "log", "-1", "--format=%s", "--name-only").CombinedOutput()
				if err != nil || !strings.HasPrefix(string(out), prefix+" Added the feature file\n") || !strings.Contains(string(out), "feature.txt") {
					t.Fatalf("git log: %v\n%s", err, out)
				}
			},
		}
	}

	// "Logs provider payloads" to <cwd>/.pi (pi) or <cwd>/<CONFIG_DIR_NAME> (Atomic), with the
	// response status and headers.
	for _, c := range []struct{ project, dir string }{{"pi", ".pi"}, {"atomic", ".atomic"}} {
		dir := c.dir
		cases[c.project+"/provider-payload"] = exampleCase{
			files: []string{"provider-payload.ts"},
			turns: []fakellm.Turn{{Text: "ok"}},
			check: func(t *testing.T, p *tsProbe, ext string) {
				if err := os.Mkdir(filepath.Join(p.dir, dir), 0o755); err != nil {
					t.Fatal(err)
				}
				p.print("--no-session", "-e", ext, "-p", "log me")
				log, err := os.ReadFile(filepath.Join(p.dir, dir, "provider-payload.log"))
				if err != nil || !strings.Contains(string(log), `"model": "fake-model"`) || !strings.Contains(string(log), "log me") || !strings.Contains(string(log), "[200] {") {
					t.Fatalf("log: %v\n%s", err, log)
				}
			},
		}
	}

	// "Demonstrates ctx.reload() from ExtensionCommandContext": /reload-runtime reloads the
	// extensions (a helper extension reports its session_start reasons). Its tool queues
	// "/reload-runtime" with sendUserMessage(…, {deliverAs: "followUp"}), which pi 0.73.1 sends
	// to the model as text (sendUserMessage skips command handling); atomic does the same.
	both(cases, "reload-runtime", exampleCase{
		files: []string{"reload-runtime.ts"},
		turns: []fakellm.Turn{toolTurn("reload_runtime", `{}`), {Text: "queued"}, {Text: "as text"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			helper := filepath.Join(p.dir, "starts.ts")
			writeFile(t, helper, `export default function (pi: any) {
	pi.on("session_start", (e: any, ctx: any) => ctx.ui.notify("session_start " + e.reason, "info"));
}
`)
			r := p.rpc("--no-session", "-e", ext, "-e", helper)
			r.notifyText("session_start startup")
			r.send(`{"id":"c","type":"prompt","message":"/reload-runtime"}`)
			r.notifyText("session_start reload")
			r.prompt("p", "reload please")
			p.requestHas(1, "Queued /reload-runtime as a follow-up command.")
			p.requestHas(2, `{"type":"text","text":"/reload-runtime"`)
		},
	})

	// "Demonstrates terminate: true so the agent can end on a tool call without paying for an
	// extra follow-up LLM turn."
	// Atomic: "the canonical factory for adding a schema-backed terminating final-answer tool"
	// (createStructuredOutputTool).
	for _, c := range []struct{ project, want string }{{"pi", "Saved structured output: Release plan"}, {"atomic", `\"headline\": \"Release plan\"`}} {
		want := c.want
		cases[c.project+"/structured-output"] = exampleCase{
			files: []string{"structured-output.ts"},
			turns: []fakellm.Turn{toolTurn("structured_output", `{"headline":"Release plan","summary":"Ship it.","actionItems":["tag","publish"]}`), {Text: "never asked"}},
			check: func(t *testing.T, p *tsProbe, ext string) {
				r := p.rpc("--no-session", "-e", ext)
				r.prompt("p", "summarize as structured output")
				p.requestHas(0, `"name":"structured_output"`)
				if n := len(p.srv.Requests()); n != 1 {
					t.Fatalf("%d requests: the turn went on after the terminating tool", n)
				}
				msgs := r.response("m", `{"id":"m","type":"get_messages"}`)
				b, _ := json.Marshal(msgs["data"])
				if !strings.Contains(string(b), want) {
					t.Fatalf("messages lack %s: %s", want, b)
				}
			},
		}
	}

	// "Demonstrates using systemPromptOptions": guidance for the active tools and skills, and
	// the user's --append-system-prompt kept.
	both(cases, "prompt-customizer", exampleCase{
		files: []string{"prompt-customizer.ts"},
		turns: []fakellm.Turn{{Text: "ok"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			writeFile(t, filepath.Join(p.dir, ".agents", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy the app\n---\nSteps.\n")
			p.print("--no-session", "--approve", "--tools", "read,bash", "--append-system-prompt", "USER-APPEND-TEXT", "-e", ext, "-p", "hi")
			p.requestHas(0, "## Tool Guidance", "Use the `read` tool for file contents", "Execute commands with the `bash` tool", "Available skills: deploy", `USER-APPEND-TEXT\n\n\n## Extension-Added Context`)
			p.requestLacks(0, "Use the `edit` tool", "Use the `write` tool")
		},
	})

	// "exercises all RPC-supported extension UI methods": title, widget and status at start,
	// select on a dangerous bash command, confirm before a new session, input, editor and
	// setEditorText from commands, notify after each.
	both(cases, "rpc-demo", exampleCase{
		files: []string{"rpc-demo.ts"},
		turns: []fakellm.Turn{toolTurn("bash", `{"command":"rm -rf victim"}`), {Text: "done"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			if err := os.Mkdir(filepath.Join(p.dir, "victim"), 0o755); err != nil {
				t.Fatal(err)
			}
			r := p.rpc("-e", ext)
			if m := r.dialog("setTitle"); !strings.HasSuffix(m["title"].(string), "RPC Demo") {
				t.Fatalf("title %v", m)
			}
			if m := r.dialog("setWidget"); m["widgetKey"] != "rpc-demo" || fmt.Sprint(m["widgetLines"]) != "[--- RPC Extension UI Demo --- Loaded and ready.]" {
				t.Fatalf("widget %v", m)
			}
			if got := r.status("rpc-demo"); got != "Turns: 0" {
				t.Fatalf("status %q", got)
			}
			r.send(`{"id":"p","type":"prompt","message":"clean up"}`)
			if got := r.status("rpc-demo"); got != "Turn 1 running..." {
				t.Fatalf("status %q", got)
			}
			sel := r.dialog("select")
			if sel["title"] != "Dangerous command: rm -rf victim" {
				t.Fatalf("select %v", sel)
			}
			r.answer(sel, "value", "Block")
			r.notifyText("Command blocked by user")
			r.next(func(m map[string]any) bool { return m["type"] == "agent_settled" })
			p.requestHas(1, "Blocked by user")
			if _, err := os.Stat(filepath.Join(p.dir, "victim")); err != nil {
				t.Fatal("the blocked command ran")
			}
			r.send(`{"id":"i","type":"prompt","message":"/rpc-input"}`)
			r.answer(r.dialog("input"), "value", "forty-two")
			r.notifyText("You entered: forty-two")
			r.send(`{"id":"e","type":"prompt","message":"/rpc-editor"}`)
			ed := r.dialog("editor")
			if ed["prefill"] != "Line 1\nLine 2\nLine 3" {
				t.Fatalf("editor %v", ed)
			}
			r.answer(ed, "value", "a\nb")
			r.notifyText("Editor submitted (2 lines)")
			r.send(`{"id":"f","type":"prompt","message":"/rpc-prefill"}`)
			if m := r.dialog("set_editor_text"); m["text"] != "This text was set by the rpc-demo extension." {
				t.Fatalf("set_editor_text %v", m)
			}
			r.notifyText("Editor prefilled")
			r.send(`{"id":"n","type":"new_session"}`)
			r.answer(r.dialog("confirm"), "confirmed", false)
			r.notifyText("Clear cancelled")
		},
	})

	// "timed dialogs with live countdown": the dialogs carry their timeout to the client, and
	// the answers come back.
	both(cases, "timed-confirm", exampleCase{
		files: []string{"timed-confirm.ts"},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.send(`{"id":"a","type":"prompt","message":"/timed"}`)
			conf := r.dialog("confirm")
			// The timeout left when the request is written (pi sends the option as given).
			if ms, _ := conf["timeout"].(float64); conf["title"] != "Timed Confirmation" || ms <= 4000 || ms > 5000 {
				t.Fatalf("confirm %v", conf)
			}
			r.answer(conf, "confirmed", true)
			r.notifyText("Confirmed by user!")
			r.send(`{"id":"b","type":"prompt","message":"/timed-select"}`)
			sel := r.dialog("select")
			if ms, _ := sel["timeout"].(float64); ms <= 9000 || ms > 10000 {
				t.Fatalf("select %v", sel)
			}
			r.answer(sel, "value", "Option B")
			r.notifyText("Selected: Option B")
			r.send(`{"id":"c","type":"prompt","message":"/timed-signal"}`)
			r.notifyText("Dialog will auto-cancel in 5 seconds...")
			r.answer(r.dialog("confirm"), "cancelled", true)
			r.notifyText("Cancelled by user")
		},
	})

	// "handoff extracts what matters for your next task and creates a new session with a
	// generated prompt", shown as a draft in the editor. In RPC the loader is a component; the
	// prompt comes from the session's model through pi-ai's complete.
	cases["pi/handoff"] = exampleCase{
		files: []string{"handoff.ts"},
		turns: []fakellm.Turn{{Text: "The parser is done."}, {Text: "Write tests for the parser."}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("-e", ext)
			r.prompt("p", "we built the parser")
			before := r.response("s", `{"id":"s","type":"get_state"}`)["data"].(map[string]any)["sessionFile"]
			r.send(`{"id":"h","type":"prompt","message":"/handoff now write tests"}`)
			ed := r.dialog("editor")
			if ed["title"] != "Edit handoff prompt" || ed["prefill"] != "Write tests for the parser." {
				t.Fatalf("editor %v", ed)
			}
			p.requestHas(1, "we built the parser", "The parser is done.", "now write tests")
			r.answer(ed, "value", "Write parser tests, edited.")
			if m := r.dialog("set_editor_text"); m["text"] != "Write parser tests, edited." {
				t.Fatalf("set_editor_text %v", m)
			}
			r.notifyText("Handoff ready. Submit when ready.")
			r.next(func(m map[string]any) bool { return m["id"] == "h" })
			after := r.response("t", `{"id":"t","type":"get_state"}`)["data"].(map[string]any)["sessionFile"]
			if after == before || after == nil {
				t.Fatalf("session file %v, before %v", after, before)
			}
		},
	}

	// "Q&A extraction": /qna extracts the questions of the last assistant message with the
	// model and loads them into the editor.
	cases["pi/qna"] = exampleCase{
		files: []string{"qna.ts"},
		turns: []fakellm.Turn{{Text: "Which database? And which port?"}, {Text: "Q: Which database?\nA: \n\nQ: Which port?\nA: "}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.prompt("p", "set up the service")
			r.send(`{"id":"q","type":"prompt","message":"/qna"}`)
			if m := r.dialog("set_editor_text"); m["text"] != "Q: Which database?\nA: \n\nQ: Which port?\nA: " {
				t.Fatalf("set_editor_text %v", m)
			}
			r.notifyText("Questions loaded. Edit and submit when ready.")
			p.requestHas(1, "Which database? And which port?")
		},
	}

	// "named presets that configure model, thinking level, tools, and system prompt
	// instructions ... activated via CLI flag".
	for _, c := range []struct{ project, dir string }{{"pi", ".pi"}, {"atomic", ".atomic"}} {
		dir := c.dir
		cases[c.project+"/preset"] = exampleCase{
			files: []string{"preset.ts"},
			turns: []fakellm.Turn{{Text: "planned"}},
			check: func(t *testing.T, p *tsProbe, ext string) {
				writeFile(t, filepath.Join(p.dir, dir, "presets.json"), `{"plan": {"provider": "fake", "model": "other-model", "tools": ["read"], "instructions": "PLAN-PRESET-RULES"}}`)
				p.print("--no-session", "--approve", "-e", ext, "--preset", "plan", "-p", "make a plan")
				p.requestHas(0, `"model":"other-model"`, "PLAN-PRESET-RULES", `"name":"read"`)
				p.requestLacks(0, `"name":"bash"`, `"name":"edit"`)
			},
		}
	}

	// "Read-only exploration mode": --plan restricts the tools, blocks bash commands that are
	// not read-only, and tells the model it is planning.
	both(cases, "plan-mode", exampleCase{
		files: []string{"plan-mode/index.ts", "plan-mode/utils.ts"},
		turns: []fakellm.Turn{
			{ToolCalls: []fakellm.ToolCall{
				{Name: "bash", Arguments: json.RawMessage(`{"command":"rm -rf victim"}`)},
				{Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
			}},
			{Text: "Plan:\n1. Read the code\n2. Write the fix"},
		},
		check: func(t *testing.T, p *tsProbe, ext string) {
			if err := os.Mkdir(filepath.Join(p.dir, "victim"), 0o755); err != nil {
				t.Fatal(err)
			}
			p.print("--no-session", "-e", ext, "--plan", "-p", "look around")
			p.requestHas(0, "[PLAN MODE ACTIVE]", `"name":"read"`, `"name":"bash"`)
			p.requestLacks(0, `"name":"edit"`, `"name":"write"`)
			p.requestHas(1, "Plan mode: command blocked (not allowlisted)", "victim")
			if _, err := os.Stat(filepath.Join(p.dir, "victim")); err != nil {
				t.Fatal("the blocked command ran")
			}
		},
	})

	// "resources_discover" contributes a skill, a prompt template and a theme.
	both(cases, "dynamic-resources", exampleCase{
		files: []string{"dynamic-resources/index.ts", "dynamic-resources/SKILL.md", "dynamic-resources/dynamic.md", "dynamic-resources/dynamic.json"},
		turns: []fakellm.Turn{{Text: "ok"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			cmds := r.response("c", `{"id":"c","type":"get_commands"}`)
			b, _ := json.Marshal(cmds["data"])
			if !strings.Contains(string(b), `"description":"Example prompt template loaded from resources_discover","name":"dynamic"`) || !strings.Contains(string(b), `"name":"skill:dynamic-resources"`) {
				t.Fatalf("commands %s", b)
			}
			r.prompt("p", "/dynamic")
			p.requestHas(0, "Summarize the current repository structure", "Example skill loaded from resources_discover")
		},
	})

	// "Demonstrates event.streamingBehavior": a prompt that mentions changes gets the git diff
	// stat appended (not during steering).
	cases["atomic/input-transform-streaming"] = exampleCase{
		files: []string{"input-transform-streaming.ts"},
		turns: []fakellm.Turn{{Text: "ok"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			writeFile(t, filepath.Join(p.dir, "tracked.txt"), "one\n")
			gitInit(t, p.dir)
			writeFile(t, filepath.Join(p.dir, "tracked.txt"), "one\ntwo\n")
			p.print("--no-session", "-e", ext, "-p", "what changes did I make?")
			p.requestHas(0, "what changes did I make?", "Current uncommitted changes:", "tracked.txt | 1 +")
		},
	}

	// "Shows how to use registerMessageRenderer" for custom messages sent with /status: the
	// renderer is the terminal UI's; the message and its details reach the session.
	both(cases, "message-renderer", exampleCase{
		files: []string{"message-renderer.ts"},
		check: func(t *testing.T, p *tsProbe, ext string) {
			r := p.rpc("--no-session", "-e", ext)
			r.send(`{"id":"s","type":"prompt","message":"/status warn Disk almost full"}`)
			m := r.next(func(m map[string]any) bool {
				msg, _ := m["message"].(map[string]any)
				return m["type"] == "message_end" && msg["customType"] == "status-update"
			})
			b, _ := json.Marshal(m["message"])
			if !strings.Contains(string(b), `"text":"Disk almost full"`) || !strings.Contains(string(b), `"level":"warn"`) || !strings.Contains(string(b), `"display":true`) {
				t.Fatalf("message %s", b)
			}
		},
	})

	// "Demonstrates proper output truncation for custom tools": an rg search with 3000 matches
	// is cut to 2000 lines, the full output is saved to a temp file, and the model is told
	// where. (A stand-in rg on PATH prints the matches: ripgrep is not installed here.)
	both(cases, "truncated-tool", exampleCase{
		files: []string{"truncated-tool.ts"},
		turns: []fakellm.Turn{toolTurn("rg", `{"pattern":"needle"}`), {Text: "done"}},
		check: func(t *testing.T, p *tsProbe, ext string) {
			bin := filepath.Join(p.agent, "bin")
			writeFile(t, filepath.Join(bin, "rg"), "#!/bin/sh\nseq 1 3000 | awk '{print \"hay.txt:\" $1 \":needle\"}'\n")
			if err := os.Chmod(filepath.Join(bin, "rg"), 0o755); err != nil {
				t.Fatal(err)
			}
			p.env = append(p.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			p.print("--no-session", "-e", ext, "-p", "search")
			body := p.request(1)
			p.requestHas(1, "hay.txt:1:needle", "hay.txt:2000:needle", "[Output truncated: showing 2000 of 3001 lines", "Full output saved to: ")
			p.requestLacks(1, "hay.txt:2001:needle")
			i := strings.Index(body, "Full output saved to: ")
			path := body[i+len("Full output saved to: "):]
			path = path[:strings.Index(path, "]")]
			full, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(full), "hay.txt:3000:needle") {
				t.Fatalf("full output %s: %v", path, err)
			}
			os.RemoveAll(filepath.Dir(path))
		},
	})

	// Atomic's handoff and qna run only in its terminal UI (they check ctx.mode === "tui") and
	// say so elsewhere.
	for _, name := range []string{"handoff", "qna"} {
		name := name
		cases["atomic/"+name] = exampleCase{
			files: []string{name + ".ts"},
			check: func(t *testing.T, p *tsProbe, ext string) {
				r := p.rpc("--no-session", "-e", ext)
				r.send(`{"id":"c","type":"prompt","message":"/` + name + ` go"}`)
				r.notifyText(name + " requires interactive mode")
			},
		}
	}

	return cases
}

func TestExampleExtensions(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	for name, c := range exampleCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			project, _, _ := strings.Cut(name, "/")
			p, ext := newExample(t, project, c.turns, c.files...)
			c.check(t, p, ext)
		})
	}
}

// A host that blocks its event loop for 1.5 s (issue 13 item 18) is reported as blocked, the
// tool_call handlers (fail-closed) of the calls made meanwhile wait for it and decide — nothing
// runs unchecked —, and it is not restarted: its in-memory state survives. Only a host silent
// past extensionHandlerTimeoutMs is restarted (its state is lost); a forbidden call still never
// runs.
func TestBusyHostIsNotRestarted(t *testing.T) {
	turns := []fakellm.Turn{
		toolTurn("count", `{}`),
		{ToolCalls: []fakellm.ToolCall{
			{Name: "count", Arguments: json.RawMessage(`{}`)},
			{Name: "bash", Arguments: json.RawMessage(`{"command":"touch allowed.txt"}`)},
			{Name: "bash", Arguments: json.RawMessage(`{"command":"touch forbidden.txt"}`)},
		}},
		{Text: "done"},
	}
	p := newTSProbe(t, turns, "busyhost.ts")
	p.env = append(p.env, "BUSY_SECONDS=1.5")
	_, stderr := p.print("--no-session", "-e", "busyhost.ts", "-p", "go")
	if !strings.Contains(stderr, "has blocked the host") {
		t.Fatalf("the blocked host was not reported:\n%s", stderr)
	}
	if strings.Contains(stderr, "unresponsive") || strings.Contains(stderr, "restart") {
		t.Fatalf("the host was restarted:\n%s", stderr)
	}
	p.requestHas(1, "count=1")
	p.requestHas(2, "count=2", "forbidden by busyhost.ts")
	if _, err := os.Stat(filepath.Join(p.dir, "allowed.txt")); err != nil {
		t.Fatal("the allowed command did not run")
	}
	if _, err := os.Stat(filepath.Join(p.dir, "forbidden.txt")); err == nil {
		t.Fatal("the forbidden command ran")
	}

	// Silent past extensionHandlerTimeoutMs: restarted, with its state lost.
	q := newTSProbe(t, turns, "busyhost.ts")
	q.env = append(q.env, "BUSY_SECONDS=6")
	writeFile(t, filepath.Join(q.agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}, "extensionHandlerTimeoutMs": 1000}`)
	_, stderr = q.print("--no-session", "-e", "busyhost.ts", "-p", "go")
	if !strings.Contains(stderr, "unresponsive") {
		t.Fatalf("the silent host was not restarted:\n%s", stderr)
	}
	q.requestHas(1, "count=1")
	q.requestLacks(2, "count=2")
	if _, err := os.Stat(filepath.Join(q.dir, "forbidden.txt")); err == nil {
		t.Fatal("the forbidden command ran")
	}
}

// Every example of both projects is in exampleInventory, and those marked "run" have a case
// (or, for summarize, a script): the inventory is the table of issue 13's acceptance.
func TestExampleInventory(t *testing.T) {
	cases := exampleCases()
	for name, status := range exampleInventory {
		if status != "run" || name == "summarize" {
			continue
		}
		found := false
		for key := range cases {
			project, example, _ := strings.Cut(key, "/")
			if example == name || project+"/"+example == name {
				found = true
			}
		}
		if !found {
			t.Errorf("%s is marked run but has no case", name)
		}
	}
	for key := range cases {
		project, example, _ := strings.Cut(key, "/")
		if exampleInventory[example] != "run" && exampleInventory[project+"/"+example] != "run" {
			t.Errorf("case %s is not marked run in exampleInventory", key)
		}
	}
}
