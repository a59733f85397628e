package tui

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/chat"
	"github.com/atomic-cli/atomic/mode/tui/component"
)

// Extension components in the terminal UI (tui.md §7.3, §7.5): ctx.ui.custom in the editor slot
// or as an overlay, component widgets, custom footer and header. Components are made and called
// on the Bubble Tea goroutine; their handles' RequestRender, from any goroutine, coalesce into at
// most one redraw per frame (frameInterval, the renderer's frame rate).

// compState is the model's extension components other than dialogs and widgets.
type compState struct {
	footer ext.Component
	header *compBlock // nil: the built-in header
}

// compBlock is a component shown as a transcript block (the custom header).
type compBlock struct{ c ext.Component }

// Render implements chat.Block.
func (b *compBlock) Render(_ *chat.Env, width int) []string {
	return clipLines(b.c.Render(width), width)
}

// renderPacer coalesces the redraws components ask for.
type renderPacer struct {
	pending atomic.Bool
	mu      sync.Mutex
	last    time.Time
}

// requestRender schedules one redraw message no sooner than frameInterval after the last one;
// requests made while one is scheduled join it.
func (x *extUI) requestRender() {
	if !x.pacer.pending.CompareAndSwap(false, true) {
		return
	}
	x.pacer.mu.Lock()
	wait := frameInterval - time.Since(x.pacer.last)
	x.pacer.mu.Unlock()
	fire := func() {
		x.send(extMsg(func(m *model) tea.Cmd {
			x.pacer.mu.Lock()
			x.pacer.last = time.Now()
			x.pacer.mu.Unlock()
			x.pacer.pending.Store(false)
			m.pruneEnded()
			if m.comps.header != nil {
				m.chat.Touch(m.comps.header)
			}
			return nil
		}))
	}
	if wait <= 0 {
		go fire()
		return
	}
	time.AfterFunc(wait, fire)
}

// refreshComps asks the footer, header and widget components rendered elsewhere (host
// components, ext.Refresher) for fresh lines: pi-tui renders them on every frame, so what they
// read from the session (usage, model, statuses) is current after each change.
func (m *model) refreshComps() {
	if m.comps.footer != nil {
		ext.Refresh(m.comps.footer)
	}
	if m.comps.header != nil {
		ext.Refresh(m.comps.header.c)
	}
	for _, wd := range m.widgets {
		if wd.comp != nil {
			ext.Refresh(wd.comp)
		}
	}
}

// refreshOverlays asks overlay components rendered elsewhere for fresh lines and placement
// after a resize: their overlayOptions and visible() answer for the new terminal size even
// when the overlay's own width stays the same.
func (m *model) refreshOverlays() {
	for _, dl := range m.dialogs {
		if d, ok := dl.(*customDialog); ok && d.overlay && !d.closed {
			ext.Refresh(d.c)
		}
	}
}

// compHandle is the ext.ComponentHandle of one mounted component.
type compHandle struct {
	x      *extUI
	doneFn func(v any) // nil for widgets, footers, headers
	cols   *atomic.Int64
	rows   *atomic.Int64
	ctl    *overlayCtl // an overlay's controls, nil otherwise
}

// overlayCompHandle is an overlay's ComponentHandle: it is its ext.OverlayHandle too.
type overlayCompHandle struct {
	*compHandle
	*overlayCtl
}

// overlayCtl implements ext.OverlayHandle for one overlay. Its calls queue in order and run on
// the UI goroutine (never waiting for it: a component may call them from HandleInput) once the
// overlay is shown; hidden and focused mirror the dialog's state for the getters.
type overlayCtl struct {
	x        *extUI
	mu       sync.Mutex
	d        *customDialog
	queue    []func(m *model, d *customDialog)
	draining bool // a drain message is on its way
	hidden   atomic.Bool
	focused  atomic.Bool
}

// bind attaches the shown dialog and runs the calls made before (on the UI goroutine).
func (o *overlayCtl) bind(m *model, d *customDialog) {
	d.ctl = o
	o.mu.Lock()
	o.d = d
	o.mu.Unlock()
	o.drain(m)
}

