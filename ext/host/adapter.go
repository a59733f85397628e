package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// generation is one runtime of the core as the host sees it: the ext.API of each extension
// (fresh after every reload or session replacement) and the contexts handed to the host. mu
// guards the fields after it.
type generation struct {
	n   int64
	sup *Supervisor

	mu     sync.Mutex
	apis   []ext.API
	preps  []*future
	codes  []string
	loaded []bool
	// proxies are the handler proxies of each extension by host handler id. A restarted host
	// registers its handlers again under the same ids; the proxies stay subscribed across the
	// restart (a dispatch in between waits for the new process), so no event is ever missed.
	proxies []map[int]*proxy
	// batches are the batched handlers of each extension's queued events (batch.go).
	batches []map[ext.EventID]*batch

	ctxSeq  int64
	ctxs    map[int64]ext.Context
	last    ext.Context
	lastCmd ext.CommandContext

	// errs are the failures of queued event handlers the host reported (event.error), by
	// extension, not yet handed to the runner; barriered says which extensions have their
	// barrier handlers (ext.Spec.Barrier) subscribed.
	errs      [][]queuedError
	barriered []bool

	forwarded map[string]bool // pi.events channels forwarded from the Go bus to the host
	// emitData is the message of the host being emitted on the Go bus (emitting is true), so
	// the forwarder does not send it back.
	emitting bool
	emitData any
}

func (g *generation) beginEmit(data any) {
	g.mu.Lock()
	g.emitting, g.emitData = true, data
	g.mu.Unlock()
}

func (g *generation) endEmit() {
	g.mu.Lock()
	g.emitting, g.emitData = false, nil
	g.mu.Unlock()
}

func (g *generation) isOwnEmit(data any) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.emitting && sameValue(data, g.emitData)
}

func (s *Supervisor) newGeneration(n int64) *generation {
	k := len(s.paths)
	return &generation{
		n: n, sup: s,
		apis: make([]ext.API, k), codes: make([]string, k), loaded: make([]bool, k), proxies: make([]map[int]*proxy, k), batches: make([]map[ext.EventID]*batch, k),
		errs: make([][]queuedError, k), barriered: make([]bool, k),
		ctxs: map[int64]ext.Context{}, forwarded: map[string]bool{},
	}
}

// generationFor returns the generation factory i belongs to: factory 0 opens a new one.
func (s *Supervisor) generationFor(i int, api ext.API) *generation {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i == 0 || s.gen == nil {
		s.nextGen++
		g := s.newGeneration(s.nextGen)
		switch {
		case s.early != nil:
			g.preps, s.early = s.early, nil
		case s.opts.Prepare != nil:
			g.preps = s.prepareAll()
		}
		s.gen = g
		s.gens[g.n] = g
		// Contexts of older generations stay resolvable (they answer stale) for a while.
		for n := range s.gens {
			if n < g.n-4 {
				delete(s.gens, n)
			}
		}
	}
	g := s.gen
	g.mu.Lock()
	g.apis[i] = api
	g.mu.Unlock()
	return g
}

func (s *Supervisor) generation(n int64) *generation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gens[n]
}

func (g *generation) api(i int) (ext.API, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i < 0 || i >= len(g.apis) || g.apis[i] == nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "no extension %d in generation %d", i, g.n)
	}
	return g.apis[i], nil
}

// anyAPI returns some extension's API of the generation (they share the runner's bus).
func (g *generation) anyAPI() ext.API {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range g.apis {
		if a != nil {
			return a
		}
	}
	return nil
}

func (g *generation) loadedCode(i int) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.codes[i], g.loaded[i]
}

// proxy is the runner's handler for one host handler.
type proxy struct {
	event       string
	incarnation int // the host process that last registered it
	unsub       func()
}

// dropHandlers removes the handler proxies of extension i (its factory failed).
func (g *generation) dropHandlers(i int) {
	g.mu.Lock()
	ps := g.proxies[i]
	g.proxies[i] = nil
	// The runner removes everything the failed factory's API registered, barriers included.
	g.barriered[i] = false
	g.mu.Unlock()
	for _, p := range ps {
		p.unsub()
	}
}

// dropStale removes the proxies of extension i that incarnation inc did not register again
// (after a restart, a factory that registered fewer handlers).
func (g *generation) dropStale(i, inc int) {
	g.mu.Lock()
	var stale []*proxy
	for h, p := range g.proxies[i] {
		if p.incarnation != inc {
			stale = append(stale, p)
			delete(g.proxies[i], h)
		}
	}
	g.mu.Unlock()
	for _, p := range stale {
		p.unsub()
	}
}

