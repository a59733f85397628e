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
