package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/atomic-cli/atomic/tool"
)

// ToolDefinition is a tool an extension registers (seed 004, "Tool Definition"). Name,
// Description, Parameters (a JSON Schema object) and Execute are required.
type ToolDefinition struct {
	Name             string
	Label            string
	Description      string
	Parameters       json.RawMessage
	PromptSnippet    string
	PromptGuidelines []string
	// PrepareArguments rewrites raw arguments before validation (optional).
	PrepareArguments func(args map[string]any) map[string]any
	// Sequential is pi's executionMode "sequential": a batch holding a call of this tool runs
	// its calls one at a time (tool.Sequencer).
	Sequential bool
	// ReportsStart says Execute calls tool.Started(ctx) once the call reached where it runs (an
	// extension host's tools): parallel calls then start in the model's order
	// (tool.StartReporter).
	ReportsStart bool
	// Execute runs one call: c is a fresh ExtensionContext, onUpdate streams partial results, and
	// ctx is cancelled on abort. Set Result.Terminate to end the batch.
	Execute func(ctx context.Context, c Context, call tool.Call, onUpdate func(tool.Result)) (tool.Result, error)
	// Renderer draws the tool's rows in the terminal UI (renderCall / renderResult /
	// renderShell, ui_render.go); nil: the built-in rendering.
	Renderer ToolRenderer
}

