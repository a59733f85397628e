// Probe of issue 12's host-native pickers: ctx.ui.hostSessionPicker and ctx.ui.hostInputForm are
// absent (undefined) outside the terminal UI (print, JSON and RPC mode), as seed 004 says.
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
	pi.on("before_agent_start", (_event: any, ctx: any) => {
		const members = { picker: typeof ctx.ui.hostSessionPicker, form: typeof ctx.ui.hostInputForm, hasUI: ctx.hasUI };
		console.error("PROBE " + JSON.stringify(members));
		ctx.ui.notify("PROBE " + JSON.stringify(members), "info");
	});
}
