// Probe of issue 13 item 10's completions: getArgumentCompletions items keep their label and
// description through the host and RPC's get_command_completions; a bare string is its own
// value and label; a label left out is the value.
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("deploy", {
		description: "deploy to a target",
		getArgumentCompletions: (prefix: string) =>
			[{ value: "prod", label: "Production", description: "the live cluster" }, "staging", { value: "dev" }].filter((i: any) =>
				(typeof i === "string" ? i : i.value).startsWith(prefix),
			) as any,
		handler: async () => {},
	});
}
