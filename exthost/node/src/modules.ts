// The import names extensions use, served from this bundle (seed 004, "Available Imports"):
// `@bastani/atomic`, `@mariozechner/pi-coding-agent` and `@earendil-works/pi-coding-agent` (the
// runtime helpers; the API types are erased by the TypeScript transpiler), `typebox` and
// `@sinclair/typebox` (the real packages), `@earendil-works/pi-ai`, `@bastani/pi-ai` and
// `@mariozechner/pi-ai` with their `/compat` paths (Type and StringEnum only) and
// `@earendil-works/pi-tui` / `@mariozechner/pi-tui` / `@bastani/pi-tui` (the real @mariozechner/pi-tui 0.73.1, which
// loads under Node 20; @earendil-works/pi-tui itself needs Node 22). Everything else resolves
// the normal Node way, from the extension's own directory.

import { existsSync } from "node:fs";
import Module = require("node:module");
import nodePath = require("node:path");
import * as extras from "./extras";
import { childProcess } from "./lazy";
import * as piai from "./piai";
import * as pihelpers from "./pihelpers";
import * as tools from "./tools";
import { ErrorCodes, notify, request, RpcError } from "./rpc";
import * as truncate from "./truncate";
import { CustomEditorClass } from "./uisurf";

/** What the core told the host in `initialize`. */
/** hostInfo is what initialize told the host; shellPath is settings.json shellPath ("": none). */
export const hostInfo = { agentDir: "", version: "", appName: "atomic", configDirName: ".atomic", shellPath: "" };

type Loader = () => any;

function once(f: Loader): Loader {
	let v: any;
	let done = false;
	return () => {
		if (!done) {
			v = f();
			done = true;
		}
		return v;
	};
}

function stringEnumFor(typebox: () => any) {
	return <T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) => {
		const schema: Record<string, unknown> = { type: "string", enum: [...values] };
		if (options.description !== undefined) schema.description = options.description;
		if (options.default !== undefined) schema.default = options.default;
		return typebox().Type.Unsafe(schema);
	};
}

const typeboxNew = once(() => require("typebox"));
const typeboxOld = once(() => require("@sinclair/typebox"));

function piAi(typebox: () => any) {
	return once(() => ({ __esModule: true, Type: typebox().Type, StringEnum: stringEnumFor(typebox), ...piai.piAiRuntime }));
}

const toolGuard = (name: string) => (e: any) => e?.toolName === name;

/** A FIFO per path in this host, for a core without the shared queue (mutation.acquire). */
const mutationQueues = new Map<string, Promise<unknown>>();
function localQueue<T>(key: string, fn: () => Promise<T>): Promise<T> {
	const prev = mutationQueues.get(key) ?? Promise.resolve();
	const next = prev.then(fn, fn);
	mutationQueues.set(
		key,
		next.catch(() => undefined),
	);
	return next;
}

/**
 * withFileMutationQueue runs fn in its file's turn of the queue atomic's own edit and write use
 * (seed 004): the core holds the turn (keyed by the real path, so symlink aliases share it) from
 * mutation.acquire until fn settles. A relative path is resolved against the host's cwd.
 */
export async function withFileMutationQueue<T>(filePath: string, fn: () => Promise<T>): Promise<T> {
	const abs = nodePath.resolve(String(filePath));
	let lease: { token: string };
	try {
		lease = await request<{ token: string }>("mutation.acquire", { path: abs });
	} catch (err) {
		if (err instanceof RpcError && err.code === ErrorCodes.MethodNotFound) return localQueue(abs, fn);
		throw err;
	}
	try {
		return await fn();
	} finally {
		notify("mutation.release", { token: lease.token });
	}
}

/**
 * localShell is the shell createLocalBashOperations runs commands with, resolved as pi's
 * getShellConfig and atomic's bash tool do (tools.md §5.1): the custom path (the caller's
 * shellPath option, else settings.json shellPath), which must exist, else /bin/bash, else bash on
 * PATH, else sh. $SHELL is not consulted: a user's login shell may not understand the bash syntax
 * tools emit.
 */
