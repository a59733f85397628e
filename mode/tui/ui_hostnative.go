package tui

import (
	"context"
	"errors"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/selector"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/store"
)

var _ ext.HostSessionPickerUI = (*extUI)(nil)

// errPickerNoDelete is what the host session picker shows on a confirmed ctrl+d when the
// extension gave no onDelete (Atomic shows the same).
var errPickerNoDelete = errors.New("Deletion is not supported for this picker")

// pickerHandle is the ext.HostSessionPickerHandle of one host session picker: its calls run on
// the UI goroutine against the selector once it is shown; calls before that apply when it shows.
type pickerHandle struct {
	x       *extUI
	mu      sync.Mutex
	sel     *selector.Sessions
	pending []func(s *selector.Sessions)
	closed  bool
	rows    []store.SessionInfo // the latest rows (what Tab's "all" scope loads)
}

func (h *pickerHandle) apply(fn func(s *selector.Sessions)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if h.sel == nil {
		h.pending = append(h.pending, fn)
		return
	}
	sel := h.sel
	h.x.send(extMsg(func(*model) tea.Cmd {
		if !sel.Done() {
			fn(sel)
		}
		return nil
	}))
}

// Update implements ext.HostSessionPickerHandle.
func (h *pickerHandle) Update(rows []store.SessionInfo) {
	rows = append([]store.SessionInfo(nil), rows...)
	h.mu.Lock()
	h.rows = rows
	h.mu.Unlock()
	h.apply(func(s *selector.Sessions) { s.SetSessions(rows) })
}

// Error implements ext.HostSessionPickerHandle.
func (h *pickerHandle) Error(message string) {
	h.apply(func(s *selector.Sessions) { s.ShowError(message) })
}

// shown binds the selector (on the UI goroutine) and applies what came before.
func (h *pickerHandle) shown(s *selector.Sessions) {
	h.mu.Lock()
	h.sel = s
	p := h.pending
	h.pending = nil
	h.mu.Unlock()
	for _, fn := range p {
		fn(s)
	}
}

func (h *pickerHandle) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
}

// HostSessionPicker implements ext.HostSessionPickerUI: the /resume selector over the
// extension's rows (Tab shows the same rows; no current session is marked). A confirmed ctrl+d
// calls req.OnDelete and keeps the row until the extension answers through the handle. ctx's
// end closes it.
func (x *extUI) HostSessionPicker(ctx context.Context, req ext.HostSessionPickerRequest) (string, bool) {
	type r struct {
		path string
		ok   bool
	}
	rows := append([]store.SessionInfo(nil), req.Rows...)
	h := &pickerHandle{x: x, rows: rows}
	defer h.close()
	if req.OnHandle != nil {
		req.OnHandle(h)
	}
	latest := func() ([]store.SessionInfo, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		return append([]store.SessionInfo(nil), h.rows...), nil
	}
	onDelete := func(path string) error {
		if req.OnDelete == nil {
			return errPickerNoDelete
		}
		go req.OnDelete(path)
		return selector.ErrKeepRow
	}
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		th, km := m.slotStyle()
		s := selector.NewSessions(th, km, rows, latest, "", nil,
			onDelete,
			func(in *store.SessionInfo) tea.Cmd {
				if in == nil {
					answer(r{})
				} else {
					answer(r{in.Path, true})
				}
				return nil
			})
		s.SetRenameHint(req.ShowRenameHint)
		h.shown(s)
		return s
	})
	return v.path, v.ok
}

var _ ext.HostInputFormUI = (*extUI)(nil)

// HostInputForm implements ext.HostInputFormUI: the form in the editor slot (slot.Form) until
// the user submits or cancels it, or ctx ends.
func (x *extUI) HostInputForm(ctx context.Context, req ext.HostInputFormRequest) (map[string]string, bool) {
	type r struct {
		v  map[string]string
		ok bool
	}
	heading, submit := req.Heading, req.SubmitLabel
	if heading == "" {
		heading = ext.DefaultInputFormHeading
	}
	if submit == "" {
		submit = ext.DefaultInputFormSubmit
	}
	fields := make([]slot.FormField, 0, len(req.Fields))
	for _, f := range req.Fields {
		fields = append(fields, slot.FormField{Name: f.Name, Type: f.Type, Description: f.Description, Placeholder: f.Placeholder,
			Required: f.Required, Choices: f.Choices, InitialValue: f.InitialValue})
	}
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		th, km := m.slotStyle()
		return slot.NewForm(th, km, req.Title, heading, submit, fields, func(values map[string]string, ok bool) tea.Cmd {
			answer(r{values, ok})
			return nil
		})
	})
	return v.v, v.ok
}
