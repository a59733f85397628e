package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/resource"
	"golang.org/x/term"
)

// version is the release of atomic; set at build time with -ldflags "-X github.com/atomic-cli/atomic/cli.version=…".
var version = "0.1.0-dev"

// Options is the parsed command line (config-and-resources.md §16).
type Options struct {
	Print              bool
	Mode               string
	Continue           bool
	Resume             string
	Session            string
	SessionDir         string
	NoSession          bool
	Provider           string
	Model              string
	APIKey             string
	Thinking           string
	ListModels         bool
	SystemPrompt       string
	AppendSystemPrompt []string
	Tools              string
	NoTools            bool
	// NoBuiltinTools (--no-builtin-tools) starts without the built-in tools; extension tools
	// stay active (seed 004).
	NoBuiltinTools bool
	// ExcludeTools (--exclude-tools, -xt; repeatable, comma-separated) are tools never offered,
	// built-in, MCP and extension tools alike, applied after --tools (Atomic's denylist).
	ExcludeTools   []string
	NoContextFiles bool
	// Skills and templates (config-and-resources.md §10–11): --skill, --no-skills,
	// --prompt-template, --no-prompt-templates (resources.go).
	SkillPaths        []string
	NoSkills          bool
	TemplatePaths     []string
	NoPromptTemplates bool
	// ThemePaths (--theme, repeatable) add theme files or directories; NoThemes (--no-themes)
	// skips the discovered ones (config-and-resources.md §13; resources.go).
	ThemePaths   []string
	NoThemes     bool
	resMu        sync.Mutex                 // guards skills and templates: /reload rewrites them while extensions rebuild the prompt
	skills       []resource.Skill           // discovered by loadResources
	templates    []resource.PromptTemplate  // discovered by loadResources
	tempPackages resource.PackageResources  // the skills, prompts and themes of -e npm:/git: packages (packages.go)
	extResources resource.PackageResources  // the paths extensions returned from resources_discover (guarded by resMu)
	tempExtInfo  map[string]resource.Origin // the -e npm:/git: packages' extension files: their package (sourceInfo)
	Version      bool
	Offline      bool
	Verbose      bool
	Replay       string
	// Export is --export <session.jsonl>: write the session as HTML and exit (export.go).
	Export string

	// ExtensionFlags are the unknown --name[=value] options, for flags extensions register.
	ExtensionFlags []extensionFlag

	// Extensions are the Go extensions compiled in; ExtensionPaths name them.
	Extensions     []ext.Factory
	ExtensionPaths []string

	// Extension loading: -e/--extension, --no-extensions, --approve (extensions.go).
	extensionFlagsOptions

	// Messages are the positional prompts; Files the @path attachments, in order.
	Messages []string
	Files    []string

	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StdinIsTTY and StdoutIsTTY say whether the streams are terminals.
	StdinIsTTY, StdoutIsTTY bool
	// Getenv reads the environment (tests inject theirs).
	Getenv func(string) string

	// warned holds the warnings warnOnce printed (one file is read by several loaders).
	warned map[string]bool
}

// warnOnce prints "Warning: <err>" on Stderr unless the same text was printed already in this
// run: settings.json, for one, is read by the settings, the extension discovery and the package
// loaders, and a broken file is reported once.
func (o *Options) warnOnce(err error) {
	text := err.Error()
	if o.warned[text] {
		return
	}
	if o.warned == nil {
		o.warned = map[string]bool{}
	}
	o.warned[text] = true
	fmt.Fprintf(o.Stderr, "Warning: %s\n", text)
}

