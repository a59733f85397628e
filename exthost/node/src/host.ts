// The extension host: loads extensions, implements ExtensionAPI, ExtensionContext and
// ExtensionCommandContext (seed 004) over the atomic extension protocol, and serves the core's
// requests (docs/extension-protocol.md).

import fs = require("node:fs");
import Module = require("node:module");
import path = require("node:path");
import { pathToFileURL } from "node:url";
import * as components from "./components";
import { childProcess, nodeCrypto } from "./lazy";
import { hostInfo } from "./modules";
import { apiProviders, registerApiProvider } from "./piai";
import { ErrorCodes, notify, request, requestCancellable, RpcError, syncCall, timeLeft, watchContext } from "./rpc";
import { renderEntry, renderMessage, renderTool } from "./render";
import { getEditorComponent, noteContext, setEditorComponent, themeUI } from "./uisurf";
import * as workflow from "./workflow";

type Fn = (...args: any[]) => any;

interface Instance {
	id: number;
	gen: number;
	path: string;
	handlers: Map<number, { event: string; fn: Fn }>;
	nextHandler: number;
	tools: Map<string, any>;
	commands: Map<string, any>;
	shortcuts: Map<string, any>;
	messageRenderers: Map<string, unknown>;
	entryRenderers: Map<string, unknown>;
}

/** The generation of the core's runtime the loaded instances belong to. */
let generation = -1;
const instances = new Map<number, Instance>();
/** Event names and aliases the core knows (from initialize). */
let knownEvents = new Set<string>();

/**
 * The per-event rules of the core's event table, from initialize (`eventRules`): which payload
 * fields handlers may edit in place (reported back as `mutated`), and which events wait for the
 * queued events sent before them. The table is the one source; nothing here names an event.
 */
type EventRule = { queued?: boolean; ordered?: boolean; editable?: string[]; signal?: boolean; frozen?: string[]; results?: boolean; failClosed?: boolean };
let MUTABLE: Record<string, string[]> = {};
let ORDERED = new Set<string>();
/** Events whose payload carries the handler's AbortSignal as `signal`. */
let SIGNALED = new Set<string>();
/** Payload fields handed to handlers deep-frozen, by event. */
let FROZEN: Record<string, string[]> = {};
/** Events whose handler results the core folds: a batched request stops after the first result. */
let RESULTS = new Set<string>();
/** Fail-closed events: a batched request stops at the first handler that fails. */
let FAIL_CLOSED = new Set<string>();

function deepFreeze(v: unknown): void {
	if (!v || typeof v !== "object" || Object.isFrozen(v)) return;
	Object.freeze(v);
	for (const k of Object.keys(v)) deepFreeze((v as any)[k]);
}

/** session_before_compact's preparation.fileOps arrive as path lists; pi hands handlers Sets. */
function fileOpsAsSets(ops: any): void {
	if (!ops || typeof ops !== "object") return;
	for (const k of ["read", "written", "edited"]) if (Array.isArray(ops[k])) ops[k] = new Set(ops[k]);
}

// ---- contexts ---------------------------------------------------------------------------------

interface CtxInfo {
	cwd: string;
	mode: string;
	hasUI: boolean;
}

/** Per-generation constants of contexts (cwd, mode, hasUI), fetched once per generation. */
const ctxInfo = new Map<number, CtxInfo>();
const ctxGen = (id: number) => Math.floor(id / 2 ** 32);

function infoOf(id: number): CtxInfo {
	const g = ctxGen(id);
	let info = ctxInfo.get(g);
	if (!info) {
		info = syncCall<CtxInfo>("ctx.info", { ctx: id });
		ctxInfo.set(g, info);
	}
	return info;
}

const callbacks = new Map<number, Fn>();
let nextCallback = 1;
function callbackId(fn: Fn | undefined): number | undefined {
	if (typeof fn !== "function") return undefined;
	const id = nextCallback++;
	callbacks.set(id, fn);
	return id;
}

function makeUI(ctx: number): any {
	// A dialog's AbortSignal resolves it at once with the default and cancels the core's request
	// ($/cancelRequest), which closes the dialog on screen.
	const dialog = (method: string, params: Record<string, unknown>, opts?: { timeout?: number; signal?: AbortSignal }) => {
		if (opts?.signal?.aborted) return Promise.resolve(undefined);
		const p = requestCancellable(method, { ctx, ...params, timeout: opts?.timeout }, { signal: opts?.signal });
		if (!opts?.signal) return p;
		return Promise.race([p, new Promise((resolve) => opts.signal!.addEventListener("abort", () => resolve(undefined), { once: true }))]);
	};
	const ui: Record<string, unknown> = {
		select: (title: string, options: string[], opts?: any) => dialog("ui.select", { title, options }, opts).then((v) => v ?? undefined),
		confirm: (title: string, message: string, opts?: any) => dialog("ui.confirm", { title, message }, opts).then((v) => v === true),
		input: (title: string, placeholder?: string, opts?: any) => dialog("ui.input", { title, placeholder: placeholder ?? "" }, opts).then((v) => v ?? undefined),
		editor: (title: string, prefill?: string, opts?: any) => dialog("ui.editor", { title, prefill: prefill ?? "" }, opts).then((v) => v ?? undefined),
		notify: (message: string, type?: string) => notify("ui.notify", { ctx, message: String(message), type: type ?? "info" }),
		setStatus: (key: string, text?: string) => notify("ui.setStatus", { ctx, key, text: text ?? "" }),
		setWidget: (key: string, content?: unknown, options?: { placement?: string }) => {
			// A factory's component lives here and reaches the core by id (components.ts).
			const component = components.setSlot(`widget:${key}`, ctx, typeof content === "function" ? (content as Fn) : undefined, themeOf, []);
			if (component !== undefined) notify("ui.setWidget", { ctx, key, component, placement: options?.placement });
			else notify("ui.setWidget", { ctx, key, lines: Array.isArray(content) ? content : [], placement: options?.placement });
		},
		setFooter: (factory?: Fn) => {
			const component = components.setSlot("footer", ctx, factory, themeOf, [footerData(ctx)]);
			notify("ui.setFooter", { ctx, component });
		},
		setHeader: (factory?: Fn) => {
			const component = components.setSlot("header", ctx, factory, themeOf, []);
			notify("ui.setHeader", { ctx, component });
		},
		setEditorComponent: (factory?: Fn) => setEditorComponent(ctx, factory, components.setSlot),
		getEditorComponent: () => getEditorComponent(),
		setWorkingMessage: (message?: string) => notify("ui.setWorkingMessage", { ctx, message: message ?? "" }),
		setWorkingVisible: (visible: boolean) => notify("ui.setWorkingVisible", { ctx, visible: visible !== false }),
		setWorkingIndicator: (indicator?: { frames?: string[]; intervalMs?: number }) =>
			notify("ui.setWorkingIndicator", {
				ctx,
				indicator:
					indicator === undefined
						? undefined
						: { frames: indicator.frames ?? [], hasFrames: Array.isArray(indicator.frames), intervalMs: indicator.intervalMs ?? 0 },
			}),
		setTitle: (title: string) => notify("ui.setTitle", { ctx, title }),
		setEditorText: (text: string) => notify("ui.setEditorText", { ctx, text }),
		getEditorText: () => syncCall<string>("ui.getEditorText", { ctx }),
		custom: (factory: Fn, options?: any) => {
			// Without a UI (print, JSON) the factory never runs and the promise resolves at once;
			// the core still hears of the call, for its debug diagnostic.
			if (!infoOf(ctx).hasUI) return request("ui.custom", { ctx }).then(() => undefined, () => undefined);
			return components.mountCustom(ctx, factory, options, themeOf);
		},
		// atomic does not forward raw terminal input to extensions: the handler is never called.
		onTerminalInput: () => {
			uiDebug("onTerminalInput", "raw terminal input is not forwarded to extensions; the handler is never called");
			return () => {};
		},
		// Drawn natively by the terminal UI; absent (undefined) in RPC, JSON and print mode (seed
		// 004, "Host-native session picker").
		get hostSessionPicker() {
			return infoOf(ctx).mode === "tui" ? (request: any) => hostSessionPicker(ctx, request) : undefined;
		},
		// Drawn natively by the terminal UI; absent (undefined) in RPC, JSON and print mode (seed
		// 004, "Host-native input form").
		get hostInputForm() {
			return infoOf(ctx).mode === "tui" ? (request: any) => hostInputForm(ctx, request) : undefined;
		},
	};
	Object.defineProperties(ui, Object.getOwnPropertyDescriptors(themeUI(ctx)));
	const themeOf = () => ui.theme;
	// Every member above reaches the core, which applies a mode's documented default (and its
	// debug diagnostic) where the mode cannot honour the call. A member atomic does not have
	// (setHiddenThinkingLabel, later additions) does nothing and says so at debug level.
	return new Proxy(ui, {
		get(t, prop) {
			if (prop in t) return (t as any)[prop];
			if (typeof prop === "symbol" || prop === "then") return undefined;
			return () => {
				uiDebug(String(prop), "atomic's ctx.ui has no such member; the call does nothing");
				return undefined;
			};
		},
	});
}