// drain runs the queued calls (on the UI goroutine).
func (o *overlayCtl) drain(m *model) {
	o.mu.Lock()
	q, d := o.queue, o.d
	o.queue = nil
	o.draining = false
	o.mu.Unlock()
	for _, fn := range q {
		if !d.closed {
			fn(m, d)
		}
	}
}

func (o *overlayCtl) do(fn func(m *model, d *customDialog)) {
	o.mu.Lock()
	o.queue = append(o.queue, fn)
	send := o.d != nil && !o.draining
	if send {
		o.draining = true
	}
	o.mu.Unlock()
	if send {
		go o.x.send(extMsg(func(m *model) tea.Cmd { o.drain(m); return nil }))
	}
}

// Hide implements ext.OverlayHandle.
func (o *overlayCtl) Hide() {
	o.do(func(m *model, d *customDialog) {
		d.close()
		m.popDone()
	})
}

// SetHidden implements ext.OverlayHandle.
func (o *overlayCtl) SetHidden(hidden bool) {
	o.hidden.Store(hidden)
	o.do(func(m *model, d *customDialog) {
		if d.hidden == hidden {
			return
		}
		d.hidden = hidden
		if !hidden && (d.opts == nil || !d.opts.NonCapturing) {
			d.capture = true
			m.raise(d)
		}
	})
}

// IsHidden implements ext.OverlayHandle.
func (o *overlayCtl) IsHidden() bool { return o.hidden.Load() }

// Focus implements ext.OverlayHandle.
func (o *overlayCtl) Focus() {
	o.do(func(m *model, d *customDialog) {
		if !m.overlayShown(d) {
			return
		}
		d.capture = true
		m.raise(d)
	})
}

// Unfocus implements ext.OverlayHandle.
func (o *overlayCtl) Unfocus() {
	o.do(func(_ *model, d *customDialog) { d.capture = false })
}

// IsFocused implements ext.OverlayHandle.
func (o *overlayCtl) IsFocused() bool { return o.focused.Load() }

var _ ext.OverlayHandle = overlayCompHandle{}

// raise moves d to the top of the dialog stack (drawn last, first for keys).
func (m *model) raise(d component.Dialog) {
	for i, x := range m.dialogs {
		if x == d {
			m.dialogs = append(append(m.dialogs[:i:i], m.dialogs[i+1:]...), d)
			return
		}
	}
}

// overlayShown reports whether overlay d draws at the current size: not hidden by its handle,
// by its live options or by its visible() test.
func (m *model) overlayShown(d *customDialog) bool {
	if d.closed || d.hidden {
		return false
	}
	_, ok := m.overlayOpts(d, max(m.width, 10), m.height)
	return ok
}

// overlayOpts are overlay d's placement for a w×h screen; false when it draws nothing.
func (m *model) overlayOpts(d *customDialog, w, h int) (*ext.OverlayOptions, bool) {
	opts := d.opts
	if lo, ok := d.c.(ext.LiveOverlay); ok {
		live, hidden := lo.LiveOverlayOptions()
		if hidden {
			return nil, false
		}
		if live != nil {
			opts = live
		}
	}
	if opts == nil {
		opts = &ext.OverlayOptions{}
	}
	if opts.Visible != nil && !opts.Visible(w, h) {
		return nil, false
	}
	return opts, true
}

// keyDialog is the dialog that gets the keys: the topmost one that is not an overlay, or an
// overlay that is shown and captures; nil leaves them to the editor (tui.md §7.5).
func (m *model) keyDialog() component.Dialog {
	for i := len(m.dialogs) - 1; i >= 0; i-- {
		d, ok := m.dialogs[i].(*customDialog)
		if !ok || !d.overlay {
			return m.dialogs[i]
		}
		if d.capture && m.overlayShown(d) {
			return d
		}
	}
	return nil
}

