package tui

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/selector"
	"github.com/atomic-cli/atomic/store"
)

var _ ext.HostSessionPickerUI = (*extUI)(nil)

// errPickerDelete is what the host session picker shows on ctrl+d: deleting a row belongs to
// the extension's onDelete, which this picker does not call yet.
var errPickerDelete = errors.New("hostSessionPicker: deleting sessions is not available from this picker")

// HostSessionPicker implements ext.HostSessionPickerUI: the /resume selector over the
// extension's rows (Tab shows the same rows; no current session is marked). ctx's end closes it.
func (x *extUI) HostSessionPicker(ctx context.Context, req ext.HostSessionPickerRequest) (string, bool) {
	type r struct {
		path string
		ok   bool
	}
	rows := append([]store.SessionInfo(nil), req.Rows...)
	v := ask(ctx, x, r{}, func(m *model, answer func(r)) component.Dialog {
		th, km := m.slotStyle()
		return selector.NewSessions(th, km, rows, func() ([]store.SessionInfo, error) { return rows, nil }, "", nil,
			func(string) error { return errPickerDelete },
			func(in *store.SessionInfo) tea.Cmd {
				if in == nil {
					answer(r{})
				} else {
					answer(r{in.Path, true})
				}
				return nil
			})
	})
	return v.path, v.ok
}
