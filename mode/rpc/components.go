package rpc

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/atomic-cli/atomic/ext"
)

// Extension components over RPC (docs/rpc-extension-ui.md): ctx.ui.custom, factory widgets and
// footer/header factories reach the client as rendered lines. The client sends keys as
// extension_ui_input {id, data} (raw terminal bytes), its size as extension_ui_resize {columns,
// rows} (80×24 until it does) and dismisses a custom component with extension_ui_response {id,
// cancelled: true}. Components are made and called on one goroutine (compLoop), never on the
// reader; a component's RequestRender queues one render however often it is called, and a frame
// is written only when the lines changed. Nothing waits for the client: a client that never
// sends input (pi's RpcClient) just sees the frames.

// Frame types the client sends for components.
const (
	commandTypeUIInput  = "extension_ui_input"
	commandTypeUIResize = "extension_ui_resize"
)

// compLoop runs component work in order on one goroutine; it ends with the server's dialogs.
type compLoop struct {
	once sync.Once
	ch   chan func()
	done <-chan struct{}
}

func (l *compLoop) post(fn func()) {
	l.once.Do(func() {
		l.ch = make(chan func(), 256)
		go func() {
			for {
				select {
				case f := <-l.ch:
					f()
				case <-l.done:
					return
				}
			}
		}()
	})
	select {
	case l.ch <- fn:
	case <-l.done:
	}
}

// rpcComp is one mounted component.
type rpcComp struct {
	d      *dialogs
	id     string
	kind   string // custom, widget, footer, header
	key    string // widget key
	place  string // widget placement
	c      ext.Component
	last   []string
	queued atomic.Bool
	closed bool // on the loop
	done   func(v any)
}

// RequestRender implements ext.ComponentHandle.
func (rc *rpcComp) RequestRender() {
	if !rc.queued.CompareAndSwap(false, true) {
		return
	}
	rc.d.loop.post(func() {
		rc.queued.Store(false)
		rc.render(false)
	})
}

// Done implements ext.ComponentHandle.
func (rc *rpcComp) Done(v any) {
	if rc.done != nil {
		rc.done(v)
	}
}

// Size implements ext.ComponentHandle: the client's size.
func (rc *rpcComp) Size() (int, int) { return rc.d.size() }

// render renders at the client's width and writes the frame when the lines changed (always with
// first, the opening frame of a custom component). On the loop.
func (rc *rpcComp) render(first bool) {
	if rc.closed || rc.c == nil {
		return
	}
	if rc.kind != "custom" && ext.Ended(rc.c) {
		rc.end()
		return
	}
	w, _ := rc.d.size()
	lines := rc.c.Render(w)
	if lines == nil {
		lines = []string{}
	}
	if !first && slices.Equal(lines, rc.last) {
		return
	}
	rc.last = append([]string(nil), lines...)
	switch rc.kind {
	case "custom":
		if first {
			return // the caller writes the opening request with these lines
		}
		rc.d.s.writeLine(appendRequest(rc.id, "custom_render", []field{{key: "lines", value: lines}}))
	case "widget":
		rc.d.notify("setWidget", field{key: "widgetKey", value: rc.key}, field{key: "widgetLines", value: lines}, field{key: "widgetPlacement", value: rc.place})
	case "footer":
		rc.d.notify("setFooter", field{key: "footerLines", value: lines})
	case "header":
		rc.d.notify("setHeader", field{key: "headerLines", value: lines})
	}
}

// end removes a widget, footer or header whose extension host dropped it: the client is told to
// remove the widget or restore its built-in footer or header (on the loop).
func (rc *rpcComp) end() {
	slot := rc.kind
	if rc.kind == "widget" {
		slot = "widget:" + rc.key
	}
	rc.d.mu.Lock()
	if rc.d.slots[slot] == rc {
		delete(rc.d.slots, slot)
	}
	rc.d.mu.Unlock()
	rc.dispose()
	switch rc.kind {
	case "widget":
		rc.d.notify("setWidget", field{key: "widgetKey", value: rc.key}, field{key: "widgetPlacement", value: rc.place})
	case "footer":
		rc.d.notify("setFooter")
	case "header":
		rc.d.notify("setHeader")
	}
}

// dispose drops the component (on the loop).
func (rc *rpcComp) dispose() {
	if rc.closed {
		return
	}
	rc.closed = true
	if dc, ok := rc.c.(ext.Disposer); ok && rc.c != nil {
		dc.Dispose()
	}
}

// size is the client's terminal size (extension_ui_resize; 80×24 by default).
func (d *dialogs) size() (int, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cols <= 0 || d.rows <= 0 {
		return 80, 24
	}
	return d.cols, d.rows
}

// input delivers an extension_ui_input frame to the custom component with its id; pi-tui renders
// after every input, so the component is rendered again after it.
func (d *dialogs) input(id, data string) {
	d.mu.Lock()
	rc := d.comps[id]
	d.mu.Unlock()
	if rc == nil {
		return
	}
	d.loop.post(func() {
		if rc.closed {
			return
		}
		rc.c.HandleInput(data)
		rc.render(false)
	})
}

// resize records the client's size and renders every component at the new width.
func (d *dialogs) resize(cols, rows int) {
	d.mu.Lock()
	d.cols, d.rows = cols, rows
	all := make([]*rpcComp, 0, len(d.comps)+len(d.slots))
	for _, rc := range d.comps {
		all = append(all, rc)
	}
	for _, rc := range d.slots {
		all = append(all, rc)
	}
	d.mu.Unlock()
	for _, rc := range all {
		rc.RequestRender()
	}
}