// syncFocus tells the components whether they have the keys (ext.Focusable) and mirrors it for
// the overlay handles.
func (m *model) syncFocus() {
	key := m.keyDialog()
	redraw := false
	for _, dl := range m.dialogs {
		d, ok := dl.(*customDialog)
		if !ok || d.closed {
			continue
		}
		f := dl == key
		if d.ctl != nil {
			d.ctl.focused.Store(f)
		}
		if f != d.focused {
			d.focused = f
			if fc, ok := d.c.(ext.Focusable); ok {
				fc.SetFocused(f)
				redraw = true
			}
		}
	}
	if redraw {
		m.ext.requestRender() // the frame just drawn showed the old state
	}
}

func (h *compHandle) RequestRender() { h.x.requestRender() }

func (h *compHandle) Done(v any) {
	if h.doneFn != nil {
		h.doneFn(v)
	}
}

func (h *compHandle) Size() (int, int) { return int(h.cols.Load()), int(h.rows.Load()) }

func (x *extUI) handle(done func(any)) *compHandle {
	return &compHandle{x: x, doneFn: done, cols: &x.cols, rows: &x.rows}
}

// customDialog is a ctx.ui.custom component in the editor slot or, with overlay set, floating
// over the screen. In the slot it has the keyboard while shown; an overlay has it while it is
// visible and captures (overlay focus, tui.md §7.5: m.keyDialog).
type customDialog struct {
	c       ext.Component
	overlay bool
	opts    *ext.OverlayOptions
	closed  bool
	onClose func() // called once on the UI goroutine when it closes
	editor  bool   // a custom editor (setEditorComponent, customeditor.go)
	// hidden is OverlayHandle.SetHidden's state; capture says the overlay takes the keys when it
	// is the topmost visible one (not nonCapturing, or focused with Focus; Unfocus clears it).
	hidden  bool
	capture bool
	// focused is what the component was last told (ext.Focusable); ctl mirrors the overlay's
	// state for its handle.
	focused bool
	ctl     *overlayCtl
	lastW   int // the width the overlay was last drawn at
	// handlesCtrlC: the component binds Ctrl+C itself (ext.CustomOptions.HandlesCtrlC); see
	// model.ctrlCToComponent.
	handlesCtrlC bool
	// cur* is where the last frame put pi-tui's CURSOR_MARKER (row, cell), when it had one;
	// placedRow/placedCol is where an overlay was last drawn on the screen.
	curRow, curCol       int
	curOK                bool
	placedRow, placedCol int
	// activeRow is the row of the last frame that carried Atomic's OVERLAY_ACTIVE_ROW_MARKER
	// (or else the cursor marker), -1 for none: what a cut keeps (boundLines).
	activeRow int
	// reserve: a bottom overlay that leaves transcript rows (ReserveTranscriptRows); lastH is
	// the rows it drew last (the transcript ends above them).
	reserve bool
	lastH   int
}

func (d *customDialog) Render(width int) []string {
	if d.closed {
		return nil
	}
	return d.render(width)
}

// render is the component's lines at width, clipped, with the position of its cursor marker
// (the bottom-most one, as pi-tui takes it) kept for Cursor.
func (d *customDialog) render(width int) []string {
	lines := d.c.Render(width)
	d.curOK = false
	d.activeRow = -1
	for i, l := range lines {
		if strings.Contains(l, activeRowMarker) || strings.Contains(l, cursorMarker) {
			d.activeRow = i
			break
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if at := strings.Index(lines[i], cursorMarker); at >= 0 {
			col := component.Width(clipLines([]string{lines[i][:at]}, width)[0])
			d.curRow, d.curCol, d.curOK = i, min(col, max(width-1, 0)), true
			break
		}
	}
	return clipLines(lines, width)
}

// Cursor implements component.Cursor: where the component's focused input put pi-tui's
// CURSOR_MARKER in its last frame (tui.md §8.1), for the terminal cursor.
func (d *customDialog) Cursor() (row, col int, ok bool) {
	return d.curRow, d.curCol, d.curOK && !d.closed
}

// HandleKey gives the key to the component as the bytes a terminal sends.
func (d *customDialog) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if !d.closed {
		if data := rawKey(k); data != "" {
			d.c.HandleInput(data)
		}
	}
	return nil
}

