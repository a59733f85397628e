// Package session is the live agent session (AgentSession): one agent loop bound to a session
// store, a model registry, a tool set and the extension runner. It restores the context from the
// store, persists every message as it ends, records model and thinking-level changes, emits every
// extension event whose subsystem exists at its documented point (events.md), implements the
// extension Host, and fans events out to the front-ends. Runtime replaces the session on /new,
// /resume, /fork and reload with the documented lifecycle. Compaction (compaction*.go) runs the
// verbatim-lines compactor of package compact manually and on the threshold and overflow triggers.
//
// session imports agent, compact, ext, llm (and its providers), model, store, tool and resource; never a
// mode. Concurrency: a Session's methods may be called from any goroutine; mu guards its fields.
package session
