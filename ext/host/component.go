package host

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// firstFrameWait bounds how long Render waits for a component's first lines from the host; after
// it the UI shows nothing for the component until they arrive (never a blocked screen).
const firstFrameWait = 250 * time.Millisecond

// renderTimeout bounds one component.render call.
const renderTimeout = 5 * time.Second

// remote is a host component as the core's UI sees it (ext.Component): its lines are the last
// ones the host rendered (component.render), fetched in the background when the UI asks for a new
// width, after a key, or when the host says the component changed (ui.component.invalidate). At
// most one render call is in flight; requests that arrive meanwhile fold into one more. Render
// never waits for the host except for the first frame, bounded by firstFrameWait.
type remote struct {
	p  *process
	id int64

	mu       sync.Mutex
	h        ext.ComponentHandle
	lines    []string
	width    int  // the width lines were rendered at (or last tried)
	want     int  // the width the UI asked for last
	have     bool // a render was answered (or failed)
	first    chan struct{}
	dirty    bool
	inflight bool
	closed   bool
	overlay  *ext.OverlayOptions
	hidden   bool
	ended    bool // the host dropped it (ui.component.done)
	focused  bool // the UI gave it the keys (ext.Focusable)
	cols     int  // the terminal size lines were rendered for
	rows     int
	// controls are ui.component.control actions that came before the UI mounted it.
	controls []string
}

// newRemote registers host component id of p.
func (p *process) newRemote(id int64, overlay *ext.OverlayOptions) *remote {
	r := &remote{p: p, id: id, first: make(chan struct{}), overlay: overlay}
	p.comps.Store(id, r)
	return r
}

// customRemote is the remote of a ui.custom component: the one serveDialog registered, given its
// overlay placement, or a new one.
func (p *process) customRemote(id int64, overlay *ext.OverlayOptions) *remote {
	if v, ok := p.comps.Load(id); ok {
		r := v.(*remote)
		r.mu.Lock()
		r.overlay = overlay
		r.mu.Unlock()
		return r
	}
	return p.newRemote(id, overlay)
}

// remoteFactory is the factory of host component id; nil for id 0 (restore the built-in).
func (p *process) remoteFactory(id int64) ext.ComponentFactory {
	if id == 0 {
		return nil
	}
	return p.newRemote(id, nil).factory
}

// factory binds the component to the handle of the UI that mounts it.
func (r *remote) factory(h ext.ComponentHandle) ext.Component {
	r.mu.Lock()
	r.h = h
	pend := r.controls
	r.controls = nil
	r.mu.Unlock()
	for _, a := range pend {
		control(h, a)
	}
	return r
}

// control runs one ui.component.control action on the overlay's handle (a UI without overlay
// handles ignores it).
func control(h ext.ComponentHandle, action string) {
	oh, ok := h.(ext.OverlayHandle)
	if !ok {
		return
	}
	switch action {
	case "focus":
		oh.Focus()
	case "unfocus":
		oh.Unfocus()
	case "hide":
		oh.SetHidden(true)
	case "show":
		oh.SetHidden(false)
	}
}

// controlled handles ui.component.control for this component.
func (r *remote) controlled(action string) {
	r.mu.Lock()
	h := r.h
	if h == nil {
		r.controls = append(r.controls, action)
	}
	r.mu.Unlock()
	if h != nil {
		control(h, action)
	}
}

// SetFocused implements ext.Focusable: the host sets the component's focused flag at the next
// render.
func (r *remote) SetFocused(focused bool) {
	r.mu.Lock()
	changed := r.focused != focused
	r.focused = focused
	r.mu.Unlock()
	if changed {
		r.invalidated()
	}
}