// Custom implements ext.ComponentUI: an extension_ui_request {method: "custom", lines, overlay,
// overlayOptions?} opens the component; custom_render frames follow when its lines change;
// custom_close ends it after done(value), a dismissal ({cancelled: true}), ctx's end or the end
// of the input.
func (d *dialogs) Custom(ctx context.Context, factory ext.ComponentFactory, opts ext.CustomOptions) (any, bool) {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil || factory == nil {
		return nil, false
	}
	type result struct {
		v  any
		ok bool
	}
	res := make(chan result, 1)
	var once sync.Once
	finish := func(r result) { once.Do(func() { res <- r }) }
	id := newID()
	rc := &rpcComp{d: d, id: id, kind: "custom", done: func(v any) { finish(result{v, true}) }}
	answer := make(chan uiAnswer, 1)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, false
	}
	d.pending[id] = answer
	d.comps[id] = rc
	d.mu.Unlock()
	d.loop.post(func() {
		select {
		case <-res: // already finished (ctx ended before the loop got here)
			res <- result{}
			return
		default:
		}
		rc.c = factory(rc)
		if rc.c == nil {
			finish(result{})
			return
		}
		rc.render(true)
		fields := []field{{key: "lines", value: rc.last}, {key: "overlay", value: opts.Overlay}}
		if opts.Overlay && opts.OverlayOptions != nil {
			if b, err := json.Marshal(opts.OverlayOptions); err == nil {
				fields = append(fields, field{key: "overlayOptions", value: rawJSON(b)})
			}
		}
		if opts.HandlesCtrlC {
			fields = append(fields, field{key: "handlesCtrlC", value: true})
		}
		d.s.writeLine(appendRequest(id, "custom", fields))
	})
	var r result
	select {
	case r = <-res:
	case <-answer: // {cancelled: true} or any other answer dismisses it
	case <-ctx.Done():
	case <-d.done:
	}
	d.mu.Lock()
	delete(d.pending, id)
	delete(d.comps, id)
	d.mu.Unlock()
	finish(result{})
	d.loop.post(func() {
		opened := rc.c != nil && !rc.closed
		rc.dispose()
		if opened {
			d.s.writeLine(appendRequest(id, "custom_close", nil))
		}
	})
	return r.v, r.ok
}

// setSlot mounts factory's component in slot (replacing and disposing the previous one) and sends
// its first frame; nil factory only removes, and send announces that.
func (d *dialogs) setSlot(slot string, rc *rpcComp, factory ext.ComponentFactory, removed func()) {
	d.mu.Lock()
	old := d.slots[slot]
	if factory != nil {
		d.slots[slot] = rc
	} else {
		delete(d.slots, slot)
	}
	d.mu.Unlock()
	d.loop.post(func() {
		if old != nil {
			old.dispose()
		}
		if factory == nil {
			removed()
			return
		}
		rc.c = factory(rc)
		rc.render(false)
	})
}

// SetWidgetComponent implements ext.ComponentUI: setWidget with widgetLines, re-sent when the
// component re-renders, and widgetPlacement.
func (d *dialogs) SetWidgetComponent(key string, factory ext.ComponentFactory, placement string) {
	if placement == "" {
		placement = ext.WidgetAboveEditor
	}
	rc := &rpcComp{d: d, kind: "widget", key: key, place: placement}
	d.setSlot("widget:"+key, rc, factory, func() {
		d.notify("setWidget", field{key: "widgetKey", value: key}, field{key: "widgetPlacement", value: placement})
	})
}

// SetFooterComponent implements ext.ComponentUI: setFooter with footerLines; without them the
// client restores its built-in footer.
func (d *dialogs) SetFooterComponent(factory ext.ComponentFactory) {
	d.setSlot("footer", &rpcComp{d: d, kind: "footer"}, factory, func() { d.notify("setFooter") })
}

// SetHeaderComponent implements ext.ComponentUI: setHeader with headerLines; without them the
// client restores its built-in header.
func (d *dialogs) SetHeaderComponent(factory ext.ComponentFactory) {
	d.setSlot("header", &rpcComp{d: d, kind: "header"}, factory, func() { d.notify("setHeader") })
}

// SetWidgetAt implements ext.WidgetPlacementUI: setWidget with widgetPlacement.
func (d *dialogs) SetWidgetAt(key string, lines []string, placement string) {
	d.mu.Lock()
	old := d.slots["widget:"+key]
	delete(d.slots, "widget:"+key)
	d.mu.Unlock()
	if old != nil {
		d.loop.post(old.dispose)
	}
	d.notify("setWidget", field{key: "widgetKey", value: key}, field{key: "widgetLines", value: lines, omit: lines == nil}, field{key: "widgetPlacement", value: placement, omit: placement == ""})
}

var (
	_ ext.ComponentUI       = (*dialogs)(nil)
	_ ext.WidgetPlacementUI = (*dialogs)(nil)
)

// uiInput is an extension_ui_input frame; uiResize an extension_ui_resize frame.
type uiInput struct {
	ID   string `json:"id"`
	Data string `json:"data"`
}

type uiResize struct {
	Columns int `json:"columns"`
	Rows    int `json:"rows"`
}
