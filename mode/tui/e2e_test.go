package tui_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

func script(turns ...fakellm.Turn) *fakellm.Script {
	return &fakellm.Script{Turns: turns}
}

// checkSessionFile reads a session file and checks every line is a JSON object, the first the
// header, and that it holds an assistant message containing want.
func checkSessionFile(t *testing.T, path, want string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n, found := 0, false
	for sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("%s line %d is not a JSON object: %v", path, n+1, err)
		}
		if n == 0 && obj["type"] != "session" {
			t.Fatalf("%s: first line is %v, want the session header", path, obj["type"])
		}
		if msg, ok := obj["message"].(map[string]any); ok && msg["role"] == "assistant" {
			b, _ := json.Marshal(msg["content"])
			found = found || strings.Contains(string(b), want)
		}
		n++
	}
	if !found {
		t.Fatalf("%s: no assistant message containing %q", path, want)
	}
}

// TestE2EFullTask runs a task with two tool calls (bash and read) to the final answer in the
// real binary, then quits with /quit: the tool rows and the answer are on screen, and the
// session file is valid.
func TestE2EFullTask(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Thinking: "Let me look.", Text: "I'll run a command and read a file.", Chunks: 4, ToolCalls: []fakellm.ToolCall{
			fakellm.Call("bash", map[string]any{"command": "echo hello-from-bash"}),
			fakellm.Call("read", map[string]any{"path": "main.go"}),
		}},
		fakellm.Turn{Text: "## Result\n\nThe file defines **main**. All done.", Chunks: 6},
	))
	env.WriteFile(t, filepath.Join(env.Work, "main.go"), "package main\n\nfunc main() {}\n")
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model", "atomic v")
	term.Type("inspect the project")
	term.Press("enter")
	term.WaitFor("All done.")
	term.WaitFor("$ echo hello-from-bash", "hello-from-bash", "read main.go", "func main() {}", "Thinking...")
	term.WaitGone("Working...")
	if got := len(env.Fake.Requests()); got != 2 {
		t.Fatalf("%d provider requests; want 2", got)
	}
	term.Type("/quit")
	term.Press("enter")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	files := env.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	checkSessionFile(t, files[0], "All done.")
}

// TestE2ESteerWhileWorking types a message while a tool runs: it waits in the pending area as
// "Steering: …", reaches the model with the next request, and shows as a user message.
func TestE2ESteerWhileWorking(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Waiting for the signal.", ToolCalls: []fakellm.ToolCall{
			// The command ends when the test creates the file "go": no timing involved.
			fakellm.Call("bash", map[string]any{"command": "while [ ! -f go ]; do sleep 0.02; done; echo released"}),
		}},
		fakellm.Turn{Text: "Steer received."},
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("start")
	term.Press("enter")
	term.WaitFor("Waiting for the signal.", "Working...")
	term.Type("please also check the tests")
	term.Press("enter")
	term.WaitFor("Steering: please also check the tests")
	env.WriteFile(t, filepath.Join(env.Work, "go"), "")
	term.WaitFor("Steer received.")
	term.WaitGone("Steering:")
	reqs := env.Fake.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "please also check the tests") {
		t.Fatalf("the steer did not reach the second request (%d requests)", len(reqs))
	}
	term.Press("ctrl+c", "ctrl+c")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestE2EAbortWithEscape: the model stalls mid-answer; Escape aborts the run, the partial
// answer is marked aborted, the working line goes, and the next prompt works.
func TestE2EAbortWithEscape(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Partial answer that never ends", Chunks: 3, Stall: fakellm.StallEvents, StallAfter: 4},
		fakellm.Turn{Text: "Second answer."},
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("go")
	term.Press("enter")
	term.WaitFor("Partial", "Working...")
	term.Press("esc")
	term.WaitFor("Operation aborted")
	term.WaitGone("Working...")
	term.Type("again")
	term.Press("enter")
	term.WaitFor("Second answer.")
	term.Press("ctrl+d")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestE2ENoColor: with NO_COLOR set the screen carries no colour sequences, only attributes
// (tui.md §5.4).
func TestE2ENoColor(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "plain **answer**"}))
	env.Vars = append(env.Vars, "NO_COLOR=1")
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("fake-model")
	term.Type("hi")
	term.Press("enter")
	term.WaitFor("plain answer")
	out := string(term.Recorded())
	for _, sgr := range []string{"38;2;", "48;2;", "38;5;", "48;5;"} {
		if strings.Contains(out, sgr) {
			t.Errorf("colour sequence %q written under NO_COLOR", sgr)
		}
	}
	term.Press("ctrl+d")
	term.WaitExit()
}

// TestE2EResize: shrinking and growing the terminal reflows the transcript and keeps the editor
// and footer at the bottom.
func TestE2EResize(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: strings.Repeat("reflowing words ", 12) + "LAST"}))
	term := env.StartSized(t, 100, 24, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("fake-model")
	term.Type("go")
	term.Press("enter")
	term.WaitFor("LAST")
	footerAt := func(row int) func(string) bool {
		return func(s string) bool {
			lines := strings.Split(s, "\n")
			return len(lines) > row && strings.Contains(lines[row], "fake-model") && strings.Contains(s, "LAST")
		}
	}
	term.Resize(50, 20)
	term.WaitScreen("the footer on row 20 of 20", footerAt(19))
	lines := strings.Split(term.Screen(), "\n")
	for i, l := range lines {
		if len([]rune(l)) > 50 {
			t.Fatalf("row %d wider than 50 after shrinking: %q", i, l)
		}
	}
	term.Resize(120, 30)
	term.WaitScreen("the footer on row 30 of 30", footerAt(29))
	term.Press("ctrl+d")
	term.WaitExit()
}