/** pickerRow is one HostSessionPickerRow on the wire (strings and epoch milliseconds only). */
function pickerRow(r: any): Record<string, unknown> {
	const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0);
	const str = (v: unknown) => (typeof v === "string" ? v : "");
	return {
		path: str(r?.path),
		id: str(r?.id),
		cwd: str(r?.cwd),
		name: str(r?.name),
		createdAt: num(r?.createdAt),
		modifiedAt: num(r?.modifiedAt),
		messageCount: num(r?.messageCount),
		firstMessage: str(r?.firstMessage),
		allMessagesText: str(r?.allMessagesText),
		summary: typeof r?.summary === "string" ? r.summary : undefined,
		messageColor: typeof r?.messageColor === "string" ? r.messageColor : undefined,
	};
}

/** The open host session pickers by id: their onDelete, for `hostSessionPicker.delete`. */
const pickers = new Map<number, { onDelete?: (path: string) => unknown; error: (message: string) => void }>();
let nextPicker = 1;

/**
 * hostSessionPicker is ctx.ui.hostSessionPicker: the core shows its session selector over the
 * rows; result resolves with the picked path, undefined on cancel or close(). update(rows) and
 * error(message) reach the open picker; a confirmed ctrl+d calls the request's onDelete(path)
 * (the core keeps the row until update or error answers).
 */
function hostSessionPicker(ctx: number, req: any): any {
	const ac = new AbortController();
	const id = nextPicker++;
	const rows = Array.isArray(req?.sessions) ? req.sessions.map(pickerRow) : [];
	const onDelete = typeof req?.onDelete === "function" ? req.onDelete : undefined;
	let open = true;
	const error = (message: string) => {
		if (open) notify("ui.hostSessionPicker.error", { picker: id, message: String(message ?? "") });
	};
	pickers.set(id, { onDelete, error });
	const result = requestCancellable("ui.hostSessionPicker", { ctx, rows, picker: id, hasDelete: onDelete !== undefined, showRenameHint: req?.showRenameHint === true ? true : undefined }, { signal: ac.signal })
		.then(
			(v) => (typeof v === "string" ? v : undefined),
			(err) => {
				if (ac.signal.aborted) return undefined;
				throw err;
			},
		)
		.finally(() => {
			open = false;
			pickers.delete(id);
		});
	return {
		result,
		update: (sessions: unknown) => {
			if (open) notify("ui.hostSessionPicker.update", { picker: id, rows: Array.isArray(sessions) ? sessions.map(pickerRow) : [] });
		},
		error,
		close: () => ac.abort(),
	};
}

/**
 * hostInputForm is ctx.ui.hostInputForm: the core draws the form in the editor slot and answers
 * the raw values by field name, or null (undefined here) on Escape, Ctrl+C or teardown.
 */
function hostInputForm(ctx: number, req: any): Promise<Record<string, string> | undefined> {
	const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
	const fields = (Array.isArray(req?.fields) ? req.fields : []).map((f: any) => ({
		name: str(f?.name),
		type: str(f?.type) || "string",
		description: typeof f?.description === "string" ? f.description : undefined,
		required: f?.required === true ? true : undefined,
		choices: Array.isArray(f?.choices) ? f.choices.map(str) : undefined,
		placeholder: typeof f?.placeholder === "string" ? f.placeholder : undefined,
		initialValue: str(f?.initialValue),
	}));
	const form = { title: str(req?.title), fields, heading: typeof req?.heading === "string" ? req.heading : undefined, submitLabel: typeof req?.submitLabel === "string" ? req.submitLabel : undefined };
	return request("ui.hostInputForm", { ctx, form }).then(
		(v) => (v && typeof v === "object" ? (v as Record<string, string>) : undefined),
		() => undefined,
	);
}

/** pickerDelete handles `hostSessionPicker.delete`: the request's onDelete(path); a throw or rejection shows in the picker. */
export function pickerDelete(p: { picker: number; path: string }): void {
	const pk = pickers.get(p?.picker);
	if (!pk?.onDelete) return;
	Promise.resolve()
		.then(() => pk.onDelete!(String(p.path ?? "")))
		.catch((err) => pk.error(`Failed to delete: ${err instanceof Error ? err.message : String(err)}`));
}

/**
 * uiDebug reports a ctx.ui call this host cannot honour at debug level (ATOMIC_DEBUG set): one
 * "atomic: debug: ctx.ui.<call>: <what happens instead>" line on standard error, as the core's
 * ext.UIDebugf writes them.
 */
function uiDebug(call: string, message: string): void {
	if (process.env.ATOMIC_DEBUG) process.stderr.write(`atomic: debug: ctx.ui.${call}: ${message}\n`);
}

/**
 * footerData is the footer data provider setFooter factories receive (tui.md §7.3, pi's
 * ReadonlyFooterDataProvider): each getter asks the core (`ui.footerData`) for the facts the
 * built-in footer shows now; the provider count is the distinct providers of the available models.
 * A context gone stale (the session was replaced) reports none. onBranchChange's callbacks run
 * when the core's branch watch sees the git branch change (`footer.branchChange`).
 */
function footerData(ctx: number): any {
	const facts = (): { gitBranch?: string; statuses?: Record<string, string> } => {
		try {
			return syncCall<{ gitBranch?: string; statuses?: Record<string, string> }>("ui.footerData", { ctx }) ?? {};
		} catch {
			return {};
		}
	};
	return {
		getGitBranch: () => facts().gitBranch || null,
		getExtensionStatuses: () => new Map<string, string>(Object.entries(facts().statuses ?? {})),
		getAvailableProviderCount: () => {
			try {
				const models = modelRegistry(ctx).getAvailable();
				return new Set((Array.isArray(models) ? models : []).map((m: any) => m?.provider)).size;
			} catch {
				return 0;
			}
		},
		onBranchChange: (cb: () => void) => {
			if (typeof cb !== "function") return () => {};
			branchCallbacks.add(cb);
			if (!branchSubscribed) {
				branchSubscribed = true;
				notify("ui.onBranchChange", { ctx });
			}
			return () => branchCallbacks.delete(cb);
		},
	};
}

/** The footerData.onBranchChange callbacks; the core sends footer.branchChange once this host subscribed. */
const branchCallbacks = new Set<() => void>();
let branchSubscribed = false;

/** branchChanged handles `footer.branchChange`: every onBranchChange callback, a throw logged. */
export function branchChanged(): void {
	for (const cb of [...branchCallbacks]) {
		try {
			cb();
		} catch (err) {
			console.error("atomic extension host: an onBranchChange callback failed:", err);
		}
	}
}

function sessionManager(ctx: number): any {
	return new Proxy(
		{},
		{
			get(_t, method) {
				if (typeof method === "symbol" || method === "then") return undefined;
				return (...args: unknown[]) => {
					const v = syncCall("ctx.sessionManager", { ctx, method, args });
					return v === null ? undefined : v;
				};
			},
		},
	);
}

