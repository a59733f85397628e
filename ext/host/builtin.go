package host

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

// The built-in tools for hosts (createReadTool, createBashTool, … of @bastani/atomic): a tool
// made without custom operations runs atomic's own Go implementation of that name, so its
// behaviour and truncation are those of the built-in. Each call builds the tool for the cwd the
// extension gave, with the default options (the ones the CLI uses).

// builtinTool returns the built-in tool name for cwd; bash runs with the settings' shellPath
// (Options.ShellPath), as pi's tools resolve the shell from the settings.
func (s *Supervisor) builtinTool(name, cwd string) (tool.Tool, error) {
	set := tool.Builtins(cwd, tool.Options{Bash: tool.BashOptions{ShellPath: s.opts.ShellPath}})
	t, ok := set[name]
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "atomic has no built-in tool %q (it has %s)", name, strings.Join(tool.Names(set), ", "))
	}
	return t, nil
}

func builtinInfo(s *Supervisor, _ *process, params json.RawMessage) (any, error) {
	var a protocol.BuiltinInfoParams
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	t, err := s.builtinTool(a.Tool, ".")
	if err != nil {
		return nil, err
	}
	info := protocol.BuiltinInfo{Name: t.Name(), Label: t.Name(), Description: t.Description(), Parameters: t.Parameters()}
	if l, ok := t.(tool.Labeler); ok {
		info.Label = l.Label()
	}
	if pr, ok := t.(tool.Prompter); ok {
		info.PromptSnippet, info.PromptGuidelines = pr.PromptSnippet(), pr.PromptGuidelines()
	}
	return info, nil
}

// wireResult encodes a tool result for the host.
func wireResult(r tool.Result) protocol.ToolResult {
	content, _ := json.Marshal(nonNil(r.Content))
	w := protocol.ToolResult{Content: content, IsError: r.IsError, Terminate: r.Terminate}
	if r.Details != nil {
		if d, err := json.Marshal(r.Details); err == nil && string(d) != "null" {
			w.Details = d
		}
	}
	return w
}

// builtinExecute serves builtin.execute request id: it runs the tool until it returns or ctx
// ends ($/cancelRequest, or the host went away), streaming partial results as builtin.update.
// A tool error is the -32000 error whose message is the error's text, which the host throws.
func (s *Supervisor) builtinExecute(ctx context.Context, p *process, id json.RawMessage, params json.RawMessage) (any, error) {
	var a protocol.BuiltinExecuteParams
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	if a.Cwd == "" {
		a.Cwd = s.opts.Dir
	}
	t, err := s.builtinTool(a.Tool, a.Cwd)
	if err != nil {
		return nil, err
	}
	if a.Ctx != 0 {
		c, _, err := s.context(a.Ctx)
		if err == nil && c != nil {
			err = c.Err()
		}
		if err != nil {
			return nil, wireError(err)
		}
		ctx = tool.WithEnv(ctx, ctxToolEnv{c})
	}
	args := map[string]any{}
	if len(a.Args) > 0 && string(a.Args) != "null" {
		if err := json.Unmarshal(a.Args, &args); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "builtin.execute: the arguments are not an object: %v", err)
		}
	}
	if pr, ok := t.(tool.ArgumentPreparer); ok {
		args = pr.PrepareArguments(args)
	}
	onUpdate := func(r tool.Result) {
		_ = p.out.Notify(protocol.MethodBuiltinUpdate, protocol.BuiltinUpdateParams{ID: id, PartialResult: wireResult(r)})
	}
	res, err := t.Execute(ctx, tool.Call{ID: a.ToolCallID, Name: a.Tool, Args: args}, onUpdate)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.CodeHandlerFailed, Message: err.Error()}
	}
	return wireResult(res), nil
}

// ctxToolEnv is the tool.Env of an extension context: its session's id and file (todo's
// claims) and its dialogs (ask_user_question), none without a UI (print and JSON mode).
type ctxToolEnv struct{ c ext.Context }

func (e ctxToolEnv) SessionID() string   { return e.c.SessionManager().SessionID() }
func (e ctxToolEnv) SessionFile() string { return e.c.SessionManager().SessionFile() }
func (e ctxToolEnv) Dialogs() tool.Dialogs {
	if !e.c.HasUI() {
		return nil
	}
	return e.c.UI()
}

// serveBuiltin runs a builtin.execute request on its own goroutine, cancellable by the host's
// $/cancelRequest and ended when the process goes away.
func (p *process) serveBuiltin(m *protocol.Message) {
	p.serveCancellable(m, func(ctx context.Context) (any, error) {
		return p.sup.builtinExecute(ctx, p, m.ID, m.Params)
	})
}

// serveCancellable answers the host's request m with run's result, on its own goroutine. run's
// context ends when the host cancels the request ($/cancelRequest, see cancelServed), when the
// process goes away, or when run returns.
func (p *process) serveCancellable(m *protocol.Message, run func(ctx context.Context) (any, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	key := idKey(m.ID)
	p.mu.Lock()
	if p.served == nil {
		p.served = map[string]context.CancelFunc{}
	}
	p.served[key] = cancel
	p.mu.Unlock()
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	go func() {
		defer func() {
			p.mu.Lock()
			delete(p.served, key)
			p.mu.Unlock()
			cancel()
		}()
		res, err := run(ctx)
		_ = p.out.Reply(m.ID, res, err)
	}()
}

// cancelServed cancels the host's request id ($/cancelRequest from the host).
func (p *process) cancelServed(raw json.RawMessage) {
	var a protocol.CancelParams
	if json.Unmarshal(raw, &a) != nil {
		return
	}
	p.mu.Lock()
	cancel := p.served[idKey(a.ID)]
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func idKey(id json.RawMessage) string { return strings.TrimSpace(string(id)) }

// sessionsList serves sessions.list: SessionManager.list(cwd, sessionDir?) and listAll().
func sessionsList(s *Supervisor, _ *process, params json.RawMessage) (any, error) {
	var a protocol.SessionsListParams
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	var infos []store.SessionInfo
	var err error
	if a.All {
		root := a.SessionDir
		if root == "" {
			root = store.SessionsRoot(s.opts.AgentDir)
		}
		infos, err = store.ListAll(root)
	} else {
		cwd := a.Cwd
		if cwd == "" {
			cwd = s.opts.Dir
		}
		dir := a.SessionDir
		if dir == "" {
			dir = store.DefaultSessionDir(s.opts.AgentDir, cwd)
		}
		infos, err = store.List(cwd, dir)
	}
	if err != nil {
		return nil, err
	}
	out := make([]store.SessionInfo, 0, len(infos))
	for _, in := range infos {
		if in.Internal && !a.IncludeInternal {
			continue
		}
		out = append(out, in)
	}
	return out, nil
}
