// The transport of the atomic extension protocol (docs/extension-protocol.md): JSON-RPC 2.0, one
// object per line. The main channel is fd 5 (core -> host) and fd 6 (host -> core); the sync
// channel is fd 3 (host -> core requests) and fd 4 (core -> host replies), used for the calls
// that ExtensionAPI and ExtensionContext make synchronously (getters, fire-and-forget setters).
// stdout and stderr are the host's log: nothing an extension prints reaches the protocol.
//
// Writes are synchronous (fs.writeSync) so the order of everything the host sends is the order
// in which extension code made the calls.

import fs = require("node:fs");
import net = require("node:net");

export const PROTOCOL_VERSION = 1;

/** Error codes (docs/extension-protocol.md, "Errors"). */
export const ErrorCodes = {
	ParseError: -32700,
	InvalidRequest: -32600,
	MethodNotFound: -32601,
	InvalidParams: -32602,
	Internal: -32603,
	HandlerFailed: -32000,
	StaleContext: -32001,
	HostUnavailable: -32002,
	RequestCancelled: -32800,
} as const;

export interface RpcErrorObject {
	code: number;
	message: string;
	data?: unknown;
}

export interface RpcMessage {
	jsonrpc: "2.0";
	id?: number | string;
	method?: string;
	params?: any;
	result?: unknown;
	error?: RpcErrorObject;
	after?: number;
}

/** RpcError is a JSON-RPC error returned by the core, thrown into extension code. */
export class RpcError extends Error {
	code: number;
	data?: unknown;
	constructor(e: RpcErrorObject) {
		super(e.message);
		this.name = "RpcError";
		this.code = e.code;
		this.data = e.data;
	}
}

/**
 * privateFd reopens an inherited channel fd close-on-exec (Node opens every file O_CLOEXEC) and
 * closes the inherited one, so no child process an extension starts inherits the protocol. It
 * runs before any extension code.
 */
function privateFd(fd: number, flags: number): number {
	for (const dir of ["/proc/self/fd", "/dev/fd"]) {
		let n: number;
		try {
			n = fs.openSync(`${dir}/${fd}`, flags);
		} catch {
			continue;
		}
		try {
			fs.closeSync(fd);
		} catch {
			// already gone: the reopened one is all there is
		}
		return n;
	}
	return fd;
}

const MAIN_IN = privateFd(5, fs.constants.O_RDONLY);
const MAIN_OUT = privateFd(6, fs.constants.O_WRONLY);
const SYNC_OUT = privateFd(3, fs.constants.O_WRONLY);
const SYNC_IN = privateFd(4, fs.constants.O_RDONLY);

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function writeAll(fd: number, text: string): void {
	const buf = Buffer.from(text, "utf8");
	let off = 0;
	while (off < buf.length) {
		try {
			off += fs.writeSync(fd, buf, off, buf.length - off);
		} catch (err: any) {
			if (err?.code !== "EAGAIN") throw err;
			Atomics.wait(sleeper, 0, 0, 1);
		}
	}
}

/** The number of messages written to the main channel so far (the sync channel's `after`). */
let mainWritten = 0;

/** send writes one message to the main channel. */
export function send(msg: RpcMessage): void {
	writeAll(MAIN_OUT, `${JSON.stringify(msg)}\n`);
	mainWritten++;
}

export function notify(method: string, params?: unknown): void {
	send({ jsonrpc: "2.0", method, params });
}

let nextId = 1;
const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

/**
 * The ui.* requests open per watched context id (a batched event request watches its context),
 * and when the last one settled (ms): the time a handler waits for the user is not counted
 * against extensionHandlerTimeoutMs, as the core does not count it for a single handler.
 */
const uiHolds = new Map<number, { open: number; released: number }>();

/** watchContext starts counting the ui.* requests of context ctx; the returned function stops. */
export function watchContext(ctx: number): () => void {
	if (!uiHolds.has(ctx)) uiHolds.set(ctx, { open: 0, released: 0 });
	return () => uiHolds.delete(ctx);
}

/** timeLeft is how much of limit (ms) a handler of watched context ctx that started at start has left. */
export function timeLeft(ctx: number, start: number, limit: number): number {
	const h = uiHolds.get(ctx);
	if (h && h.open > 0) return limit;
	return limit - (Date.now() - Math.max(start, h?.released ?? 0));
}

function holdUI(method: string, params: unknown): (() => void) | undefined {
	const ctx = (params as any)?.ctx;
	const h = typeof ctx === "number" && method.startsWith("ui.") ? uiHolds.get(ctx) : undefined;
	if (!h) return undefined;
	h.open++;
	return () => {
		h.open--;
		h.released = Date.now();
	};
}

/** request sends an asynchronous request on the main channel and resolves with its result. */
export function request<T = any>(method: string, params?: unknown): Promise<T> {
	const id = nextId++;
	const release = holdUI(method, params);
	if (release) return requestID<T>(id, method, params).finally(release);
	return requestID<T>(id, method, params);
}

