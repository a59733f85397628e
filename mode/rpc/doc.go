// Package rpc is RPC mode (`--mode rpc`, rpc-and-json.md §1–§6, the Atomic column): editors, bots
// and scripts drive a session.Runtime over stdin and stdout with strict JSONL.
//
// Stdin carries commands ({"type": …, "id"?: …}) and extension_ui_response frames; stdout carries
// responses ({"type":"response", "command", "success", "id"?, "data"? | "error"}), every session
// event as it happens (the JSON-mode encoding of session.Event.AppendJSON) and the
// extension_ui_request frames of the extension UI sub-protocol.
//
// Lanes (rpc-and-json.md §2.1, Atomic): ordinary commands run one at a time in arrival order on
// the worker goroutine, so a get_state sent after a prompt sees the prompt accepted. The
// interrupts (abort, abort_bash, abort_retry, abort_compaction, clear_queue and the other
// admission commands) and extension_ui_response frames jump that queue: the reader goroutine
// handles them as they arrive. bash and user_bash are independent jobs, each on its own goroutine,
// correlated by their id. Every command frame is answered exactly once; a frame that is not JSON
// gets a "parse" error response and the next frame is served.
//
// prompt is answered after its preflight (Atomic): when the extension command or input hook
// handled it, when it was queued with streamingBehavior, or just before its agent_start event;
// a failure before that point is its single error response.
//
// message_update carries the delta and the cumulative usage, never the partial message (Atomic).
// pi's RpcClient keeps working with it: the client correlates responses by id and hands every
// other line to its listeners without reading message_update's fields; its waitForIdle and
// collectEvents end on agent_end, which is emitted. A client that needs the cumulative message
// rebuilds it from the deltas or reads message_end, which carries the final message.
//
// Concurrency: Server's mutable state is owned by mu (the queue, the bash jobs, the settings) or by
// the dialog table's own mutex. Every stdout line (events, responses, extension_error, dialog
// requests, bash updates) is written by one session.Subscriber goroutine, events as they are
// published and the others through Subscriber.Do, so lines keep their causal order and no write
// runs on the agent loop. Every goroutine the Server
// starts, except the stdin reader (which ends at EOF), has ended when Serve returns.
//
// rpc imports session, ext, llm, mcp, store, export and mode/json; nothing imports it but cli.
package rpc
