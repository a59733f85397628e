package host

import (
	"context"
	"encoding/json"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// isDialog reports whether method is a blocking ctx.ui dialog (select, confirm, input, editor).
func isDialog(method string) bool {
	switch method {
	case protocol.MethodUISelect, protocol.MethodUIConfirm, protocol.MethodUIInput, protocol.MethodUIEditor, protocol.MethodUICustom:
		return true
	}
	return false
}

// serveDialog serves a dialog request cancellably: the host's $/cancelRequest for it (the
// extension's AbortSignal fired) or the host going away ends the dialog's context, which closes
// the dialog on screen with its default answer (tui.md §7.2). The dialog's own timeout bounds
// it too.
func (p *process) serveDialog(m *protocol.Message) {
	p.serveCancellable(m, func(ctx context.Context) (any, error) {
		return p.sup.dialog(ctx, p, m.Method, m.Params)
	})
}

// dialog runs one dialog method within parent (its cancellation and the request's timeout).
// Errors and panics map to protocol errors as request's do (a stale context included).
func (s *Supervisor) dialog(parent context.Context, p *process, method string, params json.RawMessage) (res any, err error) {
	defer recoverCall(method, &res, &err)
	a, c, err := ctxCall(s, params, func(a *protocol.UIParams) int64 { return a.Ctx })
	if err != nil {
		return nil, wireError(err)
	}
	ctx, cancel := dialogContext(a.Timeout)
	defer cancel()
	// The user's time is not the handler's (extensionHandlerTimeoutMs), as in uiCall.
	defer p.holdDialog(a.Ctx)()
	stop := context.AfterFunc(parent, cancel)
	defer stop()
	ui := c.UI()
	switch method {
	case protocol.MethodUISelect:
		if v, ok := ui.Select(ctx, a.Title, a.Options); ok {
			return v, nil
		}
	case protocol.MethodUIConfirm:
		return ui.Confirm(ctx, a.Title, a.Message), nil
	case protocol.MethodUIInput:
		if v, ok := ui.Input(ctx, a.Title, a.Placeholder); ok {
			return v, nil
		}
	case protocol.MethodUIEditor:
		if v, ok := ui.Editor(ctx, a.Title, a.Prefill); ok {
			return v, nil
		}
	case protocol.MethodUICustom:
		// The value of done(value) stays in the host; the answer only says the component closed.
		oo := overlayOptions(a.OverlayOptions)
		r := p.newRemote(a.Component, oo)
		defer r.Dispose()
		ext.Custom(ctx, ui, r.factory, ext.CustomOptions{Overlay: a.Overlay, OverlayOptions: oo})
	}
	return nil, nil
}
