package tui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// TestE2EExtensionThemeKeysExpandPaste: an unchanged TypeScript extension styles a widget with
// ctx.ui.theme (the dark palette's real SGR colours reach the terminal), lists and loads themes,
// formats key hints from keybindings.json, sets the tools-expanded flag and reads it back,
// switches the theme (an unknown name fails and falls back; "light" is applied and saved) and
// pastes twelve lines into the editor, which become a large-paste marker.
func TestE2EExtensionThemeKeysExpandPaste(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "x"}))
	env.WriteFile(t, filepath.Join(env.Agent, "keybindings.json"), `{"app.tools.expand": ["ctrl+x", "alt+o"]}`)
	env.WriteFile(t, filepath.Join(env.Agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`)
	mine, err := os.ReadFile(filepath.Join("theme", "testdata", "mine.json"))
	if err != nil {
		t.Fatal(err)
	}
	env.WriteFile(t, filepath.Join(env.Agent, "themes", "mine.json"), string(mine))
	extPath, err := filepath.Abs(filepath.Join("testdata", "uisurf", "surfaces.ts"))
	if err != nil {
		t.Fatal(err)
	}
	term := env.StartSized(t, 140, 40, bin, "--model", "fake/fake-model", "--no-session", "-e", extPath)
	term.WaitFor("fake-model")
	term.Record()
	term.Type("/surf")
	term.Press("enter")
	term.WaitFor("THEMED-ACCENT", "[paste #1 +12 lines]", "now=light")
	screen := term.Screen()
	for _, want := range []string{
		"name=dark mode=truecolor themes=dark,light,mine",
		"hint=[ctrl+x/alt+o to expand] text=[ctrl+x/alt+o]",
		"unbound=[] raw=[ctrl+q quit it]",
		`light-accent="\u001b[38;2;90;128;128m" missing=true`,
		"expanded=true bad=false:theme: unknown theme \"no-such-theme\" (using dark) ok=true now=light",
	} {
		if !strings.Contains(screen, want) {
			t.Fatalf("screen lacks %q:\n%s", want, screen)
		}
	}
	rec := string(term.Recorded())
	// dark accent #8abeb7, toolErrorBg #3c2828.
	for _, want := range []string{"\x1b[38;2;138;190;183mTHEMED-ACCENT", "48;2;60;40;40mERR-BG"} {
		if !strings.Contains(rec, want) {
			t.Fatalf("the terminal output lacks %q", want)
		}
	}
	term.Press("ctrl+c", "ctrl+c")
	term.WaitExit()
	settings, err := os.ReadFile(filepath.Join(env.Agent, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(settings), `"theme": "light"`) {
		t.Fatalf("setTheme did not save the theme:\n%s", settings)
	}
}

// TestE2EExtensionAutocompleteProvider: a TypeScript provider stacked on the built-in completion
// answers its "$" trigger (its own list, its own applyCompletion), and delegates the rest: "/"
// still lists the slash commands, and "@" the files, applied by the built-in rules.
func TestE2EExtensionAutocompleteProvider(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "x"}))
	env.WriteFile(t, filepath.Join(env.Agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`)
	env.WriteFile(t, filepath.Join(env.Work, "notes-file.txt"), "n")
	extPath, err := filepath.Abs(filepath.Join("testdata", "uisurf", "autocomplete.ts"))
	if err != nil {
		t.Fatal(err)
	}
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session", "-e", extPath)
	term.WaitFor("fake-model", "(auto)") // the session is up (the provider registers at session_start)
	term.Type("echo $HO")
	term.WaitFor("$HOME_DIR", "$HOST_NAME")
	if strings.Contains(term.Screen(), "$PATH_LIST") {
		t.Fatalf("the provider's list was not filtered:\n%s", term.Screen())
	}
	term.Press("down", "tab")
	term.WaitFor("echo $HOST_NAME=")
	term.Type(" @notes")
	term.WaitFor("notes-file.txt")
	term.Press("tab")
	term.WaitFor("echo $HOST_NAME= @notes-file.txt")
	term.Press("ctrl+u")
	term.WaitGone("$HOST_NAME=")
	term.Type("/mod")
	term.WaitFor("/model")
	term.Press("tab")
	term.WaitScreen("the slash command applied", func(s string) bool { return strings.Contains(s, "/model ") })
	term.Press("ctrl+c", "ctrl+c")
	term.WaitExit()
}