function modelRegistry(ctx: number): any {
	const call = (method: string, args: unknown[]) => {
		const v = syncCall("ctx.modelRegistry", { ctx, method, args });
		return v === null ? undefined : v;
	};
	return {
		find: (provider: string, id: string) => call("find", [provider, id]),
		getAll: () => call("getAll", []),
		getAvailable: () => call("getAvailable", []),
		hasAuth: (provider: string) => call("hasAuth", [provider]),
		getApiKey: async (model: { provider: string }) => (await request("ctx.modelRegistry.getApiKey", { ctx, provider: model?.provider })) ?? undefined,
		getApiKeyForProvider: async (provider: string) => (await request("ctx.modelRegistry.getApiKey", { ctx, provider })) ?? undefined,
		getApiKeyAndHeaders: async (model: { provider: string }) => {
			const apiKey = (await request("ctx.modelRegistry.getApiKey", { ctx, provider: model?.provider })) ?? undefined;
			return apiKey ? { ok: true, apiKey } : { ok: false, error: `No API key for ${model?.provider}` };
		},
	};
}

/**
 * LazySignal makes the AbortSignal of a dispatch on first use: an AbortController costs more
 * than the rest of an event round trip, and most handlers never look at ctx.signal.
 */
class LazySignal {
	#ac: AbortController | undefined;
	#aborted = false;
	get signal(): AbortSignal {
		if (!this.#ac) {
			this.#ac = new AbortController();
			if (this.#aborted) this.#ac.abort(new Error("cancelled by atomic"));
		}
		return this.#ac.signal;
	}
	abort(reason?: unknown): void {
		this.#aborted = true;
		this.#ac?.abort(reason);
	}
}

/** Ctx is ExtensionContext (and, with command set, ExtensionCommandContext) for one context id. */
class Ctx {
	#ui: any;
	#signal: AbortSignal | LazySignal | undefined;
	constructor(
		readonly id: number,
		signal: AbortSignal | LazySignal | undefined,
	) {
		this.#signal = signal;
		noteContext(id);
	}
	get signal(): AbortSignal | undefined {
		const s = this.#signal;
		return s instanceof LazySignal ? s.signal : s;
	}
	get ui() {
		return (this.#ui ??= makeUI(this.id));
	}
	get hasUI() {
		return infoOf(this.id).hasUI;
	}
	get cwd() {
		return infoOf(this.id).cwd;
	}
	get mode() {
		return infoOf(this.id).mode;
	}
	get sessionManager() {
		return sessionManager(this.id);
	}
	get modelRegistry() {
		return modelRegistry(this.id);
	}
	get model() {
		return syncCall("ctx.model", { ctx: this.id }) ?? undefined;
	}
	isIdle() {
		return syncCall<boolean>("ctx.isIdle", { ctx: this.id });
	}
	abort() {
		syncCall("ctx.abort", { ctx: this.id });
	}
	hasPendingMessages() {
		return syncCall<boolean>("ctx.hasPendingMessages", { ctx: this.id });
	}
	shutdown() {
		syncCall("ctx.shutdown", { ctx: this.id });
	}
	getContextUsage() {
		return syncCall("ctx.getContextUsage", { ctx: this.id }) ?? undefined;
	}
	getSystemPrompt() {
		return syncCall<string>("ctx.getSystemPrompt", { ctx: this.id });
	}
	isProjectTrusted() {
		return syncCall<boolean>("ctx.isProjectTrusted", { ctx: this.id });
	}
	// Atomic documents snake_case (compression_ratio, preserve_recent); camelCase is accepted too.
	compact(options: { customInstructions?: string; compression_ratio?: number; preserve_recent?: number; compressionRatio?: number; preserveRecent?: number; query?: string; onComplete?: Fn; onError?: Fn } = {}) {
		request("ctx.compact", { ctx: this.id, compressionRatio: options.compression_ratio ?? options.compressionRatio, preserveRecent: options.preserve_recent ?? options.preserveRecent, query: options.query ?? options.customInstructions }).then(
			(r) => options.onComplete?.(r),
			(err) => options.onError?.(err),
		);
	}
	// ExtensionCommandContext
	waitForIdle() {
		return request("ctx.waitForIdle", { ctx: this.id }).then(() => undefined);
	}
	newSession(options: { parentSession?: string; setup?: Fn; withSession?: Fn } = {}) {
		return request("ctx.newSession", { ctx: this.id, parentSession: options.parentSession, setup: callbackId(options.setup), withSession: callbackId(options.withSession) });
	}
	fork(entryId: string, options: { position?: string; withSession?: Fn } = {}) {
		return request("ctx.fork", { ctx: this.id, entryId, position: options.position, withSession: callbackId(options.withSession) });
	}
	navigateTree(targetId: string, options: { summarize?: boolean; customInstructions?: string; replaceInstructions?: boolean; label?: string } = {}) {
		return request("ctx.navigateTree", { ctx: this.id, targetId, ...options });
	}
	switchSession(sessionPath: string, options: { withSession?: Fn } = {}) {
		return request("ctx.switchSession", { ctx: this.id, sessionPath, withSession: callbackId(options.withSession) });
	}
	reload() {
		return request("ctx.reload", { ctx: this.id }).then(() => undefined);
	}
	observeWorkflowActivity(observer: Fn) {
		return workflow.observe(this.id, observer);
	}
}

/**
 * ReplacedCtx is the ReplacedSessionContext withSession receives (seed 004): the command context
 * of the replacement session, with async sendMessage and sendUserMessage bound to it.
 */
class ReplacedCtx extends Ctx {
	async sendMessage(message: any, options?: any) {
		await request("ctx.sendMessage", { ctx: this.id, message: wireMessage(message), options: options ?? {} });
	}
	async sendUserMessage(content: unknown, options?: any) {
		await request("ctx.sendUserMessage", { ctx: this.id, content: blocks(content), options: options ?? {} });
	}
}

/**
 * setupSessionManager is the SessionManager a newSession setup callback receives: the new
 * session's store (reads as ctx.sessionManager, plus appendMessage and the other appends), valid
 * while the callback runs.
 */
function setupSessionManager(setup: number): any {
	return new Proxy(
		{},
		{
			get(_t, method) {
				if (typeof method === "symbol" || method === "then") return undefined;
				return (...args: unknown[]) => {
					const wire = method === "appendMessage" ? [wireMessage(args[0])] : args;
					const v = syncCall("setup.sessionManager", { setup, method, args: wire });
					return v === null ? undefined : v;
				};
			},
		},
	);
}

// ---- the shared event bus (pi.events) ---------------------------------------------------------

const busSubs = new Map<string, Set<Fn>>();
const busForwarded = new Set<string>();

function deliverLocal(channel: string, data: unknown): void {
	for (const h of [...(busSubs.get(channel) ?? [])]) {
		try {
			h(data);
		} catch (err) {
			console.error(`atomic extension host: pi.events handler for "${channel}" failed:`, err);
		}
	}
}

const events = {
	on(channel: string, handler: Fn) {
		let set = busSubs.get(channel);
		if (!set) busSubs.set(channel, (set = new Set()));
		set.add(handler);
		if (!busForwarded.has(channel)) {
			busForwarded.add(channel);
			notify("events.subscribe", { gen: generation, channel });
		}
		return () => {
			set.delete(handler);
		};
	},
	emit(channel: string, data?: unknown) {
		deliverLocal(channel, data);
		try {
			notify("events.emit", { gen: generation, channel, data });
		} catch {
			// not JSON-safe: only this host's subscribers see it
		}
	},
};

// ---- wire shapes ------------------------------------------------------------------------------

/**
 * block is one content block in the protocol's shape. A string is a text block; an image in the
 * seed's Anthropic-style shape ({type:"image", source:{type:"base64", mediaType, data}}) becomes
 * pi's ImageContent ({type:"image", data, mimeType}).
 */
function block(b: any): unknown {
	if (typeof b === "string") return { type: "text", text: b };
	if (b && b.type === "image" && b.data === undefined && b.source?.type === "base64") {
		return { type: "image", data: b.source.data, mimeType: b.source.mediaType ?? b.source.media_type };
	}
	return b;
}

function blocks(content: unknown): unknown[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	if (Array.isArray(content)) return content.map(block);
	if (content === undefined || content === null) return [];
	return [block(content)];
}

function wireMessage(m: any): any {
	if (!m || typeof m !== "object") return m;
	return { ...m, content: blocks(m.content) };
}

function wireToolResult(r: any): any {
	if (r === undefined || r === null) return { content: [] };
	if (typeof r === "string") return { content: blocks(r) };
	const out: any = { content: blocks(r.content) };
	if (r.details !== undefined) out.details = r.details;
	// A returned value never marks the result as an error: only a throw does (seed 004).
	if (r.terminate) out.terminate = true;
	return out;
}

/** BashOperations user_bash handlers returned, by id, until the core runs the command. */
const bashOps = new Map<number, any>();
let nextBashOps = 1;

function wireResult(event: string, r: any): any {
	if (event === "user_bash" && r && typeof r === "object" && typeof r.operations?.exec === "function") {
		const id = nextBashOps++;
		bashOps.set(id, r.operations);
		return { ...r, operations: { hostOps: id } };
	}
	if (event === "before_agent_start" && r && typeof r === "object" && r.message) return { ...r, message: wireMessage(r.message) };
	if (event === "tool_result" && r && typeof r === "object" && r.content !== undefined) return { ...r, content: blocks(r.content) };
	return r;
}

function toolWire(def: any): any {
	return {
		name: def.name,
		label: def.label,
		description: def.description ?? "",
		parameters: def.parameters ?? { type: "object", properties: {} },
		promptSnippet: def.promptSnippet,
		promptGuidelines: def.promptGuidelines,
		prepareArguments: typeof def.prepareArguments === "function",
		renderCall: typeof def.renderCall === "function",
		renderResult: typeof def.renderResult === "function",
		renderShell: def.renderShell === "self" ? "self" : undefined,
		executionMode: def.executionMode === "sequential" ? "sequential" : undefined,
	};
}

// ---- ExtensionAPI -----------------------------------------------------------------------------

function execLocal(command: string, args: string[] = [], options: { cwd?: string; timeout?: number; signal?: AbortSignal } = {}) {
	return new Promise<{ stdout: string; stderr: string; code: number; killed: boolean }>((resolve) => {
		let stdout = "";
		let stderr = "";
		let killed = false;
		const child = childProcess().spawn(command, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
		const kill = () => {
			killed = true;
			child.kill("SIGKILL");
		};
		const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, options.timeout) : undefined;
		options.signal?.addEventListener("abort", kill, { once: true });
		child.stdout.on("data", (d) => (stdout += d));
		child.stderr.on("data", (d) => (stderr += d));
		child.on("error", (err) => {
			if (timer) clearTimeout(timer);
			resolve({ stdout, stderr: stderr + String(err.message), code: 127, killed });
		});
		child.on("close", (code) => {
			if (timer) clearTimeout(timer);
			resolve({ stdout, stderr, code: killed ? -1 : (code ?? -1), killed });
		});
	});
}

function makeAPI(inst: Instance): any {
	const ext = inst.id;
	const gen = inst.gen;
	const call = <T = any>(method: string, params: Record<string, unknown> = {}) => syncCall<T>(method, { ext, gen, ...params });
	return {
		on(event: string, handler: Fn) {
			if (typeof handler !== "function") throw new TypeError(`pi.on("${event}"): the handler must be a function`);
			if (knownEvents.size > 0 && !knownEvents.has(event)) {
				console.error(`atomic extension host: ${inst.path}: pi.on("${event}"): atomic has no such event; the handler never runs`);
				return;
			}
			const id = inst.nextHandler++;
			inst.handlers.set(id, { event, fn: handler });
			notify("on", { ext, gen, handler: id, event });
		},
		registerTool(def: any) {
			if (!def || typeof def.name !== "string" || def.name === "") throw new TypeError("pi.registerTool: a tool needs a name");
			if (typeof def.execute !== "function") throw new TypeError(`pi.registerTool: tool "${def.name}" has no execute function`);
			call("registerTool", { tool: toolWire(def) });
			inst.tools.set(def.name, def);
		},
		registerCommand(name: string, options: any) {
			if (typeof options?.handler !== "function") throw new TypeError(`pi.registerCommand("${name}"): a handler is required`);
			call("registerCommand", { name, description: options.description ?? "", completions: typeof options.getArgumentCompletions === "function" });
			inst.commands.set(name, options);
		},
		registerShortcut(key: string, options: any) {
			if (typeof options?.handler !== "function") throw new TypeError(`pi.registerShortcut("${key}"): a handler is required`);
			call("registerShortcut", { key, description: options.description ?? "" });
			inst.shortcuts.set(key, options);
		},
		registerFlag(name: string, options: any = {}) {
			call("registerFlag", { name, description: options.description ?? "", type: options.type ?? "boolean", default: options.default });
		},
		getFlag(name: string) {
			return call("getFlag", { name }) ?? undefined;
		},
		registerMessageRenderer(customType: string, renderer: unknown) {
			inst.messageRenderers.set(customType, renderer);
			notify("registerMessageRenderer", { ext, gen, customType });
		},
		registerEntryRenderer(customType: string, renderer: unknown) {
			inst.entryRenderers.set(customType, renderer);
			notify("registerEntryRenderer", { ext, gen, customType });
		},
		registerProvider(nameOrProvider: any, config?: any) {
			const reg = providerRegistration(nameOrProvider, config);
			providerLogins.set(reg.name, reg.logins);
			if (reg.stream) registerApiProvider({ api: reg.config.api, streamSimple: reg.stream }, `ext:${ext}`);
			call("registerProvider", { name: reg.name, config: reg.config, stream: reg.stream ? true : undefined });
		},
		unregisterProvider(name: string) {
			call("unregisterProvider", { name });
		},
		sendMessage(message: any, options?: any) {
			call("sendMessage", { messages: [wireMessage(message)], options: options ?? {} });
		},
		sendMessages(messages: any[], options?: any) {
			call("sendMessage", { messages: (messages ?? []).map(wireMessage), options: options ?? {} });
		},
		sendUserMessage(content: unknown, options?: any) {
			call("sendUserMessage", { content: blocks(content), options: options ?? {} });
		},
		appendEntry(customType: string, data?: unknown) {
			call("appendEntry", { customType, data: data === undefined ? null : data });
		},
		setSessionName(name: string) {
			call("setSessionName", { name });
		},
		getSessionName() {
			return call<string>("getSessionName") || undefined;
		},
		setLabel(entryId: string, label?: string) {
			call("setLabel", { entryId, label: label ?? "" });
		},
		getCommands() {
			return call("getCommands");
		},
		exec(command: string, args?: string[], options?: any) {
			return execLocal(command, args, options);
		},
		getActiveTools() {
			return call<string[]>("getActiveTools");
		},
		getAllTools() {
			return call("getAllTools");
		},
		setActiveTools(names: string[]) {
			call("setActiveTools", { names });
		},
		setModel(model: any) {
			return request<boolean>("setModel", { ext, gen, provider: model?.provider, id: model?.id });
		},
		getThinkingLevel() {
			return call<string>("getThinkingLevel");
		},
		setThinkingLevel(level: string) {
			call("setThinkingLevel", { level });
		},
		registerWorkflowActivityPublisher() {
			return workflow.makePublisher(ext, gen);
		},
		events,
	};
}

// ---- loading ----------------------------------------------------------------------------------

function newGeneration(gen: number): void {
	generation = gen;
	components.disposeAll();
	instances.clear();
	busSubs.clear();
	busForwarded.clear();
}

const hostDir = path.dirname(__filename) + path.sep;

/** The first line of the ES modules exthost/node.Transpile makes (its ESMMarker). */
const ESM_MARKER = "// atomic:esm\n";

/**
 * importModule loads an extension transpiled to an ES module with import(): the code is written
 * once, content-addressed, under the host bundle's directory (ext/<sha256>.mjs) and imported with
 * a query naming the generation and extension, so a reload gets a fresh module instance.
 */
async function importModule(p: { generation: number; ext: number; path: string }, code: string): Promise<any> {
	const dir = path.join(path.dirname(__filename), "ext");
	const file = path.join(dir, nodeCrypto().createHash("sha256").update(code).digest("hex").slice(0, 32) + ".mjs");
	if (!fs.existsSync(file)) {
		fs.mkdirSync(dir, { recursive: true });
		const tmp = `${file}.${process.pid}`;
		fs.writeFileSync(tmp, code);
		fs.renameSync(tmp, file);
	}
	const url = `${pathToFileURL(file).href}?gen=${p.generation}&ext=${p.ext}`;
	// The bootstrap (node -e) provides import(): code compiled by vm.Script cannot import.
	const imp: ((u: string) => Promise<any>) | undefined = (globalThis as any).__atomicImport;
	return imp ? imp(url) : import(url);
}

function compileModule(file: string, code: string): any {
	const M = Module as any;
	const m = new M(file, null);
	m.filename = file;
	m.paths = M._nodeModulePaths(path.dirname(file));
	m._compile(code, file);
	return m.exports;
}

/**
 * where names the innermost stack frame in the extension's directory ("file:line:col", mapped
 * to the TypeScript source), so an error says where the extension threw it.
 */
function where(err: unknown, file: string): string {
	const stack = (err as Error)?.stack;
	if (typeof stack !== "string") return "";
	const dir = path.dirname(file) + path.sep;
	for (const line of stack.split("\n").slice(1)) {
		const i = line.indexOf(dir);
		// Frames of node_modules and of the host itself (its cache directory may lie under the
		// extension's) are not where the extension threw.
		if (i < 0 || line.includes(`${path.sep}node_modules${path.sep}`) || line.includes(hostDir)) continue;
		const m = /^(.*?:\d+:\d+)/.exec(line.slice(i));
		if (m) return m[1];
	}
	return "";
}

function handlerError(err: unknown, file?: string): RpcError {
	if (err instanceof RpcError) return err;
	const message = err instanceof Error ? err.message : String(err);
	const at = file ? where(err, file) : "";
	return new RpcError({
		code: ErrorCodes.HandlerFailed,
		message: at ? `${message} (at ${at})` : message,
		data: { stack: (err as Error)?.stack },
	});
}

export async function load(p: { generation: number; ext: number; path: string; code?: string }): Promise<unknown> {
	if (p.generation !== generation) newGeneration(p.generation);
	const inst: Instance = {
		id: p.ext,
		gen: p.generation,
		path: p.path,
		handlers: new Map(),
		nextHandler: 0,
		tools: new Map(),
		commands: new Map(),
		shortcuts: new Map(),
		messageRenderers: new Map(),
		entryRenderers: new Map(),
	};
	instances.set(p.ext, inst);
	try {
		const code = p.code ?? fs.readFileSync(p.path, "utf8");
		const exports = code.startsWith(ESM_MARKER) ? await importModule(p, code) : compileModule(p.path, code);
		let factory = typeof exports === "function" ? exports : exports?.default;
		// A CommonJS entry bundled as ESM: its module.exports is the default, with its own default.
		if (typeof factory !== "function" && typeof factory?.default === "function") factory = factory.default;
		if (typeof factory !== "function") {
			const names = Object.keys(exports ?? {}).filter((n) => n !== "default" && n !== "__esModule");
			const found = names.length ? `; it exports ${names.map((n) => JSON.stringify(n)).join(", ")}` : "";
			throw new Error(`the module has no default export function (export default function (pi: ExtensionAPI) { … })${found}`);
		}
		await factory(makeAPI(inst));
	} catch (err) {
		instances.delete(p.ext);
		throw handlerError(err, p.path);
	}
	return { handlers: inst.nextHandler, tools: [...inst.tools.keys()] };
}

function instanceOf(ext: number, gen: number): Instance {
	const inst = instances.get(ext);
	if (!inst || inst.gen !== gen) {
		throw new RpcError({ code: ErrorCodes.StaleContext, message: `extension ${ext} of generation ${gen} is not loaded (the runtime was replaced)` });
	}
	return inst;
}

/** renderRequest answers render.tool / render.message / render.entry from the instance's renderers. */
export function renderRequest(method: string, p: any): unknown {
	const inst = instanceOf(p.ext, p.gen);
	switch (method) {
		case "render.tool":
			return renderTool(inst.tools.get(p.tool), p);
		case "render.message":
			return renderMessage(inst.messageRenderers.get(p.customType), p);
		default:
			return renderEntry(inst.entryRenderers.get(p.customType), p);
	}
}

// ---- core -> host requests --------------------------------------------------------------------

/** In-flight core requests by id, for $/cancelRequest. */
export const inflight = new Map<number | string, { abort(reason?: unknown): void }>();

function controller(id: number | string): AbortController {
	const ac = new AbortController();
	inflight.set(id, ac);
	return ac;
}

type EventRequest = { ext: number; gen: number; handler: number; handlers?: number[]; event: string; payload: any; ctx: number; signal?: boolean };

export async function event(id: number | string, p: EventRequest) {
	if (p.handlers && p.handlers.length > 1) return eventBatch(id, p, p.handlers);
	const inst = instanceOf(p.ext, p.gen);
	const h = inst.handlers.get(p.handler);
	if (!h) throw new RpcError({ code: ErrorCodes.InvalidParams, message: `${inst.path}: no handler ${p.handler}` });
	// The core only ever cancels a dispatch that has a signal (a run is active).
	let signal: LazySignal | undefined;
	const signaled = SIGNALED.has(p.event);
	if (p.signal || signaled) {
		signal = new LazySignal();
		inflight.set(id, signal);
	}
	if (evqRunning && ORDERED.has(p.event)) await drained();
	const payload = p.payload ?? {};
	payload.type = p.event;
	workflow.workflowPayload(p.event, payload);
	if (signaled) payload.signal = signal!.signal;
	fileOpsAsSets(payload.preparation?.fileOps);
	for (const f of FROZEN[p.event] ?? []) deepFreeze(payload[f]);
	const fields = MUTABLE[p.event];
	const before = fields?.map((f) => JSON.stringify(payload[f]));
	try {
		// ctx.signal is set only while a run is active (events.md §1), the payload's signal always.
		const r = await h.fn(payload, new Ctx(p.ctx, p.signal ? signal : undefined));
		const out: Record<string, unknown> = {};
		if (r !== undefined && r !== null) out.result = wireResult(p.event, r);
		if (fields) {
			const mutated: Record<string, unknown> = {};
			let any = false;
			fields.forEach((f, i) => {
				if (JSON.stringify(payload[f]) !== before![i]) {
					mutated[f] = payload[f] ?? null;
					any = true;
				}
			});
			if (any) out.mutated = mutated;
		}
		return out;
	} catch (err) {
		throw handlerError(err, inst.path);
	} finally {
		if (signal) inflight.delete(id);
	}
}

/** mutatedFields lists the editable fields whose JSON differs from before (undefined: none). */
function mutatedFields(payload: any, fields: string[] | undefined, before: string[] | undefined): Record<string, unknown> | undefined {
	if (!fields) return undefined;
	let mutated: Record<string, unknown> | undefined;
	fields.forEach((f, i) => {
		if (JSON.stringify(payload[f]) !== before![i]) (mutated ??= {})[f] = payload[f] ?? null;
	});
	return mutated;
}

const TIMED_OUT = Symbol("timed out");

/**
 * settled awaits a handler's value, or resolves TIMED_OUT once it has run handlerTimeoutMs
 * without settling, the time its context spent in ui.* dialogs not counted (the core's bound of a
 * single handler).
 */
function settled(v: unknown, ctx: number): unknown {
	if (handlerTimeoutMs <= 0 || !v || typeof (v as any).then !== "function") return v;
	const start = Date.now();
	let timer: ReturnType<typeof setTimeout> | undefined;
	const expired = new Promise((resolve) => {
		const check = () => {
			const left = timeLeft(ctx, start, handlerTimeoutMs);
			if (left <= 0) resolve(TIMED_OUT);
			else timer = setTimeout(check, left);
		};
		timer = setTimeout(check, handlerTimeoutMs);
	});
	return Promise.race([v, expired]).finally(() => clearTimeout(timer));
}

/**
 * eventBatch runs handlers hs of one extension for an event request in order on one payload
 * object (capabilities.requestBatches, docs/extension-protocol.md "Request batches"): each sees
 * the in-place edits of the ones before it. It stops after the first handler that returns a
 * result of an event whose results the core folds (the core applies it and sends the rest), and
 * at the first failure of a fail-closed event. Each handler has its own signal and time bound.
 */
async function eventBatch(id: number | string, p: EventRequest, hs: number[]) {
	const inst = instanceOf(p.ext, p.gen);
	const signaled = SIGNALED.has(p.event);
	const stopAtResult = RESULTS.has(p.event);
	const failClosed = FAIL_CLOSED.has(p.event);
	// $/cancelRequest aborts the running handler's signal and every later one's.
	let cancelled: unknown;
	let current: LazySignal | undefined;
	inflight.set(id, {
		abort(reason?: unknown) {
			cancelled = reason ?? new Error("cancelled by atomic");
			current?.abort(cancelled);
		},
	});
	const unwatch = watchContext(p.ctx);
	try {
		if (evqRunning && ORDERED.has(p.event)) await drained();
		const payload = p.payload ?? {};
		payload.type = p.event;
		workflow.workflowPayload(p.event, payload);
		for (const f of FROZEN[p.event] ?? []) deepFreeze(payload[f]);
		const fields = MUTABLE[p.event];
		const before = fields?.map((f) => JSON.stringify(payload[f]));
		const each: Array<{ result?: unknown; error?: string; timeout?: true }> = [];
		for (const hid of hs) {
			const h = inst.handlers.get(hid);
			if (!h) {
				each.push({ error: `${inst.path}: no handler ${hid}` });
				continue;
			}
			let signal: LazySignal | undefined;
			if (p.signal || signaled) {
				signal = current = new LazySignal();
				if (cancelled !== undefined) signal.abort(cancelled);
				if (signaled) payload.signal = signal.signal;
			}
			try {
				const r = await settled(h.fn(payload, new Ctx(p.ctx, p.signal ? signal : undefined)), p.ctx);
				if (r === TIMED_OUT) {
					signal?.abort(new Error("cancelled by atomic"));
					each.push({ timeout: true });
					if (failClosed) break;
				} else if (r !== undefined && r !== null && stopAtResult) {
					each.push({ result: wireResult(p.event, r) });
					break;
				} else each.push({});
			} catch (err) {
				each.push({ error: handlerError(err, inst.path).message });
				if (failClosed) break;
			}
		}
		const mutated = mutatedFields(payload, fields, before);
		return mutated ? { each, mutated } : { each };
	} finally {
		unwatch();
		inflight.delete(id);
	}
}

// ---- queued events (docs/extension-protocol.md "Queued events") -----------------------------

type QueuedEvent = { ext: number; gen: number; handler: number; handlers?: number[]; event: string; payload: any; ctx: number; signal?: boolean; more?: string[] };

const evq: QueuedEvent[] = [];
let evqHead = 0;
let evqRunning = false;
let drainWaiters: Array<() => void> = [];

/** The bound of each queued handler, in ms (initialize's handlerTimeoutMs; 0: none). */
let handlerTimeoutMs = 0;

/**
 * within settles like r, or rejects once handlerTimeoutMs passed: a queued handler that never
 * settles must not hold every later queued event and the barriers.
 */
function within(r: Promise<unknown>, p: QueuedEvent, inst: Instance): Promise<unknown> {
	if (handlerTimeoutMs <= 0) return r;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const expired = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`the ${p.event} handler of ${inst.path} did not settle within ${handlerTimeoutMs / 1000}s (extensionHandlerTimeoutMs)`)), handlerTimeoutMs);
		timer.unref?.();
	});
	return Promise.race([r, expired]).finally(() => clearTimeout(timer));
}

