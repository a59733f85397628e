// Package compact is Atomic's verbatim-lines compactor (seed 000 "session_before_compact",
// seed 004 "ctx.compact()", session-format.md §5.4 and §7): the compactable region of a
// transcript is rendered as plain lines, a planner model sees them numbered and answers only with
// the ranges of lines to delete, and the retained text is rebuilt mechanically, each elided span
// marked "(filtered N lines)". The model never authors context text.
//
// The package is pure functions: Render and RenderMessage (the transcript grammar shared with
// store's context building), PlannerPrompt, ParseRanges (strict answer format and validation),
// Reconstruct and the Stats of a run. It imports llm and nothing else of atomic, so store may
// import it. Everything here is safe for concurrent use.
package compact
