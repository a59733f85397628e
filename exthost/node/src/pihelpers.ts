// pi helpers packages import from the agent package that need no terminal: parseFrontmatter and
// stripFrontmatter (a YAML front-matter block of a Markdown file), and the themes and border
// component a UI extension builds its components from (getMarkdownTheme, getSelectListTheme,
// getSettingsListTheme, DynamicBorder). The themes style with the active theme of the interactive
// UI (uisurf.ts); outside it every style function returns its text unchanged.

import { currentTheme } from "./uisurf";

/** The value of one YAML scalar: quoted strings, booleans, null, numbers, inline [a, b] lists. */
function scalar(raw: string): unknown {
	const v = raw.trim();
	if (v === "") return "";
	if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) {
		if (v.startsWith('"')) {
			try {
				return JSON.parse(v);
			} catch {
				return v.slice(1, -1);
			}
		}
		return v.slice(1, -1).replace(/''/g, "'");
	}
	if (v.startsWith("[") && v.endsWith("]")) {
		const inner = v.slice(1, -1).trim();
		return inner === "" ? [] : inner.split(",").map((x) => scalar(x));
	}
	if (v === "true" || v === "True") return true;
	if (v === "false" || v === "False") return false;
	if (v === "null" || v === "~") return null;
	if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
	return v;
}

/**
 * parseYAMLBlock parses the front-matter subset Markdown resources use: `key: value` lines,
 * block lists (`key:` then `- item` lines), block scalars (`key: |` / `key: >`) and comments.
 */