// TestE2EExtensionToolAndMessageRenderers: a TypeScript tool's renderCall and renderResult draw
// its row (theme colours, the renderer context's state and lastComponent), the built-in row is
// not drawn; a message renderer draws a custom message sent by a command, and the expand flag
// reaches both.
func TestE2EExtensionToolAndMessageRenderers(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Checking.", ToolCalls: []fakellm.ToolCall{fakellm.Call("weather", map[string]any{"city": "Lisbon"})}},
		fakellm.Turn{Text: "It is sunny."},
	))
	env.WriteFile(t, filepath.Join(env.Agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`)
	extPath, err := filepath.Abs(filepath.Join("testdata", "uisurf", "renderers.ts"))
	if err != nil {
		t.Fatal(err)
	}
	term := env.StartSized(t, 110, 32, bin, "--model", "fake/fake-model", "--no-session", "-e", extPath)
	term.WaitFor("fake-model")
	term.Record()
	term.Type("weather please")
	term.Press("enter")
	term.WaitFor("☀ WEATHER Lisbon", "RESULT Sunny in Lisbon (21°C, expanded=false, partial=false, error=false)", "It is sunny.")
	term.Type("/card ready to ship")
	term.Press("enter")
	term.WaitFor("▌STATUS CARD  ready to ship")
	screen := term.Screen()
	if strings.Contains(screen, "[status-card]") {
		t.Fatalf("the default custom-message box was drawn instead of the renderer's:\n%s", screen)
	}
	rec := string(term.Recorded())
	// dark accent #8abeb7 on the call, success #b5bd68 on the result.
	for _, want := range []string{"38;2;138;190;183", "38;2;181;189;104mRESULT"} {
		if !strings.Contains(rec, want) {
			t.Fatalf("the renderers' theme colours did not reach the terminal (%q)", want)
		}
	}
	term.Press("ctrl+o")
	term.WaitFor("expanded=true", "[expanded]")
	term.Press("ctrl+c", "ctrl+c")
	term.WaitExit()
}

// TestE2EGoExtensionUISurfaces: the same surfaces from a Go extension compiled into the binary
// (testdata/gosurf): its tool renderer draws the row, its message renderer the custom message, a
// widget uses the theme and a key hint, and its autocomplete provider answers "%" while "/"
// still lists the built-in commands.
func TestE2EGoExtensionUISurfaces(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "gosurf")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/gosurf").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/gosurf: %v\n%s", err, out)
	}
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Reading.", ToolCalls: []fakellm.ToolCall{fakellm.Call("gauge", map[string]any{"level": "high"})}},
		fakellm.Turn{Text: "Gauge read."},
	))
	env.WriteFile(t, filepath.Join(env.Agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`)
	term := env.StartSized(t, 110, 36, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("fake-model")
	term.Record()
	term.Type("read the gauge")
	term.Press("enter")
	term.WaitFor("◆ GO-GAUGE high", "GO-RESULT gauge at high expanded=false", "Gauge read.")
	term.Type("/gosurf")
	term.Press("enter")
	term.WaitFor("GO-CARD  from go", "GO-THEMED theme=dark", "hint=[ctrl+o to expand]")
	if rec := string(term.Recorded()); !strings.Contains(rec, "38;2;138;190;183mGO-THEMED") {
		t.Fatal("the Go extension's theme colour did not reach the terminal")
	}
	term.Type("say %GO")
	term.WaitFor("%GO_MACRO%")
	term.Press("tab")
	term.WaitFor("say %GO_MACRO%")
	term.Press("ctrl+c", "ctrl+c")
	term.WaitExit()
}

// TestE2ECustomEditorModal: pi's modal-editor example, unchanged, replaces the editor with its
// CustomEditor: insert mode types, Escape switches to normal mode (the label changes), "0" and
// "x" edit in normal mode, an app keybinding (ctrl+l, app.model.select) passes through the
// editor to the app, and Enter submits the edited text to the agent.
func TestE2ECustomEditorModal(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Got the edited text."}))
	env.WriteFile(t, filepath.Join(env.Agent, "settings.json"), `{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`)
	extPath, err := filepath.Abs(filepath.Join("testdata", "pi-examples", "modal-editor.ts"))
	if err != nil {
		t.Fatal(err)
	}
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session", "-e", extPath)
	term.WaitFor("fake-model", "INSERT")
	term.Type("Xhello modal")
	term.WaitFor("Xhello modal")
	term.Press("esc")
	term.WaitFor("NORMAL")
	term.Type("0")
	term.Type("x")
	term.WaitScreen("the X deleted in normal mode", func(s string) bool {
		return strings.Contains(s, "hello modal") && !strings.Contains(s, "Xhello")
	})
	term.Press("ctrl+l")
	term.WaitFor("Select model")
	term.Press("esc")
	term.WaitGone("Select model")
	term.Type("i")
	term.WaitFor("INSERT")
	term.Press("enter")
	term.WaitFor("Got the edited text.")
	req := env.Fake.Requests()
	if len(req) == 0 || !strings.Contains(string(req[len(req)-1].Body), `"hello modal"`) {
		t.Fatalf("the submitted prompt is not the edited text")
	}
	term.Press("ctrl+c", "ctrl+c")
	term.WaitExit()
}

// TestE2ECustomEditorCtrlC: with pi's modal editor in the editor's place, the first Ctrl+C
// clears the typed text and keeps atomic running (as with the built-in editor); a second press
// right after quits.
func TestE2ECustomEditorCtrlC(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script())
	extPath, err := filepath.Abs(filepath.Join("testdata", "pi-examples", "modal-editor.ts"))
	if err != nil {
		t.Fatal(err)
	}
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session", "-e", extPath)
	term.WaitFor("fake-model", "INSERT")
	term.Type("abcQ")
	term.WaitFor("abcQ")
	term.Press("ctrl+c")
	term.WaitScreen("the text cleared, the editor still shown", func(s string) bool {
		return !strings.Contains(s, "abcQ") && strings.Contains(s, "INSERT") && strings.Contains(s, "fake-model")
	})
	term.Type("still here")
	term.WaitFor("still here", "INSERT", "fake-model")
	term.Press("ctrl+c", "ctrl+c")
	term.WaitExit()
}

