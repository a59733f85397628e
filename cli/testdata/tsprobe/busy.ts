// Probe of issue 13 item 18 (host restart policy): a factory that blocks the event loop for
// 1.2 s loads, and a tool running execSync for 1.5 s returns its result and keeps the host's
// in-memory state (the host is not restarted for a gap shorter than extensionHandlerTimeoutMs).
import type { ExtensionAPI } from "@bastani/atomic";
import { execSync } from "node:child_process";

let calls = 0;

export default function (pi: ExtensionAPI) {
	const until = Date.now() + 1200;
	while (Date.now() < until) {
		// a synchronous factory
	}
	pi.registerTool({
		name: "slow_sync",
		label: "Slow sync",
		description: "blocks the host for 1.5 s",
		parameters: { type: "object", properties: {} } as any,
		async execute() {
			execSync("sleep 1.5");
			calls++;
			return { content: [{ type: "text", text: `SLOW-DONE calls=${calls}` }], details: {} };
		},
	});
}
