// Probe of issue 13 item 4: withFileMutationQueue shares one queue with atomic's built-in edit
// and write, keyed by the real path. append_line reads the file through a symlink alias inside
// the queue, then waits until edit_builtin's edit is done (at most 300 ms) before writing what it
// read plus a line. edit_builtin runs atomic's Go edit (createEditTool without operations) on
// the real path once append_line has read. Without a shared queue the edit lands in between and
// append_line's write loses it; with it the edit waits for append_line's turn.
import { createEditTool, withFileMutationQueue } from "@bastani/atomic";
import type { ExtensionAPI } from "@bastani/atomic";
import { readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";

let readDone!: () => void;
const read = new Promise<void>((resolve) => (readDone = resolve));
let editDone!: () => void;
const edited = new Promise<void>((resolve) => (editDone = resolve));

export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "append_line",
		label: "Append line",
		description: "append a line to a file",
		parameters: { type: "object", properties: { path: { type: "string" }, line: { type: "string" } }, required: ["path", "line"] } as any,
		async execute(_id, params: any, _signal, _onUpdate, ctx) {
			const abs = path.resolve(ctx.cwd, params.path);
			return withFileMutationQueue(abs, async () => {
				const before = await readFile(abs, "utf8");
				readDone();
				await Promise.race([edited, new Promise((resolve) => setTimeout(resolve, 300))]);
				await writeFile(abs, before + params.line + "\n");
				return { content: [{ type: "text", text: "appended" }], details: {} };
			});
		},
	});
	pi.registerTool({
		name: "edit_builtin",
		label: "Edit (built-in)",
		description: "atomic's edit, once append_line has read the file",
		parameters: { type: "object", properties: { path: { type: "string" }, oldText: { type: "string" }, newText: { type: "string" } }, required: ["path", "oldText", "newText"] } as any,
		async execute(id, params: any, signal, onUpdate, ctx) {
			await read;
			const edit = createEditTool(ctx.cwd);
			try {
				return await edit.execute(id, { path: params.path, edits: [{ oldText: params.oldText, newText: params.newText }] }, signal, onUpdate, ctx);
			} finally {
				editDone();
			}
		},
	});
}