func (d *ToolDefinition) validate() error {
	switch {
	case d.Name == "":
		return errors.New("a tool needs a name")
	case d.Execute == nil:
		return fmt.Errorf("tool %q has no execute function", d.Name)
	case len(d.Parameters) == 0:
		d.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var probe map[string]any
	if err := json.Unmarshal(d.Parameters, &probe); err != nil {
		return fmt.Errorf("tool %q: parameters are not a JSON Schema object: %v", d.Name, err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(d.Parameters, &s); err != nil {
		return fmt.Errorf("tool %q: invalid parameter schema: %v", d.Name, err)
	}
	if _, err := s.Resolve(nil); err != nil {
		return fmt.Errorf("tool %q: invalid parameter schema: %v", d.Name, err)
	}
	return nil
}

// DefineTool builds a ToolDefinition whose JSON Schema is derived from the Go type P (fields by
// their json names; omitempty fields optional) and whose handler receives decoded P.
func DefineTool[P any](name, description string, execute func(ctx context.Context, c Context, id string, params P, onUpdate func(tool.Result)) (tool.Result, error)) ToolDefinition {
	schema, err := jsonschema.For[P](nil)
	var raw json.RawMessage
	if err == nil {
		raw, err = json.Marshal(schema)
	}
	if err != nil {
		panic(fmt.Sprintf("ext.DefineTool %s: cannot derive a JSON Schema from %T: %v", name, *new(P), err))
	}
	return ToolDefinition{
		Name: name, Description: description, Parameters: raw,
		Execute: func(ctx context.Context, c Context, call tool.Call, onUpdate func(tool.Result)) (tool.Result, error) {
			var p P
			b, err := json.Marshal(call.Args)
			if err == nil {
				err = json.Unmarshal(b, &p)
			}
			if err != nil {
				return tool.Result{}, fmt.Errorf("tool %s: arguments do not fit %T: %w", name, p, err)
			}
			return execute(ctx, c, call.ID, p, onUpdate)
		},
	}
}

// Command is a slash command (registerCommand).
type Command struct {
	Description string
	// Handler runs `/name args` with an ExtensionCommandContext.
	Handler func(ctx context.Context, c CommandContext, args string) error
	// Completions returns the argument completions for a prefix (optional;
	// getArgumentCompletions): each item's Value replaces the argument, Label (Value when empty)
	// and Description are what the list shows.
	Completions func(prefix string) []AutocompleteItem
}

// CommandInfo describes a registered command (getCommands), with where it came from.
type CommandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// ArgumentHint is a prompt template's `argument-hint` (Atomic); empty for other commands.
	ArgumentHint string `json:"argumentHint,omitempty"`
	// HasArgumentCompletions is true when the command completes its arguments (Atomic's
	// RpcSlashCommand, rpc-and-json.md §3; the TUI's autocomplete asks only these).
	HasArgumentCompletions bool       `json:"hasArgumentCompletions,omitempty"`
	Source                 string     `json:"source"`
	SourceInfo             SourceInfo `json:"sourceInfo"`
}

// SourceInfo says where a command comes from: the extension that registered it, or the file of a
// prompt template or skill. Source ("auto", "local", "cli"), Scope ("user", "project",
// "temporary") and BaseDir follow pi's sourceInfo; they are empty for extension commands.
type SourceInfo struct {
	Path    string `json:"path"`
	Source  string `json:"source,omitempty"`
	Scope   string `json:"scope,omitempty"`
	Origin  string `json:"origin,omitempty"`
	BaseDir string `json:"baseDir,omitempty"`
}

// Shortcut is a key binding (registerShortcut).
type Shortcut struct {
	Description string
	Handler     func(ctx context.Context, c Context) error
}

// Flag is a command-line flag (registerFlag): --name, or --name=value for string flags.
type Flag struct {
	Description string
	Type        string // boolean|string
	Default     any
}

// ToolInfo describes a tool for getAllTools.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// PromptGuidelines are the tool's guideline bullets for the system prompt.
	PromptGuidelines []string   `json:"promptGuidelines,omitempty"`
	SourceInfo       SourceInfo `json:"sourceInfo"`
}

// registry holds what extensions registered. mu guards all of it.
type registry struct {
	mu        sync.Mutex
	tools     []regTool
	commands  []regCommand
	shortcuts map[string]regShortcut
	flags     map[string]*regFlag
	msgRender map[string]any
	entRender map[string]any
	active    []string                      // nil: the default set
	allow     map[string]bool               // SetToolAllowlist; nil: every tool
	deny      map[string]bool               // SetToolDenylist; nil: none
	sourceOf  func(path string) *SourceInfo // SetSourceInfo; nil or a nil answer: defaultSourceInfo
}

// SetToolAllowlist makes names the only tools offered, built-in and extension tools alike: the
// others are left out of the active set, getAllTools and setActiveTools, as pi 0.73.1's
// allowedToolNames (`--tools a,b`; empty for `--no-tools`). nil allows every tool.
func (r *Runner) SetToolAllowlist(names []string) {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	if names == nil {
		r.reg.allow = nil
		return
	}
	r.reg.allow = make(map[string]bool, len(names))
	for _, n := range names {
		r.reg.allow[n] = true
	}
}

// SetToolDenylist makes names never offered, built-in and extension tools alike, whatever the
// allowlist says: they are left out of the active set, getAllTools and setActiveTools, as
// Atomic's excludedToolNames (`--exclude-tools a,b`). nil or empty denies none.
func (r *Runner) SetToolDenylist(names []string) {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	r.reg.deny = nil
	for _, n := range names {
		if r.reg.deny == nil {
			r.reg.deny = map[string]bool{}
		}
		r.reg.deny[n] = true
	}
}

// allowed reports whether the allowlist and the denylist let name be offered; g.mu is held.
func (g *registry) allowed(name string) bool {
	return (g.allow == nil || g.allow[name]) && !g.deny[name]
}

// SetSourceInfo gives the sourceInfo of the extension at each path (its source, scope, origin
// and baseDir, as the loader found it) for getAllTools and getCommands; fn returns nil for a
// path it does not know.
func (r *Runner) SetSourceInfo(fn func(path string) *SourceInfo) {
	r.reg.mu.Lock()
	r.reg.sourceOf = fn
	r.reg.mu.Unlock()
}

// builtinSourceInfo is the sourceInfo of the built-in tool name, as pi 0.73.1 gives it:
// path "<builtin:name>", source builtin, scope temporary, origin top-level.
func builtinSourceInfo(name string) SourceInfo {
	return SourceInfo{Path: "<builtin:" + name + ">", Source: "builtin", Scope: "temporary", Origin: "top-level"}
}

// sourceInfo is the sourceInfo of the extension at path: what SetSourceInfo gave, else for a
// file a temporary local one in its directory, else (a Go extension compiled in, "go:NAME")
// source sdk with path "<sdk:NAME>", the form pi 0.73.1 gives what its SDK registers
// (createAgentSession's customTools; seed 004 "pi.getAllTools()": `sdk` for tools passed via
// the SDK). Called with g.mu held.
func (g *registry) sourceInfo(path string) SourceInfo {
	if g.sourceOf != nil {
		if si := g.sourceOf(path); si != nil {
			return *si
		}
	}
	if filepath.IsAbs(path) {
		return SourceInfo{Path: path, Source: "local", Scope: "temporary", Origin: "top-level", BaseDir: filepath.Dir(path)}
	}
	if name, ok := strings.CutPrefix(path, "go:"); ok {
		path = "<sdk:" + name + ">"
	}
	return SourceInfo{Path: path, Source: "sdk", Scope: "temporary", Origin: "top-level"}
}

type regTool struct {
	ext *Extension
	def ToolDefinition
}

type regCommand struct {
	ext  *Extension
	name string
	cmd  Command
}

type regShortcut struct {
	ext *Extension
	sc  Shortcut
}

type regFlag struct {
	ext   *Extension
	flag  Flag
	value any
	set   bool
}

func (g *registry) removeExtension(e *Extension) {
	g.mu.Lock()
	defer g.mu.Unlock()
	tools := g.tools[:0]
	for _, t := range g.tools {
		if t.ext != e {
			tools = append(tools, t)
		}
	}
	g.tools = tools
	cmds := g.commands[:0]
	for _, c := range g.commands {
		if c.ext != e {
			cmds = append(cmds, c)
		}
	}
	g.commands = cmds
}

func (g *registry) addTool(e *Extension, def ToolDefinition) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, t := range g.tools {
		if t.def.Name == def.Name {
			g.tools[i] = regTool{ext: e, def: def}
			return
		}
	}
	g.tools = append(g.tools, regTool{ext: e, def: def})
	if g.active != nil {
		g.active = append(g.active, def.Name)
	}
}

