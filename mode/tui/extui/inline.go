package extui

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/slot"
)

// Inline is ext.UI before the interactive screen exists (the project_trust handlers run before
// the session, config-and-resources.md §6): each dialog runs alone in the terminal with
// slot.RunInline, one at a time; Notify prints a line to Out; the chrome calls (status, widgets,
// title, editor text) have nothing to act on and do nothing. Safe for concurrent use.
type Inline struct {
	In  io.Reader // nil: the process's terminal
	Out io.Writer // nil: the process's stdout
	Env []string  // nil: the process environment
	// Theme and Keys style and drive the dialogs.
	Theme slot.Theme
	Keys  slot.Keys

	mu sync.Mutex // one dialog at a time
}

var _ ext.UI = (*Inline)(nil)

func (u *Inline) run(ctx context.Context, d slot.Dialog, init tea.Cmd) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err := slot.RunInline(ctx, u.In, u.Out, u.Env, d, init); err != nil && u.Out != nil {
		fmt.Fprintf(u.Out, "Warning: %v\n", err)
	}
}

func timeout(ctx context.Context) time.Duration {
	if ctx == nil {
		return 0
	}
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Until(dl), time.Millisecond)
	}
	return 0
}

// Select implements ext.UI.
func (u *Inline) Select(ctx context.Context, title string, options []string) (string, bool) {
	var choice string
	var ok bool
	d := slot.NewSelect(u.Theme, u.Keys, title, options, timeout(ctx), func(i int, k bool) tea.Cmd {
		if k && i < len(options) {
			choice, ok = options[i], true
		}
		return nil
	})
	u.run(ctx, d, d.Init())
	return choice, ok
}

// Confirm implements ext.UI.
func (u *Inline) Confirm(ctx context.Context, title, message string) bool {
	var yes bool
	d := slot.NewConfirm(u.Theme, u.Keys, title, message, timeout(ctx), func(y bool) tea.Cmd { yes = y; return nil })
	u.run(ctx, d, d.Init())
	return yes
}

// Input implements ext.UI.
func (u *Inline) Input(ctx context.Context, title, placeholder string) (string, bool) {
	var text string
	var ok bool
	d := slot.NewPrompt(u.Theme, u.Keys, title, placeholder, timeout(ctx), func(s string, k bool) tea.Cmd { text, ok = s, k; return nil })
	u.run(ctx, d, d.Init())
	return text, ok
}

// Editor implements ext.UI.
func (u *Inline) Editor(ctx context.Context, title, prefill string) (string, bool) {
	var text string
	var ok bool
	d := slot.NewTextEditor(u.Theme, u.Keys, title, prefill, func(s string, k bool) tea.Cmd { text, ok = s, k; return nil })
	u.run(ctx, d, nil)
	return text, ok
}

// Notify implements ext.UI: one line on Out.
func (u *Inline) Notify(message, level string) {
	if u.Out == nil {
		return
	}
	switch level {
	case "warning":
		message = "Warning: " + message
	case "error":
		message = "Error: " + message
	}
	fmt.Fprintln(u.Out, message)
}

// SetStatus implements ext.UI (nothing to show yet).
func (u *Inline) SetStatus(string, string) {}

// SetWidget implements ext.UI (nothing to show yet).
func (u *Inline) SetWidget(string, []string) {}

// SetTitle implements ext.UI (nothing to show yet).
func (u *Inline) SetTitle(string) {}

// SetEditorText implements ext.UI (there is no editor yet).
func (u *Inline) SetEditorText(string) {}

// GetEditorText implements ext.UI: "" (there is no editor yet).
func (u *Inline) GetEditorText() string { return "" }
