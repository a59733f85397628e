package tool

// DefaultNames are the built-in tools active by default, in prompt order (tools.md §14, pi).
var DefaultNames = []string{"read", "bash", "edit", "write"}

// AllNames are every built-in tool, in prompt order: DefaultNames, then grep, find and ls (pi's,
// available but off by default, tools.md §14) and search and todo (Atomic's, also off by default
// here, since atomic's default set is pi's) and ask_user_question (which needs a UI).
var AllNames = []string{"read", "bash", "edit", "write", "grep", "find", "ls", "search", "todo", "ask_user_question"}

// Options configure the built-in tools made by Builtins. Each tool's own options apply; a nil
// Queue in Edit or Write is replaced by Options.Queue.
type Options struct {
	Read  ReadOptions
	Bash  BashOptions
	Edit  EditOptions
	Write WriteOptions
	Ls    LsOptions
	Find  FindOptions
	Grep  GrepOptions
	// Search configures search; its Operations default to Grep's.
	Search SearchOptions
	Todo   TodoOptions
	// Queue is the mutation queue shared by edit and write; nil means DefaultMutationQueue.
	Queue *MutationQueue
}

// Builtins returns every built-in tool for the session working directory cwd, keyed by name (the
// keys of AllNames). Pick DefaultNames or a --tools list from it.
func Builtins(cwd string, opts Options) map[string]Tool {
	q := opts.Queue
	if q == nil {
		q = DefaultMutationQueue
	}
	if opts.Edit.Queue == nil {
		opts.Edit.Queue = q
	}
	if opts.Write.Queue == nil {
		opts.Write.Queue = q
	}
	if opts.Search.Operations == nil {
		opts.Search.Operations = opts.Grep.Operations
	}
	return map[string]Tool{
		"read":              NewRead(cwd, opts.Read),
		"bash":              NewBash(cwd, opts.Bash),
		"edit":              NewEdit(cwd, opts.Edit),
		"write":             NewWrite(cwd, opts.Write),
		"grep":              NewGrep(cwd, opts.Grep),
		"find":              NewFind(cwd, opts.Find),
		"ls":                NewLs(cwd, opts.Ls),
		"search":            NewSearch(cwd, opts.Search),
		"todo":              NewTodo(cwd, opts.Todo),
		"ask_user_question": NewAskUserQuestion(),
	}
}

// Select returns the tools of set named by names, in the order of names; unknown names are
// skipped.
func Select(set map[string]Tool, names []string) []Tool {
	out := make([]Tool, 0, len(names))
	for _, n := range names {
		if t, ok := set[n]; ok {
			out = append(out, t)
		}
	}
	return out
}