// throwingRenderer's tool has a renderCall that throws on every call.
const throwingRenderer = `import { Type } from "@sinclair/typebox";
export default function (pi) {
	pi.registerTool({
		name: "probe", label: "probe", description: "probe", parameters: Type.Object({ x: Type.String() }),
		async execute() { return { content: [{ type: "text", text: "PROBE-DONE" }], details: {} }; },
		renderCall(args) { return args.missing.length; },
	});
}
`

// TestE2EThrowingRendererFallsBackSilently: a renderCall that throws (pi's examples do on
// half-streamed arguments) leaves the built-in row and puts no warning in the transcript, as pi
// falls back silently.
func TestE2EThrowingRendererFallsBackSilently(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{ToolCalls: []fakellm.ToolCall{fakellm.Call("probe", map[string]any{"x": "y"})}},
		fakellm.Turn{Text: "All probed."},
	))
	extPath := filepath.Join(env.Work, "throwing.ts")
	env.WriteFile(t, extPath, throwingRenderer)
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session", "-e", extPath)
	term.WaitFor("fake-model")
	term.Type("probe it")
	term.Press("enter")
	term.WaitFor("probe", "PROBE-DONE", "All probed.")
	if s := term.Screen(); strings.Contains(s, "Warning") || strings.Contains(s, "renderer of") {
		t.Fatalf("a throwing renderer was reported in the transcript:\n%s", s)
	}
	quit(t, term)
}