func (g *registry) addCommand(e *Extension, name string, cmd Command) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, c := range g.commands {
		if c.name == name && c.ext == e {
			g.commands[i].cmd = cmd
			return
		}
	}
	g.commands = append(g.commands, regCommand{ext: e, name: name, cmd: cmd})
}

// invocationNames returns the name users type for each command: a name registered by several
// extensions becomes name:1, name:2… in load order.
func (g *registry) invocationNames() []string {
	count := map[string]int{}
	for _, c := range g.commands {
		count[c.name]++
	}
	order := make([]int, len(g.commands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return g.commands[order[a]].ext.index < g.commands[order[b]].ext.index })
	seen := map[string]int{}
	names := make([]string, len(g.commands))
	for _, i := range order {
		c := g.commands[i]
		if count[c.name] == 1 {
			names[i] = c.name
			continue
		}
		seen[c.name]++
		names[i] = fmt.Sprintf("%s:%d", c.name, seen[c.name])
	}
	return names
}

func (g *registry) commandInfos() []CommandInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	names := g.invocationNames()
	out := make([]CommandInfo, len(g.commands))
	for i, c := range g.commands {
		out[i] = CommandInfo{Name: names[i], Description: c.cmd.Description, HasArgumentCompletions: c.cmd.Completions != nil, Source: "extension", SourceInfo: g.sourceInfo(c.ext.Path)}
	}
	return out
}

func (g *registry) command(name string) (Command, *Extension, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	names := g.invocationNames()
	for i, c := range g.commands {
		if names[i] == name {
			return c.cmd, c.ext, true
		}
	}
	return Command{}, nil, false
}

func (g *registry) addShortcut(e *Extension, key string, sc Shortcut) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shortcuts == nil {
		g.shortcuts = map[string]regShortcut{}
	}
	g.shortcuts[key] = regShortcut{ext: e, sc: sc}
}

func (g *registry) addFlag(e *Extension, name string, f Flag) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.flags == nil {
		g.flags = map[string]*regFlag{}
	}
	if old, ok := g.flags[name]; ok && old.ext != e {
		return fmt.Errorf("flag --%s is already registered by %s", name, old.ext.Path)
	}
	if f.Type == "" {
		f.Type = "boolean"
	}
	if f.Type != "boolean" && f.Type != "string" {
		return fmt.Errorf("flag --%s: type must be boolean or string, not %q", name, f.Type)
	}
	g.flags[name] = &regFlag{ext: e, flag: f, value: f.Default}
	return nil
}

func (g *registry) flag(name string) (any, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f, ok := g.flags[name]
	if !ok {
		return nil, false
	}
	return f.value, true
}

func (g *registry) setRenderer(message bool, customType string, r any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := &g.entRender
	if message {
		m = &g.msgRender
	}
	if *m == nil {
		*m = map[string]any{}
	}
	(*m)[customType] = r
}

func (g *registry) setActive(names []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active = append([]string{}, names...)
}

// toolSet merges built-ins and extension tools: an extension tool overrides the built-in of the
// same name. Order: built-ins, then extension tools in registration order.
func (g *registry) toolSet(builtins []tool.Tool, r *Runner) (all []tool.Tool, src map[string]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	byName := map[string]int{}
	src = map[string]string{}
	for _, t := range builtins {
		if !g.allowed(t.Name()) {
			continue
		}
		byName[t.Name()] = len(all)
		all = append(all, t)
		src[t.Name()] = "builtin"
		if s, ok := t.(tool.Sourced); ok {
			src[t.Name()], _ = s.Source()
		}
	}
	for _, rt := range g.tools {
		if !g.allowed(rt.def.Name) {
			continue
		}
		et := &extTool{def: rt.def, runner: r}
		if i, ok := byName[rt.def.Name]; ok {
			all[i] = et
		} else {
			byName[rt.def.Name] = len(all)
			all = append(all, et)
		}
		src[rt.def.Name] = rt.ext.Path
	}
	return all, src
}