function queuedFailed(p: QueuedEvent, inst: Instance | undefined, err: unknown): void {
	const e = handlerError(err, inst?.path);
	notify("event.error", { ext: p.ext, gen: p.gen, handler: p.handler, event: p.event, message: e.message });
}

/**
 * The ctx.signal of queued handlers during a run: nothing cancels a queued event, so one signal
 * that is never aborted serves them all (made on first use), as pi's run signal is one for all
 * the events of a run.
 */
const queuedSignal = new LazySignal();

/** The Ctx last made for a queued handler: consecutive queued events of one context share it. */
let queuedCtx: Ctx | undefined;
let queuedCtxSignal = false;

/** ctxOf is the Ctx of a queued handler of context id ctx (signal: with the run's signal). */
function ctxOf(ctx: number, signal: boolean): Ctx {
	const c = queuedCtx;
	if (c && c.id === ctx && queuedCtxSignal === signal) {
		noteContext(ctx);
		return c;
	}
	queuedCtxSignal = signal;
	return (queuedCtx = new Ctx(ctx, signal ? queuedSignal : undefined));
}

/** runQueued starts one queued handler; a promise when it has not settled yet. */
function runQueued(p: QueuedEvent): Promise<unknown> | undefined {
	return runHandler(p.ext, p.gen, p.handler, p.event, p.payload, p.ctx, p.signal === true);
}

