// Package session is the live agent session (AgentSession): one agent loop bound to a session
// store, a model registry and a tool set. It restores the context from the store, persists every
// message as it ends, records model and thinking-level changes, and fans events out to the
// front-ends. Later issues add the extension runner, compaction and retry here.
//
// session imports agent, llm (and its providers), model, store, tool and resource; never a mode.
// Concurrency: a Session's methods may be called from any goroutine; mu guards its fields.
package session