function requestID<T>(id: number, method: string, params?: unknown): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		pending.set(id, { resolve, reject });
		try {
			send({ jsonrpc: "2.0", id, method, params });
		} catch (err) {
			pending.delete(id);
			reject(err as Error);
		}
	});
}

const updateHandlers = new Map<number, (partial: any) => void>();

/**
 * requestCancellable sends a request the core can cancel: aborting signal sends
 * `$/cancelRequest {id}`; the core's partial results (`builtin.update {id, partialResult}`) go to
 * onUpdate. onId receives the request's id before it is sent (the core names the request by it
 * in requests of its own, such as llm.payload).
 */
export function requestCancellable<T = any>(
	method: string,
	params: unknown,
	opts: { signal?: AbortSignal; onUpdate?: (partial: any) => void; onId?: (id: number) => void } = {},
): Promise<T> {
	const id = nextId++;
	opts.onId?.(id);
	if (opts.onUpdate) updateHandlers.set(id, opts.onUpdate);
	const onAbort = () => notify("$/cancelRequest", { id });
	const release = holdUI(method, params);
	return new Promise<T>((resolve, reject) => {
		pending.set(id, { resolve, reject });
		try {
			send({ jsonrpc: "2.0", id, method, params });
		} catch (err) {
			pending.delete(id);
			reject(err as Error);
			return;
		}
		if (opts.signal?.aborted) onAbort();
		else opts.signal?.addEventListener("abort", onAbort, { once: true });
	}).finally(() => {
		release?.();
		updateHandlers.delete(id);
		opts.signal?.removeEventListener("abort", onAbort);
	});
}

/** deliverUpdate hands a `builtin.update` notification to its request's onUpdate. */
export function deliverUpdate(p: { id: number; partialResult: unknown }): void {
	try {
		updateHandlers.get(p?.id)?.(p.partialResult);
	} catch (err) {
		console.error("atomic extension host: an onUpdate callback failed:", err);
	}
}

/** settle delivers a response from the core to the request waiting for it. */
export function settle(msg: RpcMessage): void {
	const p = pending.get(msg.id as number);
	if (!p) return;
	pending.delete(msg.id as number);
	if (msg.error) p.reject(new RpcError(msg.error));
	else p.resolve(msg.result);
}

let syncAvailable = true;
let syncBuf = Buffer.alloc(0);
const chunk = Buffer.alloc(64 * 1024);

/**
 * syncCall makes a blocking request on the sync channel: the extension's thread waits for the
 * core's answer. The core answers it after it has processed every main-channel message written
 * before it (`after`), so a getter always sees the registrations made before it.
 */
export function syncCall<T = any>(method: string, params?: unknown): T {
	if (!syncAvailable) throw new Error(`atomic extension host: ${method} needs the sync channel, which the core did not open`);
	const id = nextId++;
	try {
		writeAll(SYNC_OUT, `${JSON.stringify({ jsonrpc: "2.0", id, method, params, after: mainWritten })}\n`);
	} catch (err: any) {
		if (err?.code === "EBADF") syncAvailable = false;
		throw err;
	}
	for (;;) {
		const nl = syncBuf.indexOf(10);
		if (nl >= 0) {
			const line = syncBuf.subarray(0, nl).toString("utf8");
			syncBuf = syncBuf.subarray(nl + 1);
			const msg = JSON.parse(line) as RpcMessage;
			if (msg.id !== id) continue;
			if (msg.error) throw new RpcError(msg.error);
			return msg.result as T;
		}
		let n: number;
		try {
			n = fs.readSync(SYNC_IN, chunk, 0, chunk.length, null);
		} catch (err: any) {
			if (err?.code === "EAGAIN") {
				Atomics.wait(sleeper, 0, 0, 1);
				continue;
			}
			throw err;
		}
		if (n === 0) throw new Error("atomic extension host: the core closed the sync channel");
		syncBuf = syncBuf.length === 0 ? Buffer.from(chunk.subarray(0, n)) : Buffer.concat([syncBuf, chunk.subarray(0, n)]);
	}
}

/** readLines calls onLine for every line of the main channel (fd 5), LF-split, one CR stripped. */
export function readLines(onLine: (line: string) => void, onEnd: () => void): void {
	let rest = "";
	const input = new net.Socket({ fd: MAIN_IN, readable: true, writable: false });
	input.setEncoding("utf8");
	input.on("data", (data: string) => {
		let start = 0;
		for (;;) {
			const nl = data.indexOf("\n", start);
			if (nl < 0) break;
			let line = rest + data.slice(start, nl);
			rest = "";
			if (line.endsWith("\r")) line = line.slice(0, -1);
			start = nl + 1;
			if (line.length > 0) onLine(line);
		}
		rest += data.slice(start);
	});
	input.on("end", onEnd);
	input.on("error", onEnd);
}
