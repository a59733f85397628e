package tool

import "context"

// Env is what a built-in tool may learn about, and ask of, the session that runs it: todo's
// claims name the session, ask_user_question shows dialogs. The session puts it in the context
// of every tool call (WithEnv); a tool run without one (a unit test, an extension's
// createSearchTool) sees no session and no UI.
type Env interface {
	// SessionID is the session's id; "" when unknown.
	SessionID() string
	// SessionFile is the session's file; "" for an unsaved session.
	SessionFile() string
	// Dialogs returns the session's dialogs, or nil when it has no UI (print and JSON mode).
	Dialogs() Dialogs
}

// Dialogs are the UI dialogs a tool may show (the extension UI's select, input and confirm): the
// terminal UI shows them, RPC mode sends them as extension_ui_request. Each blocks until the user
// answers or ctx ends.
type Dialogs interface {
	// Select asks the user to pick one of options; ok is false when dismissed.
	Select(ctx context.Context, title string, options []string) (choice string, ok bool)
	// Input asks for a line of text; ok is false when dismissed.
	Input(ctx context.Context, title, placeholder string) (text string, ok bool)
	// Confirm asks a yes/no question; false when dismissed.
	Confirm(ctx context.Context, title, message string) bool
}

type envKey struct{}

// WithEnv returns ctx carrying env for the tool calls run with it.
func WithEnv(ctx context.Context, env Env) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// EnvFrom returns the Env of ctx, or nil.
func EnvFrom(ctx context.Context) Env {
	e, _ := ctx.Value(envKey{}).(Env)
	return e
}
