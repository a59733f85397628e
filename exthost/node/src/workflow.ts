// Workflow activity (seed 000 "Workflow activity and lifecycle hooks"): the publisher
// pi.registerWorkflowActivityPublisher() returns and ctx.observeWorkflowActivity(observer),
// both served by the core's workflow activity hub (docs/extension-protocol.md "Workflow
// activity"). Frames arrive as workflow.frame requests; the core sends an observer's next frame
// only after the previous callback settled, so callbacks never overlap and stay FIFO.

import { notify, syncCall } from "./rpc";

type Fn = (...args: any[]) => any;

/** Observers by subscription id, while their lease is active. */
const observers = new Map<number, Fn>();
let nextSub = 1;

/** cursorOut gives a cursor the seed's shape: `{ epoch: string, revision: number }`. */
function cursorOut(c: any): any {
	if (c && typeof c === "object" && typeof c.epoch === "number") c.epoch = String(c.epoch);
	return c;
}

/** workflowPayload gives a workflow hook's payload the seed's cursor shape. */
export function workflowPayload(event: string, payload: any): void {
	if (event.startsWith("workflow_") && payload && typeof payload === "object") cursorOut(payload.cursor);
}

/** makePublisher is pi.registerWorkflowActivityPublisher() for extension ext of generation gen. */
export function makePublisher(ext: number, gen: number): any {
	const reg = syncCall<{ publisher: number; epoch: number }>("workflow.register", { ext, gen });
	const publisher = reg.publisher;
	let disposed = false;
	// A fenced publication is a PublisherFenced diagnostic in the core, not an error (seed 000).
	const publish = (method: string, value?: unknown): void => {
		syncCall("workflow.publish", { publisher, method, value });
	};
	return {
		epoch: String(reg.epoch),
		publishSnapshot(snapshot: { availability: string; roots?: unknown[] }) {
			publish("snapshot", snapshot);
		},
		publishChanged(root: unknown) {
			publish("changed", root);
		},
		publishRemoved(rootRunId: string) {
			publish("removed", rootRunId);
		},
		publishLifecycle(event: any) {
			const { type: _type, cursor: _cursor, ...rest } = event ?? {};
			publish("lifecycle", rest);
		},
		publishHeartbeat(event: any) {
			const { type: _type, ...rest } = event ?? {};
			publish("heartbeat", rest);
		},
		dispose() {
			if (disposed) return;
			disposed = true;
			publish("dispose");
		},
	};
}

/** observe is ctx.observeWorkflowActivity(observer) for context ctx: a lease with dispose(). */
export function observe(ctx: number, observer: Fn): { dispose(): void } {
	if (typeof observer !== "function") throw new TypeError("ctx.observeWorkflowActivity: the observer must be a function");
	const sub = nextSub++;
	observers.set(sub, observer);
	try {
		syncCall("workflow.observe", { ctx, sub });
	} catch (err) {
		observers.delete(sub);
		throw err;
	}
	let disposed = false;
	return {
		dispose() {
			if (disposed) return;
			disposed = true;
			observers.delete(sub);
			notify("workflow.unobserve", { sub });
		},
	};
}

/** frame serves workflow.frame: it runs the observer on the frame and settles when it did. */
export async function frame(p: { sub: number; frame: any }): Promise<null> {
	const fn = observers.get(p.sub);
	if (!fn) return null; // disposed: no queued callback runs
	const f = p.frame ?? {};
	cursorOut(f.cursor);
	await fn(f);
	return null;
}
