// The built-in tool factories of @bastani/atomic (seed 004, "Remote Execution"):
// createReadTool, createBashTool, createEditTool, createWriteTool, createLsTool, createFindTool,
// createGrepTool, each `(cwd, {operations?})` returning a tool definition for pi.registerTool, and
// Atomic's createSearchTool(cwd), createPowerShellTool(cwd, {operations?}), createTodoTool(cwd) and
// createAskUserQuestionTool() (also as create…ToolDefinition).
//
// Without custom operations, execute runs atomic's Go built-in of that name through the core
// (`builtin.execute`), so behaviour and truncation are the built-in's exactly. With operations
// (pi's ReadOperations, BashOperations, …), the tool runs here on top of them, with the same
// truncation helpers and result texts as the Go tools.

import path = require("node:path");
import { createLocalBashOperations, withFileMutationQueue } from "./modules";
import { requestCancellable, syncCall } from "./rpc";
import { DEFAULT_MAX_BYTES, formatSize, GREP_MAX_LINE_LENGTH, truncateHead, truncateLine, truncateTail } from "./truncate";

type Fn = (...args: any[]) => any;

interface BuiltinInfo {
	name: string;
	label: string;
	description: string;
	parameters: unknown;
	promptSnippet?: string;
	promptGuidelines?: string[];
}

const infos = new Map<string, BuiltinInfo>();

/** info describes built-in `name` (the core's description and schema), cached. */
function info(name: string): BuiltinInfo {
	let i = infos.get(name);
	if (!i) {
		try {
			i = syncCall<BuiltinInfo>("builtin.info", { tool: name });
		} catch {
			// no core (a unit test): a bare definition
			i = { name, label: name, description: `The ${name} tool`, parameters: { type: "object", properties: {} } };
		}
		infos.set(name, i);
	}
	return i;
}

function text(t: string, details?: unknown) {
	return { content: [{ type: "text", text: t }], details };
}

/** textOf joins the text blocks of a result's content. */
function textOf(r: any): string {
	return (Array.isArray(r?.content) ? r.content : [])
		.filter((b: any) => b?.type === "text")
		.map((b: any) => b.text)
		.join("\n");
}

/**
 * delegate runs the Go built-in `name` in the core: its result, or its error thrown with its
 * text. A result the built-in marks as an error (a non-zero exit of bash) is thrown too, as pi's
 * tools do: a returned value never sets isError (seed 004). Aborting signal cancels the call;
 * partial results go to onUpdate.
 */
function delegate(name: string, cwd: string) {
	return async (toolCallId: string, params: unknown, signal?: AbortSignal, onUpdate?: Fn, ctx?: any) => {
		let r: any;
		// The tool call's context (its session for todo's claims, its dialogs for
		// ask_user_question) goes along as its id.
		const ctxId = typeof ctx?.id === "number" ? ctx.id : undefined;
		try {
			r = await requestCancellable("builtin.execute", { tool: name, cwd, toolCallId, args: params ?? {}, ctx: ctxId }, { signal, onUpdate });
		} catch (err: any) {
			throw new Error(err?.message ?? String(err));
		}
		if (r?.isError) throw new Error(textOf(r));
		return r;
	};
}

function define(name: string, cwd: string, execute: Fn, extra: Record<string, unknown> = {}): any {
	const i = info(name);
	return {
		name: i.name,
		label: i.label,
		description: i.description,
		parameters: i.parameters,
		promptSnippet: i.promptSnippet,
		promptGuidelines: i.promptGuidelines,
		execute,
		...extra,
	};
}

function expandHome(p: string): string {
	if (p === "~") return process.env.HOME ?? p;
	if (p.startsWith("~/")) return path.join(process.env.HOME ?? "", p.slice(2));
	return p;
}

function resolve(p: string | undefined, cwd: string): string {
	const e = expandHome(String(p ?? "").replace(/^@/, ""));
	return path.resolve(cwd, e || ".");
}

function aborted(signal?: AbortSignal) {
	if (signal?.aborted) throw new Error("Operation aborted");
}

const toStr = (v: unknown) => (Buffer.isBuffer(v) ? v.toString("utf8") : v instanceof Uint8Array ? Buffer.from(v).toString("utf8") : String(v ?? ""));

