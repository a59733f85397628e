// The issue 12 acceptance script as one unchanged pi extension: status, widgets above and below
// the editor, a select answered with arrow keys, a confirm that times out, a custom component
// counting key presses and returning a value, an overlay (hidden below 60 columns by visible()),
// a replaced footer that reads the session, and a custom tool renderer. The same file runs in
// pi 0.73.1 (`pi -e acceptance.ts`) and in atomic (TestE2EAcceptanceScript).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Key, matchesKey, Text, truncateToWidth } from "@mariozechner/pi-tui";
import { Type } from "typebox";

class Counter {
	presses = 0;
	constructor(
		private tui: { requestRender(): void },
		private done: (v: string | undefined) => void,
		private title: string,
	) {}
	render(width: number): string[] {
		const rows = [`+-- ${this.title} --+`, `| key presses: ${this.presses} |`, "| enter returns, esc cancels |"];
		return rows.map((r) => truncateToWidth(r, width));
	}
	handleInput(data: string): void {
		if (matchesKey(data, Key.enter)) return this.done(`${this.title.toLowerCase()} ${this.presses}`);
		if (matchesKey(data, Key.escape)) return this.done(undefined);
		this.presses++;
		this.tui.requestRender();
	}
	invalidate(): void {}
}

export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "shout",
		label: "Shout",
		description: "Repeat the text in capitals.",
		parameters: Type.Object({ text: Type.String({ description: "what to shout" }) }),
		async execute(_id, params) {
			const loud = String(params.text).toUpperCase();
			return { content: [{ type: "text", text: loud }], details: { loud } };
		},
		renderCall(args, theme) {
			return new Text(theme.fg("toolTitle", theme.bold("SHOUT-CALL ")) + theme.fg("accent", String(args.text)), 0, 0);
		},
		renderResult(result, { isPartial }, theme) {
			if (isPartial) return new Text(theme.fg("warning", "SHOUTING..."), 0, 0);
			const loud = (result.details as { loud?: string } | undefined)?.loud ?? "?";
			return new Text(theme.fg("success", `SHOUT-RESULT <${loud}>`), 0, 0);
		},
	});

	pi.registerCommand("accept", {
		description: "run the UI acceptance script",
		handler: async (_args, ctx) => {
			// Each answer is added to the widget above the editor, where it stays on screen.
			const answers: string[] = [];
			const answer = (line: string) => {
				answers.push(line);
				ctx.ui.setWidget("acc-above", ["ABOVE-WIDGET", answers.join(" | ")]);
			};
			ctx.ui.setStatus("acc", "ACC-STATUS");
			ctx.ui.setWidget("acc-above", ["ABOVE-WIDGET"]);
			ctx.ui.setWidget("acc-below", ["BELOW-WIDGET"], { placement: "belowEditor" });

			const fruit = await ctx.ui.select("Pick a fruit", ["apple", "banana", "cherry"]);
			answer(`picked=${fruit}`);

			const ok = await ctx.ui.confirm("Deploy now?", "This waits 1.5 seconds for an answer.", { timeout: 1500 });
			answer(`confirm=${ok}`);

			const counted = await ctx.ui.custom<string | undefined>((tui, _theme, _kb, done) => new Counter(tui, done, "COUNTER"));
			answer(`counter=${counted}`);

			const floated = await ctx.ui.custom<string | undefined>((tui, _theme, _kb, done) => new Counter(tui, done, "OVERLAY"), {
				overlay: true,
				overlayOptions: { anchor: "top-left", width: 34, margin: 1, visible: (columns: number) => columns >= 60 },
			});
			answer(`overlay=${floated}`);

			ctx.ui.setFooter((_tui, theme, footerData) => ({
				invalidate() {},
				render(width: number): string[] {
					const replies = ctx.sessionManager.getBranch().filter((e) => e.type === "message" && e.message.role === "assistant").length;
					const statuses = [...footerData.getExtensionStatuses().values()].join(",");
					return [truncateToWidth(theme.fg("dim", `ACC-FOOTER replies=${replies} status=${statuses}`), width)];
				},
			}));
		},
	});
}
