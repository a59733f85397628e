// A pi extension using the theme, keybinding, tools-expanded and paste surfaces of ctx.ui
// (mode/tui/e2e_uisurf_test.go drives it through the real binary).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { keyHint, keyHintIfBound, keyText, rawKeyHint } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("surf", {
		description: "exercise the ui surfaces",
		handler: async (_args, ctx) => {
			const theme = ctx.ui.theme;
			const names = ctx.ui.getAllThemes().map((t) => t.name).join(",");
			ctx.ui.setWidget("surf", [
				theme.fg("accent", "THEMED-ACCENT") + " " + theme.bg("toolErrorBg", "ERR-BG") + " " + theme.bold("BOLD"),
				`name=${theme.name} mode=${theme.getColorMode()} themes=${names}`,
				`hint=[${keyHint("app.tools.expand", "to expand")}] text=[${keyText("app.tools.expand")}]`,
				`unbound=[${keyHintIfBound("app.session.new", "new")}] raw=[${rawKeyHint("ctrl+q", "quit it")}]`,
			]);
			const light = ctx.ui.getTheme("light");
			const missing = ctx.ui.getTheme("no-such-theme");
			ctx.ui.setStatus("surf", `light-accent=${JSON.stringify(light?.getFgAnsi("accent"))} missing=${missing === undefined}`);
			ctx.ui.setToolsExpanded(true);
			const expanded = ctx.ui.getToolsExpanded();
			const bad = ctx.ui.setTheme("no-such-theme");
			const ok = ctx.ui.setTheme("light");
			ctx.ui.notify(`expanded=${expanded} bad=${bad.success}:${bad.error} ok=${ok.success} now=${ctx.ui.theme.name}`, "info");
			ctx.ui.pasteToEditor(Array.from({ length: 12 }, (_, i) => `line ${i}`).join("\n"));
		},
	});
}
