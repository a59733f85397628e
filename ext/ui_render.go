package ext

import (
	"context"
	"encoding/json"

	"github.com/atomic-cli/atomic/llm"
)

// Custom rendering in the transcript (seed 004 "Custom Rendering", tui.md §6.1-6.2): tool
// renderers (pi's renderCall / renderResult / renderShell), message renderers for custom messages
// (registerMessageRenderer) and entry renderers for custom entries (registerEntryRenderer). A
// renderer answers lines for a width; ok false means "not mine": the UI draws that slot with its
// built-in renderer, as it does when the renderer fails. The terminal UI calls renderers off its
// goroutine and keeps showing the last lines until new ones arrive.

// Tool row slots.
const (
	SlotCall   = "call"
	SlotResult = "result"
)

// Tool row shells (renderShell).
const (
	// ShellDefault is the padded box whose background follows the state.
	ShellDefault = "default"
	// ShellSelf draws the slots as they are: no box, no background, no padding.
	ShellSelf = "self"
)

// ToolRenderResult is the result a renderResult sees: the (partial while running) content and
// details.
type ToolRenderResult struct {
	Content []llm.Content `json:"content"`
	Details any           `json:"details,omitempty"`
}

// ToolRenderRequest is the state of one tool row (pi's renderer context).
type ToolRenderRequest struct {
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Args       map[string]any `json:"args"`
	// ArgsComplete is false while the model streams the arguments; ExecutionStarted once the
	// tool runs; IsPartial while its result is partial; IsError for a failed result.
	ArgsComplete     bool `json:"argsComplete"`
	ExecutionStarted bool `json:"executionStarted"`
	IsPartial        bool `json:"isPartial"`
	IsError          bool `json:"isError"`
	// Expanded is the global expand flag (app.tools.expand).
	Expanded   bool              `json:"expanded"`
	ShowImages bool              `json:"showImages"`
	Result     *ToolRenderResult `json:"result,omitempty"`
	Cwd        string            `json:"cwd,omitempty"`
	// Width is the width in cells the slot's lines must fit.
	Width int `json:"width"`
	// Invalidate asks the UI to render the row again (the renderer's state changed on its own).
	Invalidate func() `json:"-"`
}

// ToolRenderer draws a tool's rows.
type ToolRenderer interface {
	// Slots reports whether the renderer draws the call and the result slot; the UI uses the
	// built-in renderer for the others.
	Slots() (call, result bool)
	// Shell is ShellDefault or ShellSelf.
	Shell() string
	// RenderTool returns slot's lines for req (each at most req.Width cells); ok false falls
	// back to the built-in renderer of the slot. It may take its time (it runs off the UI
	// goroutine); ctx bounds it.
	RenderTool(ctx context.Context, slot string, req ToolRenderRequest) (lines []string, ok bool)
}

// MessageRenderRequest is a custom message to draw (pi.sendMessage with display).
type MessageRenderRequest struct {
	CustomType string          `json:"customType"`
	Content    json.RawMessage `json:"content"`
	Details    any             `json:"details,omitempty"`
	Expanded   bool            `json:"expanded"`
	Width      int             `json:"width"`
	Invalidate func()          `json:"-"`
}

// MessageRenderer draws custom messages of one customType.
type MessageRenderer interface {
	// RenderMessage returns the message's lines; ok false draws the default custom-message box.
	RenderMessage(ctx context.Context, req MessageRenderRequest) (lines []string, ok bool)
}

// EntryRenderRequest is a custom entry to draw (pi.appendEntry).
type EntryRenderRequest struct {
	CustomType string          `json:"customType"`
	Data       json.RawMessage `json:"data,omitempty"`
	Expanded   bool            `json:"expanded"`
	Width      int             `json:"width"`
	Invalidate func()          `json:"-"`
}

// EntryRenderer draws custom entries of one customType (Atomic shows custom entries only when
// one is registered).
type EntryRenderer interface {
	RenderEntry(ctx context.Context, req EntryRenderRequest) (lines []string, ok bool)
}

// ToolRenderer returns the renderer of the extension tool called name, or nil.
func (r *Runner) ToolRenderer(name string) ToolRenderer {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	for i := len(r.reg.tools) - 1; i >= 0; i-- {
		if t := r.reg.tools[i]; t.def.Name == name {
			return t.def.Renderer
		}
	}
	return nil
}

// MessageRenderer returns the message renderer registered for customType, or nil.
func (r *Runner) MessageRenderer(customType string) MessageRenderer {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	mr, _ := r.reg.msgRender[customType].(MessageRenderer)
	return mr
}

// EntryRenderer returns the entry renderer registered for customType, or nil.
func (r *Runner) EntryRenderer(customType string) EntryRenderer {
	r.reg.mu.Lock()
	defer r.reg.mu.Unlock()
	er, _ := r.reg.entRender[customType].(EntryRenderer)
	return er
}
