package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/atomic-cli/atomic/ext"
)

// panel is a Go overlay that counts keys and shows whether it has them (ext.Focusable).
type panel struct {
	h       ext.ComponentHandle
	n       int
	focused bool
}

func (p *panel) Render(int) []string {
	return []string{fmt.Sprintf("[GO-NCAP] n=%d focused=%v", p.n, p.focused)}
}
func (p *panel) Invalidate()             {}
func (p *panel) SetFocused(focused bool) { p.focused = focused }
func (p *panel) HandleInput(data string) {
	if data == "\x1b" {
		p.h.Done(fmt.Sprintf("go closed %d", p.n))
		return
	}
	p.n++
	p.h.RequestRender()
}

// registerOverlay adds /gonc (a non-capturing Go overlay) and /gofocus, /gounfocus, /gohide,
// /goshow driving its ext.OverlayHandle.
func registerOverlay(api ext.API) error {
	var mu sync.Mutex
	var handle ext.OverlayHandle
	if err := api.RegisterCommand("gonc", ext.Command{Description: "a non-capturing Go overlay", Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
		v, ok := ext.Custom(ctx, c.UI(), func(h ext.ComponentHandle) ext.Component { return &panel{h: h} }, ext.CustomOptions{
			Overlay:        true,
			OverlayOptions: &ext.OverlayOptions{Anchor: "top-left", Width: "40", NonCapturing: true},
			OnHandle: func(h ext.OverlayHandle) {
				mu.Lock()
				handle = h
				mu.Unlock()
			},
		})
		c.UI().Notify(fmt.Sprintf("gonc returned: %v %v", v, ok), "info")
		return nil
	}}); err != nil {
		return err
	}
	call := func(name string, fn func(h ext.OverlayHandle)) error {
		return api.RegisterCommand(name, ext.Command{Description: "overlay handle call", Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
			mu.Lock()
			h := handle
			mu.Unlock()
			if h != nil {
				fn(h)
			}
			return nil
		}})
	}
	for name, fn := range map[string]func(h ext.OverlayHandle){
		"gofocus":   func(h ext.OverlayHandle) { h.Focus() },
		"gounfocus": func(h ext.OverlayHandle) { h.Unfocus() },
		"gohide":    func(h ext.OverlayHandle) { h.SetHidden(true) },
		"goshow":    func(h ext.OverlayHandle) { h.SetHidden(false) },
	} {
		if err := call(name, fn); err != nil {
			return err
		}
	}
	return nil
}