// HandlePaste gives a paste to the component, bracketed as a terminal sends it.
func (d *customDialog) HandlePaste(text string) tea.Cmd {
	if !d.closed {
		d.c.HandleInput("\x1b[200~" + text + "\x1b[201~")
	}
	return nil
}

func (d *customDialog) Done() bool { return d.closed }

// Cancel closes the component from outside (ctx ended, done called).
func (d *customDialog) Cancel() { d.close() }

func (d *customDialog) close() {
	if d.closed {
		return
	}
	d.closed = true
	if d.onClose != nil {
		d.onClose()
	}
	dispose(d.c)
}

func dispose(c ext.Component) {
	if dc, ok := c.(ext.Disposer); ok && c != nil {
		dc.Dispose()
	}
}

// Custom implements ext.ComponentUI: the component takes the editor slot (or floats, with
// opts.Overlay) and the keyboard until it calls Done, ctx ends or the UI ends.
func (x *extUI) Custom(ctx context.Context, factory ext.ComponentFactory, opts ext.CustomOptions) (any, bool) {
	type result struct {
		v  any
		ok bool
	}
	if err := ext.CheckReserve(opts); err != nil {
		// The TypeScript host rejects custom() with the same error before it gets here.
		x.send(extMsg(func(m *model) tea.Cmd { m.notice("error", err.Error()); return nil }))
		return nil, false
	}
	res := make(chan result, 1)
	var once sync.Once
	finish := func(r result) { once.Do(func() { res <- r }) }
	var dmu sync.Mutex
	var shown *customDialog
	closeShown := func(m *model) {
		dmu.Lock()
		d := shown
		dmu.Unlock()
		if d != nil {
			d.close()
			m.popDone()
		}
	}
	h := x.handle(func(v any) {
		finish(result{v, true})
		// Done is often called on the UI goroutine (from HandleInput): never wait for the loop.
		go x.send(extMsg(func(m *model) tea.Cmd { closeShown(m); return nil }))
	})
	var hh ext.ComponentHandle = h
	if opts.Overlay {
		h.ctl = &overlayCtl{x: x}
		hh = overlayCompHandle{h, h.ctl}
	}
	x.send(extMsg(func(m *model) tea.Cmd {
		if ctx.Err() != nil {
			finish(result{})
			return nil
		}
		c := factory(hh)
		if c == nil {
			finish(result{})
			return nil
		}
		d := &customDialog{c: c, overlay: opts.Overlay, opts: opts.OverlayOptions, handlesCtrlC: opts.HandlesCtrlC, onClose: func() { finish(result{}) }}
		d.reserve = opts.Overlay && opts.ReserveTranscriptRows
		d.capture = !opts.Overlay || opts.OverlayOptions == nil || !opts.OverlayOptions.NonCapturing
		dmu.Lock()
		shown = d
		dmu.Unlock()
		select {
		case r := <-res: // done was called inside the factory
			res <- r
			d.close()
			return nil
		default:
		}
		m.ShowDialog(d)
		if h.ctl != nil {
			h.ctl.bind(m, d)
			if opts.OnHandle != nil {
				go opts.OnHandle(hh.(ext.OverlayHandle))
			}
		}
		return nil
	}))
	select {
	case r := <-res:
		return r.v, r.ok
	case <-ctx.Done():
		finish(result{})
		x.send(extMsg(func(m *model) tea.Cmd { closeShown(m); return nil }))
		r := <-res
		return r.v, r.ok
	case <-x.endedCh:
		finish(result{})
		r := <-res
		return r.v, r.ok
	}
}

// SetWidgetComponent implements ext.ComponentUI.
func (x *extUI) SetWidgetComponent(key string, factory ext.ComponentFactory, placement string) {
	x.send(extMsg(func(m *model) tea.Cmd {
		var c ext.Component
		if factory != nil {
			c = factory(x.handle(nil))
		}
		m.setWidgetComp(key, nil, c, placement == ext.WidgetBelowEditor)
		return nil
	}))
}

