package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/store"
)

// isDialog reports whether method is a blocking ctx.ui dialog (select, confirm, input, editor).
func isDialog(method string) bool {
	switch method {
	case protocol.MethodUISelect, protocol.MethodUIConfirm, protocol.MethodUIInput, protocol.MethodUIEditor, protocol.MethodUICustom, protocol.MethodUIHostSessionPicker, protocol.MethodUIHostInputForm:
		return true
	}
	return false
}

// serveDialog serves a dialog request cancellably: the host's $/cancelRequest for it (the
// extension's AbortSignal fired) or the host going away ends the dialog's context, which closes
// the dialog on screen with its default answer (tui.md §7.2). The dialog's own timeout bounds
// it too.
func (p *process) serveDialog(m *protocol.Message) {
	if m.Method == protocol.MethodUIHostSessionPicker {
		// The picker's link exists before its update/error notifications, which this reader
		// goroutine handles next, can look for it.
		var a struct {
			Picker int64 `json:"picker"`
		}
		if json.Unmarshal(m.Params, &a) == nil && a.Picker != 0 {
			link := p.pickerLink(a.Picker)
			p.serveCancellable(m, func(ctx context.Context) (any, error) {
				defer p.pickers.CompareAndDelete(a.Picker, link)
				return p.sup.dialog(ctx, p, m.Method, m.Params)
			})
			return
		}
	}
	if m.Method == protocol.MethodUICustom {
		// Likewise the component: its ui.component.control notifications (onHandle calls made
		// right after opening) must find it.
		var a struct {
			Component int64 `json:"component"`
		}
		if json.Unmarshal(m.Params, &a) == nil && a.Component != 0 {
			r := p.newRemote(a.Component, nil)
			p.serveCancellable(m, func(ctx context.Context) (any, error) {
				defer r.Dispose()
				return p.sup.dialog(ctx, p, m.Method, m.Params)
			})
			return
		}
	}
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
		req := ext.HostSessionPickerRequest{Rows: sessionRows(a.Rows), ShowRenameHint: a.ShowRenameHint}
		if a.Picker != 0 {
			req.OnHandle = p.pickerLink(a.Picker).bind
			if a.HasDelete {
				id := a.Picker
				req.OnDelete = func(path string) {
					_ = p.out.Notify(protocol.MethodHostSessionPickerDelete, protocol.HostPickerParams{Picker: id, Path: path})
				}
			}
		}
		if path, ok := hp.HostSessionPicker(ctx, req); ok {
			return path, nil
		}
	case protocol.MethodUIHostInputForm:
		hf, ok := ext.UIAs[ext.HostInputFormUI](ui)
		if !ok || a.Form == nil {
			return nil, fmt.Errorf("ctx.ui.hostInputForm: not available in %s mode", c.Mode())
		}
		if values, ok := hf.HostInputForm(ctx, inputForm(a.Form)); ok {
			return orderedValues(a.Form, values), nil
		}
	case protocol.MethodUICustom:
		// The value of done(value) stays in the host; the answer only says the component closed.
		oo := overlayOptions(a.OverlayOptions)
		r := p.customRemote(a.Component, oo)
		defer r.Dispose()
		ext.Custom(ctx, ui, r.factory, ext.CustomOptions{Overlay: a.Overlay, OverlayOptions: oo, HandlesCtrlC: a.HandlesCtrlC, ReserveTranscriptRows: a.ReserveTranscriptRows})
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
			Summary: r.Summary, MessageColor: pickerColor(r.MessageColor),
		})
	}
	return out
}

// pickerColor is a row's messageColor when it is one Atomic allows (success, warning, accent,
// error), else "" (the default color).
func pickerColor(c string) string {
	switch c {
	case "success", "warning", "accent", "error":
		return c
	}
	return ""
}

// inputForm is the wire form of ui.hostInputForm as ext's request.
func inputForm(f *protocol.HostInputForm) ext.HostInputFormRequest {
	req := ext.HostInputFormRequest{Title: f.Title, Heading: f.Heading, SubmitLabel: f.SubmitLabel}
	for _, fl := range f.Fields {
		req.Fields = append(req.Fields, ext.HostInputField(fl))
	}
	return req
}

// orderedValues is the form's answer as a JSON object with the fields in the request's order
// (the extension sees Object.keys in that order, as Atomic's form gives them).
func orderedValues(f *protocol.HostInputForm, values map[string]string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	seen := map[string]bool{}
	for _, fl := range f.Fields {
		v, ok := values[fl.Name]
		if !ok || seen[fl.Name] {
			continue
		}
		seen[fl.Name] = true
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(fl.Name)
		val, _ := json.Marshal(v)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// pickerLink joins an open host session picker with its update and error notifications, which
// may arrive before the picker is shown: they wait in the link until the UI gives its handle.
type pickerLink struct {
	mu      sync.Mutex
	h       ext.HostSessionPickerHandle
	pending []func(h ext.HostSessionPickerHandle)
}

// pickerLink returns the link of picker id, making it on first use.
func (p *process) pickerLink(id int64) *pickerLink {
	v, _ := p.pickers.LoadOrStore(id, &pickerLink{})
	return v.(*pickerLink)
}

// bind receives the picker's handle and runs the calls that came first.
func (l *pickerLink) bind(h ext.HostSessionPickerHandle) {
	l.mu.Lock()
	l.h = h
	pend := l.pending
	l.pending = nil
	l.mu.Unlock()
	for _, fn := range pend {
		fn(h)
	}
}

// do runs fn on the handle now, or once bound.
func (l *pickerLink) do(fn func(h ext.HostSessionPickerHandle)) {
	l.mu.Lock()
	h := l.h
	if h == nil {
		l.pending = append(l.pending, fn)
	}
	l.mu.Unlock()
	if h != nil {
		fn(h)
	}
}

func init() {
	picker := func(fn func(h ext.HostSessionPickerHandle, a *protocol.HostPickerParams)) handlerFunc {
		return func(_ *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.HostPickerParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			if v, ok := p.pickers.Load(a.Picker); ok {
				v.(*pickerLink).do(func(h ext.HostSessionPickerHandle) { fn(h, &a) })
			}
			return nil, nil
		}
	}
	methods[protocol.MethodUIHostSessionPickerUpdate] = picker(func(h ext.HostSessionPickerHandle, a *protocol.HostPickerParams) {
		h.Update(sessionRows(a.Rows))
	})
	methods[protocol.MethodUIHostSessionPickerError] = picker(func(h ext.HostSessionPickerHandle, a *protocol.HostPickerParams) {
		h.Error(a.Message)
	})
}