function parseYAMLBlock(text: string): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	const lines = text.split(/\r?\n/);
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		if (/^\s*(#|$)/.test(line) || /^\s/.test(line)) continue;
		const m = /^([^:#]+?)\s*:(?:\s+(.*))?$/.exec(line);
		if (!m) continue;
		const key = m[1].trim();
		const rest = (m[2] ?? "").replace(/\s+#.*$/, "");
		if (rest === "|" || rest === ">" || rest === "|-" || rest === ">-") {
			const body: string[] = [];
			while (i + 1 < lines.length && (/^\s/.test(lines[i + 1]) || lines[i + 1] === "")) body.push(lines[++i].trim());
			while (body.length && body[body.length - 1] === "") body.pop();
			out[key] = rest.startsWith("|") ? body.join("\n") : body.join(" ");
			continue;
		}
		if (rest === "") {
			const items: unknown[] = [];
			while (i + 1 < lines.length && /^\s*-\s/.test(lines[i + 1])) items.push(scalar(lines[++i].replace(/^\s*-\s/, "")));
			out[key] = items.length ? items : null;
			continue;
		}
		out[key] = scalar(rest);
	}
	return out;
}

/** parseFrontmatter splits `---`-delimited YAML front matter from a Markdown body (pi's shape). */
export function parseFrontmatter<T extends Record<string, unknown> = Record<string, unknown>>(content: string): { frontmatter: T; body: string } {
	const text = String(content ?? "").replace(/^\uFEFF/, "");
	const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
	if (!m) return { frontmatter: {} as T, body: text };
	return { frontmatter: parseYAMLBlock(m[1]) as T, body: text.slice(m[0].length) };
}

/** stripFrontmatter returns the body of a Markdown file without its front matter. */
export function stripFrontmatter(content: string): string {
	return parseFrontmatter(content).body;
}

const plain = (s: string) => s;
const fg = (token: string) => (s: string) => currentTheme.fg(token, s);

/**
 * getMarkdownTheme returns a pi-tui MarkdownTheme in the colours of the active theme (md*
 * tokens); outside the TUI the styles leave the text unchanged.
 */
export function getMarkdownTheme() {
	return {
		heading: (s: string) => currentTheme.fg("mdHeading", currentTheme.bold(s)),
		link: fg("mdLink"),
		linkUrl: fg("mdLinkUrl"),
		code: fg("mdCode"),
		codeBlock: fg("mdCodeBlock"),
		codeBlockBorder: fg("mdCodeBlockBorder"),
		quote: (s: string) => currentTheme.fg("mdQuote", currentTheme.italic(s)),
		quoteBorder: fg("mdQuoteBorder"),
		hr: fg("mdHr"),
		listBullet: fg("mdListBullet"),
		bold: (s: string) => currentTheme.bold(s),
		italic: (s: string) => currentTheme.italic(s),
		strikethrough: (s: string) => currentTheme.strikethrough(s),
		underline: (s: string) => currentTheme.underline(s),
		highlightCode: (code: string) => String(code ?? "").split("\n"),
	};
}

/** getSelectListTheme returns a pi-tui SelectListTheme in the active theme's colours. */
export function getSelectListTheme() {
	return { selectedPrefix: fg("accent"), selectedText: fg("accent"), description: fg("muted"), scrollInfo: fg("muted"), noMatch: fg("muted") };
}

/** getSettingsListTheme returns a pi-tui SettingsListTheme in the active theme's colours. */
export function getSettingsListTheme() {
	return {
		label: (s: string, selected?: boolean) => (selected ? currentTheme.fg("accent", s) : s),
		value: (s: string, selected?: boolean) => (selected ? currentTheme.fg("accent", s) : currentTheme.fg("muted", s)),
		description: fg("dim"),
		cursor: currentTheme.fg("accent", "→ "),
		hint: fg("dim"),
	};
}

/** DynamicBorder is pi's full-width horizontal rule component, styled by an optional colour function. */
export class DynamicBorder {
	private color: (s: string) => string;
	constructor(color: (s: string) => string = plain) {
		this.color = color;
	}
	invalidate(): void {}
	render(width: number): string[] {
		return [this.color("─".repeat(Math.max(1, Math.floor(width) || 1)))];
	}
}

/**
 * BorderedLoader is pi's cancellable "working…" component for ctx.ui.custom: a message between
 * two rules. Escape (or Ctrl+C) aborts its signal and calls onAbort, unless it was made with
 * `{cancellable: false}`.
 */
export class BorderedLoader {
	private controller = new AbortController();
	private abortFn: (() => void) | undefined;
	private cancellable: boolean;
	private message: string;
	private color: (s: string) => string;
	constructor(_tui: unknown, theme: any, message: string, options: { cancellable?: boolean } = {}) {
		this.message = String(message ?? "");
		this.cancellable = options.cancellable !== false;
		this.color = typeof theme?.fg === "function" ? (s: string) => theme.fg("border", s) : plain;
	}
	get signal(): AbortSignal {
		return this.controller.signal;
	}
	set onAbort(fn: (() => void) | undefined) {
		this.abortFn = fn;
	}
	handleInput(data: string): void {
		if (!this.cancellable) return;
		if (data === "\x1b" || data === "\x03") {
			this.controller.abort();
			this.abortFn?.();
		}
	}
	invalidate(): void {}
	render(width: number): string[] {
		const w = Math.max(1, Math.floor(width) || 1);
		const rule = this.color("─".repeat(w));
		const lines = [rule, this.message];
		if (this.cancellable) lines.push("esc cancel");
		lines.push(rule);
		return lines;
	}
	dispose(): void {}
}

const COMPACTION_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUFFIX = "\n</summary>";
const BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUFFIX = "</summary>";

/** bashExecutionToText is the user-message text of a `!command` run (pi's wording). */
export function bashExecutionToText(m: any): string {
	let text = `Ran \`${m.command}\`\n`;
	text += m.output ? `\`\`\`\n${m.output}\n\`\`\`` : "(no output)";
	if (m.cancelled) text += "\n\n(command cancelled)";
	else if (m.exitCode !== null && m.exitCode !== undefined && m.exitCode !== 0) text += `\n\nCommand exited with code ${m.exitCode}`;
	if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${m.fullOutputPath}]`;
	return text;
}

/**
 * convertToLlm turns agent messages into the roles a model accepts: bash runs, custom messages
 * and summaries become user messages; user, assistant and toolResult pass through; the rest
 * (and bash runs excluded from the context) are dropped.
 */
export function convertToLlm(messages: any[]): any[] {
	const out: any[] = [];
	for (const m of messages ?? []) {
		switch (m?.role) {
			case "bashExecution":
				if (!m.excludeFromContext) out.push({ role: "user", content: [{ type: "text", text: bashExecutionToText(m) }], timestamp: m.timestamp });
				break;
			case "custom":
				out.push({ role: "user", content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content, timestamp: m.timestamp });
				break;
			case "branchSummary":
				out.push({ role: "user", content: [{ type: "text", text: BRANCH_PREFIX + m.summary + BRANCH_SUFFIX }], timestamp: m.timestamp });
				break;
			case "compactionSummary":
				out.push({ role: "user", content: [{ type: "text", text: COMPACTION_PREFIX + m.summary + COMPACTION_SUFFIX }], timestamp: m.timestamp });
				break;
			case "user":
			case "assistant":
			case "toolResult":
				out.push(m);
				break;
		}
	}
	return out;
}

const TOOL_RESULT_CHARS = 2000;

const textOf = (content: any): string =>
	typeof content === "string" ? content : (content ?? []).filter((c: any) => c?.type === "text").map((c: any) => c.text).join("");

/**
 * serializeConversation renders model messages as labelled text for a summarizer (`[User]:`,
 * `[Assistant]:`, `[Assistant thinking]:`, `[Assistant tool calls]:`, `[Tool result]:` with
 * results cut at 2000 characters), so the model reads a transcript instead of continuing it.
 */
export function serializeConversation(messages: any[]): string {
	const parts: string[] = [];
	for (const m of messages ?? []) {
		if (m?.role === "user") {
			const t = textOf(m.content);
			if (t) parts.push(`[User]: ${t}`);
		} else if (m?.role === "assistant") {
			const text: string[] = [];
			const thinking: string[] = [];
			const calls: string[] = [];
			for (const b of m.content ?? []) {
				if (b.type === "text") text.push(b.text);
				else if (b.type === "thinking") thinking.push(b.thinking);
				else if (b.type === "toolCall") {
					const args = Object.entries(b.arguments ?? {})
						.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
						.join(", ");
					calls.push(`${b.name}(${args})`);
				}
			}
			if (thinking.length) parts.push(`[Assistant thinking]: ${thinking.join("\n")}`);
			if (text.length) parts.push(`[Assistant]: ${text.join("\n")}`);
			if (calls.length) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
		} else if (m?.role === "toolResult") {
			let t = textOf(m.content);
			if (t.length > TOOL_RESULT_CHARS) t = `${t.slice(0, TOOL_RESULT_CHARS)}\n\n[... ${t.length - TOOL_RESULT_CHARS} more characters truncated]`;
			if (t) parts.push(`[Tool result]: ${t}`);
		}
	}
	return parts.join("\n\n");
}

const ms = (t: unknown) => (typeof t === "number" ? t : new Date(t as string).getTime());

/**
 * buildSessionContext rebuilds the context of the branch ending at leafId (default: the last
 * entry; null: empty) from session entries: the messages the model sees (a compaction's summary
 * and kept tail, custom messages, branch summaries), the thinking level and the model.
 */
export function buildSessionContext(entries: any[], leafId?: string | null, byId?: Map<string, any>) {
	const empty = { messages: [] as any[], thinkingLevel: "off", model: null as null | { provider: string; modelId: string } };
	if (leafId === null) return empty;
	if (!byId) {
		byId = new Map();
		for (const e of entries ?? []) byId.set(e.id, e);
	}
	let leaf = leafId ? byId.get(leafId) : undefined;
	if (!leaf) leaf = entries?.[entries.length - 1];
	if (!leaf) return empty;
	const path: any[] = [];
	for (let cur = leaf; cur; cur = cur.parentId ? byId.get(cur.parentId) : undefined) path.unshift(cur);
	let compaction: any;
	for (const e of path) {
		if (e.type === "thinking_level_change") empty.thinkingLevel = e.thinkingLevel;
		else if (e.type === "model_change") empty.model = { provider: e.provider, modelId: e.modelId };
		else if (e.type === "message" && e.message?.role === "assistant") empty.model = { provider: e.message.provider, modelId: e.message.model };
		else if (e.type === "compaction") compaction = e;
	}
	const add = (e: any) => {
		if (e.type === "message") empty.messages.push(e.message);
		else if (e.type === "custom_message")
			empty.messages.push({ role: "custom", customType: e.customType, content: e.content, display: e.display, details: e.details, timestamp: ms(e.timestamp) });
		else if (e.type === "branch_summary" && e.summary) empty.messages.push({ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: ms(e.timestamp) });
	};
	if (!compaction) {
		for (const e of path) add(e);
		return empty;
	}
	empty.messages.push({ role: "compactionSummary", summary: compaction.summary, tokensBefore: compaction.tokensBefore, timestamp: ms(compaction.timestamp) });
	const at = path.findIndex((e) => e.type === "compaction" && e.id === compaction.id);
	let kept = false;
	for (let i = 0; i < at; i++) {
		if (path[i].id === compaction.firstKeptEntryId) kept = true;
		if (kept) add(path[i]);
	}
	for (let i = at + 1; i < path.length; i++) add(path[i]);
	return empty;
}