export function localShell(custom: string = hostInfo.shellPath): string {
	if (custom) {
		if (existsSync(custom)) return custom;
		throw new Error(`Custom shell path not found: ${custom}\nPlease update shellPath in ${nodePath.join(hostInfo.agentDir, "settings.json")}`);
	}
	if (existsSync("/bin/bash")) return "/bin/bash";
	for (const dir of (process.env.PATH ?? "").split(nodePath.delimiter)) {
		if (!dir) continue;
		const candidate = nodePath.join(dir, "bash");
		if (existsSync(candidate)) return candidate;
	}
	return "sh";
}

/** killTree ends a detached child and everything it started (its process group). */
function killTree(pid: number | undefined): void {
	if (!pid) return;
	try {
		process.kill(-pid, "SIGKILL");
	} catch {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// already gone
		}
	}
}

/**
 * createLocalBashOperations runs commands with the local shell (pi's BashOperations): opts.shellPath
 * (Atomic's option), else settings.json shellPath, else the default shell (localShell). Each command
 * gets its own process group, killed whole on abort or after options.timeout seconds; exec then
 * rejects with "aborted" or "timeout". A custom shell that does not exist rejects each exec.
 */
export function createLocalBashOperations(opts: { shellPath?: string } = {}) {
	return {
		exec(command: string, cwd: string, options: { onData?: (d: Buffer) => void; signal?: AbortSignal; timeout?: number; env?: NodeJS.ProcessEnv } = {}) {
			return new Promise<{ exitCode: number | null }>((resolve, reject) => {
				if (options.signal?.aborted) {
					reject(new Error("aborted"));
					return;
				}
				let shell: string;
				try {
					shell = localShell(opts?.shellPath || hostInfo.shellPath);
				} catch (err) {
					reject(err);
					return;
				}
				const child = childProcess().spawn(shell, ["-c", command], { cwd, env: options.env ?? process.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
				child.stdout.on("data", (d: Buffer) => options.onData?.(d));
				child.stderr.on("data", (d: Buffer) => options.onData?.(d));
				let failure: Error | undefined;
				const onAbort = () => {
					failure = new Error("aborted");
					killTree(child.pid);
				};
				options.signal?.addEventListener("abort", onAbort, { once: true });
				let timer: NodeJS.Timeout | undefined;
				if (options.timeout && options.timeout > 0) {
					timer = setTimeout(() => {
						failure = new Error("timeout");
						killTree(child.pid);
					}, options.timeout * 1000);
				}
				const done = () => {
					if (timer) clearTimeout(timer);
					options.signal?.removeEventListener("abort", onAbort);
				};
				child.on("error", (err) => {
					done();
					reject(err);
				});
				child.on("close", (code) => {
					done();
					if (failure) reject(failure);
					else resolve({ exitCode: code });
				});
			});
		},
	};
}

function codingAgent(configDirName: () => string, appName: () => string, typebox: () => any) {
	return once(() => ({
		__esModule: true,
		get CONFIG_DIR_NAME() {
			return configDirName();
		},
		get APP_NAME() {
			return appName();
		},
		get VERSION() {
			return hostInfo.version;
		},
		getAgentDir: () => hostInfo.agentDir,
		defineTool: <T>(def: T) => def,
		isToolCallEventType: (name: string, event: any) => event?.toolName === name,
		isBashToolResult: toolGuard("bash"),
		isReadToolResult: toolGuard("read"),
		isEditToolResult: toolGuard("edit"),
		isWriteToolResult: toolGuard("write"),
		isGrepToolResult: toolGuard("grep"),
		isFindToolResult: toolGuard("find"),
		isLsToolResult: toolGuard("ls"),
		isSearchToolResult: toolGuard("search"),
		isPowerShellToolResult: toolGuard("powershell"),
		StringEnum: stringEnumFor(typebox),
		...truncate,
		withFileMutationQueue,
		createLocalBashOperations,
		getShellConfig: () => ({ shell: localShell(), args: ["-c"] }),
		createEventBus: () => createLocalBus(),
		keyHint: extras.keyHint,
		keyHintIfBound: extras.keyHintIfBound,
		keyText: extras.keyText,
		rawKeyHint: extras.rawKeyHint,
		highlightCode: extras.highlightCode,
		getLanguageFromPath: extras.getLanguageFromPath,
		get CustomEditor() {
			return CustomEditorClass();
		},
		SessionManager: extras.SessionManager,
		createReadTool: tools.createReadTool,
		createBashTool: tools.createBashTool,
		createEditTool: tools.createEditTool,
		createWriteTool: tools.createWriteTool,
		createLsTool: tools.createLsTool,
		createFindTool: tools.createFindTool,
		createGrepTool: tools.createGrepTool,
		createSearchTool: tools.createSearchTool,
		createSearchToolDefinition: tools.createSearchTool,
		createPowerShellTool: tools.createPowerShellTool,
		createPowerShellToolDefinition: tools.createPowerShellTool,
		createStructuredOutputTool: tools.createStructuredOutputTool,
		createTodoTool: tools.createTodoTool,
		createTodoToolDefinition: tools.createTodoTool,
		createAskUserQuestionTool: tools.createAskUserQuestionTool,
		createAskUserQuestionToolDefinition: tools.createAskUserQuestionTool,
		parseFrontmatter: pihelpers.parseFrontmatter,
		stripFrontmatter: pihelpers.stripFrontmatter,
		getMarkdownTheme: pihelpers.getMarkdownTheme,
		getSelectListTheme: pihelpers.getSelectListTheme,
		getSettingsListTheme: pihelpers.getSettingsListTheme,
		DynamicBorder: pihelpers.DynamicBorder,
		BorderedLoader: pihelpers.BorderedLoader,
		convertToLlm: pihelpers.convertToLlm,
		serializeConversation: pihelpers.serializeConversation,
		buildSessionContext: pihelpers.buildSessionContext,
		bashExecutionToText: pihelpers.bashExecutionToText,
	}));
}

/** A stand-alone event bus (createEventBus); pi.events is the shared one of the host. */
export function createLocalBus() {
	const subs = new Map<string, Set<(data: unknown) => void>>();
	return {
		on(channel: string, handler: (data: unknown) => void) {
			let set = subs.get(channel);
			if (!set) subs.set(channel, (set = new Set()));
			set.add(handler);
			return () => {
				set.delete(handler);
			};
		},
		emit(channel: string, data: unknown) {
			for (const h of [...(subs.get(channel) ?? [])]) {
				try {
					h(data);
				} catch (err) {
					console.error(`event bus handler for ${channel} failed:`, err);
				}
			}
		},
	};
}

const atomicModule = codingAgent(
	() => hostInfo.configDirName,
	() => hostInfo.appName,
	typeboxNew,
);
const piModule = codingAgent(
	() => ".pi",
	() => "pi",
	typeboxOld,
);
const piCurrent = codingAgent(
	() => ".pi",
	() => "pi",
	typeboxNew,
);
const tui = once(() => require("@mariozechner/pi-tui"));

const aiNew = piAi(typeboxNew);
const aiOld = piAi(typeboxOld);

/** The virtual modules by import name (exthost/node/transpile.go VirtualModules lists the same). */
export const virtualModules: Record<string, Loader> = {
	"@bastani/atomic": atomicModule,
	"@mariozechner/pi-coding-agent": piModule,
	typebox: typeboxNew,
	"typebox/value": once(() => require("typebox/value")),
	"typebox/compile": once(() => require("typebox/compile")),
	"@sinclair/typebox": typeboxOld,
	"@sinclair/typebox/value": once(() => require("@sinclair/typebox/value")),
	"@sinclair/typebox/compiler": once(() => require("@sinclair/typebox/compiler")),
	"@earendil-works/pi-coding-agent": piCurrent,
	"@earendil-works/pi-ai": aiNew,
	"@earendil-works/pi-ai/compat": aiNew,
	"@bastani/pi-ai": aiNew,
	"@bastani/pi-ai/compat": aiNew,
	"@mariozechner/pi-ai": aiOld,
	"@mariozechner/pi-ai/compat": aiOld,
	"@earendil-works/pi-tui": tui,
	"@mariozechner/pi-tui": tui,
	"@bastani/pi-tui": tui,
};

/** installModuleHook makes require() of a virtual name return the bundled module. */
export function installModuleHook(): void {
	const M = Module as any;
	const load = M._load;
	M._load = function (request: string, parent: unknown, isMain: boolean) {
		const v = virtualModules[request];
		if (v) return v();
		return load.call(this, request, parent, isMain);
	};
}
