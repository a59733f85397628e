package cli

import (
	"encoding/json"
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
// by the UI tests; the ones that cannot run here are listed in examplesNotRun with the cause.

// exampleCase is one example extension run: files are paths under testdata/examples/<project>
// copied into the project directory (the first is the extension passed with -e), turns what
// the fake model answers, and check runs the binary and asserts the header's behaviour.
type exampleCase struct {
	files []string
	turns []fakellm.Turn
	check func(t *testing.T, p *tsProbe, ext string)
}

// examplesNotRun are the non-UI examples no test runs, with the reason.
var examplesNotRun = map[string]string{
	"custom-provider-anthropic":  "imports @anthropic-ai/sdk, which the example installs with npm (network)",
	"custom-provider-gitlab-duo": "talks to gitlab.com with an OAuth token",
	"custom-provider-qwen-cli":   "talks to Qwen's OAuth service",
	"sandbox":                    "imports @anthropic-ai/sandbox-runtime, installed with npm (network)",
	"gondolin":                   "imports @earendil-works/gondolin, installed with npm (network)",
	"with-deps":                  "imports ms, installed with npm (network)",
	"antigravity-image-gen":      "needs a Google Antigravity OAuth login and its image API",
	"ssh":                        "needs an ssh server",
	"mac-system-theme":           "runs macOS's defaults command",
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
		"fake":   provider("fake-model"),
		"google": provider("gemini-2.5-flash"),
	}})
	if err := os.WriteFile(filepath.Join(p.agent, "models.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, filepath.Join(p.dir, files[0])
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
