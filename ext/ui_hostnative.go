package ext

import (
	"context"

	"github.com/atomic-cli/atomic/store"
)

// HostSessionPickerRequest is ctx.ui.hostSessionPicker's request (seed 004, "Host-native
// session picker"): the rows to list, newest first as given.
type HostSessionPickerRequest struct {
	// Rows are the sessions shown; each pick answers its Path.
	Rows []store.SessionInfo
}

// HostSessionPickerUI is the optional capability of a UI that draws the built-in session
// selector natively for an extension (the interactive mode; absent in print, JSON and RPC mode,
// where ctx.ui.hostSessionPicker is undefined). Reach it with UIAs.
type HostSessionPickerUI interface {
	// HostSessionPicker shows req's rows in the session selector and blocks until the user picks
	// one (its path, true), cancels ("", false) or ctx ends (the picker closes; "", false).
	HostSessionPicker(ctx context.Context, req HostSessionPickerRequest) (path string, ok bool)
}