/** runHandler starts handler h of extension ext with payload; a promise when it has not settled yet. */
function runHandler(ext: number, gen: number, h: number, event: string, payload: any, ctx: number, signal: boolean): Promise<unknown> | undefined {
	const inst = instances.get(ext);
	if (!inst || inst.gen !== gen) return undefined; // the runtime was replaced
	const fn = inst.handlers.get(h)?.fn;
	if (!fn) return undefined;
	if (payload == null) payload = {};
	payload.type = event;
	workflow.workflowPayload(event, payload);
	let r: any;
	try {
		r = fn(payload, ctxOf(ctx, signal));
		if (!r || typeof r.then !== "function") return undefined;
	} catch (err) {
		queuedFailed({ ext, gen, handler: h, event, payload, ctx }, inst, err);
		return undefined;
	}
	const q: QueuedEvent = { ext, gen, handler: h, event, payload, ctx };
	return within(Promise.resolve(r), q, inst).then(undefined, (err) => queuedFailed(q, inst, err));
}

/**
 * deliver runs the handlers p names on payload at once when nothing is queued and they settle
 * synchronously (no queue entry per event); from the first that returns a promise, the rest wait
 * in the queue.
 */
function deliver(p: QueuedEvent, payload: any): void {
	if (evqRunning) {
		push(p, payload);
		return;
	}
	const hs = p.handlers && p.handlers.length > 1 ? p.handlers : undefined;
	const n = hs ? hs.length : 1;
	for (let k = 0; k < n; k++) {
		const r = runHandler(p.ext, p.gen, hs ? hs[k] : p.handler, p.event, payload, p.ctx, p.signal === true);
		if (r) {
			evqRunning = true;
			if (hs) for (let j = k + 1; j < n; j++) evq.push({ ext: p.ext, gen: p.gen, handler: hs[j], event: p.event, payload, ctx: p.ctx, signal: p.signal });
			r.then(pump, pump);
			return;
		}
	}
}

