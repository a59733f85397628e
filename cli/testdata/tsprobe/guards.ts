// Probe of issue 13 item 14's type guards: isBashToolResult, isPowerShellToolResult and
// isSearchToolResult from @bastani/atomic (seed 000, "tool_result") tell a result's tool.
import { isBashToolResult, isPowerShellToolResult, isSearchToolResult } from "@bastani/atomic";
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
	pi.on("tool_result", async (event) => {
		const tag = `GUARDS bash=${isBashToolResult(event)} powershell=${isPowerShellToolResult(event)} search=${isSearchToolResult(event)}`;
		return { content: [...event.content, { type: "text", text: tag }] };
	});
}