// SetFooterComponent implements ext.ComponentUI.
func (x *extUI) SetFooterComponent(factory ext.ComponentFactory) {
	x.send(extMsg(func(m *model) tea.Cmd {
		dispose(m.comps.footer)
		m.comps.footer = nil
		if factory != nil {
			m.comps.footer = factory(x.handle(nil))
		}
		return nil
	}))
}

// SetHeaderComponent implements ext.ComponentUI: the transcript is rebuilt with the new header.
func (x *extUI) SetHeaderComponent(factory ext.ComponentFactory) {
	x.send(extMsg(func(m *model) tea.Cmd {
		if m.comps.header != nil {
			dispose(m.comps.header.c)
			m.comps.header = nil
		}
		if factory != nil {
			if c := factory(x.handle(nil)); c != nil {
				m.comps.header = &compBlock{c: c}
			}
		}
		m.rebuild()
		return nil
	}))
}

var _ ext.ComponentUI = (*extUI)(nil)

// invalidateComponents tells every live extension component that its cached rendering is stale
// (the theme changed, tui.md §5.3): custom components and overlays, the custom editor, component
// widgets, the footer and the header draw again with the new theme.
func (m *model) invalidateComponents() {
	for _, dl := range m.dialogs {
		if d, ok := dl.(*customDialog); ok && !d.closed {
			d.c.Invalidate()
		}
	}
	for _, w := range m.widgets {
		if w.comp != nil {
			w.comp.Invalidate()
		}
	}
	if m.comps.footer != nil {
		m.comps.footer.Invalidate()
	}
	if m.comps.header != nil {
		m.comps.header.c.Invalidate()
		m.chat.Touch(m.comps.header)
	}
}

// pruneEnded removes the widgets, footer and header whose extension host dropped them
// (ext.Ender), restoring the built-in footer and header.
func (m *model) pruneEnded() {
	out := m.widgets[:0]
	for _, w := range m.widgets {
		if w.comp != nil && ext.Ended(w.comp) {
			dispose(w.comp)
			continue
		}
		out = append(out, w)
	}
	m.widgets = out
	if m.comps.footer != nil && ext.Ended(m.comps.footer) {
		dispose(m.comps.footer)
		m.comps.footer = nil
	}
	if m.comps.header != nil && ext.Ended(m.comps.header.c) {
		dispose(m.comps.header.c)
		m.comps.header = nil
		m.rebuild()
	}
}

// headerBlock is the transcript's first block: the custom header or the built-in one.
func (m *model) headerBlock() chat.Block {
	if m.comps.header != nil {
		return m.comps.header
	}
	return &chat.LinesBlock{Lines: m.header()}
}

// footerLines is the custom footer's lines, or the built-in footer.
func (m *model) footerLines(w int) []string {
	if m.comps.footer != nil {
		return clipLines(m.comps.footer.Render(w), w)
	}
	return m.footer(w)
}

// setWidget replaces, adds (at the end) or removes (nil or empty lines) a lines widget.
func (m *model) setWidget(key string, lines []string, below bool) {
	m.setWidgetComp(key, lines, nil, below)
}

// setWidgetComp replaces, adds (at the end) or removes widget key: lines or a component (nil
// both: remove). A replaced component is disposed.
func (m *model) setWidgetComp(key string, lines []string, c ext.Component, below bool) {
	empty := len(lines) == 0 && c == nil
	for i, w := range m.widgets {
		if w.key == key {
			dispose(w.comp)
			if empty {
				m.widgets = append(m.widgets[:i], m.widgets[i+1:]...)
			} else {
				m.widgets[i] = widget{key: key, lines: lines, comp: c, below: below}
			}
			return
		}
	}
	if !empty {
		m.widgets = append(m.widgets, widget{key: key, lines: lines, comp: c, below: below})
	}
}