// enter registers the context of a dispatch and returns its id: the generation in the high 32
// bits, a sequence number in the low ones.
func (g *generation) enter(c ext.Context) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ctxSeq++
	id := g.n<<32 | g.ctxSeq&(1<<32-1)
	g.ctxs[id] = c
	g.last = c
	if cc, ok := c.(ext.CommandContext); ok {
		g.lastCmd = cc
	}
	return id
}

// mark is enter and leave at once, for a dispatch that returns before its handlers run (a
// queued event): its id resolves to the generation's latest context.
func (g *generation) mark(c ext.Context) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ctxSeq++
	g.last = c
	if cc, ok := c.(ext.CommandContext); ok {
		g.lastCmd = cc
	}
	return g.n<<32 | g.ctxSeq&(1<<32-1)
}

func (g *generation) leave(id int64) {
	g.mu.Lock()
	delete(g.ctxs, id)
	g.mu.Unlock()
}

// context resolves a context id: the dispatch's own context while it runs, afterwards the
// generation's latest (its getters are live; after replacement it answers stale).
func (s *Supervisor) context(id int64) (ext.Context, *generation, error) {
	g := s.generation(id >> 32)
	if g == nil {
		return nil, nil, protocol.Errorf(protocol.CodeStaleContext, "%v", &ext.StaleContextError{Op: "ctx"})
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.ctxs[id]; ok {
		return c, g, nil
	}
	if g.last == nil {
		return nil, g, protocol.Errorf(protocol.CodeInvalidParams, "unknown context %d", id)
	}
	return g.last, g, nil
}

func (s *Supervisor) commandContext(id int64, op string) (ext.CommandContext, *generation, error) {
	c, g, err := s.context(id)
	if err != nil {
		return nil, nil, err
	}
	if cc, ok := c.(ext.CommandContext); ok {
		return cc, g, nil
	}
	g.mu.Lock()
	cc := g.lastCmd
	g.mu.Unlock()
	if cc == nil {
		return nil, nil, protocol.Errorf(protocol.CodeInvalidRequest, "%s is only available in a command's ExtensionCommandContext", op)
	}
	return cc, g, nil
}

// load is factory i: it loads the extension into the host for api's generation.
func (s *Supervisor) load(i int, api ext.API) error {
	g := s.generationFor(i, api)
	path := s.paths[i]
	var code string
	if g.preps != nil {
		f := g.preps[i]
		<-f.done
		if f.err != nil {
			return f.err
		}
		code = f.code
	}
	p, err := s.ensure()
	if err != nil {
		return errors.New(errorText(err))
	}
	g.mu.Lock()
	g.codes[i] = code
	g.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.LoadTimeout)
	defer cancel()
	_, err = p.call(ctx, protocol.MethodLoad, protocol.LoadParams{Generation: g.n, Ext: i, Path: path, Code: code}, "loading "+path, nil)
	if err != nil {
		g.dropHandlers(i)
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("the factory did not finish within %v", s.opts.LoadTimeout)
		}
		return errors.New(errorText(err))
	}
	g.mu.Lock()
	g.loaded[i] = true
	g.mu.Unlock()
	return nil
}

// on subscribes a proxy of host handler h to event, for extension i of generation g; a
// restarted host (incarnation p) re-registering a handler keeps its proxy.
func (s *Supervisor) on(p *process, g *generation, i, h int, event string) error {
	api, err := g.api(i)
	if err != nil {
		return err
	}
	spec, ok := ext.Lookup(event)
	if !ok {
		return fmt.Errorf("%s: pi.on(%q): no such event (see atomic events)", s.paths[i], event)
	}
	g.mu.Lock()
	if old := g.proxies[i][h]; old != nil && old.event == event {
		old.incarnation = p.incarnation
		g.mu.Unlock()
		return nil
	}
	g.mu.Unlock()
	if (spec.Queued && p.queues.Load() && p.batches.Load()) || (!spec.Queued && !spec.Concurrent && p.requests.Load()) {
		unsub, err := s.onBatched(p, g, api, i, h, spec)
		if err != nil {
			return err
		}
		s.keepProxy(g, i, h, &proxy{event: event, incarnation: p.incarnation, unsub: unsub})
		return nil
	}
	what := fmt.Sprintf("the %s handler of %s", spec.Name, s.paths[i])
	fn := func(c ext.Context, payload any) (any, error) {
		// After a restart the host has loaded the extension again and registered its handlers
		// under the same ids (a factory registers in a fixed order); a dispatch that began
		// before the restart reaches the new process under this proxy.
		p, err := s.ensure()
		if err != nil {
			return nil, errors.New(errorText(err))
		}
		return s.dispatch(p, g, i, h, spec, what, c, payload)
	}
	if spec.Queued && p.queues.Load() {
		fn = func(c ext.Context, payload any) (any, error) {
			p, err := s.ensure()
			if err != nil {
				return nil, errors.New(errorText(err))
			}
			if !p.queues.Load() {
				return s.dispatch(p, g, i, h, spec, what, c, payload)
			}
			return s.enqueue(p, g, i, h, spec, c, payload)
		}
		s.ensureBarriers(g, i, api)
	}
	unsub, err := api.OnName(event, fn)
	if err != nil {
		return err
	}
	s.keepProxy(g, i, h, &proxy{event: event, incarnation: p.incarnation, unsub: unsub})
	return nil
}

