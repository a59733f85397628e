// Entry point of atomic's Node.js extension host (exthost/node). The core starts it as
// `node host.js` with the main channel on fds 5 and 6 and the sync channel on fds 3 and 4 (made
// close-on-exec before any extension runs); see docs/extension-protocol.md.
//
// Start-up matters here (every run with a TypeScript extension pays it): Node's modules are
// imported as `import x = require(...)`, since the bundle would copy every export of a namespace
// import (`import * as x`) into a new object when it starts; modules needed only on some paths
// load on first use (lazy.ts), and so do the packages served to extensions (vendor.ts).

import "./guard";
import "./extracerts";
import * as components from "./components";
import * as host from "./host";
import { installModuleHook } from "./modules";
import * as piai from "./piai";
import { autocompleteApply, autocompleteSuggest } from "./uisurf";
import * as workflow from "./workflow";
import { deliverUpdate, ErrorCodes, notify, readLines, type RpcMessage, RpcError, send, settle } from "./rpc";

installModuleHook();

type RequestHandler = (id: number | string, params: any) => unknown;

const requests: Record<string, RequestHandler> = {
	initialize: (_id, p) => {
		// The bootstrap asks for a V8 code cache of this bundle when it had none: write it when
		// the host exits, so it holds every function this run compiled (loading, dispatch,
		// shutdown), which later hosts then need not compile.
		const writeCache = (globalThis as any).__atomicCodeCache;
		if (typeof writeCache === "function") process.once("exit", writeCache);
		return host.initialize(p);
	},
	load: (_id, p) => host.load(p),
	event: (id, p) => host.event(id, p),
	"tool.execute": (id, p) => host.toolExecute(id, p),
	"tool.prepareArguments": (_id, p) => host.toolPrepare(p),
	"provider.stream": (id, p) => host.providerStream(id, p),
	"provider.login": (id, p) => host.providerLogin(id, p),
	"provider.refresh": (id, p) => host.providerRefresh(id, p),
	"llm.payload": (_id, p) => piai.llmPayload(p),
	"llm.response": (_id, p) => piai.llmResponse(p),
	"command.run": (id, p) => host.commandRun(id, p),
	"command.complete": (_id, p) => host.commandComplete(p),
	"shortcut.run": (id, p) => host.shortcutRun(id, p),
	callback: (_id, p) => host.runCallback(p),
	"workflow.frame": (_id, p) => workflow.frame(p),
	"autocomplete.suggest": (id, p) => {
		const ac = new AbortController();
		host.inflight.set(id, ac);
		return autocompleteSuggest(p, ac.signal).finally(() => host.inflight.delete(id));
	},
	"autocomplete.apply": (_id, p) => autocompleteApply(p),
	"bashOps.exec": (id, p) => host.bashOpsExec(id, p),
	"render.tool": (_id, p) => host.renderRequest("render.tool", p),
	"render.message": (_id, p) => host.renderRequest("render.message", p),
	"render.entry": (_id, p) => host.renderRequest("render.entry", p),
	sync: () => host.drained(),
	"component.render": (_id, p) => components.render(p),
	// The queued events sent before shutdown run first.
	shutdown: async () => {
		await host.drained();
		setImmediate(() => process.exit(0));
		return null;
	},
};

const notifications: Record<string, (params: any) => void> = {
	"$/cancelRequest": (p) => host.inflight.get(p?.id)?.abort(new Error("cancelled by atomic")),
	"events.deliver": (p) => host.deliverEvent(p),
	event: (p) => host.eventQueued(p),
	"builtin.update": (p) => deliverUpdate(p),
	"llm.event": (p) => deliverUpdate({ id: p?.id, partialResult: p?.event }),
	"component.input": (p) => components.input(p),
	"component.invalidate": (p) => components.invalidate(p),
	"component.dispose": (p) => components.dispose(p),
	"hostSessionPicker.delete": (p) => host.pickerDelete(p),
	"footer.branchChange": () => host.branchChanged(),
};

function reply(id: number | string, result: unknown): void {
	send({ jsonrpc: "2.0", id, result: result === undefined ? null : result });
}

function replyError(id: number | string | null, err: unknown): void {
	const e =
		err instanceof RpcError
			? { code: err.code, message: err.message, data: err.data }
			: { code: ErrorCodes.Internal, message: err instanceof Error ? err.message : String(err) };
	try {
		send({ jsonrpc: "2.0", id: id ?? undefined, error: e } as RpcMessage);
	} catch (sendErr) {
		// A result that cannot be serialised (a cycle, a BigInt) is reported as such.
		send({ jsonrpc: "2.0", id: id ?? undefined, error: { code: ErrorCodes.Internal, message: String(sendErr) } } as RpcMessage);
	}
}

function onRequest(msg: RpcMessage): void {
	const id = msg.id as number | string;
	const h = requests[msg.method!];
	if (!h) {
		replyError(id, new RpcError({ code: ErrorCodes.MethodNotFound, message: `unknown method ${msg.method}` }));
		return;
	}
	let out: unknown;
	try {
		out = h(id, msg.params ?? {});
	} catch (err) {
		replyError(id, err);
		return;
	}
	if (out instanceof Promise) {
		out.then(
			(r) => {
				try {
					reply(id, r);
				} catch (err) {
					replyError(id, new RpcError({ code: ErrorCodes.HandlerFailed, message: `the result is not JSON: ${(err as Error).message}` }));
				}
			},
			(err) => replyError(id, err),
		);
	} else {
		try {
			reply(id, out);
		} catch (err) {
			replyError(id, new RpcError({ code: ErrorCodes.HandlerFailed, message: `the result is not JSON: ${(err as Error).message}` }));
		}
	}
}

readLines(
	(line) => {
		let msg: RpcMessage;
		try {
			msg = JSON.parse(line);
		} catch (err) {
			replyError(null, new RpcError({ code: ErrorCodes.ParseError, message: `parse error: ${(err as Error).message}` }));
			return;
		}
		if (msg.method === undefined) settle(msg);
		else if (msg.id === undefined) notifications[msg.method]?.(msg.params);
		else onRequest(msg);
	},
	() => process.exit(0),
);

// The heartbeat (every 50 ms): the core names a stuck callback after a 250 ms gap and restarts an
// unresponsive host after 1 s.
setInterval(() => notify("$/heartbeat"), 50).unref();

process.on("unhandledRejection", (err) => {
	console.error("atomic extension host: unhandled rejection in an extension:", err);
});
process.on("uncaughtException", (err) => {
	console.error("atomic extension host: uncaught exception in an extension:", err);
});
