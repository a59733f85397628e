package tool

import (
	"context"
	"encoding/json"

	"github.com/atomic-cli/atomic/llm"
)

// Tool is a capability the model can call (tools.md §1). Implementations must be safe for concurrent
// Execute calls: the agent runs the calls of one assistant message in parallel.
type Tool interface {
	// Name is the tool name the model uses, e.g. "read".
	Name() string
	// Description is the text the model reads to decide when to call the tool.
	Description() string
	// Parameters is the JSON Schema (draft 2020-12 compatible) of the arguments object.
	Parameters() json.RawMessage
	// Execute runs one call. args has been validated against Parameters. onUpdate, never nil,
	// may be called any number of times with a cumulative partial result before Execute returns.
	// An error becomes an error tool result whose text is err.Error(); ctx is cancelled on abort.
	Execute(ctx context.Context, call Call, onUpdate func(Result)) (Result, error)
}

// Call is one invocation of a tool.
type Call struct {
	ID   string         // the model's tool call id
	Name string         // the tool name
	Args map[string]any // decoded, validated arguments
}

// Result is what a tool returns: content for the model, details for front-ends and the session.
type Result struct {
	Content []llm.Content `json:"content"`
	Details any           `json:"details,omitempty"`
	// IsError marks a result that reports a failure without being a Go error (for example bash
	// with a non-zero exit code).
	IsError bool `json:"-"`
	// Terminate asks the agent to stop after this batch of tool calls; it takes effect only when
	// every result of the batch terminates (events.md §3.6).
	Terminate bool `json:"-"`
}

// TextResult returns a result with one text block.
func TextResult(text string, details any) Result {
	return Result{Content: []llm.Content{llm.Text(text)}, Details: details}
}

// Labeler is optionally implemented by a tool with a human label for front-ends.
type Labeler interface{ Label() string }

// Prompter is optionally implemented by a tool that contributes to the default system prompt:
// a one-line snippet for the "Available tools" list and guideline bullets (config-and-resources.md §12).
type Prompter interface {
	PromptSnippet() string
	PromptGuidelines() []string
}

// ArgumentPreparer is optionally implemented by a tool that rewrites raw arguments before they
// are validated against Parameters, to accept older or malformed shapes a model still sends
// (later pi's prepareArguments; the edit tool folds legacy oldText/newText into edits[]). The
// agent calls it once per call, before validation; it must not mutate args in place.
type ArgumentPreparer interface {
	PrepareArguments(args map[string]any) map[string]any
}

// Sequencer is implemented by tools whose calls must not overlap (pi's executionMode
// "sequential"): when Sequential reports true for a tool called in a batch, the agent runs the
// whole batch one call at a time.
type Sequencer interface {
	Sequential() bool
}

// StartReporter is implemented by tools whose Execute hands each call to another executor (an
// extension host) and says so with Started(ctx) once it has: in a parallel batch the agent starts
// the next call only then (or when Execute returned), so the calls reach that executor in the
// model's order, as pi starts each execute in order (pi's todo example numbers its items by it).
// ReportsStart false makes the tool an ordinary parallel one.
type StartReporter interface {
	ReportsStart() bool
}

// startedKey is the context key of the hook Started calls.
type startedKey struct{}

// WithStarted returns ctx carrying fn for Started to call (the agent's, for a StartReporter).
func WithStarted(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, startedKey{}, fn)
}

// Started tells the agent that the call of ctx has been handed to its executor; a no-op when
// ctx carries no hook. It may be called more than once.
func Started(ctx context.Context) {
	if fn, ok := ctx.Value(startedKey{}).(func()); ok {
		fn()
	}
}

// Sourced is optionally implemented by a tool that atomic offers but that comes from outside
// it, such as a tool of an MCP server: Source names where it comes from for getAllTools'
// sourceInfo (path, e.g. "mcp:github"; source, e.g. "mcp"). Tools without it are "builtin".
type Sourced interface {
	Source() (path, source string)
}