/**
 * pump runs the queued handlers in order: synchronously while they return at once (no promise
 * per event), and from where it stopped once a handler's promise settles.
 */
function pump(): void {
	while (evqHead < evq.length) {
		const p = evq[evqHead];
		evq[evqHead++] = undefined as any;
		const r = runQueued(p);
		if (r) {
			r.then(pump, pump);
			return;
		}
	}
	evq.length = 0;
	evqHead = 0;
	evqRunning = false;
	const ws = drainWaiters;
	drainWaiters = [];
	for (const w of ws) w();
}

/**
 * The partial message of the assistant stream, as the core sent it (capabilities.messageDeltas):
 * a message_update carries either the whole message (`messageSeq`), kept here, or only its delta
 * (`deltaSeq`), applied here once however many extensions the same body reaches; a run of
 * further deltas (`more`, capabilities.deltaRuns) continues the same block.
 */
let partial: any;
let partialSeq = -1;

/** applyDelta appends delta event ev, numbered seq, to the kept message (once per seq). */
function applyDelta(ev: any, seq: number): void {
	if (seq === partialSeq || !partial || !ev) return;
	partialSeq = seq;
	const block = partial.content?.[ev.contentIndex];
	if (!block) return;
	if (ev.type === "thinking_delta") block.thinking = (block.thinking ?? "") + ev.delta;
	else block.text = (block.text ?? "") + ev.delta;
}

/**
 * partialCopy is the message one delta's handlers see: a copy of the kept message and of its
 * blocks, so an edit does not reach the kept message (the strings are shared, not copied).
 */
