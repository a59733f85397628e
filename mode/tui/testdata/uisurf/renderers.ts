// A pi extension with a custom tool renderer (renderCall + renderResult with the renderer
// context) and a message renderer, styled with the theme (mode/tui/e2e_uisurf_test.go).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Text } from "@mariozechner/pi-tui";
import { Type } from "@sinclair/typebox";

export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "weather",
		label: "Weather",
		description: "Report the weather of a city",
		parameters: Type.Object({ city: Type.String() }),
		async execute(_id, params) {
			return { content: [{ type: "text", text: `Sunny in ${params.city}` }], details: { celsius: 21 } };
		},
		renderCall(args, theme, context) {
			context.state.calls = ((context.state.calls as number) ?? 0) + 1;
			const text = theme.fg("accent", theme.bold("☀ WEATHER")) + " " + theme.fg("warning", String(args.city ?? "…"));
			const comp = (context.lastComponent as Text) ?? new Text("", 0, 0);
			comp.setText(text);
			return comp;
		},
		renderResult(result, options, theme, context) {
			const t = result.content.map((c: any) => c.text ?? "").join("");
			const d = result.details as { celsius?: number } | undefined;
			return new Text(theme.fg("success", `RESULT ${t}`) + theme.fg("muted", ` (${d?.celsius}°C, expanded=${options.expanded}, partial=${options.isPartial}, error=${context.isError})`), 0, 0);
		},
	});
	pi.registerMessageRenderer("status-card", (message, options, theme) => {
		const body = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
		return new Text(theme.bg("customMessageBg", theme.fg("customMessageLabel", theme.bold(" ▌STATUS CARD ")) + theme.fg("text", ` ${body} `)) + (options.expanded ? " [expanded]" : ""), 0, 0);
	});
	pi.registerCommand("card", {
		description: "send a status card",
		handler: async (args) => {
			pi.sendMessage({ customType: "status-card", content: args || "all systems nominal", display: true });
		},
	});
}