function sniffImage(b: Buffer): string | undefined {
	if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
	if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
	const head = b.subarray(0, 6).toString("latin1");
	if (head === "GIF87a" || head === "GIF89a") return "image/gif";
	if (b.length >= 12 && b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
	return undefined;
}

// ---- read -------------------------------------------------------------------------------------

/** readText selects and truncates lines as atomic's read does (tools.md §4.1). */
export function readText(content: string, p: { path: string; offset?: number; limit?: number }) {
	const lines = content.split("\n");
	const total = lines.length;
	const start = p.offset && p.offset > 0 ? Math.floor(p.offset) - 1 : 0;
	if (start >= total) throw new Error(`Offset ${p.offset} is beyond end of file (${total} lines total)`);
	const limited = p.limit !== undefined && p.limit !== null;
	const end = limited ? Math.min(start + Math.max(Math.floor(p.limit!), 0), total) : total;
	const tr = truncateHead(lines.slice(start, end).join("\n"));
	const first = start + 1;
	if (tr.firstLineExceedsLimit) {
		return text(
			`[Line ${first} is ${formatSize(Buffer.byteLength(lines[start], "utf8"))}, exceeds ${formatSize(DEFAULT_MAX_BYTES)} limit. Use bash: sed -n '${first}p' ${p.path} | head -c ${DEFAULT_MAX_BYTES}]`,
			{ truncation: tr },
		);
	}
	if (tr.truncated) {
		const last = first + tr.outputLines - 1;
		const limit = tr.truncatedBy === "bytes" ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
		return text(`${tr.content}\n\n[Showing lines ${first}-${last} of ${total}${limit}. Use offset=${last + 1} to continue.]`, { truncation: tr });
	}
	if (limited && end < total) return text(`${tr.content}\n\n[${total - end} more lines in file. Use offset=${end + 1} to continue.]`);
	return text(tr.content);
}

export function createReadTool(cwd: string, options: { operations?: any } = {}) {
	const ops = options?.operations;
	if (!ops) return define("read", cwd, delegate("read", cwd));
	return define("read", cwd, async (_id: string, params: any, signal?: AbortSignal) => {
		aborted(signal);
		const abs = resolve(params?.path, cwd);
		if (typeof ops.access === "function") await ops.access(abs);
		const raw = await ops.readFile(abs);
		aborted(signal);
		const buf = Buffer.isBuffer(raw) ? raw : raw instanceof Uint8Array ? Buffer.from(raw) : Buffer.from(String(raw ?? ""), "utf8");
		const mime = (typeof ops.detectImageMimeType === "function" ? await ops.detectImageMimeType(abs) : undefined) ?? sniffImage(buf);
		if (mime) return { content: [{ type: "text", text: `Read image file [${mime}]` }, { type: "image", data: buf.toString("base64"), mimeType: mime }] };
		return readText(buf.toString("utf8"), params ?? {});
	});
}

// ---- bash -------------------------------------------------------------------------------------

/** bashResult formats output as atomic's bash does (tail truncation and its notice). */
function bashOutput(out: string): { text: string; details?: any } {
	const tr = truncateTail(out);
	if (!tr.truncated) return { text: tr.content };
	const start = tr.totalLines - tr.outputLines + 1;
	const end = tr.totalLines;
	let notice: string;
	if (tr.lastLinePartial) {
		const lastLine = out.slice(out.lastIndexOf("\n") + 1);
		notice = `[Showing last ${formatSize(tr.outputBytes)} of line ${end} (line is ${formatSize(Buffer.byteLength(lastLine, "utf8"))})]`;
	} else if (tr.truncatedBy === "lines") notice = `[Showing lines ${start}-${end} of ${tr.totalLines}]`;
	else notice = `[Showing lines ${start}-${end} of ${tr.totalLines} (${formatSize(DEFAULT_MAX_BYTES)} limit)]`;
	return { text: `${tr.content}\n\n${notice}`, details: { truncation: tr } };
}

export function createBashTool(cwd: string, options: { operations?: any; commandPrefix?: string; spawnHook?: Fn; shellPath?: string } = {}) {
	let ops = options?.operations;
	if (!ops && !options?.spawnHook && !options?.commandPrefix && !options?.shellPath) return define("bash", cwd, delegate("bash", cwd));
	if (!ops) ops = createLocalBashOperations({ shellPath: options?.shellPath });
	return define("bash", cwd, async (_id: string, params: any, signal?: AbortSignal, onUpdate?: Fn) => {
		aborted(signal);
		let spawn = { command: String(params?.command ?? ""), cwd, env: { ...process.env } as NodeJS.ProcessEnv };
		if (options.commandPrefix) spawn.command = `${options.commandPrefix}\n${spawn.command}`;
		if (options.spawnHook) spawn = { ...spawn, ...options.spawnHook(spawn) };
		const chunks: Buffer[] = [];
		let timer: NodeJS.Timeout | undefined;
		let dirty = false;
		if (onUpdate) {
			timer = setInterval(() => {
				if (!dirty) return;
				dirty = false;
				const tr = truncateTail(Buffer.concat(chunks).toString("utf8"));
				onUpdate(text(tr.content, tr.truncated ? { truncation: tr } : {}));
			}, 100);
		}
		const timeout = typeof params?.timeout === "number" && params.timeout > 0 ? params.timeout : undefined;
		let exitCode: number | null;
		try {
			({ exitCode } = await ops.exec(spawn.command, spawn.cwd, {
				onData: (d: Buffer) => {
					chunks.push(Buffer.isBuffer(d) ? d : Buffer.from(String(d)));
					dirty = true;
				},
				signal,
				timeout,
				env: spawn.env,
			}));
		} catch (err) {
			const out = bashOutput(Buffer.concat(chunks).toString("utf8")).text;
			const reason = signal?.aborted ? "Command aborted" : (err as Error)?.message === "timeout" || /timed? ?out/i.test(String((err as Error)?.message)) ? `Command timed out after ${timeout} seconds` : undefined;
			if (!reason) throw err;
			throw new Error(out ? `${out}\n\n${reason}` : reason);
		} finally {
			if (timer) clearInterval(timer);
		}
		const { text: t, details } = bashOutput(Buffer.concat(chunks).toString("utf8"));
		const body = t === "" ? "(no output)" : t;
		if (exitCode !== 0 && exitCode !== null && exitCode !== -1) throw new Error(`${body}\n\nCommand exited with code ${exitCode}`);
		return text(body, details);
	});
}

// ---- write and edit ---------------------------------------------------------------------------

export function createWriteTool(cwd: string, options: { operations?: any } = {}) {
	const ops = options?.operations;
	if (!ops) return define("write", cwd, delegate("write", cwd));
	return define("write", cwd, async (_id: string, params: any, signal?: AbortSignal) => {
		aborted(signal);
		const abs = resolve(params?.path, cwd);
		const content = String(params?.content ?? "");
		await withFileMutationQueue(abs, async () => {
			if (typeof ops.mkdir === "function") await ops.mkdir(path.dirname(abs));
			aborted(signal);
			await ops.writeFile(abs, content);
		});
		return text(`Successfully wrote ${content.length} bytes to ${params.path}`);
	});
}

export function createEditTool(cwd: string, options: { operations?: any } = {}) {
	const ops = options?.operations;
	if (!ops) return define("edit", cwd, delegate("edit", cwd));
	return define("edit", cwd, async (_id: string, params: any, signal?: AbortSignal) => {
		aborted(signal);
		let edits: Array<{ oldText: string; newText: string }> = Array.isArray(params?.edits) ? params.edits : [];
		if (edits.length === 0 && typeof params?.oldText === "string") edits = [{ oldText: params.oldText, newText: String(params.newText ?? "") }];
		if (edits.length === 0) throw new Error("Edit tool input is invalid. edits must contain at least one replacement.");
		const abs = resolve(params?.path, cwd);
		return withFileMutationQueue(abs, async () => {
			if (typeof ops.access === "function") {
				try {
					await ops.access(abs);
				} catch (err: any) {
					throw new Error(`Could not edit file: ${params.path}. Error code: ${err?.code ?? "ENOENT"}.`);
				}
			}
			let content = toStr(await ops.readFile(abs));
			const original = content;
			// Every oldText must occur exactly once in the original; replacements apply in order.
			for (const [i, e] of edits.entries()) {
				const at = original.indexOf(e.oldText);
				const what = edits.length > 1 ? `edits[${i}]` : "oldText";
				if (e.oldText === "" || at < 0) throw new Error(`Could not find ${what} in ${params.path}. The old text must match exactly including all whitespace and newlines.`);
				if (original.indexOf(e.oldText, at + 1) >= 0) throw new Error(`Found multiple occurrences of ${what} in ${params.path}. Each oldText must be unique. Please provide more context to make it unique.`);
			}
			for (const e of edits) content = content.replace(e.oldText, () => e.newText);
			aborted(signal);
			await ops.writeFile(abs, content);
			return text(`Successfully replaced ${edits.length} block(s) in ${params.path}.`, { diff: "", firstChangedLine: undefined });
		});
	});
}

// ---- ls, find, grep ---------------------------------------------------------------------------

function listing(entries: string[], notices: string[]) {
	const tr = truncateHead(entries.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
	let out = tr.content;
	const details: any = {};
	if (tr.truncated) {
		notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
		details.truncation = tr;
	}
	if (notices.length) out += `\n\n[${notices.join(". ")}]`;
	return { out, details };
}

export function createLsTool(cwd: string, options: { operations?: any } = {}) {
	const ops = options?.operations;
	if (!ops) return define("ls", cwd, delegate("ls", cwd));
	return define("ls", cwd, async (_id: string, params: any, signal?: AbortSignal) => {
		aborted(signal);
		const dir = resolve(params?.path, cwd);
		const limit = Math.max(Math.floor(params?.limit ?? 500), 1);
		if (typeof ops.exists === "function" && !(await ops.exists(dir))) throw new Error(`Path not found: ${dir}`);
		const st = await ops.stat(dir);
		if (!st?.isDirectory?.()) throw new Error(`Not a directory: ${dir}`);
		const names: string[] = [...(await ops.readdir(dir))].sort((a, b) => {
			const x = a.toLowerCase();
			const y = b.toLowerCase();
			return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
		});
		const entries: string[] = [];
		let limitReached = false;
		for (const name of names) {
			if (entries.length >= limit) {
				limitReached = true;
				break;
			}
			try {
				const s = await ops.stat(path.join(dir, name));
				entries.push(s?.isDirectory?.() ? `${name}/` : name);
			} catch {
				// unreadable: skipped, as the built-in does
			}
		}
		if (entries.length === 0) return text("(empty directory)");
		const notices = limitReached ? [`${limit} entries limit reached. Use limit=${2 * limit} for more`] : [];
		const { out, details } = listing(entries, notices);
		if (limitReached) details.entryLimitReached = limit;
		return text(out, Object.keys(details).length ? details : undefined);
	});
}

export function createFindTool(cwd: string, options: { operations?: any } = {}) {
	const ops = options?.operations;
	if (!ops) return define("find", cwd, delegate("find", cwd));
	return define("find", cwd, async (_id: string, params: any, signal?: AbortSignal) => {
		aborted(signal);
		const root = resolve(params?.path, cwd);
		const limit = Math.max(Math.floor(params?.limit ?? 1000), 1);
		if (typeof ops.exists === "function" && !(await ops.exists(root))) throw new Error(`Path not found: ${root}`);
		const found: string[] = await ops.glob(String(params?.pattern ?? ""), root, { ignore: ["**/node_modules/**", "**/.git/**"], limit });
		const rel = found.map((f) => (path.isAbsolute(f) ? path.relative(root, f) : f).split(path.sep).join("/"));
		if (rel.length === 0) return text("No files found matching pattern");
		const limitReached = rel.length >= limit;
		const notices = limitReached ? [`${limit} results limit reached. Use limit=${2 * limit} for more, or refine pattern`] : [];
		const { out, details } = listing(rel.slice(0, limit), notices);
		if (limitReached) details.resultLimitReached = limit;
		return text(out, Object.keys(details).length ? details : undefined);
	});
}

export function createGrepTool(cwd: string, options: { operations?: any } = {}) {
	const ops = options?.operations;
	if (!ops) return define("grep", cwd, delegate("grep", cwd));
	return define("grep", cwd, async (_id: string, params: any, signal?: AbortSignal) => {
		aborted(signal);
		const target = resolve(params?.path, cwd);
		if (typeof ops.isDirectory === "function" && (await ops.isDirectory(target))) {
			throw new Error("grep with custom operations searches one file: GrepOperations cannot list a directory (give a file path)");
		}
		const flags = params?.ignoreCase ? "i" : "";
		const src = params?.literal ? String(params.pattern).replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : String(params?.pattern ?? "");
		let re: RegExp;
		try {
			re = new RegExp(src, flags);
		} catch (err) {
			throw new Error(`Invalid regular expression "${params?.pattern}": ${(err as Error).message}. Fix the pattern, or set literal=true to search for the text as is.`);
		}
		const limit = Math.max(Math.floor(params?.limit ?? 100), 1);
		const lines = toStr(await ops.readFile(target)).split("\n");
		const name = path.relative(cwd, target).split(path.sep).join("/") || path.basename(target);
		const out: string[] = [];
		let linesTruncated = false;
		for (let i = 0; i < lines.length && out.length < limit; i++) {
			if (!re.test(lines[i])) continue;
			const { text: t, wasTruncated } = truncateLine(lines[i], GREP_MAX_LINE_LENGTH);
			linesTruncated ||= wasTruncated;
			out.push(`${name}:${i + 1}: ${t}`);
		}
		if (out.length === 0) return text("No matches found");
		const notices: string[] = [];
		if (out.length >= limit) notices.push(`${limit} matches limit reached. Use limit=${2 * limit} for more, or refine pattern`);
		if (linesTruncated) notices.push(`Some lines truncated to ${GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines`);
		const { out: o, details } = listing(out, notices);
		return text(o, Object.keys(details).length ? details : undefined);
	});
}

/**
 * createSearchTool(cwd): Atomic's search tool (SearchToolInput: pattern, paths, i, case,
 * gitignore, skip), run by atomic's Go built-in of that name.
 */
export function createSearchTool(cwd: string) {
	return define("search", cwd, delegate("search", cwd));
}

/**
 * createTodoTool(cwd): Atomic's todo tool (file-based todos in <cwd>/.atomic/todos, or
 * $ATOMIC_TODO_PATH), run by atomic's Go built-in; claims are the calling session's.
 */
export function createTodoTool(cwd: string) {
	return define("todo", cwd, delegate("todo", cwd));
}

/**
 * createAskUserQuestionTool(): Atomic's ask_user_question tool, run by atomic's Go built-in with
 * the calling session's dialogs (a no_ui result in print and JSON mode).
 */
export function createAskUserQuestionTool(cwd: string = process.cwd()) {
	return define("ask_user_question", cwd, delegate("ask_user_question", cwd));
}

/**
 * createPowerShellTool(cwd, {operations?}): the powershell tool. Without operations it runs
 * atomic's Go built-in (which exists where pwsh or powershell is on PATH); with BashOperations
 * it is the bash tool on those operations under the name powershell, the command passed as is.
 */
export function createPowerShellTool(cwd: string, options: { operations?: any; commandPrefix?: string; spawnHook?: Fn } = {}) {
	if (!options?.operations) return define("powershell", cwd, delegate("powershell", cwd));
	const bash = createBashTool(cwd, options);
	return { ...bash, name: "powershell", label: "powershell", description: "Run a PowerShell command in the working directory.", promptSnippet: "Run PowerShell commands" };
}

// ---- structured output ------------------------------------------------------------------------

/**
 * createStructuredOutputTool({schema, capture?, output?, name?}): a tool whose parameters are the
 * schema; a call captures its arguments (capture(value)), writes them to output.outputPath when
 * set, and returns them as pretty-printed JSON with `terminate: true` (tools.md §11.3).
 */
export function createStructuredOutputTool(options: { schema: unknown; capture?: Fn; output?: { outputPath?: string }; name?: string; label?: string; description?: string }) {
	const name = options?.name ?? "structured_output";
	return {
		name,
		label: options?.label ?? "Structured Output",
		description: options?.description ?? "Return the final answer as structured data matching the schema. Call this tool exactly once, when the task is complete.",
		parameters: options?.schema ?? { type: "object", properties: {} },
		async execute(_id: string, params: unknown) {
			await options?.capture?.(params);
			const json = JSON.stringify(params ?? null, null, 2);
			if (options?.output?.outputPath) {
				const fs = require("node:fs");
				fs.mkdirSync(path.dirname(options.output.outputPath), { recursive: true });
				fs.writeFileSync(options.output.outputPath, `${json}\n`);
			}
			return { content: [{ type: "text", text: json }], details: { structuredOutput: params ?? null }, terminate: true };
		},
	};
}
