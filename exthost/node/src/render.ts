// Custom rendering in the host (docs/extension-protocol.md "Renderers", tui.md §6.1-6.2): the
// core asks for the lines of a tool row's slot (renderCall / renderResult), a custom message
// (registerMessageRenderer) or a custom entry (registerEntryRenderer) at a width. The renderer
// returns a pi-tui component, rendered here; its context keeps `state` (shared by both slots of a
// row) and `lastComponent` (per slot) between renders, and `invalidate()` asks the core to render
// the row again. Returning nothing, or throwing, lets the core's built-in renderer draw it.

import { notify } from "./rpc";
import { currentTheme } from "./uisurf";

interface RowState {
	state: Record<string, unknown>;
	last: Record<string, unknown>;
}

/** Per-key state of rows (tool call ids, messages), kept for the life of the host generation. */
const rows = new Map<string, RowState>();
const MAX_ROWS = 5000;

function rowState(key: string): RowState {
	let r = rows.get(key);
	if (!r) {
		if (rows.size >= MAX_ROWS) rows.delete(rows.keys().next().value as string);
		r = { state: {}, last: {} };
		rows.set(key, r);
	}
	return r;
}

function linesOf(comp: any, width: number): string[] | null {
	if (comp === undefined || comp === null) return null;
	if (typeof comp.render !== "function") throw new TypeError("the renderer did not return a component (an object with render(width))");
	const out = comp.render(Math.max(1, width | 0));
	if (!Array.isArray(out)) return [];
	return out.map((l: unknown) => (typeof l === "string" ? l : String(l ?? "")));
}

/** renderTool answers render.tool for tool definition def. */
export function renderTool(def: any, p: any): unknown {
	const req = p.request ?? {};
	const slot = p.slot === "result" ? "result" : "call";
	const fn = slot === "call" ? def?.renderCall : def?.renderResult;
	if (typeof fn !== "function") return null;
	const row = rowState(p.key);
	const context = {
		args: req.args ?? {},
		toolCallId: req.toolCallId,
		invalidate: () => notify("render.invalidate", { key: p.key }),
		lastComponent: row.last[slot],
		state: row.state,
		cwd: req.cwd,
		executionStarted: req.executionStarted === true,
		argsComplete: req.argsComplete === true,
		isPartial: req.isPartial === true,
		expanded: req.expanded === true,
		showImages: req.showImages === true,
		isError: req.isError === true,
	};
	const comp =
		slot === "call"
			? fn.call(def, context.args, currentTheme, context)
			: fn.call(def, { content: req.result?.content ?? [], details: req.result?.details }, { expanded: context.expanded, isPartial: context.isPartial }, currentTheme, context);
	row.last[slot] = comp;
	const lines = linesOf(comp, req.width);
	return lines === null ? null : { lines };
}

/** renderMessage answers render.message with a message renderer. */
export function renderMessage(renderer: any, p: any): unknown {
	if (typeof renderer !== "function") return null;
	const req = p.request ?? {};
	const message = { role: "custom", customType: p.customType, content: req.content, details: req.details, display: true };
	const comp = renderer(message, { expanded: req.expanded === true }, currentTheme);
	const lines = linesOf(comp, req.width);
	return lines === null ? null : { lines };
}

/** renderEntry answers render.entry with an entry renderer. */
export function renderEntry(renderer: any, p: any): unknown {
	if (typeof renderer !== "function") return null;
	const req = p.request ?? {};
	const entry = { type: "custom", customType: p.customType, data: req.data };
	const comp = renderer(entry, { expanded: req.expanded === true }, currentTheme);
	const lines = linesOf(comp, req.width);
	return lines === null ? null : { lines };
}
