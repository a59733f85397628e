package tui_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// hostNativeExtension opens ctx.ui.hostSessionPicker over three synthetic rows and reports the
// pick; "/pickclose" closes the picker from the extension with handle.close().
const hostNativeExtension = `import type { ExtensionAPI } from "@bastani/atomic";

const now = Date.now();
const row = (n: number, first: string) => ({
	path: "/sessions/s" + n + ".jsonl", id: "id-" + n, cwd: "/proj",
	createdAt: now - n * 3600000, modifiedAt: now - n * 60000, messageCount: n, firstMessage: first,
});
const rows = [row(1, "ALPHA-ROW first"), row(2, "BRAVO-ROW second"), row(3, "CHARLIE-ROW third")];

export default function (pi: ExtensionAPI) {
	pi.registerCommand("pick", {
		description: "host-native session picker",
		handler: async (_args, ctx) => {
			if (!ctx.ui.hostSessionPicker) { ctx.ui.notify("no picker", "error"); return; }
			const h = ctx.ui.hostSessionPicker({ sessions: rows });
			ctx.ui.notify("form member: " + typeof ctx.ui.hostInputForm, "info");
			ctx.ui.notify("picked: " + (await h.result), "info");
		},
	});
	pi.registerCommand("pickdel", {
		description: "picker whose onDelete answers with update, then error",
		handler: async (_args, ctx) => {
			let left = rows.slice();
			let n = 0;
			const h = ctx.ui.hostSessionPicker!({
				sessions: left,
				onDelete: async (path) => {
					n++;
					if (n === 1) {
						left = left.filter((r) => r.path !== path);
						h.update(left);
					} else {
						throw new Error("DELETE-REFUSED " + path);
					}
				},
			});
			h.update([...left, row(4, "DELTA-ROW late")]);
			left = [...left, row(4, "DELTA-ROW late")];
			ctx.ui.notify("pickdel: " + (await h.result), "info");
		},
	});
	pi.registerCommand("form", {
		description: "host-native input form",
		handler: async (_args, ctx) => {
			const v = await ctx.ui.hostInputForm!({
				title: "Release",
				fields: [
					{ name: "version", type: "string", required: true, initialValue: "", description: "SEMVER-DESC" },
					{ name: "channel", type: "select", choices: ["stable", "beta"], initialValue: "stable" },
					{ name: "dry", type: "boolean", initialValue: "false" },
					{ name: "count", type: "integer", initialValue: "3" },
				],
			});
			ctx.ui.notify("form: " + JSON.stringify(v), "info");
		},
	});
	pi.registerCommand("pickx", {
		description: "picker with Atomic's extras: showRenameHint, summary, messageColor",
		handler: async (_args, ctx) => {
			const h = ctx.ui.hostSessionPicker!({
				sessions: [{ ...rows[0], summary: "SUMMARY-TEXT alpha" }, { ...rows[1], messageColor: "success" }, rows[2]],
				showRenameHint: true,
			});
			ctx.ui.notify("pickx: " + (await h.result), "info");
		},
	});
	pi.registerCommand("pickclose", {
		description: "open then close the picker",
		handler: async (_args, ctx) => {
			const h = ctx.ui.hostSessionPicker!({ sessions: rows });
			setTimeout(() => h.close(), 50);
			ctx.ui.notify("closed with: " + (await h.result), "info");
		},
	});
}
`