func (g *registry) activeToolNames(builtins []tool.Tool) []string {
	g.mu.Lock()
	active := g.active
	g.mu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if active != nil {
		var names []string
		for _, n := range active {
			if g.allowed(n) {
				names = append(names, n)
			}
		}
		return names
	}
	var names []string
	seen := map[string]bool{}
	for _, t := range builtins {
		if g.allowed(t.Name()) {
			names = append(names, t.Name())
		}
		seen[t.Name()] = true
	}
	for _, t := range g.tools {
		if g.allowed(t.def.Name) && !seen[t.def.Name] {
			names = append(names, t.def.Name)
			seen[t.def.Name] = true
		}
	}
	return names
}

func (g *registry) allTools(builtins []tool.Tool) []ToolInfo {
	all, src := g.toolSet(builtins, nil)
	out := make([]ToolInfo, len(all))
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, t := range all {
		si := builtinSourceInfo(t.Name())
		if p := src[t.Name()]; p != "builtin" {
			si = g.sourceInfo(p)
			// A built-in that names its own source (an MCP tool) keeps it.
			if s, ok := t.(tool.Sourced); ok {
				if sp, source := s.Source(); sp == p {
					si = SourceInfo{Path: p, Source: source, Scope: "temporary", Origin: "top-level"}
				}
			}
		}
		out[i] = ToolInfo{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters(), SourceInfo: si}
		if pr, ok := t.(tool.Prompter); ok {
			out[i].PromptGuidelines = pr.PromptGuidelines()
		}
	}
	return out
}

// extTool adapts a ToolDefinition to tool.Tool.
type extTool struct {
	def    ToolDefinition
	runner *Runner
}

func (t *extTool) Name() string                { return t.def.Name }
func (t *extTool) Description() string         { return t.def.Description }
func (t *extTool) Parameters() json.RawMessage { return t.def.Parameters }
func (t *extTool) Label() string {
	if t.def.Label != "" {
		return t.def.Label
	}
	return t.def.Name
}
func (t *extTool) PromptSnippet() string      { return t.def.PromptSnippet }
func (t *extTool) PromptGuidelines() []string { return t.def.PromptGuidelines }

// Sequential reports the definition's executionMode "sequential" (tool.Sequencer).
func (t *extTool) Sequential() bool { return t.def.Sequential }

// ReportsStart reports the definition's ReportsStart (tool.StartReporter).
func (t *extTool) ReportsStart() bool { return t.def.ReportsStart }

func (t *extTool) PrepareArguments(args map[string]any) map[string]any {
	if t.def.PrepareArguments == nil {
		return args
	}
	return t.def.PrepareArguments(args)
}

// Execute runs the definition with a fresh ExtensionContext (events.md §1.3).
func (t *extTool) Execute(ctx context.Context, call tool.Call, onUpdate func(tool.Result)) (tool.Result, error) {
	return t.def.Execute(ctx, t.runner.context(ctx), call, onUpdate)
}

// Tools returns the tools the agent should offer: builtins (the session's active built-ins)
// merged with extension tools (same name overrides), filtered by setActiveTools when it was
// called. allBuiltins are every built-in the session could offer, for setActiveTools names.
func (r *Runner) Tools(activeBuiltins, allBuiltins []tool.Tool) []tool.Tool {
	r.reg.mu.Lock()
	active := r.reg.active
	r.reg.mu.Unlock()
	base := activeBuiltins
	if active != nil {
		base = allBuiltins
	}
	all, _ := r.reg.toolSet(base, r)
	if active == nil {
		return all
	}
	byName := map[string]tool.Tool{}
	for _, t := range all {
		byName[t.Name()] = t
	}
	var out []tool.Tool
	for _, n := range active {
		if t, ok := byName[n]; ok {
			out = append(out, t)
		}
	}
	return out
}

// ToolNames returns the names of the tools the extensions registered, in registration order.
func (r *Runner) ToolNames() []string {
	all, _ := r.reg.toolSet(nil, nil)
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name()
	}
	return names
}

// Command returns the command users invoke as name (after duplicate suffixing).
func (r *Runner) Command(name string) (Command, *Extension, bool) { return r.reg.command(name) }

// Commands lists the registered commands.
func (r *Runner) Commands() []CommandInfo { return r.reg.commandInfos() }

// Flags returns the registered flags by name with their definitions.
func (r *Runner) Flags() map[string]Flag {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	out := map[string]Flag{}
	for n, f := range r.reg.flags {
		out[n] = f.flag
	}
	return out
}

// SetFlag sets the value of a registered flag from the command line.
func (r *Runner) SetFlag(name string, value any) error {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	f, ok := r.reg.flags[name]
	if !ok {
		return fmt.Errorf("unknown flag --%s", name)
	}
	f.value, f.set = value, true
	return nil
}
