// rpc-driver.mjs drives atomic with pi 0.73.1's own RpcClient (rpc_test.go runs it): a prompt
// with a tool call, get_messages, get_state, get_session_stats, bash, steer and abort mid-run, an
// extension's ctx.ui.confirm answered by the client, and new_session, with a TypeScript extension's
// footer and factory widget (rpc-components.ts) sending frames it never answers. It asserts as it goes,
// prints one JSON summary line on stdout, and exits 1 with the failure on stderr otherwise.
//
// Environment: ATOMIC_BIN (the atomic binary, built with the rpcui test extension),
// ATOMIC_CODING_AGENT_DIR (models.json with provider "fakellm", model "fake-model"), WORK (cwd).
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { RpcClient } from "@mariozechner/pi-coding-agent";

const here = path.dirname(fileURLToPath(import.meta.url));
const client = new RpcClient({
	cliPath: path.join(here, "atomic-shim.mjs"),
	cwd: process.env.WORK,
	provider: "fakellm",
	model: "fake-model",
	env: { ATOMIC_TEST_EXTENSIONS: "rpcui" },
	// A TypeScript extension with a footer factory and a re-rendering factory widget.
	args: ["-e", path.join(here, "rpc-components.ts")],
});

const events = [];
const uiRequests = [];
client.onEvent((e) => {
	events.push(e);
	if (e.type === "extension_ui_request") {
		uiRequests.push(e);
		if (e.method === "confirm") {
			// RpcClient has no method for dialog answers: write the frame on its stdin.
			client.process.stdin.write(`${JSON.stringify({ type: "extension_ui_response", id: e.id, confirmed: true })}\n`);
		}
	}
});

// nextEvent resolves with the first event from now on that matches pred.
function nextEvent(pred, ms = 10000) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			off();
			reject(new Error(`timed out waiting for an event; stderr: ${client.getStderr()}`));
		}, ms);
		const off = client.onEvent((e) => {
			if (pred(e)) {
				clearTimeout(timer);
				off();
				resolve(e);
			}
		});
	});
}

const roles = (msgs) => msgs.map((m) => m.role).join(",");
const summary = {};