func hostNativeEnv(t *testing.T) *tuitest.Term {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	ext := filepath.Join(env.Work, "hostnative.ts")
	env.WriteFile(t, ext, hostNativeExtension)
	term := env.Start(t, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model")
	return term
}

// TestE2EHostSessionPicker: a TypeScript extension's ctx.ui.hostSessionPicker shows its rows in
// the built-in session selector; arrows and Enter pick one and result resolves with its path;
// Escape resolves undefined.
func TestE2EHostSessionPicker(t *testing.T) {
	term := hostNativeEnv(t)
	term.Type("/pick")
	term.Press("enter")
	term.WaitFor("ALPHA-ROW first", "BRAVO-ROW second", "CHARLIE-ROW third")
	// hostInputForm is drawn natively in the terminal UI.
	term.WaitFor("form member: function")
	term.Press("down")
	term.Press("down")
	term.Press("enter")
	term.WaitFor("picked: /sessions/s3.jsonl")
	term.WaitGone("BRAVO-ROW second")

	term.Type("/pick")
	term.Press("enter")
	term.WaitFor("BRAVO-ROW second")
	term.Press("esc")
	term.WaitFor("picked: undefined")
	quit(t, term)
}

// TestE2EHostSessionPickerExtras: Atomic's picker options from an unchanged extension: the
// rename key in the hints (showRenameHint), a summary column (rows without a summary say so) and
// a row colored by its messageColor.
func TestE2EHostSessionPickerExtras(t *testing.T) {
	term := hostNativeEnv(t)
	term.Type("/pickx")
	term.Press("enter")
	term.WaitFor("ALPHA-ROW first", "SUMMARY-TEXT alpha", "No summary available.", "ctrl+r rename")
	// success is #b5bd68 in the default dark theme: the row's text is drawn in it.
	term.WaitRecorded("BRAVO-ROW in the success color", func(raw []byte) bool {
		return strings.Contains(string(raw), "\x1b[38;2;181;189;104mBRAVO-ROW second")
	})
	term.Press("esc")
	term.WaitFor("pickx: undefined")
	quit(t, term)
}

// TestE2EHostSessionPickerClose: handle.close() closes the picker on screen and result
// resolves undefined.
func TestE2EHostSessionPickerClose(t *testing.T) {
	term := hostNativeEnv(t)
	term.Type("/pickclose")
	term.Press("enter")
	term.WaitFor("closed with: undefined")
	term.WaitGone("ALPHA-ROW first")
	quit(t, term)
}

// TestE2EHostSessionPickerDelete: a confirmed ctrl+d calls the extension's onDelete, which
// removes the row with handle.update; a second delete that throws shows its error in the
// picker and keeps the row; an update sent right after opening adds a late row.
func TestE2EHostSessionPickerDelete(t *testing.T) {
	term := hostNativeEnv(t)
	term.Type("/pickdel")
	term.Press("enter")
	term.WaitFor("ALPHA-ROW first", "DELTA-ROW late")
	term.Press("ctrl+d")
	term.WaitFor("Delete session?")
	term.Press("enter")
	term.WaitGone("ALPHA-ROW first")
	term.WaitFor("BRAVO-ROW second")
	term.Press("ctrl+d")
	term.WaitFor("Delete session?")
	term.Press("enter")
	term.WaitFor("Failed to delete: DELETE-REFUSED /sessions/s2.jsonl", "BRAVO-ROW second")
	term.Press("enter")
	term.WaitFor("pickdel: /sessions/s2.jsonl")
	quit(t, term)
}

// TestE2EHostInputForm: ctx.ui.hostInputForm draws the form in the editor slot; submitting
// with a required field empty keeps it open and marks the field; typing, cycling a select,
// toggling a boolean and Enter on the button return the raw values; Escape returns undefined.
func TestE2EHostInputForm(t *testing.T) {
	term := hostNativeEnv(t)
	term.Type("/form")
	term.Press("enter")
	term.WaitFor("WORKFLOW INPUTS", "Release", "4 fields", "SEMVER-DESC", "[ Run workflow ]", "required")
	// Straight to the button: version is empty, so the form stays and says why.
	term.Press("shift+tab", "enter")
	term.WaitFor("✗ required")
	// The focus went back to version.
	term.Type("1.2.3")
	term.Press("tab", "down", "tab", "space", "tab", "backspace")
	term.Type("7")
	term.Press("tab", "enter")
	term.WaitFor(`form: {"version":"1.2.3","channel":"beta","dry":"true","count":"7"}`)
	term.WaitGone("WORKFLOW INPUTS")

	term.Type("/form")
	term.Press("enter")
	term.WaitFor("WORKFLOW INPUTS")
	term.Press("esc")
	term.WaitFor("form: undefined")
	quit(t, term)
}

// TestE2EGoHostNative: the host-native form and session picker from a Go extension: the form
// returns its values; the picker's OnDelete removes the row through the handle's Update and
// shows the handle's Error.
func TestE2EGoHostNative(t *testing.T) {
	bin := buildGoExt(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "unused"}))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/goform")
	term.Press("enter")
	term.WaitFor("GO HEADING", "GO-FORM", "[ Go ]")
	term.Type("gopher")
	term.Press("tab", "right", "tab", "enter")
	term.WaitFor("go form: true mode=slow,name=gopher")

	term.Type("/gopick")
	term.Press("enter")
	term.WaitFor("GO-ONE", "GO-TWO")
	term.Press("ctrl+d", "enter")
	term.WaitFor("GO-DELETED /go/1.jsonl")
	term.WaitGone("GO-ONE")
	term.Press("enter")
	term.WaitFor(`go pick: "/go/2.jsonl" true`)
	quit(t, term)
}