// slotDialog is the dialog in the editor slot: the topmost one that is not an overlay.
func (m *model) slotDialog() component.Dialog {
	for i := len(m.dialogs) - 1; i >= 0; i-- {
		if d, ok := m.dialogs[i].(*customDialog); ok && d.overlay {
			continue
		}
		return m.dialogs[i]
	}
	return nil
}

// drawOverlays paints the overlays of the dialog stack over the screen's lines, bottom first.
func (m *model) drawOverlays(lines []string, w, h int) []string {
	for _, dl := range m.dialogs {
		d, ok := dl.(*customDialog)
		if !ok || !d.overlay || d.closed || d.hidden {
			continue
		}
		if opts, ok := m.overlayOpts(d, w, h); ok {
			lines = m.placeOverlay(lines, d, opts, w, h)
		} else if _, live := d.c.(ext.LiveOverlay); live && d.lastW > 0 {
			// A host overlay learns whether it is visible when it renders: keep asking (a
			// render at an unchanged size costs nothing), so it comes back when visible()
			// says so again.
			d.c.Render(d.lastW)
		}
	}
	return lines
}

// size resolves "40" or "50%" against total; def when empty or invalid.
func size(s string, total, def int) int {
	s = strings.TrimSpace(s)
	if s == "" {
		return def
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return def
		}
		return int(f * float64(total) / 100)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// position resolves an overlay's row or col as pi-tui does: "N%" is a share of the room left
// (free: the available cells less the overlay's size) after the leading margin, so 0% touches
// the top or left margin and 100% the bottom or right one; "N" is an absolute screen cell; any
// other text keeps center.
func position(s string, margin, free, center int) int {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f < 0 {
			return center
		}
		return margin + int(math.Floor(float64(max(free, 0))*f/100))
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return center
	}
	return n
}

// placeOverlay renders d for its options and writes it over lines (tui.md §7.5 OverlayOptions).
func (m *model) placeOverlay(lines []string, d *customDialog, o *ext.OverlayOptions, w, h int) []string {
	mg := o.Margin
	availW := max(w-mg.Left-mg.Right, 1)
	availH := max(h-mg.Top-mg.Bottom, 1)
	ow := size(o.Width, w, min(80, availW))
	ow = max(ow, o.MinWidth)
	ow = min(max(ow, 1), availW)
	d.lastW = ow
	body := d.render(ow)
	if d.reserve {
		// Leave MinTranscriptRows above it, within the margins and maxHeight (Atomic's budget).
		budget := min(availH, max(h-mg.Bottom-ext.MinTranscriptRows, 1))
		if o.MaxHeight != "" {
			budget = min(budget, max(size(o.MaxHeight, h, availH), 1))
		}
		body = d.bound(body, budget, func(s string) string { return m.th.Fg("muted", s) })
	}
	oh := min(len(body), size(o.MaxHeight, h, availH), availH)
	if d.reserve && oh != d.lastH {
		d.lastH = oh
		m.ext.requestRender() // the transcript makes room for the new height next frame
	}
	if oh <= 0 {
		return lines
	}
	body = body[:oh]
	var row, col int
	anchor := o.Anchor
	if anchor == "" {
		anchor = "center"
	}
	switch {
	case strings.HasPrefix(anchor, "top"):
		row = mg.Top
	case strings.HasPrefix(anchor, "bottom"):
		row = h - mg.Bottom - oh
	default:
		row = mg.Top + (availH-oh)/2
	}
	switch anchor {
	case "top-left", "left-center", "bottom-left":
		col = mg.Left
	case "top-right", "right-center", "bottom-right":
		col = w - mg.Right - ow
	default:
		col = mg.Left + (availW-ow)/2
	}
	if o.Row != "" {
		row = position(o.Row, mg.Top, availH-oh, row)
	}
	if o.Col != "" {
		col = position(o.Col, mg.Left, availW-ow, col)
	}
	row += o.OffsetY
	col += o.OffsetX
	// Within the screen less the margins, as pi-tui clamps.
	row = max(min(row, h-mg.Bottom-oh), mg.Top, 0)
	col = max(min(col, w-mg.Right-ow), mg.Left, 0)
	for len(lines) < h {
		lines = append(lines, "")
	}
	d.placedRow, d.placedCol = row, col
	if d.curRow >= oh {
		d.curOK = false // cut off
	}
	for i, l := range body {
		r := row + i
		if r < 0 || r >= len(lines) {
			continue
		}
		base := lines[r]
		left := component.Pad(ansi.Truncate(base, col, ""), col)
		right := cellsFrom(base, col+ow)
		lines[r] = left + "\x1b[0m" + component.Pad(l, ow) + "\x1b[0m" + right
	}
	return lines
}