// TestE2EBusyExtensionNeverFreezesTyping: a TypeScript extension busy-loops inside tool_call
// (synchronously, so its host stops answering). Text typed during the loop shows in the editor at
// once; the host is declared unresponsive, the tool call is blocked (fail-closed) and the run
// finishes with the model's next answer.
func TestE2EBusyExtensionNeverFreezesTyping(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Running it.", ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "echo EXEC''UTED"})}},
		fakellm.Turn{Text: "The run finished."},
	))
	// The handler bound is the settings' (30 s by default); 2 s keeps the test short.
	env.WriteFile(t, filepath.Join(env.Agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}, "extensionHandlerTimeoutMs": 2000}`)
	looping := filepath.Join(env.Work, "looping")
	release := filepath.Join(env.Work, "release")
	t.Cleanup(func() { _ = os.WriteFile(release, nil, 0o644) })
	ext := filepath.Join(env.Work, "busy.ts")
	env.WriteFile(t, ext, fmt.Sprintf(`import * as fs from "node:fs";
export default function (pi: any) {
  pi.on("tool_call", () => {
    fs.writeFileSync(%q, "");
    while (!fs.existsSync(%q)) {}
    return undefined;
  });
}
`, looping, release))
	term := env.Start(t, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model")
	term.Type("run it")
	term.Press("enter")
	term.WaitScreen("the extension looping in tool_call", func(string) bool {
		_, err := os.Stat(looping)
		return err == nil
	})
	term.Type("typed during the loop")
	term.WaitFor("typed during the loop")
	term.WaitFor("The run finished.")
	if strings.Contains(term.Screen(), "EXECUTED") {
		t.Fatalf("the blocked tool ran:\n%s", term.Screen())
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	term.Press("ctrl+c", "ctrl+c")
	term.WaitExit()
}

// TestE2EThemeFromSettings: settings.json "theme": a custom theme file in <agentDir>/themes is
// used from the first frame (its accent colours the header).
func TestE2EThemeFromSettings(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "x"}))
	light, err := os.ReadFile(filepath.Join("theme", "testdata", "mine.json"))
	if err != nil {
		t.Fatal(err)
	}
	env.WriteFile(t, filepath.Join(env.Agent, "themes", "mine.json"), string(light))
	env.WriteFile(t, filepath.Join(env.Agent, "settings.json"), `{"theme": "mine", "retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`)
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("fake-model")
	term.Press("ctrl+d")
	term.WaitExit()
	// mine.json's accent is #123456.
	if out := string(term.Recorded()); !strings.Contains(out, "38;2;18;52;86") {
		t.Fatalf("the custom theme's accent was not used")
	}
}

// TestE2EExtensionOutputStaysOffTheScreen: what a TypeScript extension prints (console.error,
// process.stdout.write, a child process with inherited stdio) while the screen is up never
// reaches the terminal raw, which would tear the alternate screen: each line is shown as a
// notification and kept in <agentDir>/logs/stderr.log, and the footer and editor stay intact.
func TestE2EExtensionOutputStaysOffTheScreen(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Done talking."}))
	ext := filepath.Join(env.Work, "noisy.ts")
	env.WriteFile(t, ext, `import { execSync } from "node:child_process";
export default function (pi: any) {
  pi.on("agent_start", () => {
    console.error("NOISE-ONE from console.error");
    process.stdout.write("NOISE-TWO from stdout\n");
    execSync("echo NOISE-THREE from a child", { stdio: "inherit" });
  });
}
`)
	term := env.Start(t, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model")
	term.Record()
	term.Type("hello")
	term.Press("enter")
	term.WaitFor("Done talking.", "NOISE-ONE", "NOISE-TWO", "NOISE-THREE")
	screen := term.Screen()
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if !strings.Contains(lines[len(lines)-1]+lines[len(lines)-2], "fake-model") {
		t.Fatalf("the footer moved off the last rows:\n%s", screen)
	}
	// Raw output would be written as plain text right after a newline, outside any cursor
	// positioning of the renderer; the notification is drawn by the renderer, styled.
	if rec := string(term.Recorded()); strings.Contains(rec, "NOISE-TWO from stdout\n") || strings.Contains(rec, "NOISE-THREE from a child\n") {
		t.Fatalf("extension output reached the terminal raw:\n%q", rec)
	}
	log, err := os.ReadFile(filepath.Join(env.Agent, "logs", "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NOISE-ONE", "NOISE-TWO", "NOISE-THREE"} {
		if !strings.Contains(string(log), want) {
			t.Fatalf("the log file lacks %s:\n%s", want, log)
		}
	}
	term.Press("ctrl+c", "ctrl+c")
	term.WaitExit()
}
