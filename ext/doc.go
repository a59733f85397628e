// Package ext is atomic's extension runtime: the event table (every event of
// ../shared/spec/events.md declared once, with its payload and result types, combine rule, error
// policy and buffers), the generic Runner that dispatches them, and the typed Go extension API.
//
// An extension is a Factory, func(api API) error. It subscribes with the generic On:
//
//	ext.On(api, func(ctx ext.Context, e *ext.ToolCall) (*ext.ToolCallResult, error) { … })
//
// Handlers run in extension load order, then registration order (events.md §1.1). The Runner
// folds their results by the event's Combine rule and applies its ErrorPolicy; no call site
// hand-rolls a combine loop. An event nobody subscribed to costs one slice-length check and no
// allocation.
//
// ext imports llm, model, store and tool, never the agent, a session or a front-end: what an
// extension can do to the session goes through the Host interface, which the session implements.
//
// Concurrency: registration and dispatch may happen from any goroutine; the Runner's handler
// lists are copy-on-write behind an atomic pointer, so a dispatch never holds a lock while a
// handler runs. Handlers of one dispatch run one after another on the emitting goroutine
// (session_shutdown's run concurrently, with a 2 s cap). A Context used after its session was
// replaced never panics: Err and the methods that return an error report a *StaleContextError,
// actions do nothing, getters answer about the replaced session, and Signal is done — so an
// extension's own goroutine holding an old Context cannot crash the process.
package ext