// Render returns the last lines the host rendered, asking for new ones when width changed or
// the component is dirty.
func (r *remote) Render(width int) []string {
	cols, rows := 0, 0
	r.mu.Lock()
	h := r.h
	r.mu.Unlock()
	if h != nil {
		cols, rows = h.Size()
	}
	r.mu.Lock()
	// A new terminal size re-renders too: the component may read tui.terminal.rows, and an
	// overlay's visible(width, height) is asked at each render.
	if !r.closed && (!r.have || r.dirty || width != r.width || cols != r.cols || rows != r.rows) {
		r.want = width
		r.startLocked()
	}
	have, first := r.have, r.first
	r.mu.Unlock()
	if !have {
		t := time.NewTimer(firstFrameWait)
		select {
		case <-first:
		case <-t.C:
		}
		t.Stop()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

// HandleInput sends the key to the host and renders again after it (pi-tui renders after every
// input); the notification precedes the render call on the channel, so the frame shows the key.
func (r *remote) HandleInput(data string) {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return
	}
	_ = r.p.out.Notify(protocol.MethodComponentInput, protocol.ComponentParams{Component: r.id, Data: data})
	r.invalidated()
}

// Invalidate calls the component's invalidate() and renders it again.
func (r *remote) Invalidate() {
	_ = r.p.out.Notify(protocol.MethodComponentInvalidate, protocol.ComponentParams{Component: r.id})
	r.invalidated()
}

// Dispose drops the component in the host (component.dispose); idempotent.
func (r *remote) Dispose() {
	r.mu.Lock()
	was := r.closed
	r.closed = true
	r.mu.Unlock()
	if was {
		return
	}
	r.p.comps.CompareAndDelete(r.id, r)
	_ = r.p.out.Notify(protocol.MethodComponentDispose, protocol.ComponentParams{Component: r.id})
}

// LiveOverlayOptions implements ext.LiveOverlay: the placement of the last frame.
func (r *remote) LiveOverlayOptions() (*ext.OverlayOptions, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.overlay, r.hidden
}

// Refresh implements ext.Refresher: render again (no invalidate()) once rendered at all.
func (r *remote) Refresh() { r.invalidated() }

// invalidated marks the component dirty (ui.component.invalidate, a key) and fetches its lines
// once it has been rendered at all.
func (r *remote) invalidated() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dirty = true
	if r.want > 0 {
		r.startLocked()
	}
}

// done handles ui.component.done: a custom component's Custom returns; a widget, footer or header
// ends (its host dropped it on a reload) and the UI removes it at its next render.
func (r *remote) done() {
	r.mu.Lock()
	h := r.h
	r.ended = true
	r.mu.Unlock()
	if h != nil {
		h.Done(nil)
		h.RequestRender()
	}
}

// Ended implements ext.Ender.
func (r *remote) Ended() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

func (r *remote) startLocked() {
	if r.inflight || r.closed {
		return
	}
	r.inflight = true
	go r.fetch()
}

// fetch renders until the lines are current, then asks the UI to draw them.
func (r *remote) fetch() {
	for {
		r.mu.Lock()
		if r.closed {
			r.inflight = false
			r.mu.Unlock()
			return
		}
		w, h, focused := r.want, r.h, r.focused
		r.dirty = false
		r.mu.Unlock()
		cols, rows := 80, 24
		if h != nil {
			cols, rows = h.Size()
		}
		if w <= 0 {
			w = cols
		}
		ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
		raw, err := r.p.call(ctx, protocol.MethodComponentRender, protocol.ComponentRenderParams{Component: r.id, Width: w, Columns: cols, Rows: rows, Focused: focused}, "a component's render", nil)
		cancel()
		var res protocol.ComponentRenderResult
		if err == nil {
			err = json.Unmarshal(raw, &res)
		}
		r.mu.Lock()
		if err == nil && res.Closed {
			r.ended = true // the host closed it meanwhile: keep the last lines, say nothing
		} else if err == nil {
			r.lines = res.Lines
			if res.Overlay != nil {
				r.overlay = overlayOptions(res.Overlay)
			}
			r.hidden = res.Hidden
		}
		r.width = w // a failed width is not asked for again until something changes
		r.cols, r.rows = cols, rows
		if !r.have {
			r.have = true
			close(r.first)
		}
		again := !r.closed && (r.dirty || r.want != w)
		if !again {
			r.inflight = false
		}
		closed := r.closed
		r.mu.Unlock()
		// Logged outside the lock: the log may go to the very UI that renders this component. A
		// component the host closed meanwhile (done) is no news.
		if err != nil && !closed {
			r.p.sup.logf("extension host (%s): component %d: render: %v", r.p.sup.name(), r.id, errorText(err))
		}
		if h != nil && err == nil {
			h.RequestRender()
		}
		if !again {
			return
		}
	}
}

// componentCall makes the handler of a ui.component.* notification: fn runs on the named
// component of the calling process (unknown ids are ignored: the core dropped it already).
func componentCall(fn func(r *remote)) handlerFunc {
	return func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		var a protocol.ComponentParams
		if err := jsonUnmarshal(params, &a); err != nil {
			return nil, err
		}
		if v, ok := p.comps.Load(a.Component); ok {
			fn(v.(*remote))
		}
		return nil, nil
	}
}

// overlayOptions converts the wire form (nil stays nil).
func overlayOptions(o *protocol.OverlayOptions) *ext.OverlayOptions {
	if o == nil {
		return nil
	}
	return &ext.OverlayOptions{
		Width: o.Width, MinWidth: o.MinWidth, MaxHeight: o.MaxHeight, Anchor: o.Anchor,
		OffsetX: o.OffsetX, OffsetY: o.OffsetY, Row: o.Row, Col: o.Col, NonCapturing: o.NonCapturing,
		Margin: ext.Margin{Top: o.Margin.Top, Right: o.Margin.Right, Bottom: o.Margin.Bottom, Left: o.Margin.Left},
	}
}
