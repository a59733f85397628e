package ext

import (
	"context"
	"fmt"
	"os"
	"sync"
)

// The component surfaces of ctx.ui (seed 004 "Custom UI", tui.md §7.3, §7.5, §8): custom
// components in the editor slot or as overlays, component widgets, and custom footers and
// headers. A component draws lines for a width and takes keys as raw terminal bytes; the mode's
// UI mounts it and gives its factory a ComponentHandle. Go extensions implement Component
// directly; the Node host's components (pi-tui objects living in the host process) reach the core
// as Components that ask the host for their lines (docs/extension-protocol.md "Components").

// Component is pi-tui's Component as the core sees it (tui.md §8.1). The UI calls its methods
// from one goroutine (the terminal UI's loop, the RPC server's component goroutine), never
// concurrently; state the extension changes from elsewhere needs its own lock.
type Component interface {
	// Render returns the component's lines for width terminal cells. Each line should be at most
	// width cells wide (longer ones are clipped) and holds SGR styling but no newline. Render is
	// called often (each frame the UI draws after RequestRender): it must not block.
	Render(width int) []string
	// HandleInput receives one key press or paste as the raw bytes a terminal sends: "\r" Enter,
	// "\x1b" Escape, "\x1b[A" Up, "\x03" Ctrl+C, text as UTF-8, a paste wrapped in
	// "\x1b[200~" … "\x1b[201~". Escape handling is the component's own.
	HandleInput(data string)
	// Invalidate drops whatever the component cached of its rendering (the theme changed).
	Invalidate()
}

// Disposer is implemented by a component that holds resources: the UI calls Dispose once when it
// drops the component (closed, replaced, restored, the UI ended).
type Disposer interface{ Dispose() }

// Ender is implemented by a component that can end by itself: a host component whose extension
// host dropped it (a reload). The UI removes a widget, footer or header once Ended reports true
// (restoring the built-in footer or header); the component asks for a render when it ends.
type Ender interface{ Ended() bool }

// Refresher is implemented by a component whose lines are rendered elsewhere and kept until it
// asks for a redraw (a host component). pi-tui renders every component on every frame, so a
// footer or widget reading session state shows it fresh after a turn without requestRender;
// the UI calls Refresh where that state changes (a message ended, the agent ended, a status or
// the model changed) to get the same lines. Refresh never calls the component's invalidate().
type Refresher interface{ Refresh() }

// Refresh calls c's Refresh when it implements Refresher.
func Refresh(c Component) {
	if r, ok := c.(Refresher); ok {
		r.Refresh()
	}
}

// Ended reports whether c implements Ender and has ended.
func Ended(c Component) bool {
	e, ok := c.(Ender)
	return ok && e.Ended()
}

// ComponentHandle is a mounted component's link to its UI, given to the factory. Its methods are
// safe from any goroutine.
type ComponentHandle interface {
	// RequestRender asks the UI to draw the component again. Calls coalesce: the UI renders at
	// most once per frame however often it is asked.
	RequestRender()
	// Done closes a Custom component: Custom returns value with ok true. Only the first call
	// counts; widgets, footers and headers ignore it.
	Done(value any)
	// Size is the terminal's size in cells (RPC: the client's extension_ui_resize, 80×24 by
	// default).
	Size() (columns, rows int)
}

// ComponentFactory makes the component a UI mounts, given its handle.
type ComponentFactory func(h ComponentHandle) Component

// Margin is an overlay's distance from the terminal's edges, in cells.
type Margin struct {
	Top, Right, Bottom, Left int
}

// OverlayOptions place an overlay (pi-tui's OverlayOptions, tui.md §7.5). Sizes and positions
// are cells ("40") or percentages of the terminal ("50%"); "" leaves them to the default.
type OverlayOptions struct {
	// Width of the overlay; "" is the full width inside the margin, capped at 80 cells.
	Width    string `json:"width,omitempty"`
	MinWidth int    `json:"minWidth,omitempty"`
	// MaxHeight caps the rows shown; "" is the terminal height inside the margin.
	MaxHeight string `json:"maxHeight,omitempty"`
	// Anchor is center (default), top-left, top-center, top-right, left-center, right-center,
	// bottom-left, bottom-center or bottom-right.
	Anchor  string `json:"anchor,omitempty"`
	OffsetX int    `json:"offsetX,omitempty"`
	OffsetY int    `json:"offsetY,omitempty"`
	// Row and Col, when set, place the top-left corner and override Anchor.
	Row    string `json:"row,omitempty"`
	Col    string `json:"col,omitempty"`
	Margin Margin `json:"margin"`
	// NonCapturing overlays are shown without taking the keyboard.
	NonCapturing bool `json:"nonCapturing,omitempty"`
	// Visible, when set, is asked on every frame with the terminal size: false draws nothing
	// (responsive overlays). It runs on the UI's goroutine and must not block.
	Visible func(columns, rows int) bool `json:"-"`
}

