package tui_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// componentsExtension uses the component surfaces the way pi extensions do: pi-tui imports, a
// component object with render/handleInput/invalidate, tui.requestRender(), done(value).
const componentsExtension = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { matchesKey, Key, Text, truncateToWidth, Input } from "@mariozechner/pi-tui";

// Ime wraps pi-tui's Input, which puts CURSOR_MARKER before its cursor while focused.
class Ime {
	focused = false;
	input = new Input();
	constructor(private tui: any, private done: (v: unknown) => void) {}
	render(width: number): string[] {
		this.input.focused = this.focused;
		return ["IME-BOX " + (this.focused ? "focused" : "blurred"), ...this.input.render(width - 4).map((l: string) => "    " + l)];
	}
	handleInput(data: string) {
		if (matchesKey(data, Key.enter)) return this.done(this.input.getValue());
		this.input.handleInput(data);
		this.tui.requestRender();
	}
	invalidate() {}
}

class Counter {
	count = 0;
	constructor(private tui: any, private done: (v: unknown) => void, private label: string) {}
	render(width: number): string[] {
		return [truncateToWidth("+--- " + this.label + " ---+", width), truncateToWidth("| presses: " + this.count + " |", width), truncateToWidth("| enter: finish |", width)];
	}
	handleInput(data: string) {
		if (matchesKey(data, Key.enter)) return this.done("counted " + this.count);
		if (matchesKey(data, Key.escape)) return this.done(undefined);
		this.count++;
		this.tui.requestRender();
	}
	invalidate() {}
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("count", {
		description: "a custom component counting key presses",
		handler: async (_args, ctx) => {
			const v = await ctx.ui.custom((tui, _theme, _kb, done) => new Counter(tui, done, "COUNTER-BOX"));
			ctx.ui.notify("custom returned: " + v, "info");
		},
	});
	pi.registerCommand("float", {
		description: "an overlay",
		handler: async (_args, ctx) => {
			const v = await ctx.ui.custom((tui, _theme, _kb, done) => new Counter(tui, done, "OVERLAY-BOX"), {
				overlay: true,
				overlayOptions: { anchor: "top-right", width: "50%", margin: 1 },
			});
			ctx.ui.notify("overlay returned: " + v, "info");
		},
	});
	pi.registerCommand("keepc", {
		description: "a custom component that binds Ctrl+C (handlesCtrlC)",
		handler: async (_args, ctx) => {
			const v = await ctx.ui.custom((tui, _theme, _kb, done) => new Counter(tui, done, "KEEPC-BOX"), { handlesCtrlC: true });
			ctx.ui.notify("keepc returned: " + v, "info");
		},
	});
	pi.registerCommand("ime", {
		description: "a pi-tui Input in the editor slot or (with an argument) an overlay",
		handler: async (args, ctx) => {
			const overlay = args.trim() !== "";
			const v = await ctx.ui.custom((tui, _theme, _kb, done) => new Ime(tui, done), overlay ? { overlay: true, overlayOptions: { anchor: "top-left", width: 40, margin: { top: 2, left: 7 } } } : undefined);
			ctx.ui.notify("ime returned: " + v, "info");
		},
	});
	pi.registerCommand("reserve", {
		description: "a tall bottom overlay with reserveTranscriptRows (Atomic)",
		handler: async (args, ctx) => {
			ctx.ui.notify("NEWEST-NOTICE before the dialog", "info");
			const anchor = args.trim() || "bottom-center";
			try {
				const v = await ctx.ui.custom((_tui, _theme, _kb, done) => ({
					render: (w: number) => {
						const out: string[] = ["RES-TOP"];
						for (let i = 1; i <= 40; i++) out.push((i === 20 ? "\x1b_atomic:active\x1b\\" : "") + "RES-LINE " + i);
						out.push("RES-HINTS enter: done");
						return out.map((l) => truncateToWidth(l, w));
					},
					handleInput: (d: string) => { if (matchesKey(d, Key.enter)) done("reserved"); },
					invalidate() {},
				}), { overlay: true, overlayOptions: { anchor, width: 40 }, reserveTranscriptRows: true });
				ctx.ui.notify("reserve returned: " + v, "info");
			} catch (e) {
				ctx.ui.notify("reserve error: " + (e as Error).message, "info");
			}
		},
	});
	pi.registerCommand("chrome2", {
		description: "a factory widget and a custom footer",
		handler: async (_args, ctx) => {
			ctx.ui.setStatus("fs", "STATUS-ON");
			let ticks = 0;
			ctx.ui.setWidget("fw", (tui) => {
				const t = new Text("FACTORY-WIDGET 0", 0, 0);
				const timer = setInterval(() => {
					ticks++;
					t.setText("FACTORY-WIDGET " + ticks);
					tui.requestRender();
					if (ticks >= 3) clearInterval(timer);
				}, 20);
				return t;
			}, { placement: "belowEditor" });
			ctx.ui.setFooter((_tui, _theme, data) => ({
				render: (w: number) => [truncateToWidth("CUSTOM-FOOTER branch=" + data.getGitBranch() + " status=" + [...data.getExtensionStatuses().values()].join(","), w)],
				invalidate() {},
			}));
		},
	});
	pi.registerCommand("header", {
		description: "a custom header",
		handler: async (_args, ctx) => {
			ctx.ui.setHeader(() => ({ render: (w: number) => [truncateToWidth("CUSTOM-HEADER", w)], invalidate() {} }));
		},
	});
	pi.registerCommand("noheader", {
		description: "restore the built-in header",
		handler: async (_args, ctx) => ctx.ui.setHeader(undefined),
	});
	pi.registerCommand("restore", {
		description: "restore the built-in footer",
		handler: async (_args, ctx) => {
			ctx.ui.setFooter(undefined);
			ctx.ui.setWidget("fw", undefined);
		},
	});
}
`

func componentsEnv(t *testing.T) (*tuitest.Env, *tuitest.Term) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	env.WriteFile(t, filepath.Join(env.Work, ".git", "HEAD"), "ref: refs/heads/footer-branch\n")
	ext := filepath.Join(env.Work, "components.ts")
	env.WriteFile(t, ext, componentsExtension)
	term := env.Start(t, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model")
	return env, term
}

// TestE2ECustomComponent: ctx.ui.custom from an unchanged TypeScript extension replaces the
// editor, counts key presses (raw bytes through matchesKey) and returns its value on Enter.
func TestE2ECustomComponent(t *testing.T) {
	_, term := componentsEnv(t)
	term.Type("/count")
	term.Press("enter")
	term.WaitFor("COUNTER-BOX", "presses: 0")
	term.Type("x")
	term.WaitFor("presses: 1")
	term.Press("down")
	term.WaitFor("presses: 2")
	term.Press("enter")
	term.WaitFor("custom returned: counted 2")
	term.WaitGone("COUNTER-BOX")
	// The editor is back and takes text again.
	term.Type("hello-editor")
	term.WaitFor("hello-editor")
	for range len("hello-editor") {
		term.Press("backspace")
	}
	term.WaitGone("hello-editor")
	quit(t, term)
}

// TestE2ECustomComponentCtrlC: Ctrl+C is the terminal UI's escape hatch from a component that
// holds the keys (Atomic's rule): an undeclared component, inline or overlay, is closed by the
// first press and custom() resolves undefined, without the app quitting; one that declared
// handlesCtrlC gets the press, and a second press in a row closes it (another key between
// disarms).
func TestE2ECustomComponentCtrlC(t *testing.T) {
	_, term := componentsEnv(t)
	term.Type("/count")
	term.Press("enter")
	term.WaitFor("COUNTER-BOX", "presses: 0")
	term.Press("ctrl+c")
	term.WaitFor("custom returned: undefined")
	term.WaitGone("COUNTER-BOX")

	term.Type("/float")
	term.Press("enter")
	term.WaitFor("OVERLAY-BOX", "presses: 0")
	term.Press("ctrl+c")
	term.WaitFor("overlay returned: undefined")
	term.WaitGone("OVERLAY-BOX")

	term.Type("/keepc")
	term.Press("enter")
	term.WaitFor("KEEPC-BOX", "presses: 0")
	term.Press("ctrl+c")
	term.WaitFor("presses: 1")
	term.Type("x")
	term.WaitFor("presses: 2")
	term.Press("ctrl+c")
	term.WaitFor("presses: 3")
	term.Press("ctrl+c")
	term.WaitFor("keepc returned: undefined")
	term.WaitGone("KEEPC-BOX")
	// Still running, the editor takes text.
	term.Type("still-here")
	term.WaitFor("still-here", "fake-model")
	term.Press("ctrl+c") // the editor's own Ctrl+C clears it
	term.WaitGone("still-here")
	quit(t, term)
}

// TestE2EHardwareCursor: a component's focused pi-tui Input puts CURSOR_MARKER before its
// cursor; the terminal cursor goes there (for input methods), hidden by default, shown with
// ATOMIC_HARDWARE_CURSOR=1 (pi-tui's showHardwareCursor), in the editor slot and in an overlay.
func TestE2EHardwareCursor(t *testing.T) {
	env, term := componentsEnv(t)
	rowOf := func(text string) int {
		for i, l := range strings.Split(term.Screen(), "\n") {
			if strings.Contains(l, text) {
				return i
			}
		}
		return -1
	}
	term.Type("/ime")
	term.Press("enter")
	term.WaitFor("IME-BOX focused")
	term.Type("abc")
	term.WaitFor("> abc")
	// The Input's line is under IME-BOX, indented 4 cells; "> abc" puts the cursor at cell 4+2+3.
	term.WaitCursor("the hidden cursor after abc", func(x, y int, hidden bool) bool {
		return hidden && y == rowOf("IME-BOX")+1 && x == 9
	})
	term.Press("left")
	term.WaitCursor("the cursor one cell left", func(x, y int, hidden bool) bool { return hidden && x == 8 })
	term.Press("enter")
	term.WaitFor("ime returned: abc")
	quit(t, term)

	env.Vars = append(env.Vars, "ATOMIC_HARDWARE_CURSOR=1")
	term = env.Start(t, tuitest.Build(t), "--model", "fake/fake-model", "-e", filepath.Join(env.Work, "components.ts"))
	term.WaitFor("fake-model")
	term.Type("/ime float")
	term.Press("enter")
	term.WaitFor("IME-BOX focused")
	term.Type("xy")
	term.WaitFor("> xy")
	// The overlay sits at row 2, column 7: the cursor at 7+4+2+2, shown.
	term.WaitCursor("the shown cursor in the overlay", func(x, y int, hidden bool) bool {
		return !hidden && y == 3 && x == 15
	})
	term.Press("enter")
	term.WaitFor("ime returned: xy")
	quit(t, term)
}

// TestE2EReserveTranscriptRows: a bottom overlay with Atomic's reserveTranscriptRows is cut to
// leave 6 transcript rows above it, keeping its marked active row and its last rows with a notice
// of the rows hidden; the transcript ends above it, so the newest notice stays readable. A top
// anchor is refused: custom() rejects with Atomic's message.
func TestE2EReserveTranscriptRows(t *testing.T) {
	_, term := componentsEnv(t)
	term.Type("/reserve")
	term.Press("enter")
	term.WaitFor("RES-LINE 20", "RES-HINTS enter: done", "more rows hidden — answer or cancel to see them", "NEWEST-NOTICE")
	term.WaitScreen("6 transcript rows above the overlay, the newest notice among them", func(s string) bool {
		rows := strings.Split(s, "\n")
		top := -1
		for i, l := range rows {
			if strings.Contains(l, "RES-") || strings.Contains(l, "more rows hidden") {
				top = i
				break
			}
		}
		notice := -1
		for i, l := range rows {
			if strings.Contains(l, "NEWEST-NOTICE") {
				notice = i
			}
		}
		return top >= 6 && notice >= 0 && notice < top
	})
	term.Press("enter")
	term.WaitFor("reserve returned: reserved")
	term.WaitGone("RES-HINTS")

	term.Type("/reserve top-center")
	term.Press("enter")
	term.WaitFor("reserve error: reserveTranscriptRows requires an explicit bottom anchor")
	quit(t, term)
}

// TestE2ECustomOverlay: an overlay floats over the screen at its anchor, keys go to it, Escape is
// the component's own (it returns undefined).
func TestE2ECustomOverlay(t *testing.T) {
	_, term := componentsEnv(t)
	term.Type("/float")
	term.Press("enter")
	term.WaitFor("OVERLAY-BOX", "presses: 0")
	term.Type("ab")
	term.WaitFor("presses: 2")
	term.Press("esc")
	term.WaitFor("overlay returned: undefined")
	term.WaitGone("OVERLAY-BOX")
	quit(t, term)
}

// TestE2EFactoryWidgetAndFooter: a factory widget below the editor re-renders on
// tui.requestRender(); a footer factory replaces the built-in footer until restored, and its
// footerData reports the git branch and the extension statuses the built-in footer shows.
func TestE2EFactoryWidgetAndFooter(t *testing.T) {
	_, term := componentsEnv(t)
	term.Type("/chrome2")
	term.Press("enter")
	term.WaitFor("CUSTOM-FOOTER branch=footer-branch status=STATUS-ON", "FACTORY-WIDGET 3")
	term.WaitGone("fake-model")
	term.Type("/restore")
	term.Press("enter")
	term.WaitFor("fake-model")
	term.WaitGone("CUSTOM-FOOTER", "FACTORY-WIDGET")
	// A reload drops the extension's components with its host generation: the built-in footer
	// comes back.
	term.Type("/chrome2")
	term.Press("enter")
	term.WaitFor("CUSTOM-FOOTER", "FACTORY-WIDGET 3")
	term.Type("/reload")
	term.Press("enter")
	term.WaitFor("fake-model")
	term.WaitGone("CUSTOM-FOOTER", "FACTORY-WIDGET")
	quit(t, term)
}

// TestE2ECustomHeaderKeepsListing: a custom header (setHeader) replaces the built-in name and
// key hints, and the [Extensions] listing still follows it, as in pi 0.73.1 (which lists the
// loaded resources in the chat, under any header); setHeader(undefined) brings the hints back.
func TestE2ECustomHeaderKeepsListing(t *testing.T) {
	_, term := componentsEnv(t)
	term.WaitFor("to cycle thinking", "[Extensions]")
	term.Type("/header")
	term.Press("enter")
	term.WaitFor("CUSTOM-HEADER")
	term.WaitGone("to cycle thinking")
	s := term.Screen()
	h, l := strings.Index(s, "CUSTOM-HEADER"), strings.Index(s, "[Extensions]")
	if l < 0 || l < h || !strings.Contains(s[l:], "components.ts") {
		t.Fatalf("the [Extensions] listing does not follow the custom header:\n%s", s)
	}
	term.Type("/noheader")
	term.Press("enter")
	term.WaitFor("to cycle thinking", "[Extensions]")
	term.WaitGone("CUSTOM-HEADER")
	quit(t, term)
}

// buildGoExt builds testdata/goext: atomic with a Go extension using the component surfaces.
func buildGoExt(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "atomic-goext")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/goext").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/goext: %v\n%s", err, out)
	}
	return bin
}

// TestE2EGoComponents: the same surfaces from a Go extension (ext.Component): a custom component
// counting keys and returning its value on Enter, an overlay dismissed with Escape, a footer and
// a widget below the editor.
func TestE2EGoComponents(t *testing.T) {
	bin := buildGoExt(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/gocount")
	term.Press("enter")
	term.WaitFor("[ GO-COUNTER ]", "go presses: 0")
	term.Type("a")
	term.WaitFor("go presses: 1")
	term.Press("up")
	term.WaitFor("go presses: 2")
	term.Press("enter")
	term.WaitFor("go custom returned: go counted 2 true")
	term.WaitGone("GO-COUNTER")

	term.Type("/gofloat")
	term.Press("enter")
	term.WaitFor("[ GO-OVERLAY ]")
	term.Type("z")
	term.WaitFor("go presses: 1")
	term.Press("esc")
	term.WaitFor("go custom returned: <nil> true")
	term.WaitGone("GO-OVERLAY")

	term.Type("/gocaret")
	term.Press("enter")
	term.WaitFor("[ GO-CARET ]")
	term.Type("hey")
	term.WaitFor("  hey")
	term.WaitCursor("the hidden cursor after hey", func(x, y int, hidden bool) bool {
		caretRow := -1
		for i, l := range strings.Split(term.Screen(), "\n") {
			if strings.Contains(l, "[ GO-CARET ]") {
				caretRow = i
			}
		}
		return hidden && x == 5 && y == caretRow+1
	})
	term.Press("enter")
	term.WaitFor("go caret returned: hey true")

	term.Type("/gokeepc")
	term.Press("enter")
	term.WaitFor("[ GO-KEEPC ]", "go presses: 0")
	term.Press("ctrl+c")
	term.WaitFor("go presses: 1")
	term.Press("ctrl+c")
	term.WaitFor("go custom returned: <nil> false")
	term.WaitGone("GO-KEEPC")
	term.Type("/gocount")
	term.Press("enter")
	term.WaitFor("[ GO-COUNTER ]")
	term.Press("ctrl+c")
	term.WaitGone("GO-COUNTER")

	term.Type("/gochrome")
	term.Press("enter")
	term.WaitFor("GO-FOOTER", "GO-WIDGET")
	term.WaitGone("fake-model")
	quit(t, term)
}