try {
	await client.start();

	// 1. A prompt whose model calls the bash tool.
	const run1 = await client.promptAndWait("List the files here");
	const types = run1.map((e) => e.type);
	for (const t of ["agent_start", "turn_start", "message_start", "message_update", "tool_execution_start", "tool_execution_end", "turn_end", "message_end", "agent_end"]) {
		assert.ok(types.includes(t), `no ${t} event`);
	}
	const toolEnd = run1.find((e) => e.type === "tool_execution_end");
	assert.equal(toolEnd.toolName, "bash");
	assert.match(toolEnd.result.content[0].text, /a\.txt\nb\.txt/);
	const update = run1.find((e) => e.type === "message_update");
	assert.ok(update.assistantMessageEvent && update.assistantMessageEvent.type, "message_update without its delta");
	summary.events = types.length;

	// 2. get_messages and get_state.
	const msgs = await client.getMessages();
	assert.equal(roles(msgs), "user,assistant,toolResult,assistant");
	assert.equal(msgs[3].content[0].text, "There are two files.");
	const state = await client.getState();
	assert.equal(state.model.id, "fake-model");
	assert.equal(state.model.provider, "fakellm");
	assert.equal(state.isStreaming, false);
	assert.equal(state.messageCount, 4);
	assert.equal(state.thinkingLevel, "off");
	assert.equal(typeof state.sessionFile, "string");
	summary.sessionFile = state.sessionFile;
	summary.sessionId = state.sessionId;

	// 3. Session statistics.
	const stats = await client.getSessionStats();
	assert.equal(stats.userMessages, 1);
	assert.equal(stats.assistantMessages, 2);
	assert.equal(stats.toolCalls, 1);
	assert.equal(stats.toolResults, 1);
	assert.equal(stats.totalMessages, 4);
	assert.ok(stats.tokens.total > 0);
	assert.equal(stats.sessionId, state.sessionId);

	// 4. Direct bash: the result, then a bashExecution message in the context.
	const bash = await client.bash("echo from-bash");
	assert.deepEqual(bash, { output: "from-bash\n", exitCode: 0, cancelled: false, truncated: false });
	const afterBash = await client.getMessages();
	assert.equal(afterBash.at(-1).role, "bashExecution");
	assert.equal(afterBash.at(-1).command, "echo from-bash");

	// 5. steer mid-run: sent while the tool runs, delivered before the next model call.
	const idle5 = client.waitForIdle();
	const toolStarted = nextEvent((e) => e.type === "tool_execution_start");
	await client.prompt("Run the slow command");
	await toolStarted;
	await client.steer("Also check the tests");
	await idle5;
	const msgs5 = await client.getMessages();
	const steerAt = msgs5.findIndex((m) => m.role === "user" && m.content[0].text === "Also check the tests");
	assert.ok(steerAt > 0, `steer not in the context: ${roles(msgs5)}`);
	assert.equal(msgs5[steerAt - 1].role, "toolResult");
	assert.equal(msgs5.at(-1).content[0].text, "Saw the steer.");

	// 6. abort mid-run: the run ends aborted; abort answers once idle.
	const idle6 = client.waitForIdle();
	const streaming = nextEvent((e) => e.type === "message_update");
	await client.prompt("Tell me a long story");
	await streaming;
	await client.abort();
	await idle6;
	const state6 = await client.getState();
	assert.equal(state6.isStreaming, false);
	const msgs6 = await client.getMessages();
	assert.equal(msgs6.at(-1).role, "assistant");
	assert.equal(msgs6.at(-1).stopReason, "aborted");

	// 7. An extension command asks ctx.ui.confirm; the client answers yes.
	const told = nextEvent((e) => e.type === "extension_ui_request" && e.method === "notify");
	await client.prompt("/ask Proceed?");
	const note = await told;
	assert.equal(note.message, "confirmed=true hasUI=true mode=rpc");
	const confirm = uiRequests.find((r) => r.method === "confirm");
	assert.equal(confirm.title, "Confirm");
	assert.equal(confirm.message, "Proceed?");
	const commands = await client.getCommands();
	assert.deepEqual(commands.map((c) => c.name), ["ask", "quit"]);

	// 8. new_session: an empty session with a new id.
	assert.deepEqual(await client.newSession(), { cancelled: false });
	const state8 = await client.getState();
	assert.equal(state8.messageCount, 0);
	assert.notEqual(state8.sessionId, state.sessionId);

	// Errors reach the caller as rejected promises (an empty session has nothing to compact).
	await assert.rejects(client.compact(), /nothing to compact/);
	await assert.rejects(client.setModel("fakellm", "nope"), /Model not found: fakellm\/nope/);

	// 9. The TypeScript extension's footer, factory widget and overlay reached the client as lines,
	// the widget again as it re-rendered, with its placement; nothing waited for an answer.
	const footer = uiRequests.find((r) => r.method === "setFooter" && r.footerLines);
	assert.match(footer?.footerLines?.[0] ?? "", /^COMPONENT-FOOTER \d+$/);
	const ticks = uiRequests.filter((r) => r.method === "setWidget" && r.widgetKey === "ticker");
	assert.ok(ticks.length >= 2, `factory widget frames: ${ticks.length}`);
	assert.equal(ticks[0].widgetPlacement, "belowEditor");
	assert.ok(ticks.some((r) => (r.widgetLines?.[0] ?? "").trim() === "TICK 3"), JSON.stringify(ticks.map((r) => r.widgetLines)));
	const overlay = uiRequests.find((r) => r.method === "custom");
	assert.ok(overlay?.overlay === true && /^RPC-OVERLAY \d+$/.test(overlay.lines?.[0] ?? ""), JSON.stringify(overlay));

	summary.ok = true;
	console.log(JSON.stringify(summary));
} catch (err) {
	console.error(err?.stack ?? String(err));
	console.error(`atomic stderr:\n${client.getStderr()}`);
	process.exitCode = 1;
} finally {
	await client.stop();
}