function partialCopy(): any {
	const c = partial.content;
	if (!Array.isArray(c)) return { ...partial };
	const content = new Array(c.length);
	for (let i = 0; i < c.length; i++) content[i] = { ...c[i] };
	return { ...partial, content };
}

/**
 * streamPayload is the event object the handlers of one message_update see, in pi's shape
 * (type, assistantMessageEvent, message), without the sequence members.
 */
function streamPayload(payload: any): any {
	const ev = payload.assistantMessageEvent;
	if (payload.message !== undefined) {
		partial = payload.message;
		partialSeq = payload.messageSeq ?? -1;
	} else if (payload.deltaSeq !== undefined) applyDelta(ev, payload.deltaSeq);
	else return payload;
	if (!partial) return { type: "message_update", assistantMessageEvent: ev };
	return { type: "message_update", assistantMessageEvent: ev, message: partialCopy() };
}

/** push queues payload for handler h (or each handler of hs) of the event p names. */
function push(p: QueuedEvent, payload: any): void {
	const hs = p.handlers;
	if (hs && hs.length > 1) {
		for (const h of hs) evq.push({ ext: p.ext, gen: p.gen, handler: h, event: p.event, payload, ctx: p.ctx, signal: p.signal });
	} else evq.push({ ext: p.ext, gen: p.gen, handler: p.handler, event: p.event, payload, ctx: p.ctx, signal: p.signal });
}

/**
 * eventQueued runs an `event` notification after the ones before it, one handler at a time;
 * `handlers` (capabilities.eventBatches) lists several handlers of one extension that run in
 * that order on the same payload; `more` (capabilities.deltaRuns) lists the deltas that follow a
 * message_update delta in the same block, each one more message_update.
 */
export function eventQueued(p: QueuedEvent): void {
	if (p.event !== "message_update" || !p.payload) {
		if (p.payload && p.handlers && p.handlers.length > 1) p.payload.type = p.event;
		deliver(p, p.payload);
		return;
	}
	const first = p.payload.assistantMessageEvent;
	let seq = p.payload.deltaSeq;
	deliver(p, streamPayload(p.payload));
	const more = p.more;
	if (!more || !first || typeof seq !== "number") return;
	// Synchronous handlers run each delta as it is made, so its objects die young.
	const type = first.type;
	const contentIndex = first.contentIndex;
	for (let i = 0; i < more.length; i++) {
		const ev = { type, contentIndex, delta: more[i] };
		applyDelta(ev, ++seq);
		deliver(p, partial ? { type: "message_update", assistantMessageEvent: ev, message: partialCopy() } : { type: "message_update", assistantMessageEvent: ev });
	}
}

/** drained resolves once every queued event received so far has been handled (`sync`). */
export function drained(): Promise<null> | null {
	if (!evqRunning) return null;
	return new Promise((resolve) => drainWaiters.push(() => resolve(null)));
}

export async function toolExecute(id: number | string, p: { ext: number; gen: number; tool: string; toolCallId: string; params: any; ctx: number }) {
	const inst = instanceOf(p.ext, p.gen);
	const def = inst.tools.get(p.tool);
	if (!def) throw new RpcError({ code: ErrorCodes.InvalidParams, message: `${inst.path}: no tool ${p.tool}` });
	const ac = controller(id);
	const onUpdate = (partial: unknown) => notify("tool.update", { id, partialResult: wireToolResult(partial) });
	try {
		return wireToolResult(await def.execute(p.toolCallId, p.params ?? {}, ac.signal, onUpdate, new Ctx(p.ctx, ac.signal)));
	} catch (err) {
		throw handlerError(err);
	} finally {
		inflight.delete(id);
	}
}

/**
 * bashOpsExec runs the user's command through the BashOperations a user_bash handler returned
 * (seed 004): output goes to the core as tool.update text blocks, $/cancelRequest aborts the
 * signal exec gets, and the answer is exec's exit code.
 */
export async function bashOpsExec(id: number | string, p: { ops: number; command: string; cwd: string }) {
	const ops = bashOps.get(p.ops);
	bashOps.delete(p.ops);
	if (!ops) throw new RpcError({ code: ErrorCodes.InvalidParams, message: `no user_bash operations ${p.ops}` });
	const ac = controller(id);
	const decoder = new TextDecoder();
	const send = (text: string) => {
		if (text) notify("tool.update", { id, partialResult: { content: [{ type: "text", text }] } });
	};
	const onData = (d: Uint8Array | string) => send(typeof d === "string" ? d : decoder.decode(d, { stream: true }));
	try {
		const r = await ops.exec(p.command, p.cwd, { onData, signal: ac.signal, env: process.env });
		send(decoder.decode());
		return { exitCode: typeof r?.exitCode === "number" ? r.exitCode : null };
	} catch (err) {
		throw handlerError(err);
	} finally {
		inflight.delete(id);
	}
}

export function toolPrepare(p: { ext: number; gen: number; tool: string; args: any }) {
	const def = instanceOf(p.ext, p.gen).tools.get(p.tool);
	return def?.prepareArguments ? def.prepareArguments(p.args) : p.args;
}

export async function commandRun(id: number | string, p: { ext: number; gen: number; name: string; args: string; ctx: number }) {
	const inst = instanceOf(p.ext, p.gen);
	const cmd = inst.commands.get(p.name);
	if (!cmd) throw new RpcError({ code: ErrorCodes.InvalidParams, message: `${inst.path}: no command ${p.name}` });
	const ac = controller(id);
	try {
		await cmd.handler(p.args ?? "", new Ctx(p.ctx, ac.signal));
		return null;
	} catch (err) {
		throw handlerError(err);
	} finally {
		inflight.delete(id);
	}
}

export async function commandComplete(p: { ext: number; gen: number; name: string; prefix: string }) {
	const cmd = instanceOf(p.ext, p.gen).commands.get(p.name);
	const items = (await cmd?.getArgumentCompletions?.(p.prefix ?? "")) ?? [];
	// Items keep their label and description (pi's AutocompleteItem); a bare string is its own value.
	return (Array.isArray(items) ? items : []).map((i: any) => {
		if (typeof i === "string") return { value: i, label: i };
		const value = String(i?.value ?? i?.label ?? "");
		const out: { value: string; label: string; description?: string } = { value, label: i?.label === undefined || i?.label === null ? value : String(i.label) };
		if (typeof i?.description === "string" && i.description !== "") out.description = i.description;
		return out;
	});
}

export async function shortcutRun(id: number | string, p: { ext: number; gen: number; key: string; ctx: number }) {
	const inst = instanceOf(p.ext, p.gen);
	const sc = inst.shortcuts.get(p.key);
	if (!sc) throw new RpcError({ code: ErrorCodes.InvalidParams, message: `${inst.path}: no shortcut ${p.key}` });
	const ac = controller(id);
	try {
		await sc.handler(new Ctx(p.ctx, ac.signal));
		return null;
	} catch (err) {
		throw handlerError(err);
	} finally {
		inflight.delete(id);
	}
}

export async function runCallback(p: { callback: number; ctx: number; setup?: number }) {
	const fn = callbacks.get(p.callback);
	callbacks.delete(p.callback);
	if (!fn) throw new RpcError({ code: ErrorCodes.InvalidParams, message: `no callback ${p.callback}` });
	try {
		await fn(p.setup ? setupSessionManager(p.setup) : new ReplacedCtx(p.ctx, undefined));
		return null;
	} catch (err) {
		throw handlerError(err);
	}
}

