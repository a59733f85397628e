// Probe of issue 13 item 14: createSearchTool from @bastani/atomic makes Atomic's search tool
// (run by atomic's built-in); an extension registers it under its own name.
import { createSearchTool } from "@bastani/atomic";
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
	const search = createSearchTool(process.cwd());
	pi.registerTool({ ...search, name: "ext_search", label: "ext search" });
}
