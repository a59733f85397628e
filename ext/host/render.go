package host

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// Renderers that live in the host (tool renderCall/renderResult, registerMessageRenderer,
// registerEntryRenderer): each render is a render.* call answered with lines; the renderer's
// invalidate() comes back as render.invalidate and re-renders through the callback of the last
// request with that key.

// renderTable maps render keys to the Invalidate of their last request.
type renderTable struct {
	mu   sync.Mutex
	keys map[string]func()
}

func (t *renderTable) set(key string, fn func()) {
	if fn == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keys == nil {
		t.keys = map[string]func(){}
	}
	t.keys[key] = fn
}

func (t *renderTable) get(key string) func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.keys[key]
}

// render asks the host for lines; ok false when there is no host, the call failed or the
// renderer declined (null). A renderer that throws is not reported: the slot falls back to the
// built-in rendering, as pi's tool and message components do silently (a renderCall often
// throws on the half-streamed arguments of a call, and pi users never see it).
func (s *Supervisor) render(ctx context.Context, method string, a protocol.RenderParams, what string) ([]string, bool) {
	p, err := s.ensure()
	if err != nil {
		return nil, false
	}
	raw, err := p.call(ctx, method, a, what, nil)
	if err != nil {
		return nil, false
	}
	var res *protocol.RenderResult
	if json.Unmarshal(raw, &res) != nil || res == nil {
		return nil, false
	}
	return res.Lines, true
}

// remoteToolRenderer is a host tool's renderCall / renderResult / renderShell.
type remoteToolRenderer struct {
	s            *Supervisor
	ref          protocol.ExtRef
	tool         string
	call, result bool
	shell        string
	what         string
}

func (r *remoteToolRenderer) Slots() (bool, bool) { return r.call, r.result }

func (r *remoteToolRenderer) Shell() string {
	if r.shell == ext.ShellSelf {
		return ext.ShellSelf
	}
	return ext.ShellDefault
}

func (r *remoteToolRenderer) RenderTool(ctx context.Context, slot string, req ext.ToolRenderRequest) ([]string, bool) {
	key := "tool:" + req.ToolCallID
	r.s.renders.set(key, req.Invalidate)
	return r.s.render(ctx, protocol.MethodRenderTool, protocol.RenderParams{ExtRef: r.ref, Key: key, Tool: r.tool, Slot: slot, Request: req}, r.what)
}

// remoteMessageRenderer is a host's message or entry renderer of one customType.
type remoteMessageRenderer struct {
	s          *Supervisor
	ref        protocol.ExtRef
	customType string
	what       string
}

func (r *remoteMessageRenderer) RenderMessage(ctx context.Context, req ext.MessageRenderRequest) ([]string, bool) {
	key := "message:" + req.CustomType + ":" + string(req.Content)
	r.s.renders.set(key, req.Invalidate)
	return r.s.render(ctx, protocol.MethodRenderMessage, protocol.RenderParams{ExtRef: r.ref, Key: key, CustomType: r.customType, Request: req}, r.what)
}

func (r *remoteMessageRenderer) RenderEntry(ctx context.Context, req ext.EntryRenderRequest) ([]string, bool) {
	key := "entry:" + req.CustomType + ":" + string(req.Data)
	r.s.renders.set(key, req.Invalidate)
	return r.s.render(ctx, protocol.MethodRenderEntry, protocol.RenderParams{ExtRef: r.ref, Key: key, CustomType: r.customType, Request: req}, r.what)
}

func init() {
	methods[protocol.MethodRenderInvalidate] = func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		var a protocol.InvalidateParams
		if err := jsonUnmarshal(params, &a); err != nil {
			return nil, err
		}
		if fn := s.renders.get(a.Key); fn != nil {
			fn()
		}
		return nil, nil
	}
}
