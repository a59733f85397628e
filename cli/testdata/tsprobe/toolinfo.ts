// Probe of issue 13 items 10 and 11: getAllTools() has promptGuidelines and a full sourceInfo,
// getCommands() the same sourceInfo; before_agent_start's systemPromptOptions carries what the
// seed lists; setActiveTools inside before_agent_start changes that turn's prompt.
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "probe_tool",
		label: "Probe",
		description: "a probe tool",
		promptSnippet: "PROBE-SNIPPET",
		promptGuidelines: ["PROBE-GUIDELINE"],
		parameters: { type: "object", properties: {} } as any,
		async execute() {
			return { content: [{ type: "text", text: "ok" }], details: {} };
		},
	});
	pi.registerCommand("probe-cmd", { description: "a probe command", handler: async () => {} });
	pi.on("before_agent_start", (event: any) => {
		const tools = pi.getAllTools().filter((t: any) => t.name === "read" || t.name === "probe_tool");
		const cmds = pi.getCommands().filter((c: any) => c.name === "probe-cmd");
		console.error("PROBE " + JSON.stringify({ options: event.systemPromptOptions, tools, cmds }));
		pi.setActiveTools(["read", "bash"]);
	});
}