// newRootCmd builds the cobra command that parses into opts and calls run.
func newRootCmd(opts *Options, run func(*Options) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "atomic [options] [@files...] [messages...]",
		Short: "atomic — an extensible coding agent",
		Long: `atomic is a coding agent: give it a task and it reads, edits and runs code in the
current directory with the tools it has, saving the conversation as a resumable session.

Examples:
  atomic -p "fix the failing test"          run one prompt, print the answer
  echo "explain main.go" | atomic -p        prompt from stdin
  atomic --mode json "list the files"       stream every event as JSON lines
  atomic -c -p "now add a test"             continue the most recent session here
  atomic --model anthropic/claude-sonnet-4-5 -p "…"
  atomic --list-models                      models you have credentials for`,
		Args:                  cobra.ArbitraryArgs,
		DisableFlagsInUseLine: true,
		SilenceUsage:          true,
		SilenceErrors:         true,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if strings.HasPrefix(a, "@") && len(a) > 1 {
					opts.Files = append(opts.Files, a[1:])
				} else {
					opts.Messages = append(opts.Messages, a)
				}
			}
			return run(opts)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.BoolVarP(&opts.Print, "print", "p", false, "non-interactive: run the prompts, print the final answer and exit")
	f.StringVar(&opts.Mode, "mode", "", "output mode: text (same as -p), json (one event per line) or rpc (JSONL commands on stdin)")
	f.BoolVarP(&opts.Continue, "continue", "c", false, "continue the most recent session of this directory")
	f.StringVarP(&opts.Resume, "resume", "r", "", "resume a session by id, id prefix or file path")
	f.StringVar(&opts.Session, "session", "", "use this session: a file path (created if it does not exist), or a session id or id prefix")
	f.StringVar(&opts.SessionDir, "session-dir", "", "directory for session files")
	f.BoolVar(&opts.NoSession, "no-session", false, "do not save the session")
	f.StringVar(&opts.Provider, "provider", "", "provider of the model (anthropic, openai, or one from models.json)")
	f.StringVar(&opts.Model, "model", "", "model: id, provider/id or a partial name, with an optional :thinking suffix")
	f.StringVar(&opts.APIKey, "api-key", "", "API key for the chosen model's provider (not saved)")
	f.StringVar(&opts.Thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh")
	f.BoolVar(&opts.ListModels, "list-models", false, "list the models you have credentials for and exit (a message filters them)")
	f.StringVar(&opts.SystemPrompt, "system-prompt", "", "replace the base system prompt (text or a file)")
	f.StringArrayVar(&opts.AppendSystemPrompt, "append-system-prompt", nil, "append to the system prompt (text or a file; repeatable)")
	f.StringVarP(&opts.Tools, "tools", "t", "", "comma-separated built-in tools to enable (default read,bash,edit,write; also grep,find,ls,search,todo,ask_user_question, and powershell where installed)")
	f.BoolVar(&opts.NoTools, "no-tools", false, "disable all tools (also -nt)")
	f.BoolVar(&opts.NoBuiltinTools, "no-builtin-tools", false, "start without the built-in tools; extension tools stay enabled")
	f.StringArrayVar(&opts.ExcludeTools, "exclude-tools", nil, "comma-separated tools to disable, built-in, MCP and extension tools alike (also -xt; repeatable)")
	f.BoolVar(&opts.NoContextFiles, "no-context-files", false, "do not load AGENTS.md / CLAUDE.md (also -nc)")
	f.StringArrayVar(&opts.SkillPaths, "skill", nil, "load a skill file or directory (repeatable; also with --no-skills)")
	f.BoolVar(&opts.NoSkills, "no-skills", false, "do not discover skills (also -ns)")
	f.StringArrayVar(&opts.TemplatePaths, "prompt-template", nil, "load a prompt template file or directory (repeatable)")
	f.BoolVar(&opts.NoPromptTemplates, "no-prompt-templates", false, "do not discover prompt templates (also -np)")
	f.StringArrayVar(&opts.ThemePaths, "theme", nil, "load a theme file or a directory of them (repeatable; also with --no-themes)")
	f.BoolVar(&opts.NoThemes, "no-themes", false, "do not discover themes (agent dir, project, packages, settings)")
	f.BoolVar(&opts.Offline, "offline", false, "no start-up network operations (atomic makes none; accepted for compatibility)")
	f.BoolVar(&opts.Verbose, "verbose", false, "print start-up diagnostics to stderr")
	f.StringVar(&opts.Replay, "replay", "", "play a recorded provider replay file instead of calling a provider (offline demo)")
	f.StringVar(&opts.Export, "export", "", "write a session file as a self-contained HTML page and exit: --export <session.jsonl> [out.html]")
	f.BoolVarP(&opts.Version, "version", "v", false, "print the version and exit")
	addExtensionFlags(f, &opts.extensionFlagsOptions) // extensions.go
	cmd.AddCommand(newEventsCmd(opts))
	cmd.AddCommand(newMCPCmd(opts))         // mcp.go
	cmd.AddCommand(newPackageCmds(opts)...) // packages.go
	cmd.SetIn(opts.Stdin)
	cmd.SetOut(opts.Stdout)
	cmd.SetErr(opts.Stderr)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun 'atomic --help' for usage.", err)
	})
	return cmd
}

// isTerminal reports whether f is a terminal (not merely a character device such as /dev/null).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// newEventsCmd is `atomic events --json`: the event table (events.md §5) with each event's rules
// and payload and result fields.
func newEventsCmd(opts *Options) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "events",
		Short: "print the extension event table",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				b, err := ext.TableJSON()
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(opts.Stdout, "%s\n", b)
				return err
			}
			fmt.Fprintf(opts.Stdout, "%-26s %-12s %-11s %-8s %-8s %s\n", "EVENT", "COMBINE", "ERRORS", "DELIVERY", "EMITTED", "WHEN")
			for _, s := range ext.Table {
				fmt.Fprintf(opts.Stdout, "%-26s %-12s %-11s %-8s %-8s %s\n", s.Name, s.Combine, s.Errors,
					map[bool]string{true: "awaited", false: "async"}[s.Awaited], map[bool]string{true: "yes", false: "not yet"}[s.Emitted], s.Doc)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
