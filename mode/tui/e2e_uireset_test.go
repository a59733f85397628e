package tui_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// uiResetExtension registers, at every session_start, an autocomplete provider that adds one
// "HASH-ITEM" to whatever the chain under it lists for "#", and a factory widget that counts its
// invalidate() calls; /lighten switches the theme.
const uiResetExtension = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("session_start", (_e, ctx) => {
		ctx.ui.addAutocompleteProvider((current) => ({
			triggerCharacters: ["#"],
			async getSuggestions(lines, line, col, opts) {
				const before = (lines[line] ?? "").slice(0, col);
				const below = await current.getSuggestions(lines, line, col, opts);
				if (!before.endsWith("#")) return below;
				return { prefix: "#", items: [...(below?.items ?? []), { value: "#42", label: "HASH-ITEM" }] };
			},
			applyCompletion(lines, line, col, item, prefix) {
				return current.applyCompletion(lines, line, col, item, prefix);
			},
		}));
		ctx.ui.setWidget("inv", (tui, theme) => {
			let n = 0;
			let cached: string[] | undefined;
			return {
				render: () => (cached ??= ["INVALIDATED " + n + " " + theme.fg("accent", "x")]),
				invalidate() { n++; cached = undefined; tui.requestRender(); },
			};
		});
	});
	pi.registerCommand("lighten", { description: "switch to the light theme", handler: async (_a, ctx) => { ctx.ui.setTheme("light"); } });
}
`

// TestE2EThemeInvalidatesAndReloadResetsProviders: setTheme invalidates live components (a
// widget that caches its lines draws again); after /reload the extension's provider, added again
// at session_start, is not stacked on its old self (one HASH-ITEM, not two).
func TestE2EThemeInvalidatesAndReloadResetsProviders(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	ext := filepath.Join(env.Work, "uireset.ts")
	env.WriteFile(t, ext, uiResetExtension)
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session", "-e", ext)
	term.WaitFor("fake-model", "INVALIDATED 0")
	term.Type("/lighten")
	term.Press("enter")
	term.WaitFor("INVALIDATED 1")

	hashItems := func() int { return strings.Count(term.Screen(), "HASH-ITEM") }
	term.Type("#")
	term.WaitFor("HASH-ITEM")
	if n := hashItems(); n != 1 {
		t.Fatalf("before /reload: %d HASH-ITEM rows, want 1:\n%s", n, term.Screen())
	}
	// Escape closes the list and Backspace clears the editor. (Ctrl+C would clear it too, but a
	// second Ctrl+C within 500 ms quits, as in pi, and a fast run gets there within that.)
	term.Press("esc")
	term.WaitGone("HASH-ITEM")
	term.Press("backspace")
	term.Type("/reload")
	term.Press("enter")
	term.WaitFor("Reloaded extensions")
	term.WaitFor("INVALIDATED 0")
	term.Type("#")
	term.WaitFor("HASH-ITEM")
	if n := hashItems(); n != 1 {
		t.Fatalf("after /reload: %d HASH-ITEM rows, want 1 (the provider stacked twice):\n%s", n, term.Screen())
	}
	term.Press("esc")
	term.WaitGone("HASH-ITEM")
	term.Press("backspace")
	quit(t, term)
}

// branchExtension's footer shows the git branch and how often footerData.onBranchChange fired.
const branchExtension = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("session_start", (_e, ctx) => {
		ctx.ui.setFooter((tui, _theme, data) => {
			let changes = 0;
			const off = data.onBranchChange(() => { changes++; tui.requestRender(); });
			return {
				render: () => ["BRANCH " + data.getGitBranch() + " changes=" + changes],
				invalidate() {},
				dispose() { off(); },
			};
		});
	});
}
`

// TestE2EFooterBranchChange: footerData.onBranchChange fires when the repository's branch changes
// under a running session (a checkout elsewhere), and getGitBranch then reports the new one.
func TestE2EFooterBranchChange(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	head := filepath.Join(env.Work, ".git", "HEAD")
	env.WriteFile(t, head, "ref: refs/heads/main-line\n")
	ext := filepath.Join(env.Work, "branch.ts")
	env.WriteFile(t, ext, branchExtension)
	term := env.Start(t, bin, "--model", "fake/fake-model", "--no-session", "-e", ext)
	term.WaitFor("BRANCH main-line changes=0")
	env.WriteFile(t, head, "ref: refs/heads/feature-x\n")
	term.WaitFor("BRANCH feature-x changes=1")
	quit(t, term)
}