// CustomOptions are ctx.ui.custom's options.
type CustomOptions struct {
	// Overlay floats the component over the screen instead of replacing the editor.
	Overlay bool
	// OverlayOptions place the overlay (nil: centred, default width).
	OverlayOptions *OverlayOptions
	// OnHandle, for an overlay, receives its OverlayHandle once it is shown (pi's onHandle). The
	// ComponentHandle the factory gets implements OverlayHandle too.
	OnHandle func(h OverlayHandle)
	// HandlesCtrlC says the component binds Ctrl+C itself (Atomic's handlesCtrlC, tui.md §3.9,
	// §7.5). While a component holds the keys the terminal UI owns Ctrl+C as an escape hatch:
	// without HandlesCtrlC the first press closes the component (Custom returns nil, false);
	// with it the component receives the press, and a second press in a row, with the
	// component still holding the keys, closes it.
	HandlesCtrlC bool
	// ReserveTranscriptRows, for a bottom-anchored overlay (Atomic's reserveTranscriptRows, tui.md
	// §7.5): the overlay is cut to leave at least MinTranscriptRows rows of transcript above it
	// (an over-tall frame keeps its marked active row and its last rows, with a notice of the
	// rows hidden), and the transcript ends above it, so its newest rows are not covered. The
	// anchor must be bottom-left, bottom-center or bottom-right; Row and a nonzero OffsetY are
	// refused (CheckReserve).
	ReserveTranscriptRows bool
}

// MinTranscriptRows is how many transcript rows a ReserveTranscriptRows overlay leaves visible.
const MinTranscriptRows = 6

// CheckReserve reports why opts cannot reserve transcript rows (Atomic's rules), nil when they
// can or do not ask to.
func CheckReserve(opts CustomOptions) error {
	if !opts.ReserveTranscriptRows || !opts.Overlay {
		return nil
	}
	o := opts.OverlayOptions
	if o == nil || (o.Anchor != "bottom-left" && o.Anchor != "bottom-center" && o.Anchor != "bottom-right") {
		return fmt.Errorf("ctx.ui.custom: reserveTranscriptRows requires an explicit bottom anchor: bottom-left, bottom-center, or bottom-right")
	}
	if o.Row != "" {
		return fmt.Errorf("ctx.ui.custom: reserveTranscriptRows does not support overlayOptions.row")
	}
	if o.OffsetY != 0 {
		return fmt.Errorf("ctx.ui.custom: reserveTranscriptRows does not support a nonzero overlayOptions.offsetY")
	}
	return nil
}

// OverlayHandle controls a shown overlay (pi-tui's OverlayHandle, tui.md §7.5). Overlays stack in
// focus order; keys go to the topmost one that is shown and captures (not NonCapturing, or
// focused with Focus), else to what is under the overlays (a dialog in the editor slot, the
// editor). Its methods are safe from any goroutine; they do nothing once the overlay closed.
type OverlayHandle interface {
	// Hide closes the overlay for good (Custom returns nil, false).
	Hide()
	// SetHidden hides the overlay without closing it, or shows it again; shown again, a capturing
	// overlay comes to the front and takes the keys.
	SetHidden(hidden bool)
	// IsHidden reports SetHidden's state.
	IsHidden() bool
	// Focus brings the overlay to the front and gives it the keys (also a NonCapturing one), when
	// it is visible.
	Focus()
	// Unfocus gives the keys back: to the next capturing overlay under it, else to the editor slot.
	Unfocus()
	// IsFocused reports whether the overlay has the keys now.
	IsFocused() bool
}

// CursorMarker is pi-tui's CURSOR_MARKER (tui.md §8.1): a focused component puts it in a line
// right before its cursor; it takes no cell. The terminal UI removes it and moves the terminal
// cursor there (input methods place their candidate window at it), hidden unless
// ATOMIC_HARDWARE_CURSOR=1 or PI_HARDWARE_CURSOR=1.
const CursorMarker = "\x1b_pi:c\x07"

// Focusable is implemented by a component that draws differently when it has the keys (pi-tui's
// Focusable: a text input shows its cursor only then). The UI calls SetFocused when that changes.
type Focusable interface {
	SetFocused(focused bool)
}

// LiveOverlay is implemented by a component whose overlay placement may change from frame to
// frame (pi's overlayOptions given as a function; the Node host's components): the UI asks it
// on every frame instead of using CustomOptions.OverlayOptions, and Hidden true draws nothing.
type LiveOverlay interface {
	LiveOverlayOptions() (opts *OverlayOptions, hidden bool)
}

// FooterFacts are what the built-in footer shows that a footer factory may show too (pi's
// ReadonlyFooterDataProvider): the git branch ("" outside a repository) and the extension
// statuses by key.
type FooterFacts struct {
	GitBranch string
	Statuses  map[string]string
}

// FooterFactsUI is the capability of a UI with a built-in footer (the terminal UI): its facts
// now. A UI without it reports none (no branch, no statuses).
type FooterFactsUI interface {
	FooterFacts() FooterFacts
}

