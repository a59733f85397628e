// Smaller exports of @bastani/atomic outside the TUI: highlightCode and getLanguageFromPath,
// the keybinding text helpers (uisurf.ts), and the static SessionManager.list / listAll.

import path = require("node:path");
import { syncCall } from "./rpc";

/**
 * highlightCode returns code unchanged: atomic has no TUI yet, so there is nothing to colour for
 * (print, JSON and RPC output are plain text). The signature is pi's.
 */
export function highlightCode(code: string, _lang?: string, _theme?: unknown): string {
	return String(code ?? "");
}

const LANGUAGES: Record<string, string> = {
	ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
	js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
	py: "python", pyw: "python", rb: "ruby", rs: "rust", go: "go", java: "java", kt: "kotlin", kts: "kotlin",
	scala: "scala", swift: "swift", c: "c", h: "c", cpp: "cpp", cc: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp", hxx: "cpp",
	cs: "csharp", fs: "fsharp", php: "php", pl: "perl", pm: "perl", lua: "lua", r: "r", dart: "dart", ex: "elixir", exs: "elixir",
	erl: "erlang", hs: "haskell", clj: "clojure", ml: "ocaml", zig: "zig", nim: "nim", jl: "julia",
	sh: "bash", bash: "bash", zsh: "bash", fish: "fish", ps1: "powershell",
	json: "json", jsonc: "json", json5: "json", yaml: "yaml", yml: "yaml", toml: "toml", ini: "ini", xml: "xml",
	html: "html", htm: "html", css: "css", scss: "scss", sass: "scss", less: "less", vue: "vue", svelte: "svelte",
	md: "markdown", markdown: "markdown", sql: "sql", graphql: "graphql", gql: "graphql", proto: "protobuf",
	tf: "hcl", hcl: "hcl", nix: "nix", vim: "vim", diff: "diff", patch: "diff", tex: "latex", cmake: "cmake",
};
const FILE_NAMES: Record<string, string> = { dockerfile: "dockerfile", makefile: "makefile", gnumakefile: "makefile", "cmakelists.txt": "cmake" };

/** getLanguageFromPath maps a file path to a highlight language name ("rust" for x.rs), or undefined. */
export function getLanguageFromPath(filePath: string): string | undefined {
	const base = path.basename(String(filePath ?? "")).toLowerCase();
	if (FILE_NAMES[base]) return FILE_NAMES[base];
	const dot = base.lastIndexOf(".");
	if (dot < 0) return undefined;
	return LANGUAGES[base.slice(dot + 1)];
}

export { keyHint, keyHintIfBound, keyText, rawKeyHint } from "./uisurf";

interface WireSessionInfo {
	path: string;
	id: string;
	cwd: string;
	name?: string;
	parentSessionPath?: string;
	created: string;
	modified: string;
	messageCount: number;
	firstMessage: string;
	allMessagesText: string;
	internal?: boolean;
}

function sessionInfo(w: WireSessionInfo): any {
	const info: any = { ...w, created: new Date(w.created), modified: new Date(w.modified) };
	if (w.name) info.hasName = true;
	// `file` is what some docs call the path (seed 004's /switch example); not enumerable.
	Object.defineProperty(info, "file", { value: w.path, enumerable: false });
	return info;
}

function list(params: Record<string, unknown>, onProgress?: (loaded: number, total: number) => void) {
	const infos = (syncCall<WireSessionInfo[]>("sessions.list", params) ?? []).map(sessionInfo);
	onProgress?.(infos.length, infos.length);
	return Promise.resolve(infos);
}

/**
 * SessionManager's static listing (session-format.md §10): list(cwd, sessionDir?, onProgress?)
 * for one project and listAll(onProgress?) — Atomic's listAll(sessionDir?, onProgress?,
 * {includeInternal?}) too — newest first, as pi's SessionInfo (created and modified are Dates).
 * The session itself is ctx.sessionManager.
 */
export const SessionManager = {
	list(cwd: string, sessionDir?: string, onProgress?: (loaded: number, total: number) => void) {
		return list({ cwd, sessionDir }, onProgress);
	},
	listAll(a?: string | ((loaded: number, total: number) => void), b?: (loaded: number, total: number) => void, opts?: { includeInternal?: boolean }) {
		if (typeof a === "function") return list({ all: true }, a);
		return list({ all: true, sessionDir: a, includeInternal: opts?.includeInternal }, b);
	},
};
