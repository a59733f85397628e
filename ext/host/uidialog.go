package host

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/store"
)

// isDialog reports whether method is a blocking ctx.ui dialog (select, confirm, input, editor).
func isDialog(method string) bool {
	switch method {
	case protocol.MethodUISelect, protocol.MethodUIConfirm, protocol.MethodUIInput, protocol.MethodUIEditor, protocol.MethodUICustom, protocol.MethodUIHostSessionPicker:
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
	case protocol.MethodUIHostSessionPicker:
		hp, ok := ext.UIAs[ext.HostSessionPickerUI](ui)
		if !ok {
			return nil, fmt.Errorf("ctx.ui.hostSessionPicker: not available in %s mode", c.Mode())
		}
		if path, ok := hp.HostSessionPicker(ctx, ext.HostSessionPickerRequest{Rows: sessionRows(a.Rows)}); ok {
			return path, nil
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

// sessionRows are the wire rows of ui.hostSessionPicker as store.SessionInfo (epoch
// milliseconds to times; zero stays the zero time).
func sessionRows(rows []protocol.HostSessionPickerRow) []store.SessionInfo {
	ms := func(v int64) time.Time {
		if v == 0 {
			return time.Time{}
		}
		return time.UnixMilli(v)
	}
	out := make([]store.SessionInfo, 0, len(rows))
	for _, r := range rows {
		out = append(out, store.SessionInfo{
			Path: r.Path, ID: r.ID, Cwd: r.Cwd, Name: r.Name, ParentSessionPath: r.ParentSessionPath,
			Created: ms(r.CreatedAt), Modified: ms(r.ModifiedAt), MessageCount: r.MessageCount,
			FirstMessage: r.FirstMessage, AllMessagesText: r.AllMessagesText,
		})
	}
	return out
}
