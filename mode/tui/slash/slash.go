// Package slash is the interactive mode's slash-command list (tui.md §2): the built-in commands,
// then the commands extensions registered — read from the same registry RPC get_commands answers
// from (ext.Runner.Commands, with the :1/:2 suffixes of duplicate names) — and the autocomplete
// over both: fuzzy on the name after "/", argument completions after "/name ".
//
// slash imports ext and mode/tui/fuzzy; it holds no state and is safe for concurrent use.
package slash

import (
	"fmt"
	"strings"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/fuzzy"
)

// Builtin is a built-in interactive command (tui.md §2.1).
type Builtin struct {
	Name        string
	Description string
	// ArgHint is shown before the description ("<name>", "[file]"); "" when it takes none.
	ArgHint string
}

// Builtins are the built-in commands in autocomplete order (tui.md §2.1, the order of pi's and
// Atomic's slash-commands tables).
var Builtins = []Builtin{
	{Name: "settings", Description: "Open settings menu"},
	{Name: "model", Description: "Select model (opens selector UI)", ArgHint: "[provider/model]"},
	{Name: "scoped-models", Description: "Enable/disable models for Ctrl+P cycling"},
	{Name: "export", Description: "Export session (HTML default, or specify path: .html/.jsonl)", ArgHint: "[file]"},
	{Name: "copy", Description: "Copy last agent message to clipboard"},
	{Name: "name", Description: "Set session display name", ArgHint: "<name>"},
	{Name: "session", Description: "Show session info and stats"},
	{Name: "hotkeys", Description: "Show all keyboard shortcuts"},
	{Name: "fork", Description: "Create a new fork from a previous message"},
	{Name: "clone", Description: "Duplicate the current session at the current position"},
	{Name: "tree", Description: "Navigate session tree (switch branches)"},
	{Name: "trust", Description: "Trust or distrust this project's extensions and settings"},
	{Name: "new", Description: "Start a new session"},
	{Name: "compact", Description: "Manually compact the session context", ArgHint: "[instructions]"},
	{Name: "resume", Description: "Resume a different session"},
	{Name: "reload", Description: "Reload keybindings, extensions, skills, prompts, and themes"},
	{Name: "quit", Description: "Quit"},
	{Name: "exit", Description: "Quit"},
}

// IsBuiltin reports whether name is a built-in command's name (reserved even when hidden).
func IsBuiltin(name string) bool {
	for _, b := range Builtins {
		if b.Name == name {
			return true
		}
	}
	return false
}

// Source values of Item.
const (
	SourceBuiltin   = "builtin"
	SourceExtension = "extension"
)

// Item is one row of the slash autocomplete: Name without the "/".
type Item struct {
	Name        string
	Description string
	Source      string
	// Completes is true when the command completes its arguments.
	Completes bool
}

// Label is the row's description column: "<hint> — <description>" when there is a hint.
func (b Builtin) label() string {
	if b.ArgHint != "" {
		return b.ArgHint + " — " + b.Description
	}
	return b.Description
}

// List returns the autocomplete list: built-ins in table order, then the extension commands of
// cmds (ext.Runner.Commands) in their order. An extension command named like a built-in is left
// out, with the warning of tui.md §2.2 in warnings.
func List(cmds []ext.CommandInfo) (items []Item, warnings []string) {
	for _, b := range Builtins {
		items = append(items, Item{Name: b.Name, Description: b.label(), Source: SourceBuiltin, Completes: b.Name == "model"})
	}
	for _, c := range cmds {
		if IsBuiltin(c.Name) {
			warnings = append(warnings, fmt.Sprintf("Extension command '/%s' conflicts with built-in interactive command. Skipping in autocomplete.", c.Name))
			continue
		}
		desc := c.Description
		if desc == "" {
			desc = "(extension command)"
		}
		items = append(items, Item{Name: c.Name, Description: desc, Source: SourceExtension, Completes: c.HasArgumentCompletions})
	}
	return items, warnings
}

// Parse splits "/name args" into name and trimmed args; ok is false when text does not start
// with "/" or the name is empty.
func Parse(text string) (name, args string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	name, args, _ = strings.Cut(text[1:], " ")
	if name == "" || strings.ContainsAny(name, "\n\t") {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

// Suggestion is one completion: Value replaces the typed token, Label and Description are shown.
type Suggestion struct {
	Value, Label, Description string
}

// Names filters items for the text typed after "/" (no space yet): in list order when empty,
// else fuzzy on the name only, best first (tui.md §2.2). Each Value is "/name " (applying a
// command completion leaves a trailing space).
func Names(items []Item, typed string) []Suggestion {
	matched := fuzzy.Filter(items, typed, func(it Item) string { return it.Name })
	out := make([]Suggestion, len(matched))
	for i, it := range matched {
		out[i] = Suggestion{Value: "/" + it.Name + " ", Label: it.Name, Description: it.Description}
	}
	return out
}

// Context classifies editor text for autocomplete: inName when the text is "/" plus a partial
// name (no space); inArgs when it is "/name " plus a partial argument (name and argument prefix
// returned). Multi-line text is neither.
func Context(text string) (name, arg string, inName, inArgs bool) {
	if !strings.HasPrefix(text, "/") || strings.Contains(text, "\n") {
		return "", "", false, false
	}
	name, arg, spaced := strings.Cut(text[1:], " ")
	if !spaced {
		return name, "", true, false
	}
	return name, arg, false, true
}
