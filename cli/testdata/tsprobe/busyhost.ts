// A host that blocks its event loop (issue 13 item 18): the message_end handler of the second
// assistant message with tool calls runs `sleep $BUSY_SECONDS` synchronously; tool_call blocks
// bash commands naming "forbidden"; the count tool counts its calls in the host's memory, so a
// restart of the host shows as a reset.
import type { ExtensionAPI } from "@bastani/atomic";
import { Type } from "typebox";
import { execSync } from "node:child_process";

export default function (pi: ExtensionAPI) {
	let count = 0;
	let toolMessages = 0;
	pi.on("message_end", (event) => {
		const m: any = event.message;
		if (m.role !== "assistant" || !m.content.some((c: any) => c.type === "toolCall")) return;
		if (++toolMessages !== 2) return;
		execSync(`sleep ${process.env.BUSY_SECONDS}`);
	});
	pi.on("tool_call", (event) => {
		if (event.toolName === "bash" && String((event.input as any).command).includes("forbidden")) {
			return { block: true, reason: "forbidden by busyhost.ts" };
		}
	});
	pi.registerTool({
		name: "count",
		label: "Count",
		description: "Counts its calls",
		parameters: Type.Object({}),
		async execute() {
			count++;
			return { content: [{ type: "text", text: `count=${count}` }], details: {} };
		},
	});
}
