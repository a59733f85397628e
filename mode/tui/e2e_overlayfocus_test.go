package tui_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// overlayFocusExtension drives overlay focus the way pi's overlay examples do: a non-capturing
// overlay, its OverlayHandle from onHandle (focus, unfocus, setHidden, hide), the Focusable
// "focused" property the TUI sets, and a responsive overlay (visible(width, height)).
const overlayFocusExtension = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { matchesKey, Key, truncateToWidth } from "@mariozechner/pi-tui";

let handle: any;

class Panel {
	n = 0;
	focused = false;
	constructor(private tui: any, private done: (v: unknown) => void, private label: string) {}
	render(width: number): string[] {
		return [truncateToWidth("[" + this.label + "] n=" + this.n + " focused=" + this.focused + " 🎉界", width)];
	}
	handleInput(data: string) {
		if (data === "u") { handle?.unfocus(); return; }
		if (matchesKey(data, Key.escape)) return this.done("closed " + this.n);
		this.n++;
		this.tui.requestRender();
	}
	invalidate() {}
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("ncap", {
		description: "a non-capturing overlay",
		handler: async (_args, ctx) => {
			const v = await ctx.ui.custom((tui, _t, _k, done) => new Panel(tui, done, "NCAP"), {
				overlay: true,
				overlayOptions: { anchor: "top-left", width: 44, nonCapturing: true },
				onHandle: (h) => { handle = h; },
			});
			ctx.ui.notify("ncap returned: " + v, "info");
		},
	});
	pi.registerCommand("ovfocus", { description: "focus it", handler: async (_a, ctx) => { handle.focus(); ctx.ui.notify("isFocused " + handle.isFocused(), "info"); } });
	pi.registerCommand("ovhide", { description: "hide it", handler: async (_a, ctx) => { handle.setHidden(true); ctx.ui.notify("isHidden " + handle.isHidden(), "info"); } });
	pi.registerCommand("ovshow", { description: "show it", handler: async () => { handle.setHidden(false); } });
	pi.registerCommand("ovclose", { description: "close it", handler: async () => { handle.hide(); } });
	pi.registerCommand("passive", {
		description: "a controller overlay with a passive panel it ticks through its own tui",
		handler: async (_args, ctx) => {
			await ctx.ui.custom((tui, _t, _k, done) => {
				const panel = { n: 0, render: (w: number) => [truncateToWidth("[TICK] " + panel.n, w)], invalidate() {} };
				const h = tui.showOverlay(panel, { nonCapturing: true, anchor: "top-right", width: 20 });
				const timer = setInterval(() => {
					panel.n++;
					tui.requestRender();
					if (panel.n >= 3) clearInterval(timer);
				}, 20);
				return {
					render: (w: number) => [truncateToWidth("[CTRL]", w)],
					handleInput(data: string) {
						if (matchesKey(data, Key.escape)) { clearInterval(timer); h.hide(); done("ctrl closed"); }
					},
					invalidate() {},
				};
			}, { overlay: true, overlayOptions: { anchor: "center", width: 30 } });
		},
	});
	pi.registerCommand("resp", {
		description: "a responsive overlay",
		handler: async (_args, ctx) => {
			const v = await ctx.ui.custom((tui, _t, _k, done) => new Panel(tui, done, "RESP"), {
				overlay: true,
				overlayOptions: { anchor: "top-left", width: 44, visible: (w: number) => w >= 100 },
			});
			ctx.ui.notify("resp returned: " + v, "info");
		},
	});
}
`

func overlayFocusEnv(t *testing.T) *tuitest.Term {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	ext := filepath.Join(env.Work, "overlayfocus.ts")
	env.WriteFile(t, ext, overlayFocusExtension)
	term := env.StartSized(t, 120, 30, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model")
	return term
}

// TestE2EOverlayFocus: a non-capturing overlay leaves the keys to the editor; handle.focus()
// gives them to it (and the TUI sets its focused property); unfocus() gives them back;
// setHidden(true/false) hides and shows it without closing it; hide() closes it.
func TestE2EOverlayFocus(t *testing.T) {
	term := overlayFocusEnv(t)
	term.Type("/ncap")
	term.Press("enter")
	term.WaitFor("[NCAP] n=0 focused=false")
	// The editor has the keys.
	term.Type("/ovfocus")
	term.Press("enter")
	term.WaitFor("isFocused true", "[NCAP] n=0 focused=true")
	term.Type("ab")
	term.WaitFor("[NCAP] n=2 focused=true")
	term.Type("u") // the component calls handle.unfocus()
	term.WaitFor("[NCAP] n=2 focused=false")
	term.Type("/ovhide")
	term.Press("enter")
	term.WaitFor("isHidden true")
	term.WaitGone("[NCAP]")
	term.Type("/ovshow")
	term.Press("enter")
	// Shown again; a non-capturing overlay does not take the keys back.
	term.WaitFor("[NCAP] n=2 focused=false")
	term.Type("/ovclose")
	term.Press("enter")
	term.WaitFor("ncap returned: undefined")
	term.WaitGone("[NCAP]")
	quit(t, term)
}

// TestE2EOverlayResponsive: an overlay whose visible(width, height) says no draws nothing and
// does not take the keys; when the terminal grows again it is back and has them.
func TestE2EOverlayResponsive(t *testing.T) {
	term := overlayFocusEnv(t)
	term.Type("/resp")
	term.Press("enter")
	term.WaitFor("[RESP] n=0 focused=true")
	term.Type("x")
	term.WaitFor("[RESP] n=1")
	term.Resize(80, 30)
	term.WaitGone("[RESP]")
	term.Type("EDITOR-GOT-IT")
	term.WaitFor("EDITOR-GOT-IT")
	term.Resize(120, 30)
	term.WaitFor("[RESP] n=1 focused=true")
	term.Press("esc")
	term.WaitFor("resp returned: closed 1")
	term.Press("ctrl+c") // clears the editor
	term.WaitGone("EDITOR-GOT-IT")
	quit(t, term)
}

// TestE2EGoOverlayFocus: the same overlay focus from a Go extension: NonCapturing leaves the keys
// to the editor, OverlayHandle.Focus gives them to the overlay (ext.Focusable hears it), and
// SetHidden hides and shows it without closing it.
func TestE2EGoOverlayFocus(t *testing.T) {
	bin := buildGoExt(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/gonc")
	term.Press("enter")
	term.WaitFor("[GO-NCAP] n=0 focused=false")
	term.Type("/gofocus")
	term.Press("enter")
	term.WaitFor("[GO-NCAP] n=0 focused=true")
	term.Type("xy")
	term.WaitFor("[GO-NCAP] n=2 focused=true")
	term.Press("esc")
	term.WaitFor("gonc returned: go closed 2 true")
	term.WaitGone("[GO-NCAP]")

	term.Type("/gonc")
	term.Press("enter")
	term.WaitFor("[GO-NCAP] n=0 focused=false")
	term.Type("/gohide")
	term.Press("enter")
	term.WaitGone("[GO-NCAP]")
	term.Type("/goshow")
	term.Press("enter")
	term.WaitFor("[GO-NCAP] n=0 focused=false")
	term.Type("/gofocus")
	term.Press("enter")
	term.WaitFor("focused=true")
	term.Press("esc")
	term.WaitFor("gonc returned: go closed 0 true")
	quit(t, term)
}

// TestE2EOverlayPassivePanel: a panel a controller opened with tui.showOverlay draws again when
// the controller calls its own tui.requestRender (pi-tui redraws every component; pi's
// /overlay-passive timer stayed at 00:00), and closes with it.
func TestE2EOverlayPassivePanel(t *testing.T) {
	term := overlayFocusEnv(t)
	term.Type("/passive")
	term.Press("enter")
	term.WaitFor("[CTRL]", "[TICK] 3")
	term.Press("esc")
	term.WaitGone("[CTRL]", "[TICK]")
	quit(t, term)
}
