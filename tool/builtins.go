package tool

// DefaultNames are the built-in tools active by default, in prompt order (tools.md §14, pi).
var DefaultNames = []string{"read", "bash", "edit", "write"}

// AllNames are every built-in tool, in prompt order: DefaultNames, then grep, find and ls (pi's,
// available but off by default, tools.md §14) and search and todo (Atomic's, also off by default
// here, since atomic's default set is pi's) and ask_user_question (which needs a UI).
var AllNames = []string{"read", "bash", "edit", "write", "grep", "find", "ls", "search", "todo", "ask_user_question"}

// Names returns the names of the tools of set (from Builtins) in prompt order: AllNames, with
// powershell after bash where PowerShell is installed.
func Names(set map[string]Tool) []string {
	var out []string
	for _, n := range AllNames {
		if _, ok := set[n]; ok {
			out = append(out, n)
		}
		if _, ok := set["powershell"]; ok && n == "bash" {
			out = append(out, "powershell")
		}
	}
	return out
}

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
	// PowerShell is the PowerShell executable of the powershell tool; empty means FindPowerShell's,
	// and no tool when there is none. Bash's options apply to it too, except the bash-only
	// settings ShellPath and CommandPrefix.
	PowerShell string
	// Queue is the mutation queue shared by edit and write; nil means DefaultMutationQueue.
	Queue *MutationQueue
}

// Builtins returns every built-in tool for the session working directory cwd, keyed by name (the
// keys of AllNames, and powershell where PowerShell is installed, see Names). Pick DefaultNames
// or a --tools list from it.
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
	set := map[string]Tool{
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
	exe := opts.PowerShell
	if exe == "" {
		exe, _ = FindPowerShell()
	}
	if exe != "" {
		ps := opts.Bash
		ps.ShellPath, ps.CommandPrefix = "", ""
		set["powershell"] = NewPowerShell(cwd, exe, ps)
	}
	return set
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
