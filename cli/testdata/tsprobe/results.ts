// Probe of issue 13 item 13: a tool's returned isError is ignored (only a throw marks an
// error); sendUserMessage takes the seed's image shape; session_shutdown names the target
// session file for new and fork.
import type { ExtensionAPI } from "@bastani/atomic";

// A 1x1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "returns_error",
		label: "Returns error",
		description: "returns isError: true",
		parameters: { type: "object", properties: {} } as any,
		async execute() {
			return { content: [{ type: "text", text: "RETURNED-VALUE" }], details: {}, isError: true } as any;
		},
	});
	pi.registerTool({
		name: "throws_error",
		label: "Throws error",
		description: "throws",
		parameters: { type: "object", properties: {} } as any,
		async execute() {
			throw new Error("THROWN-ERROR");
		},
	});
	pi.registerCommand("img", {
		description: "send an image in the seed's shape",
		handler: async () => {
			pi.sendUserMessage([
				{ type: "text", text: "describe this image" },
				{ type: "image", source: { type: "base64", mediaType: "image/png", data: PNG } },
			] as any);
		},
	});
	pi.registerCommand("newsession", {
		description: "start a new session",
		handler: async (_args, ctx) => {
			await ctx.newSession();
		},
	});
	pi.registerCommand("forkfirst", {
		description: "fork before the first user message",
		handler: async (_args, ctx) => {
			const first = ctx.sessionManager.getEntries().find((e: any) => e.type === "message" && e.message.role === "user");
			await ctx.fork(first.id);
		},
	});
	pi.on("session_shutdown", (event, ctx) => {
		const line = `SHUTDOWN reason=${event.reason} target=${event.targetSessionFile ?? "none"}`;
		console.error(line);
		if (ctx.hasUI) ctx.ui.notify(line, "info");
	});
}
