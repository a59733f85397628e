// Command goext is atomic with a Go extension that uses the component surfaces of ctx.ui
// (e2e_components_test.go builds and drives it in a PTY).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/atomic-cli/atomic/cli"
	"github.com/atomic-cli/atomic/ext"
)

// counter counts key presses and finishes with Enter; Escape dismisses it.
type counter struct {
	h     ext.ComponentHandle
	n     int
	label string
}

func (c *counter) Render(width int) []string {
	return []string{"[ " + c.label + " ]", fmt.Sprintf("go presses: %d", c.n)}
}

func (c *counter) Invalidate() {}

func (c *counter) HandleInput(data string) {
	switch data {
	case "\r":
		c.h.Done(fmt.Sprintf("go counted %d", c.n))
	case "\x1b":
		c.h.Done(nil)
	default:
		c.n++
		c.h.RequestRender()
	}
}

// caret is a Go input that marks its cursor with ext.CursorMarker while it has the keys.
type caret struct {
	h       ext.ComponentHandle
	text    string
	focused bool
}

func (c *caret) Render(int) []string {
	line := "  " + c.text
	if c.focused {
		line += ext.CursorMarker
	}
	return []string{"[ GO-CARET ]", line + " "}
}

func (c *caret) SetFocused(f bool) { c.focused = f }
func (c *caret) Invalidate()       {}

func (c *caret) HandleInput(data string) {
	if data == "\r" {
		c.h.Done(c.text)
		return
	}
	c.text += data
	c.h.RequestRender()
}

func extension(api ext.API) error {
	custom := func(label string, opts ext.CustomOptions) func(ctx context.Context, c ext.CommandContext, args string) error {
		return func(ctx context.Context, c ext.CommandContext, args string) error {
			v, ok := ext.Custom(ctx, c.UI(), func(h ext.ComponentHandle) ext.Component { return &counter{h: h, label: label} }, opts)
			c.UI().Notify(fmt.Sprintf("go custom returned: %v %v", v, ok), "info")
			return nil
		}
	}
	if err := api.RegisterCommand("gocount", ext.Command{Description: "a Go custom component", Handler: custom("GO-COUNTER", ext.CustomOptions{})}); err != nil {
		return err
	}
	float := ext.CustomOptions{Overlay: true, OverlayOptions: &ext.OverlayOptions{Anchor: "top-left", Width: "30", Margin: ext.Margin{Top: 1, Left: 2}}}
	if err := api.RegisterCommand("gofloat", ext.Command{Description: "a Go overlay", Handler: custom("GO-OVERLAY", float)}); err != nil {
		return err
	}
	if err := api.RegisterCommand("gocaret", ext.Command{Description: "a Go input placing the terminal cursor", Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
		v, ok := ext.Custom(ctx, c.UI(), func(h ext.ComponentHandle) ext.Component { return &caret{h: h} }, ext.CustomOptions{})
		c.UI().Notify(fmt.Sprintf("go caret returned: %v %v", v, ok), "info")
		return nil
	}}); err != nil {
		return err
	}
	// gokeepc declares HandlesCtrlC: the first Ctrl+C is one more press for the counter.
	keep := ext.CustomOptions{HandlesCtrlC: true}
	if err := api.RegisterCommand("gokeepc", ext.Command{Description: "a Go custom component that binds Ctrl+C", Handler: custom("GO-KEEPC", keep)}); err != nil {
		return err
	}
	if err := registerHostNative(api); err != nil {
		return err
	}
	if err := registerOverlay(api); err != nil {
		return err
	}
	return api.RegisterCommand("gochrome", ext.Command{Description: "a Go footer and widget", Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
		ext.SetFooterComponent(c.UI(), func(ext.ComponentHandle) ext.Component { return ext.Lines{"GO-FOOTER"} })
		ext.SetWidgetComponent(c.UI(), "gw", func(ext.ComponentHandle) ext.Component { return ext.Lines{"GO-WIDGET"} }, ext.WidgetBelowEditor)
		return nil
	}})
}

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Extension{Name: "goext", Factory: extension}))
}
