// Package command is the slash-command registry of the interactive mode (tui.md §2) and the Host
// interface commands and dialogs act on the screen through.
//
// A built-in command is a Command value added to the registry once, at start-up (Register fails
// loudly on a duplicate or malformed name). Its Run is called on the Bubble Tea goroutine with the
// trimmed argument text; work that blocks (session replacement, compaction, exports, anything
// that waits on extensions) must go into the returned tea.Cmd, which Bubble Tea runs on its own
// goroutine; to touch the screen again from there, return a Do message.
//
// command imports session, ext, llm, mcp, model, store, resource, export, internal/procgroup, `.`
// (the module root, for the changelog), mode/tui/component, mode/tui/fuzzy, mode/tui/keys,
// mode/tui/selector, mode/tui/slot and mode/tui/theme; mode/tui imports it. Nothing here is safe for concurrent use except Do messages.
package command

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/theme"
	"github.com/atomic-cli/atomic/session"
)

// Host is the interactive screen as commands and dialogs see it. Every method must be called on
// the Bubble Tea goroutine: inside Command.Run, a Dialog's HandleKey/Update, or a Do message.
type Host interface {
	// Runtime is the session runtime (the live session is Runtime().Session()).
	Runtime() *session.Runtime
	// Theme is the current theme; Keys the effective keybindings.
	Theme() *theme.Theme
	Keys() *keys.Map
	// Size is the terminal size in cells.
	Size() (width, height int)
	// ShowDialog puts d in the editor slot with the keyboard until d.Done(); the editor text is
	// kept. Showing a dialog while another is shown stacks it on top.
	ShowDialog(d component.Dialog)
	// Notify adds a notice to the transcript: level info (dim), warning or error (tui.md §1.5).
	Notify(level, text string)
	// EditorText and SetEditorText read and replace the editor's text.
	EditorText() string
	SetEditorText(text string)
	// Submit sends text as if the user typed it and pressed Enter (prompt, steer or command).
	Submit(text string) tea.Cmd
	// Reload rebuilds the transcript, footer and header from the live session (after the session
	// was replaced or its tree moved).
	Reload()
	// ToolsExpanded reports and SetToolsExpanded sets the global expand flag (app.tools.expand).
	ToolsExpanded() bool
	SetToolsExpanded(on bool)
	// SetTheme switches the theme and re-renders everything.
	SetTheme(t *theme.Theme)
	// Commands is the registry (for /hotkeys, autocomplete).
	Commands() *Registry
	// Quit shuts the session down (session_shutdown) and ends the program.
	Quit() tea.Cmd
}

// Do is a message that runs a function on the Bubble Tea goroutine with the Host: the way a
// tea.Cmd started by a command comes back to the screen.
type Do func(h Host) tea.Cmd

// Completion is one argument completion (tui.md §2.2).
type Completion struct {
	Value       string
	Label       string
	Description string
}

// Command is a built-in slash command.
type Command struct {
	// Name without the slash: lower-case letters, digits, '-', '_', ':'.
	Name string
	// Description is shown in the autocomplete list and /hotkeys.
	Description string
	// ArgumentHint is shown before the description ("<name>", "[file]").
	ArgumentHint string
	// Hidden keeps the command out of autocomplete (still runs when typed).
	Hidden bool
	// Run runs the command with the trimmed argument text (empty when none).
	Run func(h Host, args string) tea.Cmd
	// Complete returns argument completions for the text after "/name "; nil for none.
	Complete func(h Host, prefix string) []Completion
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_:-]*$`)

// Registry holds the built-in commands in registration order.
type Registry struct {
	list   []*Command
	byName map[string]*Command
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]*Command{}} }

// Register adds c. A malformed name, a nil Run or a duplicate name is an error naming it.
func (r *Registry) Register(c Command) error {
	if !nameRE.MatchString(c.Name) {
		return fmt.Errorf("command: register /%s: bad name (lower-case letters, digits, - _ :)", c.Name)
	}
	if c.Run == nil {
		return fmt.Errorf("command: register /%s: no Run", c.Name)
	}
	if _, dup := r.byName[c.Name]; dup {
		return fmt.Errorf("command: register /%s: already registered", c.Name)
	}
	cc := c
	r.list = append(r.list, &cc)
	r.byName[c.Name] = &cc
	return nil
}

// MustRegister is Register that panics: for the built-in table, where a bad entry is a bug.
func (r *Registry) MustRegister(cs ...Command) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

// Lookup returns the command called name.
func (r *Registry) Lookup(name string) (*Command, bool) {
	c, ok := r.byName[name]
	return c, ok
}

// List returns the commands in registration order, hidden ones left out.
func (r *Registry) List() []*Command {
	out := make([]*Command, 0, len(r.list))
	for _, c := range r.list {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// Names returns every registered name, sorted (reserved names for extension conflicts).
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.byName))
	for n := range r.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Parse splits a submitted line into a command name and its argument text. ok is false when the
// line is not `/name` or `/name args`.
func Parse(line string) (name, args string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") || len(line) < 2 {
		return "", "", false
	}
	name, args, _ = strings.Cut(line[1:], " ")
	return name, strings.TrimSpace(args), true
}

// builtins are the commands every registry starts with, appended by init functions of this
// package's files (one file per command or group).
var builtins []Command

// Builtins returns a registry holding the built-in commands, in table order (tui.md §2.1).
func Builtins() *Registry {
	r := NewRegistry()
	order := map[string]int{}
	for i, n := range tableOrder {
		order[n] = i
	}
	cs := append([]Command(nil), builtins...)
	sort.SliceStable(cs, func(i, j int) bool {
		oi, ok1 := order[cs[i].Name]
		oj, ok2 := order[cs[j].Name]
		switch {
		case ok1 && ok2:
			return oi < oj
		case ok1 != ok2:
			return ok1
		}
		return false
	})
	r.MustRegister(cs...)
	return r
}

// tableOrder is the built-in order of tui.md §2.1 (autocomplete keeps it for an empty prefix).
var tableOrder = []string{
	"settings", "model", "scoped-models", "export", "import", "share", "copy", "name", "session",
	"changelog", "hotkeys", "fork", "clone", "tree", "trust", "login", "logout", "new", "compact",
	"resume", "reload", "quit", "exit",
}

func add(cs ...Command) { builtins = append(builtins, cs...) }

func init() {
	quit := func(h Host, _ string) tea.Cmd { return h.Quit() }
	add(
		Command{Name: "quit", Description: "Quit atomic", Run: quit},
		Command{Name: "exit", Description: "Quit atomic", Run: quit},
	)
}