// keepProxy records px as the proxy of host handler h of extension i, dropping the one it
// replaces.
func (s *Supervisor) keepProxy(g *generation, i, h int, px *proxy) {
	g.mu.Lock()
	if g.proxies[i] == nil {
		g.proxies[i] = map[int]*proxy{}
	}
	old := g.proxies[i][h]
	g.proxies[i][h] = px
	g.mu.Unlock()
	if old != nil {
		old.unsub()
	}
}

// dispatch sends one event to one host handler and decodes its result.
func (s *Supervisor) dispatch(p *process, g *generation, i, h int, spec *ext.Spec, what string, c ext.Context, payload any) (any, error) {
	body, err := appendPayload(nil, payload)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s payload: %w", spec.Name, err)
	}
	goctx := c.Signal()
	signal := ext.HasRunSignal(c)
	id := g.enter(c)
	defer g.leave(id)
	raw, err := p.callWithin(goctx, s.opts.HandlerTimeout, id, protocol.MethodEvent, eventParams(i, g.n, h, spec.Name, body, id, signal), what, nil)
	if err != nil {
		return nil, handlerError(err)
	}
	var res protocol.EventResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("the host answered %s with %.200s: %v", spec.Name, raw, err)
	}
	if len(res.Mutated) > 0 {
		if err := applyMutated(payload, res.Mutated); err != nil {
			return nil, fmt.Errorf("%s: %v", spec.Name, err)
		}
	}
	if len(res.Result) == 0 || string(res.Result) == "null" {
		return nil, nil
	}
	out, err := decodeResult(spec, res.Result)
	if err == nil && spec.Name == "user_bash" {
		out = bindUserBash(p, what, out)
	}
	return out, err
}

// eventParams encodes protocol.EventParams by hand: the payload is already JSON, and this is
// the hot path of every dispatch (BenchmarkEventRoundTrip).
func eventParams(ext int, gen int64, handler int, event string, payload []byte, ctx int64, signal bool) json.RawMessage {
	b := make([]byte, 0, len(payload)+len(event)+96)
	b = append(b, `{"ext":`...)
	b = strconv.AppendInt(b, int64(ext), 10)
	b = append(b, `,"gen":`...)
	b = strconv.AppendInt(b, gen, 10)
	b = append(b, `,"handler":`...)
	b = strconv.AppendInt(b, int64(handler), 10)
	b = append(b, `,"event":`...)
	return appendEventTail(b, event, payload, ctx, signal)
}

// appendEventTail ends a hand-encoded protocol.EventParams after its `"event":` key: the quoted
// event name, the payload (JSON already), ctx and signal, and the closing brace.
func appendEventTail(b []byte, event string, payload []byte, ctx int64, signal bool) json.RawMessage {
	b = strconv.AppendQuote(b, event)
	b = append(b, `,"payload":`...)
	b = append(b, payload...)
	b = append(b, `,"ctx":`...)
	b = strconv.AppendInt(b, ctx, 10)
	if signal {
		b = append(b, `,"signal":true`...)
	}
	return append(b, '}')
}

