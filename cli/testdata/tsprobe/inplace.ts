// Probe of issue 13 item 12: in-place edits of context's event.messages and
// before_provider_request's event.payload take effect; neither handler returns anything.
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
	pi.on("context", (event) => {
		for (const m of event.messages as any[]) {
			if (m.role !== "user") continue;
			if (typeof m.content === "string") m.content = m.content.replace("SECRET", "REDACTED");
			else for (const b of m.content) if (b.type === "text") b.text = b.text.replace("SECRET", "REDACTED");
		}
		event.messages.push({ role: "user", content: [{ type: "text", text: "INPLACE-CTX-NOTE" }], timestamp: Date.now() } as any);
	});
	pi.on("before_provider_request", (event) => {
		(event.payload as any).metadata = { user_id: "inplace-payload" };
	});
}
