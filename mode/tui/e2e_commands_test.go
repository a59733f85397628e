package tui_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// twoModels rewrites models.json so the fake provider offers fake-model and fake-large.
func twoModels(t *testing.T, env *tuitest.Env) {
	t.Helper()
	models := map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": env.Fake.URL(), "api": llm.APIAnthropicMessages, "apiKey": "fake-key",
		"models": []any{
			map[string]any{"id": "fake-model", "name": "Fake Model", "contextWindow": 100000, "maxTokens": 4096},
			map[string]any{"id": "fake-large", "name": "Fake Large", "contextWindow": 200000, "maxTokens": 8192},
		},
	}}}
	b, _ := json.Marshal(models)
	env.WriteFile(t, filepath.Join(env.Agent, "models.json"), string(b))
}

// requestModel is the "model" field of the fake's i-th request body.
func requestModel(t *testing.T, env *tuitest.Env, i int) string {
	t.Helper()
	reqs := env.Fake.Requests()
	if i >= len(reqs) {
		t.Fatalf("request %d of %d", i, len(reqs))
	}
	var body struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Model
}

func quit(t *testing.T, term *tuitest.Term) {
	t.Helper()
	term.Type("/quit")
	term.Press("enter")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestE2EModelSwitch: /model opens the searchable selector; the pick becomes the footer's model
// and the model of the next request.
func TestE2EModelSwitch(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Answered by the large one."}))
	twoModels(t, env)
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/name")
	term.Press("enter")
	term.WaitFor("Usage: /name")
	term.Type("/model")
	term.Press("enter")
	term.WaitFor("Select model", "→ fake-model [fake] ✓", "fake-large [fake]")
	term.Type("large")
	term.WaitGone("→ fake-model")
	term.Press("enter")
	term.WaitFor("Model: fake-large")
	term.WaitGone("Select model")
	// The switch leaves the transcript as it was: the earlier notice is still there.
	if !strings.Contains(term.Screen(), "Usage: /name") {
		t.Fatalf("the notice before /model was wiped:\n%s", term.Screen())
	}
	term.Type("hello")
	term.Press("enter")
	term.WaitFor("Answered by the large one.")
	if m := requestModel(t, env, 0); m != "fake-large" {
		t.Fatalf("the request went to %q, want fake-large", m)
	}
	// The pick is kept for the next run, beside the keys already there.
	b, err := os.ReadFile(filepath.Join(env.Agent, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(b, &saved); err != nil || saved["defaultProvider"] != "fake" || saved["defaultModel"] != "fake-large" {
		t.Fatalf("settings.json after /model: %s (%v)", b, err)
	}
	quit(t, term)
}

// TestE2ETreeContinueFromEarlierEntry: /tree back to the second user message (found by typing),
// no summary; the editor gets its text, the later answer leaves the screen, and a new prompt
// continues from the first answer (the session file has the branch).
func TestE2ETreeContinueFromEarlierEntry(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "First answer."},
		fakellm.Turn{Text: "Second answer."},
		fakellm.Turn{Text: "Branched answer."},
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("first question")
	term.Press("enter")
	term.WaitFor("First answer.")
	term.Type("second question")
	term.Press("enter")
	term.WaitFor("Second answer.")
	term.Type("/tree")
	term.Press("enter")
	term.WaitFor("Session tree", "← active", "Type to search:")
	// shift+l labels the selected entry (the leaf); the label shows at once and is saved.
	term.Type("L")
	term.WaitFor("Label for this entry")
	term.Type("checkpoint")
	term.Press("enter")
	term.WaitFor("[checkpoint] assistant: Second answer.")
	term.Type("second q")
	term.WaitFor("Type to search: second q")
	term.WaitGone("assistant: First answer.")
	term.Press("enter")
	term.WaitFor("Summarize branch?", "No summary")
	term.Press("enter")
	term.WaitFor("Navigated to selected point")
	term.WaitGone("Second answer.")
	// The editor holds the picked message; edit it and send.
	term.Press("ctrl+u")
	term.Type("another second question")
	term.Press("enter")
	term.WaitFor("Branched answer.")
	reqs := env.Fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	body := string(reqs[2].Body)
	if !strings.Contains(body, "First answer.") || strings.Contains(body, "Second answer.") || !strings.Contains(body, "another second question") {
		t.Fatalf("the continued request does not start from the first answer:\n%s", body)
	}
	quit(t, term)
	files := env.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	if b, err := os.ReadFile(files[0]); err != nil || !strings.Contains(string(b), `"label":"checkpoint"`) {
		t.Fatalf("the label was not saved (%v):\n%s", err, b)
	}
}

// TestE2EFork: /fork from the first message makes a new session file holding nothing after
// it; the editor gets the message text.
func TestE2EFork(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Answer one."},
		fakellm.Turn{Text: "Answer two."},
		fakellm.Turn{Text: "Answer in the fork."},
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("message one")
	term.Press("enter")
	term.WaitFor("Answer one.")
	term.Type("message two")
	term.Press("enter")
	term.WaitFor("Answer two.")
	term.Type("/fork")
	term.Press("enter")
	term.WaitFor("Fork from message", "→ message two")
	term.Press("up")
	term.WaitFor("→ message one")
	term.Press("enter")
	term.WaitFor("Forked to new session")
	term.WaitGone("Answer one.", "Answer two.")
	term.Press("enter") // the editor holds "message one"
	term.WaitFor("Answer in the fork.")
	if body := string(env.Fake.Requests()[2].Body); strings.Contains(body, "Answer one.") || !strings.Contains(body, "message one") {
		t.Fatalf("the fork's first request carries the old branch:\n%s", body)
	}
	quit(t, term)
	if files := env.Sessions(t); len(files) != 2 {
		t.Fatalf("session files %v, want the original and the fork", files)
	}
}

// TestE2EResumeOlderSession: a second run resumes the first run's session from the picker.
func TestE2EResumeOlderSession(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Old session answer."},
		fakellm.Turn{Text: "New session answer."},
		fakellm.Turn{Text: "Back in the old one."},
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("remember the old days")
	term.Press("enter")
	term.WaitFor("Old session answer.")
	quit(t, term)

	term = env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("something new")
	term.Press("enter")
	term.WaitFor("New session answer.")
	term.Type("/resume")
	term.Press("enter")
	term.WaitFor("Resume Session (Current Folder)", "remember the old days", "something new")
	term.Type("old days")
	term.WaitFor("> old days", "› remember the old days")
	term.Press("enter")
	term.WaitFor("Resumed session", "Old session answer.")
	term.WaitGone("New session answer.")
	term.Type("and now?")
	term.Press("enter")
	term.WaitFor("Back in the old one.")
	if body := string(env.Fake.Requests()[2].Body); !strings.Contains(body, "Old session answer.") {
		t.Fatalf("the resumed session's request lacks its history:\n%s", body)
	}
	quit(t, term)
}

// TestE2ECompact: /compact runs the planner and shows the compaction row.
func TestE2ECompact(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "done one"},
		fakellm.Turn{Text: "done two"},
		fakellm.Turn{Text: "1-4"}, // the planner: drop the first exchange
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("first task")
	term.Press("enter")
	term.WaitFor("done one")
	term.Type("second task")
	term.Press("enter")
	term.WaitFor("done two")
	term.Type("/compact")
	term.Press("enter")
	term.WaitFor("[compaction]", "Compacted from")
	term.WaitGone("Compacting context")
	if n := len(env.Fake.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3 (two answers and the planner)", n)
	}
	quit(t, term)
}

// tsExtension writes a TypeScript extension with the commands the dialog tests use.
const tsExtension = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("pick", {
		description: "pick a fruit",
		handler: async (_args, ctx) => {
			const v = await ctx.ui.select("Pick a fruit", ["apple", "banana", "cherry"]);
			ctx.ui.notify("picked " + v, "info");
		},
	});
	pi.registerCommand("ask", {
		description: "a timed question",
		handler: async (_args, ctx) => {
			const ok = await ctx.ui.confirm("Proceed with the deploy?", "It cannot be undone", { timeout: 1500 });
			ctx.ui.notify("confirmed: " + ok, "info");
		},
	});
	pi.registerCommand("busy", {
		description: "working line and a widget below the editor",
		handler: async (_args, ctx) => {
			ctx.ui.setWorkingMessage("CRUNCHING-NUMBERS");
			ctx.ui.setWorkingIndicator({ frames: ["<*>"], intervalMs: 100 });
			ctx.ui.setWidget("below", ["BELOW-WIDGET"], { placement: "belowEditor" });
			const v = await ctx.ui.input("Say when", "type anything");
			ctx.ui.setWorkingMessage();
			ctx.ui.notify("busy done: " + v, "info");
		},
	});
	pi.registerCommand("abortable", {
		description: "a select dismissed by its AbortSignal",
		handler: async (_args, ctx) => {
			const ac = new AbortController();
			setTimeout(() => ac.abort(), 1500);
			const v = await ctx.ui.select("Abortable question?", ["x", "y"], { signal: ac.signal });
			ctx.ui.notify("abort result: " + v, "info");
		},
	});
	pi.registerCommand("bye", {
		description: "shut down",
		handler: async (_args, ctx) => {
			ctx.shutdown();
		},
	});
	pi.registerCommand("deploy", {
		description: "deploy to a target",
		getArgumentCompletions: (prefix: string) =>
			[{ value: "prod", label: "Production", description: "the live cluster" }, "staging"].filter((i) => (typeof i === "string" ? i : i.value).startsWith(prefix)),
		handler: async (args, ctx) => {
			ctx.ui.notify("deploying " + args, "info");
		},
	});
	pi.registerCommand("chrome", {
		description: "status and widgets",
		handler: async (_args, ctx) => {
			ctx.ui.setStatus("build", "BUILD-GREEN hasUI=" + ctx.hasUI + " mode=" + ctx.mode);
			ctx.ui.setWidget("todo", ["TODO-ONE", "TODO-TWO"]);
		},
	});
}
`

func tsEnv(t *testing.T) (*tuitest.Env, *tuitest.Term) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	ext := filepath.Join(env.Work, "dialogs.ts")
	env.WriteFile(t, ext, tsExtension)
	term := env.Start(t, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model")
	return env, term
}

// TestE2EExtensionSelectWithArrows: a TypeScript extension's ctx.ui.select in the editor slot,
// answered with the arrow keys and Enter.
func TestE2EExtensionSelectWithArrows(t *testing.T) {
	env, term := tsEnv(t)
	term.Type("/pick")
	term.Press("enter")
	term.WaitFor("Pick a fruit", "→ apple", "banana", "cherry")
	term.Press("down")
	term.WaitFor("→ banana")
	term.Press("down", "up", "enter")
	term.WaitFor("picked banana")
	term.WaitGone("Pick a fruit")
	if n := len(env.Fake.Requests()); n != 0 {
		t.Fatalf("an extension command reached the model (%d requests)", n)
	}
	quit(t, term)
}

// TestE2EArgumentCompletionLabels: a TypeScript command's getArgumentCompletions items keep
// their label and description in the list (a bare string is its own label); Tab applies the
// item's value, not its label (issue 13 item 10).
func TestE2EArgumentCompletionLabels(t *testing.T) {
	_, term := tsEnv(t)
	term.WaitFor("(auto)") // the session is up: keys typed before go to the editor without completion
	term.Type("/deploy ")
	term.WaitFor("Production", "the live cluster", "staging")
	term.Press("tab")
	term.WaitGone("the live cluster")
	term.WaitScreen("the value applied", func(s string) bool { return strings.Contains(s, "/deploy prod") })
	term.Press("enter")
	term.WaitFor("deploying prod")
	quit(t, term)
}

// TestE2ETimedConfirmExpires: ctx.ui.confirm with a timeout shows the countdown and, left
// alone, resolves to false and closes.
func TestE2ETimedConfirmExpires(t *testing.T) {
	_, term := tsEnv(t)
	term.Type("/ask")
	term.Press("enter")
	term.WaitFor("Proceed with the deploy?", "It cannot be undone (2s)", "→ Yes")
	term.WaitFor("confirmed: false")
	term.WaitGone("Proceed with the deploy?")
	quit(t, term)
}

// TestE2EStatusAndWidgets: setStatus shows in the footer, setWidget's lines above the editor;
// ctx.hasUI is true and ctx.mode is "tui" (Atomic's discriminant: extensions such as snake and todo
// check it before drawing).
func TestE2EStatusAndWidgets(t *testing.T) {
	_, term := tsEnv(t)
	term.Type("/chrome")
	term.Press("enter")
	term.WaitFor("BUILD-GREEN hasUI=true mode=tui", "TODO-ONE", "TODO-TWO")
	quit(t, term)
}

// TestE2ETrustPrompt: a project with trust-gated inputs and no saved decision asks before the
// screen opens; "Trust" saves the decision in trust.json and the screen comes up.
func TestE2ETrustPrompt(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	env.WriteFile(t, filepath.Join(env.Work, ".atomic", "settings.json"), "{}\n")
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("Trust this project?", "→ Trust", "Trust parent folder", "Do not trust this session only", ".atomic/settings.json")
	term.Press("enter")
	term.WaitFor("fake-model", "atomic v")
	b, err := os.ReadFile(filepath.Join(env.Agent, "trust.json"))
	if err != nil || !strings.Contains(string(b), "true") {
		t.Fatalf("trust.json = %q, %v; want the project trusted", b, err)
	}
	quit(t, term)
}

// TestE2EProjectTrustHandlerPrompts: a TypeScript project_trust handler asks with ctx.ui.confirm
// (hasUI is true), and its "yes" decides without the built-in prompt.
func TestE2EProjectTrustHandlerPrompts(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	env.WriteFile(t, filepath.Join(env.Work, ".atomic", "settings.json"), "{}\n")
	ext := filepath.Join(env.Home, "trust.ts")
	env.WriteFile(t, ext, `export default function (pi: any) {
	pi.on("project_trust", async (event: any, ctx: any) => {
		if (!ctx.hasUI) return { trusted: "no" };
		const ok = await ctx.ui.confirm("Extension asks: trust this folder?", "decided by trust.ts");
		return { trusted: ok ? "yes" : "no" };
	});
}
`)
	term := env.Start(t, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("Extension asks: trust this folder?", "→ Yes")
	term.Press("enter")
	term.WaitFor("fake-model", "atomic v")
	if s := term.Screen(); strings.Contains(s, "Trust parent folder") {
		t.Fatalf("the built-in prompt showed after the handler decided:\n%s", s)
	}
	quit(t, term)
}

// TestE2EExtensionShutdown: ctx.shutdown() from an extension command ends the program at the
// next idle point, with exit code 0.
func TestE2EExtensionShutdown(t *testing.T) {
	_, term := tsEnv(t)
	term.Type("/bye")
	term.Press("enter")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestE2EWorkingLineAndWidgetBelow: setWorkingMessage / setWorkingIndicator replace the working
// line while the command runs; setWidget with placement belowEditor draws under the editor and
// above the footer (pi's layout).
func TestE2EWorkingLineAndWidgetBelow(t *testing.T) {
	_, term := tsEnv(t)
	term.Type("/busy")
	term.Press("enter")
	term.WaitFor("Say when", "<*> CRUNCHING-NUMBERS", "BELOW-WIDGET")
	s := term.Screen()
	if strings.Index(s, "BELOW-WIDGET") < strings.Index(s, "Say when") {
		t.Fatalf("the belowEditor widget is above the editor slot:\n%s", s)
	}
	// pi draws belowEditor widgets between the editor and the footer.
	if strings.Index(s, "BELOW-WIDGET") > strings.LastIndex(s, "fake-model") {
		t.Fatalf("the belowEditor widget is below the footer:\n%s", s)
	}
	term.Type("now")
	term.Press("enter")
	term.WaitFor("busy done: now")
	term.WaitGone("CRUNCHING-NUMBERS")
	quit(t, term)
}

// TestE2EAbortSignalClosesDialog: aborting a dialog's AbortSignal resolves it with the default
// and takes the dialog off the screen.
func TestE2EAbortSignalClosesDialog(t *testing.T) {
	_, term := tsEnv(t)
	term.Type("/abortable")
	term.Press("enter")
	term.WaitFor("Abortable question?", "→ x")
	term.WaitFor("abort result: undefined")
	term.WaitGone("Abortable question?")
	quit(t, term)
}

// TestE2ESessionCommands walks /name, /session, /export (HTML and .jsonl), /clone, /new,
// /hotkeys and /scoped-models with Ctrl+P cycling in one run.
func TestE2ESessionCommands(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "First reply."}, fakellm.Turn{Text: "Reply in the new session."}))
	twoModels(t, env)
	term := env.StartSized(t, 100, 40, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("hello")
	term.Press("enter")
	term.WaitFor("First reply.")

	term.Type("/name release notes")
	term.Press("enter")
	term.WaitFor("Session name set: release notes")
	term.Type("/session")
	term.Press("enter")
	term.WaitFor("Session Info", "Name: release notes", "User: 1", "Assistant: 1")

	term.Type("/export out.html")
	term.Press("enter")
	term.WaitFor("Session exported to:")
	term.Type("/export copy.jsonl")
	term.Press("enter")
	term.WaitScreen("the .jsonl export notice", func(screen string) bool {
		for _, l := range strings.Split(screen, "\n") {
			if strings.Contains(l, "exported to:") && strings.Contains(l, "copy.jsonl") {
				return true
			}
		}
		return false
	})
	for _, f := range []string{"out.html", "copy.jsonl"} {
		if st, err := os.Stat(filepath.Join(env.Work, f)); err != nil || st.Size() == 0 {
			t.Fatalf("export %s: %v", f, err)
		}
	}

	term.Type("/clone")
	term.Press("enter")
	term.WaitFor("Cloned to new session")
	term.Type("/hotkeys")
	term.Press("enter")
	term.WaitFor("Editing", "Other", "Cycle models forward")

	term.Type("/scoped-models")
	term.Press("enter")
	term.WaitFor("Scoped models", "all enabled")
	term.Press("enter", "down", "enter")
	term.WaitFor("2/2 enabled")
	term.Press("esc")
	term.WaitGone("Scoped models")
	term.Press("ctrl+p")
	term.WaitFor("Switched to fake-large")

	term.Type("/new")
	term.Press("enter")
	term.WaitFor("New session started")
	term.WaitGone("First reply.")
	term.Type("fresh start")
	term.Press("enter")
	term.WaitFor("Reply in the new session.")
	if body := string(env.Fake.Requests()[1].Body); strings.Contains(body, "First reply.") {
		t.Fatalf("the new session's request carries the old conversation:\n%s", body)
	}
	quit(t, term)
	if files := env.Sessions(t); len(files) != 3 {
		t.Fatalf("session files %v, want the original, the clone and the new one", files)
	}
}

// TestE2EFooterNamesProviderWhenSeveral: with models of two authenticated providers the
// footer's model is prefixed with its provider, as pi does (tui.md §1.3); with one it is not.
func TestE2EFooterNamesProviderWhenSeveral(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	single := env.Start(t, bin, "--model", "fake/fake-model", "--no-session")
	single.WaitFor("fake-model")
	if strings.Contains(single.Screen(), "(fake)") {
		t.Fatalf("one provider, yet the footer names it:\n%s", single.Screen())
	}
	quit(t, single)

	models := map[string]any{"providers": map[string]any{
		"fake": map[string]any{
			"baseUrl": env.Fake.URL(), "api": llm.APIAnthropicMessages, "apiKey": "fake-key",
			"models": []any{map[string]any{"id": "fake-model", "name": "Fake Model", "contextWindow": 100000, "maxTokens": 4096}},
		},
		"other": map[string]any{
			"baseUrl": env.Fake.URL(), "api": llm.APIAnthropicMessages, "apiKey": "other-key",
			"models": []any{map[string]any{"id": "other-model", "name": "Other Model", "contextWindow": 100000, "maxTokens": 4096}},
		},
	}}
	b, _ := json.Marshal(models)
	env.WriteFile(t, filepath.Join(env.Agent, "models.json"), string(b))
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("(fake) fake-model")
	quit(t, term)
}

// TestE2ECompactCancelled: Escape during /compact (the planner's request stalls) cancels it and
// says so as pi does — "Compaction cancelled" — not as a failure with the abort as its cause.
func TestE2ECompactCancelled(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "done one"},
		fakellm.Turn{Text: "done two"},
		fakellm.Turn{Text: "1-4", Stall: fakellm.StallHeaders}, // the planner never answers
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("first task")
	term.Press("enter")
	term.WaitFor("done one")
	term.Type("second task")
	term.Press("enter")
	term.WaitFor("done two")
	term.Type("/compact")
	term.Press("enter")
	term.WaitFor("Compacting context")
	term.Press("esc")
	term.WaitFor("Compaction cancelled")
	term.WaitGone("Compacting context")
	if s := term.Screen(); strings.Contains(s, "Compaction failed") || strings.Contains(s, "aborted") {
		t.Fatalf("the cancel is shown as a failure:\n%s", s)
	}
	quit(t, term)
}
