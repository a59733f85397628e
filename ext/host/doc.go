// Package host runs extension hosts: child processes that speak the extension protocol
// (ext/protocol, docs/extension-protocol.md) and load extensions written in other languages —
// the Node host of exthost/node runs the pi/Atomic TypeScript extensions unchanged.
//
// A Supervisor owns one child process and turns each extension path it serves into an
// ext.Factory: the runner loads it like a Go extension, and every registration the child makes
// (pi.on, registerTool, registerCommand, …) becomes the matching ext.API call with a proxy that
// forwards the dispatch to the child. Only subscribed events ever cross the process boundary,
// and an event carries its payload only: the child fetches context on demand with ctx.* calls.
//
// The Supervisor watches the child's heartbeat (every 50 ms): after a 250 ms gap it names the
// callback in progress, after 1 s it declares the host unresponsive. A crash or a hang never
// hangs the agent: pending calls fail (a tool_call handler's failure blocks the call, since
// tool_call is fail-closed), the host is restarted and re-initialized with the extensions of the
// current runtime, and the run goes on.
//
// host imports ext, ext/protocol, llm, store, tool and internal/procgroup, never a session or a
// front-end.
//
// Concurrency: one goroutine reads the child's main channel and applies registrations and
// fire-and-forget UI calls in order; one serves the sync channel, answering each request only
// after the main-channel messages written before it were processed; each asynchronous request
// from the child runs on its own goroutine; a worker goroutine delivers pi.events messages in
// order. Calls into the child block their caller, never a lock. Supervisor.mu guards the process
// and the generations (taken before generation.mu); process.mu guards the pending calls. Every
// goroutine ends with the child process or with Close.
package host