export function initialize(p: { protocolVersion: number; agentDir?: string; version?: string; appName?: string; configDirName?: string; events?: string[]; eventRules?: Record<string, EventRule>; handlerTimeoutMs?: number; shellPath?: string }) {
	handlerTimeoutMs = p.handlerTimeoutMs ?? 0;
	hostInfo.shellPath = p.shellPath ?? "";
	hostInfo.agentDir = p.agentDir ?? "";
	hostInfo.version = p.version ?? "";
	if (p.appName) hostInfo.appName = p.appName;
	if (p.configDirName) hostInfo.configDirName = p.configDirName;
	knownEvents = new Set(p.events ?? []);
	MUTABLE = {};
	ORDERED = new Set();
	SIGNALED = new Set();
	FROZEN = {};
	RESULTS = new Set();
	FAIL_CLOSED = new Set();
	for (const [name, rule] of Object.entries(p.eventRules ?? {})) {
		if (rule.results) RESULTS.add(name);
		if (rule.failClosed) FAIL_CLOSED.add(name);
		if (rule.editable?.length) MUTABLE[name] = rule.editable;
		// An ordered event waits for the queued events sent before it (events.md §1.2).
		if (rule.ordered) ORDERED.add(name);
		if (rule.signal) SIGNALED.add(name);
		if (rule.frozen?.length) FROZEN[name] = rule.frozen;
	}
	return {
		protocolVersion: 2,
		name: "atomic-node-host",
		version: hostInfo.version,
		runtime: `node ${process.version}`,
		capabilities: { syncChannel: true, mutablePayloads: MUTABLE, queuedEvents: true, eventBatches: true, messageDeltas: true, requestBatches: true, deltaRuns: true },
	};
}

export function deliverEvent(p: { channel: string; data: unknown }) {
	deliverLocal(p.channel, p.data);
}


/** The login functions of the providers extensions registered, by provider name. */
const providerLogins = new Map<string, { oauth?: any; apiKey?: any }>();

/**
 * providerRegistration reads both forms of pi.registerProvider: (name, config) and the native
 * (provider) overload, whose `id` (or `name`) names the provider and whose members are the config.
 * Functions stay in the host: `streamSimple` (or `stream`) becomes the provider's wire API (its
 * `api`, or `ext:<name>` when it names none), `oauth` and `auth.apiKey` the provider's logins;
 * the config sent to the core says only that they exist (`oauth: {name}`, `auth: {apiKey: {name}}`).
 */
function providerRegistration(nameOrProvider: any, config?: any) {
	let name: string;
	let cfg: any;
	if (typeof nameOrProvider === "string") {
		name = nameOrProvider;
		cfg = config ?? {};
	} else if (nameOrProvider && typeof nameOrProvider === "object") {
		cfg = nameOrProvider;
		name = String(cfg.id ?? cfg.name ?? "");
	} else {
		throw new TypeError("registerProvider: expected (name, config) or a provider object with an id");
	}
	const stream = typeof cfg.streamSimple === "function" ? cfg.streamSimple : typeof cfg.stream === "function" ? cfg.stream : undefined;
	const models = typeof cfg.models === "function" ? cfg.models() : cfg.models;
	const wire = JSON.parse(JSON.stringify({ ...cfg, id: undefined, models, streamSimple: undefined, stream: undefined, oauth: undefined, auth: undefined }));
	if (cfg === nameOrProvider && typeof cfg.name === "string" && cfg.id !== undefined) wire.name = cfg.name;
	if (stream && !wire.api) wire.api = `ext:${name}`;
	const logins = { oauth: cfg.oauth, apiKey: cfg.auth?.apiKey };
	if (logins.oauth) wire.oauth = { name: String(logins.oauth.name ?? cfg.name ?? name) };
	if (logins.apiKey) wire.auth = { apiKey: { name: String(logins.apiKey.name ?? cfg.name ?? name) } };
	return { name, config: wire, stream, logins };
}

/** The event as it crosses to the core: without the cumulative partial, a tool call's start with its id and name. */
function wireStreamEvent(ev: any): any {
	if (!ev || typeof ev !== "object") return ev;
	const { partial, ...rest } = ev;
	if (ev.type === "toolcall_start") {
		const block = partial?.content?.[ev.contentIndex];
		rest.toolCall = { id: block?.id ?? "", name: block?.name ?? "" };
	}
	return rest;
}

/**
 * providerStream serves provider.stream: the streamSimple of the extension provider whose wire API
 * is p.api streams one message; its events go to the core as tool.update notifications of the
 * request, and the answer is the final message. $/cancelRequest aborts the signal it was given.
 */
export async function providerStream(id: number | string, p: { api: string; model: any; context: any; options?: any }) {
	const prov = apiProviders.get(p.api);
	const fn = prov?.streamSimple ?? prov?.stream;
	if (!fn) throw new RpcError({ code: ErrorCodes.InvalidParams, message: `no extension provider streams the "${p.api}" API` });
	const ac = controller(id);
	try {
		const s: any = fn(p.model, p.context ?? { messages: [] }, { ...(p.options ?? {}), signal: ac.signal });
		let last: any;
		for await (const ev of s) {
			notify("tool.update", { id, partialResult: wireStreamEvent(ev) });
			if (ev?.type === "done") last = ev.message;
			else if (ev?.type === "error") last = ev.error;
		}
		const final = typeof s.result === "function" ? await s.result() : last;
		return final ?? last ?? null;
	} catch (err) {
		throw handlerError(err);
	} finally {
		inflight.delete(id);
	}
}

/**
 * providerRefresh serves provider.refresh: the provider's oauth.refreshToken gets the stored
 * credential; the answer is {credential}, the refreshed one (type oauth, its access token from
 * oauth.getApiKey when the provider has it), to store in its place.
 */
export async function providerRefresh(id: number | string, p: { name: string; credential: any }) {
	const oauth = providerLogins.get(p.name)?.oauth;
	if (typeof oauth?.refreshToken !== "function") throw new RpcError({ code: ErrorCodes.InvalidParams, message: `provider ${p.name} has no oauth.refreshToken` });
	controller(id);
	try {
		const credentials = await oauth.refreshToken(p.credential);
		const apiKey = typeof oauth.getApiKey === "function" ? await oauth.getApiKey(credentials) : credentials?.access;
		return { credential: { ...credentials, type: "oauth", access: apiKey ?? credentials?.access } };
	} catch (err) {
		throw handlerError(err);
	} finally {
		inflight.delete(id);
	}
}

/**
 * providerLogin serves provider.login: the provider's oauth.login (kind "oauth") or
 * auth.apiKey.login (kind "api_key") runs with callbacks whose prompts are the UI dialogs of the
 * context; the answer is {credential}, the credential to persist.
 */
export async function providerLogin(id: number | string, p: { name: string; kind: string; ctx: number }) {
	const logins = providerLogins.get(p.name);
	if (!p.kind) p.kind = logins?.oauth ? "oauth" : "api_key";
	const ac = controller(id);
	const ui = new Ctx(p.ctx, ac.signal).ui;
	const prompt = async (q: any) => {
		const message = String(q?.message ?? q?.title ?? "");
		if (Array.isArray(q?.options) && q.options.length) {
			const labels = q.options.map((o: any) => String(o?.label ?? o?.value ?? o));
			const picked = await ui.select(message, labels);
			const i = labels.indexOf(picked);
			return i >= 0 ? (q.options[i]?.value ?? q.options[i]) : undefined;
		}
		const v = await ui.input(message, q?.placeholder ?? "");
		if (v === undefined || v === null) throw new Error("Login cancelled");
		return v;
	};
	try {
		if (p.kind === "oauth") {
			if (!logins?.oauth?.login) throw new Error(`provider ${p.name} has no OAuth login`);
			const credentials = await logins.oauth.login({
				onAuth: (info: any) => ui.notify(`${info?.instructions ? `${info.instructions} ` : ""}${info?.url ?? ""}`.trim(), "info"),
				onDeviceCode: (info: any) => ui.notify(`${info?.verificationUri ?? info?.url ?? ""} ${info?.userCode ?? ""}`.trim(), "info"),
				onPrompt: prompt,
				onSelect: prompt,
				onProgress: (message: string) => ui.notify(String(message ?? ""), "info"),
				onManualCodeInput: () => prompt({ message: "Paste the authorization code" }),
				signal: ac.signal,
			});
			const apiKey = typeof logins.oauth.getApiKey === "function" ? await logins.oauth.getApiKey(credentials) : credentials?.access;
			return { credential: { ...credentials, type: "oauth", access: apiKey ?? credentials?.access } };
		}
		if (!logins?.apiKey?.login) throw new Error(`provider ${p.name} has no API-key login`);
		const cred = await logins.apiKey.login({ signal: ac.signal, prompt });
		return { credential: { type: "api_key", ...(cred ?? {}) } };
	} catch (err) {
		throw handlerError(err);
	} finally {
		inflight.delete(id);
	}
}
