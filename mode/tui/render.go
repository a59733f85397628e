package tui

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/chat"
)

// Extension renderers in the transcript (tui.md §6.1-6.2): tool rows with renderCall /
// renderResult / renderShell, custom messages with registerMessageRenderer, custom entries with
// registerEntryRenderer. A renderer may be slow (a TypeScript one answers over the host protocol),
// so the transcript never waits for one beyond firstDraw: it asks in the background, keeps
// showing the last lines (or the built-in rendering before the first answer), and draws the block
// again when the answer arrives.

// firstDraw bounds how long the first drawing of a block waits for its renderer; after it the
// built-in rendering shows until the lines arrive.
const firstDraw = 150 * time.Millisecond

// renderBound bounds one renderer call.
const renderBound = 5 * time.Second

// drawCache is one slot's lines as last answered, and the request they answer.
type drawCache struct {
	mu       sync.Mutex
	key      string // the request the lines answer
	lines    []string
	ok       bool
	have     bool
	inflight bool
	done     chan struct{} // closed when the in-flight request answers
}

// draw returns the lines for the request named key: cached when current; otherwise fetch is
// started (at most one at a time; the newest request wins) and the last lines are returned, or,
// before any, the first answer within firstDraw. redraw is called (off the UI goroutine) when
// new lines arrive after draw returned.
func (c *drawCache) draw(key string, fetch func(ctx context.Context) ([]string, bool), redraw func()) ([]string, bool) {
	c.mu.Lock()
	if c.have && c.key == key {
		defer c.mu.Unlock()
		return c.lines, c.ok
	}
	if !c.inflight {
		c.inflight = true
		c.done = make(chan struct{})
		go c.run(key, fetch, redraw)
	}
	have, done := c.have, c.done
	c.mu.Unlock()
	if !have {
		t := time.NewTimer(firstDraw)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lines, c.ok && c.have
}

// forget drops the cached lines' key so the next draw asks again (the renderer invalidated).
func (c *drawCache) forget() {
	c.mu.Lock()
	c.key = ""
	c.mu.Unlock()
}

// run answers one request; a newer one asked meanwhile is fetched by the draw that redraw
// triggers (its request state is the current one).
func (c *drawCache) run(key string, fetch func(ctx context.Context) ([]string, bool), redraw func()) {
	ctx, cancel := context.WithTimeout(context.Background(), renderBound)
	lines, ok := fetch(ctx)
	cancel()
	c.mu.Lock()
	c.key, c.lines, c.ok, c.have = key, lines, ok, true
	c.inflight = false
	close(c.done)
	c.mu.Unlock()
	redraw()
}

// touchLater marks b changed from any goroutine: the transcript draws it again.
func (x *extUI) touchLater(b chat.Block) func() {
	return func() {
		x.send(extMsg(func(m *model) tea.Cmd { m.chat.Touch(b); return nil }))
	}
}

// attachToolRenderer lets tb's tool renderer (if its tool has one) draw its slots.
func (m *model) attachToolRenderer(tb *chat.ToolBlock) {
	runner := m.rt.Session().Runner()
	if runner == nil {
		return
	}
	var caches [2]drawCache
	x := m.ext
	redraw := x.touchLater(tb)
	cwd := m.rt.Session().Store().Cwd()
	invalidate := func() {
		caches[0].forget()
		caches[1].forget()
		redraw()
	}
	if r := runner.ToolRenderer(tb.Name); r != nil && r.Shell() == ext.ShellSelf {
		tb.SelfShell = true
	}
	tb.Custom = func(env *chat.Env, slot string, width int) ([]string, bool) {
		r := runner.ToolRenderer(tb.Name)
		if r == nil {
			return nil, false
		}
		call, result := r.Slots()
		i := 0
		switch {
		case slot == ext.SlotCall && call:
		case slot == ext.SlotResult && result:
			i = 1
			if tb.Result == nil && !tb.Done {
				return nil, false // nothing to show yet: the built-in draws nothing either
			}
		default:
			return nil, false
		}
		req := ext.ToolRenderRequest{
			ToolCallID: tb.ID, ToolName: tb.Name, Args: tb.Args, ArgsComplete: tb.ArgsComplete,
			ExecutionStarted: tb.Started, IsPartial: tb.Started && !tb.Done, IsError: tb.IsError,
			Expanded: env.Expanded, Cwd: cwd, Width: width, Invalidate: invalidate,
		}
		if tb.Result != nil || tb.Done {
			req.Result = &ext.ToolRenderResult{Content: tb.Result, Details: tb.Details}
		}
		key, err := json.Marshal(req)
		if err != nil {
			return nil, false
		}
		lines, ok := caches[i].draw(slot+string(key), func(ctx context.Context) ([]string, bool) {
			return r.RenderTool(ctx, slot, req)
		}, redraw)
		if !ok {
			return nil, false
		}
		return clipLines(lines, width), true
	}
}

// customMessageBlock is a custom message's block: its message renderer draws it when one is
// registered, otherwise (or when the renderer declines or fails) the labelled box.
func (m *model) customMessageBlock(customType string, content []llm.Content, details any) *chat.LabelBlock {
	b := &chat.LabelBlock{Label: customType, Body: llm.TextOf(content, "\n"), Markdown: true}
	runner := m.rt.Session().Runner()
	if runner == nil || runner.MessageRenderer(customType) == nil {
		return b
	}
	raw, _ := json.Marshal(content)
	if len(content) == 1 && content[0].Type == llm.ContentText {
		raw, _ = json.Marshal(content[0].Text) // pi's sendMessage content is usually a string
	}
	var cache drawCache
	redraw := m.ext.touchLater(b)
	invalidate := func() { cache.forget(); redraw() }
	b.Custom = func(env *chat.Env, width int) ([]string, bool) {
		r := runner.MessageRenderer(customType)
		if r == nil {
			return nil, false
		}
		req := ext.MessageRenderRequest{CustomType: customType, Content: raw, Details: details, Expanded: env.Expanded, Width: width, Invalidate: invalidate}
		key, _ := json.Marshal(req)
		lines, ok := cache.draw(string(key), func(ctx context.Context) ([]string, bool) { return r.RenderMessage(ctx, req) }, redraw)
		if !ok {
			return nil, false
		}
		return clipLines(lines, width), true
	}
	return b
}

// customEntryBlock is a custom entry's block when an entry renderer is registered for its type
// (Atomic shows custom entries only then); nil otherwise.
func (m *model) customEntryBlock(customType string, data json.RawMessage) *chat.CustomBlock {
	runner := m.rt.Session().Runner()
	if runner == nil || runner.EntryRenderer(customType) == nil {
		return nil
	}
	b := &chat.CustomBlock{}
	var cache drawCache
	redraw := m.ext.touchLater(b)
	invalidate := func() { cache.forget(); redraw() }
	b.Draw = func(env *chat.Env, width int) ([]string, bool) {
		r := runner.EntryRenderer(customType)
		if r == nil {
			return nil, false
		}
		req := ext.EntryRenderRequest{CustomType: customType, Data: data, Expanded: env.Expanded, Width: width, Invalidate: invalidate}
		key, _ := json.Marshal(req)
		lines, ok := cache.draw(string(key), func(ctx context.Context) ([]string, bool) { return r.RenderEntry(ctx, req) }, redraw)
		if !ok {
			return nil, false
		}
		return clipLines(lines, width), true
	}
	return b
}