// overlayTailRows is how many last rows a cut reserving overlay keeps: its closing border and
// key hints live there (Atomic's OVERLAY_TAIL_KEEP_ROWS).
const overlayTailRows = 3

// bound fits a reserving overlay's lines into budget rows as Atomic does: trailing blank rows go
// first; an over-tall frame keeps its last overlayTailRows rows and one window of the rest
// holding the active row (d.activeRow), with a muted notice of how many rows are hidden. The
// cursor marker's row follows the cut.
func (d *customDialog) bound(lines []string, budget int, muted func(string) string) []string {
	end := len(lines)
	for end > 0 && strings.TrimSpace(ansi.Strip(lines[end-1])) == "" {
		end--
	}
	lines = lines[:end]
	if budget <= 0 {
		d.curOK = false
		return nil
	}
	if len(lines) <= budget {
		if d.curRow >= len(lines) {
			d.curOK = false
		}
		return lines
	}
	active := d.activeRow
	if active >= len(lines) {
		active = -1
	}
	// moved maps a row of the frame to its row after the cut (-1: cut away).
	var moved func(int) int
	var out []string
	defer func() {
		if d.curOK {
			if r := moved(d.curRow); r >= 0 {
				d.curRow = r
			} else {
				d.curOK = false
			}
		}
	}()
	if active >= 0 && budget == 1 {
		moved = func(i int) int {
			if i == active {
				return 0
			}
			return -1
		}
		return []string{lines[active]}
	}
	reserveNotice := 1
	if active >= 0 {
		reserveNotice = 2
	}
	tail := min(overlayTailRows, max(0, budget-reserveNotice))
	window := budget - tail - 1
	if window <= 0 {
		moved = func(i int) int {
			if i < budget {
				return i
			}
			return -1
		}
		return lines[:budget]
	}
	tailStart := len(lines) - tail
	start := 0
	if active >= window && active < tailStart {
		start = min(active-window+1, tailStart-window)
	}
	kept := lines[start : start+window]
	hidden := len(lines) - len(kept) - tail
	notice := muted(fmt.Sprintf("⋮ %d more rows hidden — answer or cancel to see them", hidden))
	first := 0 // where the kept window lands
	if start > 0 {
		first = 1
		out = append(append(out, notice), kept...)
	} else {
		out = append(append(out, kept...), notice)
	}
	out = append(out, lines[tailStart:]...)
	moved = func(i int) int {
		switch {
		case i >= start && i < start+window:
			return first + i - start
		case i >= tailStart:
			return window + 1 + i - tailStart
		}
		return -1
	}
	return out
}

// cellsFrom is what s shows from cell from on, exactly as wide as that: a wide character cut by
// the boundary (an overlay's right edge over CJK text or an emoji) becomes a space, so the rest
// of the line stays in its columns.
func cellsFrom(s string, from int) string {
	want := component.Width(s) - from
	if want <= 0 {
		return ""
	}
	right := ansi.TruncateLeft(s, from, "")
	if component.Width(right) > want {
		right = ansi.TruncateLeft(s, from+1, "")
	}
	if n := want - component.Width(right); n > 0 {
		right = strings.Repeat(" ", n) + right
	}
	return right
}

