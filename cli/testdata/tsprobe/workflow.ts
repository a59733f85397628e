// Probe of issue 13 item 9: a TypeScript workflow provider publishes through
// pi.registerWorkflowActivityPublisher() (registered while the factory runs) and an observer
// attached with ctx.observeWorkflowActivity() at session_start receives snapshot-first FIFO
// frames, one callback at a time (the observer is slow on purpose: an overlap is reported). A
// lifecycle event of a completed stage fires workflow_stage_completed with the host's cursor; a
// heartbeat fires workflow_heartbeat; the envelope's attribution (owner, timestamp) is kept. A second publisher starts a new epoch with an unavailable
// snapshot and fences the first, whose later publication is refused without a throw. The wf
// tool publishes, waits (at most 5 s each) for the three hooks and then for the last frame, and
// returns what it saw.
import type { ExtensionAPI } from "@bastani/atomic";

const root = (id: string, state: string) => ({
	rootRunId: id,
	ownerSessionId: "owner",
	state,
	reason: state === "working" ? "executing" : "quiescent",
	activeExecutionCount: state === "working" ? 1 : 0,
	actionableBlockCount: 0,
	needsAttention: false,
});

export default function (pi: ExtensionAPI) {
	const pub = (pi as any).registerWorkflowActivityPublisher();
	const frames: string[] = [];
	const epochs: string[] = [];
	const hooks: string[] = [];
	let running = false;
	let overlap = false;
	let finished!: () => void;
	const lastFrame = new Promise<void>((resolve) => (finished = resolve));
	let hooked!: () => void;
	const hook = new Promise<void>((resolve) => (hooked = resolve));
	const hooks3 = () => {
		if (hooks.length === 3) hooked();
	};
	let lease: { dispose(): void } | undefined;

	const describe = (f: any) => {
		if (!epochs.includes(f.cursor.epoch)) epochs.push(f.cursor.epoch);
		const at = `e${epochs.indexOf(f.cursor.epoch) + 1}r${f.cursor.revision}:${typeof f.cursor.epoch}`;
		if (f.kind === "snapshot") return `snapshot ${f.availability} [${f.roots ? f.roots.map((r: any) => `${r.rootRunId}=${r.state}`).join(",") : "-"}] ${at}`;
		if (f.kind === "changed") return `changed ${f.root.rootRunId}=${f.root.state} ${at}`;
		return `removed ${f.rootRunId} ${at}`;
	};

	pi.on("session_start", (_event, ctx) => {
		lease?.dispose();
		lease = (ctx as any).observeWorkflowActivity(async (frame: any) => {
			if (running) overlap = true;
			running = true;
			await new Promise((resolve) => setTimeout(resolve, 5));
			frames.push(describe(frame));
			running = false;
			if (frame.kind === "snapshot" && frame.availability === "ready" && frame.roots.length === 0) finished();
		});
	});
	pi.on("session_shutdown", () => lease?.dispose());
	pi.on("workflow_activity_changed" as any, (event: any) => {
		hooks.push(`hook ${event.root.rootRunId} r${event.cursor.revision}:${typeof event.cursor.epoch}`);
		hooks3();
	});
	pi.on("workflow_stage_completed" as any, (event: any) => {
		hooks.push(`stage ${event.eventId} ${event.target.stageId} ${event.status}/${event.previousStatus} ${event.delivery} r${event.cursor.revision}:${typeof event.cursor.epoch} ${event.ownerSessionId} ${event.occurredAt}`);
		hooks3();
	});
	pi.on("workflow_heartbeat" as any, (event: any) => {
		hooks.push(`heartbeat ${event.runId} ${event.scheduledAt} ${event.intervalMinutes}`);
		hooks3();
	});

	pi.registerTool({
		name: "wf",
		label: "Workflow",
		description: "publish workflow activity",
		parameters: { type: "object", properties: {} } as any,
		async execute() {
			pub.publishSnapshot({ availability: "ready", roots: [root("A", "working")] });
			pub.publishChanged(root("B", "idle"));
			pub.publishRemoved("A");
			pub.publishLifecycle({ type: "workflow_lifecycle", eventId: "ev-1", delivery: "live", ownerSessionId: "owner", occurredAt: 1700000000123, target: { kind: "stage", runId: "B", stageId: "s1", stageName: "build", previousStatus: "running", status: "completed" } });
			pub.publishHeartbeat({ type: "workflow_heartbeat", runId: "B", rootId: "B", ownerId: "owner", scheduledAt: 1700000000000, intervalMinutes: 5 });
			// The hooks of a replaced publisher that have not started are skipped: wait for them first.
			await Promise.race([hook, new Promise((resolve) => setTimeout(resolve, 5000))]);
			const pub2 = (pi as any).registerWorkflowActivityPublisher();
			pub.publishChanged(root("FENCED", "working"));
			pub2.publishSnapshot({ availability: "ready", roots: [] });
			await Promise.race([lastFrame, new Promise((resolve) => setTimeout(resolve, 5000))]);
			lease?.dispose();
			return { content: [{ type: "text", text: `WF ${frames.join(" | ")} || ${hooks.join(" | ")} || overlap=${overlap}` }], details: {} };
		},
	});
}
