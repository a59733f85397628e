// Package agent is the agent loop: it sends the context to a provider, streams the assistant
// message, runs the tool calls it asks for (preflighted in source order, executed in parallel,
// finalised in source order — events.md §1.7) and repeats until the model stops calling tools,
// then drains the steering and follow-up queues.
//
// Every step is reported as an Event to the subscribers in emission order. The loop knows nothing
// of sessions, files or extensions: the Hooks struct is the seam where the session and the
// extension runner act (context transform, tool_call, tool_result).
//
// agent imports llm and tool only. Concurrency: one run at a time; the Agent's mutex guards its
// state and queues; events are delivered one at a time (a single emit lock) even while tool calls
// run in parallel, so subscribers need no locking of their own for ordering.
package agent