// Markers extension components embed that take no cell (tui.md §8.1, §7.5): pi-tui's
// CURSOR_MARKER, which a focused Input or Editor puts before its cursor (an APC ended by BEL,
// which a width count following ECMA-48 would take to run to the end of the line, and which
// terminals that wait for ST swallow text after), and Atomic's OVERLAY_ACTIVE_ROW_MARKER.
const (
	cursorMarker    = ext.CursorMarker
	activeRowMarker = "\x1b_atomic:active\x1b\\"
)

// clipLines makes a component's lines safe to draw: the zero-width markers are removed, a tab
// becomes three spaces (pi-tui's visibleWidth counts a tab as 3), and every line is cut to width
// cells, counted per grapheme (wide East Asian characters and emoji sequences take 2).
func clipLines(lines []string, width int) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.Contains(l, "\x1b_") {
			l = strings.ReplaceAll(strings.ReplaceAll(l, cursorMarker, ""), activeRowMarker, "")
		}
		if strings.Contains(l, "\t") {
			l = strings.ReplaceAll(l, "\t", "   ")
		}
		out[i] = component.Truncate(l, width, "")
	}
	return out
}

// rawKey is the byte sequence a terminal sends for k (xterm/VT sequences; the Kitty form for
// modified keys that have no legacy one), what pi-tui components expect in handleInput.
func rawKey(k tea.KeyPressMsg) string {
	mod := k.Mod
	ctrl := mod&tea.ModCtrl != 0
	alt := mod&tea.ModAlt != 0
	shift := mod&tea.ModShift != 0
	if k.Text != "" && !ctrl && !alt {
		return k.Text
	}
	csiMod := 1
	if shift {
		csiMod++
	}
	if alt {
		csiMod += 2
	}
	if ctrl {
		csiMod += 4
	}
	cursor := func(final string) string {
		if csiMod == 1 {
			return "\x1b[" + final
		}
		return "\x1b[1;" + strconv.Itoa(csiMod) + final
	}
	tilde := func(n string) string {
		if csiMod == 1 {
			return "\x1b[" + n + "~"
		}
		return "\x1b[" + n + ";" + strconv.Itoa(csiMod) + "~"
	}
	switch k.Code {
	case tea.KeyEnter:
		switch {
		case shift || ctrl:
			return "\x1b[13;" + strconv.Itoa(csiMod) + "u"
		case alt:
			return "\x1b\r"
		}
		return "\r"
	case tea.KeyTab:
		if shift {
			return "\x1b[Z"
		}
		return "\t"
	case tea.KeyBackspace:
		if alt {
			return "\x1b\x7f"
		}
		if ctrl {
			return "\x08"
		}
		return "\x7f"
	case tea.KeyEscape:
		return "\x1b"
	case tea.KeySpace:
		if ctrl {
			return "\x00"
		}
		if alt {
			return "\x1b "
		}
		return " "
	case tea.KeyUp:
		return cursor("A")
	case tea.KeyDown:
		return cursor("B")
	case tea.KeyRight:
		return cursor("C")
	case tea.KeyLeft:
		return cursor("D")
	case tea.KeyHome:
		return cursor("H")
	case tea.KeyEnd:
		return cursor("F")
	case tea.KeyInsert:
		return tilde("2")
	case tea.KeyDelete:
		return tilde("3")
	case tea.KeyPgUp:
		return tilde("5")
	case tea.KeyPgDown:
		return tilde("6")
	case tea.KeyF1, tea.KeyF2, tea.KeyF3, tea.KeyF4:
		return "\x1bO" + string(rune('P'+k.Code-tea.KeyF1))
	}
	c := k.Code
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	var s string
	switch {
	case ctrl && c >= 'a' && c <= 'z':
		s = string(rune(c - 'a' + 1))
	case ctrl && (c == '[' || c == '\\' || c == ']' || c == '^' || c == '_'):
		s = string(rune(c & 0x1f))
	case k.Text != "":
		s = k.Text
	case c > 0 && c < 0x110000 && c >= ' ':
		s = string(k.Code)
		if shift && k.ShiftedCode != 0 {
			s = string(k.ShiftedCode)
		}
	default:
		return ""
	}
	if alt {
		return "\x1b" + s
	}
	return s
}
