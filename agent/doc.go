// Package agent is the agent loop: it sends the context to a provider, streams the assistant
// message, runs the tool calls it asks for (preflighted in source order, executed in parallel,
// finalised in source order — events.md §1.7) and repeats until the model stops calling tools,
// then drains the steering and follow-up queues.
//
// Every step is reported to the subscribers in emission order as a typed value: a pointer to the
// step's payload struct of the ext event table (*ext.AgentStart, *ext.TurnStart,
// *ext.MessageUpdate, *ext.ToolExecutionEnd, …), so the loop's facts have one vocabulary from the
// loop to the extensions and the front-ends. The loop knows nothing of sessions, files or the
// extension runner: the Hooks struct is the seam where the session acts (context transform,
// tool_call, tool_result).
//
// agent imports llm, tool and ext (for the payload types only; it never dispatches). Concurrency: one run at a time; the Agent's mutex guards its
// state and queues; events are delivered one at a time (a single emit lock) even while tool calls
// run in parallel, so subscribers need no locking of their own for ordering.
package agent