// decodeResult turns a handler's JSON result into the event's result type. Two events take
// shapes their Go type cannot decode by itself: before_provider_request's result is the
// replacement payload, and before_agent_start's systemPrompt may be a list of blocks.
func decodeResult(spec *ext.Spec, raw json.RawMessage) (any, error) {
	switch spec.Name {
	case "before_provider_request":
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		return &ext.PayloadResult{Payload: v}, nil
	case "before_agent_start":
		var r struct {
			Message      *ext.CustomMessage `json:"message"`
			SystemPrompt json.RawMessage    `json:"systemPrompt"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("before_agent_start handler returned %.200s: %v", raw, err)
		}
		out := &ext.BeforeAgentStartResult{Message: r.Message}
		if len(r.SystemPrompt) > 0 && string(r.SystemPrompt) != "null" {
			var s string
			if json.Unmarshal(r.SystemPrompt, &s) == nil {
				out.SystemPrompt = &s
			} else {
				var blocks []json.RawMessage
				if err := json.Unmarshal(r.SystemPrompt, &blocks); err != nil {
					return nil, fmt.Errorf("before_agent_start: systemPrompt must be a string or a list of blocks: %v", err)
				}
				out.SystemPromptBlocks = []string{}
				for _, b := range blocks {
					var t string
					if json.Unmarshal(b, &t) != nil {
						var tb struct {
							Text string `json:"text"`
						}
						_ = json.Unmarshal(b, &tb)
						t = tb.Text
					}
					out.SystemPromptBlocks = append(out.SystemPromptBlocks, t)
				}
			}
		}
		return out, nil
	}
	if spec.Result == nil {
		return nil, nil
	}
	v := reflect.New(spec.Result)
	if err := json.Unmarshal(raw, v.Interface()); err != nil {
		return nil, fmt.Errorf("%s handler returned %.200s, which does not fit its result: %v", spec.Name, raw, err)
	}
	return v.Interface(), nil
}

// applyMutated writes the payload fields a handler edited in place (by JSON name). A map field
// is updated in place, since the emitter may hold it (before_provider_headers).
func applyMutated(payload any, mutated map[string]json.RawMessage) error {
	v := reflect.ValueOf(payload)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	t := v.Type()
	for k := 0; k < t.NumField(); k++ {
		name, _, _ := strings.Cut(t.Field(k).Tag.Get("json"), ",")
		raw, ok := mutated[name]
		if !ok || name == "" {
			continue
		}
		f := v.Field(k)
		nv := reflect.New(f.Type())
		if err := json.Unmarshal(raw, nv.Interface()); err != nil {
			return fmt.Errorf("edited %s does not fit: %v", name, err)
		}
		if f.Kind() == reflect.Map && !f.IsNil() && !nv.Elem().IsNil() {
			for _, key := range f.MapKeys() {
				f.SetMapIndex(key, reflect.Value{})
			}
			it := nv.Elem().MapRange()
			for it.Next() {
				f.SetMapIndex(it.Key(), it.Value())
			}
			continue
		}
		f.Set(nv.Elem())
	}
	return nil
}

// toolDefinition is the ext.ToolDefinition of a host tool: execution, argument preparation and
// partial results go through the host.
func (s *Supervisor) toolDefinition(g *generation, i int, spec protocol.ToolSpec) ext.ToolDefinition {
	what := fmt.Sprintf("the %s tool of %s", spec.Name, s.paths[i])
	ref := protocol.ExtRef{Ext: i, Gen: g.n}
	def := ext.ToolDefinition{
		Name: spec.Name, Label: spec.Label, Description: spec.Description, Parameters: spec.Parameters,
		PromptSnippet: spec.PromptSnippet, PromptGuidelines: spec.PromptGuidelines,
		Sequential: spec.ExecutionMode == "sequential",
		// callWithin calls tool.Started once the tool.execute request is written.
		ReportsStart: true,
		Execute: func(ctx context.Context, c ext.Context, call tool.Call, onUpdate func(tool.Result)) (tool.Result, error) {
			p, err := s.ensure()
			if err != nil {
				return tool.Result{}, errors.New(errorText(err))
			}
			params, err := json.Marshal(call.Args)
			if err != nil {
				return tool.Result{}, err
			}
			id := g.enter(c)
			defer g.leave(id)
			raw, err := p.call(ctx, protocol.MethodToolExecute, protocol.ToolExecuteParams{
				ExtRef: ref, Tool: spec.Name, ToolCallID: call.ID, Params: params, Ctx: id,
			}, what, func(u json.RawMessage) {
				if r, err := decodeToolResult(u); err == nil {
					onUpdate(r)
				}
			})
			if err != nil {
				return tool.Result{}, errors.New(errorText(err))
			}
			return decodeToolResult(raw)
		},
	}
	if spec.RenderCall || spec.RenderResult || spec.RenderShell == ext.ShellSelf {
		def.Renderer = &remoteToolRenderer{s: s, ref: ref, tool: spec.Name, call: spec.RenderCall, result: spec.RenderResult, shell: spec.RenderShell, what: "the renderer of " + what}
	}
	if spec.PrepareArguments {
		def.PrepareArguments = func(args map[string]any) map[string]any {
			p, err := s.ensure()
			if err != nil {
				return args
			}
			raw, _ := json.Marshal(args)
			ctx, cancel := context.WithTimeout(context.Background(), s.opts.DeadAfter*5)
			defer cancel()
			res, err := p.call(ctx, protocol.MethodToolPrepare, protocol.ToolPrepareParams{ExtRef: ref, Tool: spec.Name, Args: raw}, "prepareArguments of "+what, nil)
			var out map[string]any
			if err != nil || json.Unmarshal(res, &out) != nil || out == nil {
				return args
			}
			return out
		}
	}
	return def
}

func decodeToolResult(raw json.RawMessage) (tool.Result, error) {
	var w protocol.ToolResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return tool.Result{}, fmt.Errorf("the tool returned %.200s: %v", raw, err)
	}
	r := tool.Result{IsError: w.IsError, Terminate: w.Terminate, Content: []llm.Content{}}
	if len(w.Content) > 0 && string(w.Content) != "null" {
		if err := json.Unmarshal(w.Content, &r.Content); err != nil {
			return tool.Result{}, fmt.Errorf("the tool's content is not a list of content blocks: %v", err)
		}
	}
	if len(w.Details) > 0 && string(w.Details) != "null" {
		var d any
		if err := json.Unmarshal(w.Details, &d); err == nil {
			r.Details = d
		}
	}
	return r, nil
}

// command is the ext.Command of a host command.
func (s *Supervisor) command(g *generation, i int, name, description string, completions bool) ext.Command {
	what := fmt.Sprintf("the /%s command of %s", name, s.paths[i])
	ref := protocol.ExtRef{Ext: i, Gen: g.n}
	cmd := ext.Command{
		Description: description,
		Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
			p, err := s.ensure()
			if err != nil {
				return errors.New(errorText(err))
			}
			id := g.enter(c)
			defer g.leave(id)
			_, err = p.call(ctx, protocol.MethodCommandRun, protocol.CommandRunParams{ExtRef: ref, Name: name, Args: args, Ctx: id}, what, nil)
			if err != nil {
				return errors.New(errorText(err))
			}
			return nil
		},
	}
	if completions {
		cmd.Completions = func(prefix string) []ext.AutocompleteItem {
			p, err := s.ensure()
			if err != nil {
				return nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), s.opts.DeadAfter*5)
			defer cancel()
			raw, err := p.call(ctx, protocol.MethodCommandComplete, protocol.CommandCompleteParams{ExtRef: ref, Name: name, Prefix: prefix}, "completions of "+what, nil)
			if err != nil {
				return nil
			}
			return completionItems(raw)
		}
	}
	return cmd
}

// shortcut is the ext.Shortcut of a host shortcut.
func (s *Supervisor) shortcut(g *generation, i int, key, description string) ext.Shortcut {
	what := fmt.Sprintf("the %s shortcut of %s", key, s.paths[i])
	return ext.Shortcut{
		Description: description,
		Handler: func(ctx context.Context, c ext.Context) error {
			p, err := s.ensure()
			if err != nil {
				return errors.New(errorText(err))
			}
			id := g.enter(c)
			defer g.leave(id)
			_, err = p.call(ctx, protocol.MethodShortcutRun, protocol.ShortcutRunParams{ExtRef: protocol.ExtRef{Ext: i, Gen: g.n}, Key: key, Ctx: id}, what, nil)
			if err != nil {
				return errors.New(errorText(err))
			}
			return nil
		},
	}
}

// completionItems decodes command.complete's answer: an array of {value, label, description}
// items (a bare string is an item whose value and label it is); a label defaults to the value.
// Anything else is no completions.
func completionItems(raw json.RawMessage) []ext.AutocompleteItem {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil
	}
	out := make([]ext.AutocompleteItem, 0, len(elems))
	for _, e := range elems {
		var it ext.AutocompleteItem
		if json.Unmarshal(e, &it.Value) != nil && json.Unmarshal(e, &it) != nil {
			continue
		}
		if it.Label == "" {
			it.Label = it.Value
		}
		out = append(out, it)
	}
	return out
}
