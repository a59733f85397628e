// Probe of issue 13 item 6: session_before_compact's payload has preparation.region.lines (a
// deep-frozen clone) and an AbortSignal; the handler's compactedText from the region replaces it.
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
	pi.on("session_before_compact", async (event: any) => {
		const { preparation, signal } = event;
		let frozen = false;
		try {
			preparation.region.lines.push("x");
		} catch {
			frozen = true;
		}
		const head = `REGION signal=${signal instanceof AbortSignal} aborted=${signal.aborted} frozen=${frozen} lines=${preparation.region.lines.length}`;
		return { compactedText: [head, ...preparation.region.lines].join("\n") };
	});
	pi.on("session_before_tree", async (event: any, ctx) => {
		ctx.ui.notify(`TREE signal=${event.signal instanceof AbortSignal} target=${event.preparation.targetId}`, "info");
	});
}
