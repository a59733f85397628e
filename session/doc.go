// Package session is the live agent session (AgentSession): one agent loop bound to a session
// store, a model registry, a tool set and the extension runner. It restores the context from the
// store, persists every message as it ends, records model and thinking-level changes, emits every
// extension event whose subsystem exists at its documented point (events.md), implements the
// extension Host, and fans events out to the front-ends. Runtime replaces the session on /new,
// /resume, /fork and reload with the documented lifecycle. Compaction (compaction*.go) runs the
// verbatim-lines compactor of package compact manually and on the threshold and overflow triggers.
//
// # The front-end stream
//
// Every session fact is emitted once (emit.go): the extension handlers run by the fact's ext table
// row, then, when the row has a Stream name, the fact is published to the front-ends as an Event
// {Type, Payload} whose Payload is the typed ext payload (*ext.MessageUpdate, *ext.ModelSelect, …)
// or a session type (*SessionStarted, announcing a replacement). A front-end subscribes to the
// Runtime (it follows /new, /resume, /fork, reload) or to a Session:
//
//	sub := rt.Subscribe(func(e session.Event) { … }, session.SubscribeOptions{Coalesce: true})
//	defer sub.Close()
//
// Delivery contract: each Subscriber has its own goroutine and an unbounded queue, so a slow or
// blocked subscriber never slows the agent loop and may call back into the session. Events
// arrive in publication order, one at a time, lossless; the only exception is Coalesce, which
// merges a subscriber's still-queued deltas (message_update, tool_execution_update of one call)
// into the newest one. Payloads are shared and immutable once published. Subscriber.Do runs a
// function in order with the events (RPC mode writes its responses that way); Sync waits for the
// queue; Close detaches, drains and stops. docs/frontend-stream.md is the guide for front-end
// authors.
//
// # The command path
//
// A Runtime owns the one serialised path of front-end commands (commands.go): a front-end gets a
// Commands handle and submits each command on a Lane — Ordered (one at a time, in submission
// order, across handles), Interrupt (at once) or Job (its own goroutine) — under the handle's
// context, which its Close cancels. Session replacements are serialised by the Runtime (two
// started together run one after the other); work extensions start runs under the session's own
// context, which Shutdown cancels; the model and thinking level are owned by the agent's
// configuration.
//
// session imports agent, compact, ext, llm, mcp, model, store, tool and resource; never a mode, and
// never a provider package: it streams through the wire APIs registered with llm.RegisterAPI (a
// binary links them with llm/providers). Concurrency: a Session's methods may be called from any
// goroutine; mu guards its fields; the stream's publication order is owned by its mutex, each
// subscriber's queue by its own.
package session
