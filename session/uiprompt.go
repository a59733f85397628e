package session

import (
	"context"
	"sync"

	"github.com/atomic-cli/atomic/ext"
)

// promptUI wraps the mode's UI so that blocking dialogs (select, confirm, input, editor) are
// reported as ui_prompt_start / ui_prompt_end (events.md §3.10): nested or overlapping prompts
// coalesce into one outer span, and the end carries the outer start's reason, kind and title.
type promptUI struct {
	ext.UI
	s *Session

	mu    sync.Mutex // guards depth, outer, hold
	depth int
	outer ext.UIPrompt
	hold  func() // ends the runner's guard hold of the outer span
}

func (u *promptUI) enter(kind, title string) {
	u.mu.Lock()
	u.depth++
	first := u.depth == 1
	if first {
		u.outer = ext.UIPrompt{Reason: "ui_prompt", Kind: kind, Title: title}
		// The user's time does not count against a tool_call guard's bound.
		u.hold = u.s.runner.HoldGuards()
	}
	span := u.outer
	u.mu.Unlock()
	if first {
		emit[ext.None](u.s, context.Background(), ext.UIPromptStart{UIPrompt: span})
	}
}

func (u *promptUI) exit() {
	u.mu.Lock()
	u.depth--
	last := u.depth == 0
	span := u.outer
	hold := u.hold
	if last {
		u.hold = nil
	}
	u.mu.Unlock()
	if last && hold != nil {
		hold()
	}
	if last {
		emit[ext.None](u.s, context.Background(), ext.UIPromptEnd{UIPrompt: span})
	}
}

// Select implements ext.UI.
func (u *promptUI) Select(ctx context.Context, title string, options []string) (string, bool) {
	u.enter("select", title)
	defer u.exit()
	return u.UI.Select(ctx, title, options)
}

// Confirm implements ext.UI.
func (u *promptUI) Confirm(ctx context.Context, title, message string) bool {
	u.enter("confirm", title)
	defer u.exit()
	return u.UI.Confirm(ctx, title, message)
}

// Input implements ext.UI.
func (u *promptUI) Input(ctx context.Context, title, placeholder string) (string, bool) {
	u.enter("input", title)
	defer u.exit()
	return u.UI.Input(ctx, title, placeholder)
}

// Editor implements ext.UI.
func (u *promptUI) Editor(ctx context.Context, title, prefill string) (string, bool) {
	u.enter("editor", title)
	defer u.exit()
	return u.UI.Editor(ctx, title, prefill)
}

// SetWorkingMessage forwards ext.WorkingUI to the mode's UI (a no-op without it).
func (u *promptUI) SetWorkingMessage(message string) { ext.SetWorkingMessage(u.UI, message) }

// SetWorkingVisible forwards ext.WorkingUI.
func (u *promptUI) SetWorkingVisible(visible bool) { ext.SetWorkingVisible(u.UI, visible) }

// SetWorkingIndicator forwards ext.WorkingUI.
func (u *promptUI) SetWorkingIndicator(ind *ext.WorkingIndicator) {
	ext.SetWorkingIndicator(u.UI, ind)
}

// SetWidgetAt forwards ext.WidgetPlacementUI.
func (u *promptUI) SetWidgetAt(key string, lines []string, placement string) {
	ext.SetWidgetAt(u.UI, key, lines, placement)
}

// Unwrap returns the mode's UI, so the optional capabilities it has are found (ext.UIAs).
func (u *promptUI) Unwrap() ext.UI { return u.UI }

// Custom forwards ext.ComponentUI (the documented default without it: nil, false at once); the
// component's time on screen is a prompt span like a dialog's.
func (u *promptUI) Custom(ctx context.Context, factory ext.ComponentFactory, opts ext.CustomOptions) (any, bool) {
	if _, ok := ext.UIAs[ext.ComponentUI](u.UI); ok {
		u.enter("custom", "")
		defer u.exit()
	}
	return ext.Custom(ctx, u.UI, factory, opts)
}

// SetWidgetComponent forwards ext.ComponentUI.
func (u *promptUI) SetWidgetComponent(key string, factory ext.ComponentFactory, placement string) {
	ext.SetWidgetComponent(u.UI, key, factory, placement)
}

// SetFooterComponent forwards ext.ComponentUI.
func (u *promptUI) SetFooterComponent(factory ext.ComponentFactory) {
	ext.SetFooterComponent(u.UI, factory)
}

// SetHeaderComponent forwards ext.ComponentUI.
func (u *promptUI) SetHeaderComponent(factory ext.ComponentFactory) {
	ext.SetHeaderComponent(u.UI, factory)
}