// BranchWatchUI is the capability of a UI that watches the git branch its footer shows (the
// terminal UI; pi's footerData.onBranchChange): fn is called, on a goroutine of its own, each
// time the branch changes (a checkout in another terminal, a session in another repository).
type BranchWatchUI interface {
	// OnBranchChange subscribes fn; the returned function unsubscribes it.
	OnBranchChange(fn func()) (unsubscribe func())
}

// ComponentUI is the component capability of a UI (style.md "optional capabilities"): the
// terminal UI and RPC mode implement it. Reach it through the helpers below, which apply the
// documented defaults on a UI without it.
type ComponentUI interface {
	// Custom mounts the component factory makes (in the editor slot, or floating with
	// opts.Overlay) and waits until the component calls Done (value, true), the user or client
	// dismisses it, ctx ends or the UI ends (nil, false). The component is disposed then.
	Custom(ctx context.Context, factory ComponentFactory, opts CustomOptions) (value any, ok bool)
	// SetWidgetComponent sets widget key to the component factory makes, at placement
	// (WidgetAboveEditor or WidgetBelowEditor); nil factory removes it. It replaces (and
	// disposes) any widget of that key, lines or component.
	SetWidgetComponent(key string, factory ComponentFactory, placement string)
	// SetFooterComponent replaces the built-in footer; nil restores it.
	SetFooterComponent(factory ComponentFactory)
	// SetHeaderComponent replaces the built-in header; nil restores it.
	SetHeaderComponent(factory ComponentFactory)
}

// Custom is ctx.ui.custom: ui's Custom when it has components; otherwise (print and JSON mode)
// it returns (nil, false) at once, never waiting, and a debug diagnostic names the call.
func Custom(ctx context.Context, ui UI, factory ComponentFactory, opts CustomOptions) (any, bool) {
	if c, ok := UIAs[ComponentUI](ui); ok && factory != nil {
		return c.Custom(ctx, factory, opts)
	}
	UIDebugf("ctx.ui.custom", "this mode has no component UI (%T); it resolves undefined", ui)
	return nil, false
}

// SetWidgetComponent is setWidget with a factory: ui's when it has components, otherwise a debug
// diagnostic (the widget is not shown).
func SetWidgetComponent(ui UI, key string, factory ComponentFactory, placement string) {
	if c, ok := UIAs[ComponentUI](ui); ok {
		c.SetWidgetComponent(key, factory, placement)
		return
	}
	if factory != nil {
		UIDebugf("ctx.ui.setWidget", "widget %q: this mode has no component UI (%T); the factory is not run", key, ui)
	}
}

// SetFooterComponent is ctx.ui.setFooter: ui's when it has components, otherwise a debug
// diagnostic (the built-in footer, if any, stays).
func SetFooterComponent(ui UI, factory ComponentFactory) {
	if c, ok := UIAs[ComponentUI](ui); ok {
		c.SetFooterComponent(factory)
		return
	}
	if factory != nil {
		UIDebugf("ctx.ui.setFooter", "this mode has no component UI (%T); the factory is not run", ui)
	}
}

// SetHeaderComponent is ctx.ui.setHeader: ui's when it has components, otherwise a debug
// diagnostic (the built-in header, if any, stays).
func SetHeaderComponent(ui UI, factory ComponentFactory) {
	if c, ok := UIAs[ComponentUI](ui); ok {
		c.SetHeaderComponent(factory)
		return
	}
	if factory != nil {
		UIDebugf("ctx.ui.setHeader", "this mode has no component UI (%T); the factory is not run", ui)
	}
}

var (
	uiDebugMu sync.Mutex
	uiDebug   func(call, message string)
)

// SetUIDebug sets where the debug diagnostics of degraded UI calls go (nil: nowhere, unless
// ATOMIC_DEBUG is set in the environment, then standard error). fn gets the call
// ("ctx.ui.custom") and what happened instead.
func SetUIDebug(fn func(call, message string)) {
	uiDebugMu.Lock()
	uiDebug = fn
	uiDebugMu.Unlock()
}

// UIDebugf reports a UI call that a mode cannot honour, at debug level: call names it
// ("ctx.ui.custom"), the rest says what applies instead.
func UIDebugf(call, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	uiDebugMu.Lock()
	fn := uiDebug
	uiDebugMu.Unlock()
	if fn != nil {
		fn(call, msg)
		return
	}
	if os.Getenv("ATOMIC_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "atomic: debug: %s: %s\n", call, msg)
	}
}

// Lines is a Component of fixed lines (a Go extension's simplest widget or footer): it ignores
// keys and has nothing to invalidate.
type Lines []string

// Render returns the lines as they are (the UI clips them to width).
func (l Lines) Render(int) []string { return append([]string(nil), l...) }

// HandleInput ignores the key.
func (Lines) HandleInput(string) {}

// Invalidate does nothing.
func (Lines) Invalidate() {}
