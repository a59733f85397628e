package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/store"
)

// registerHostNative adds /goform (ctx.ui.hostInputForm) and /gopick (ctx.ui.hostSessionPicker
// with onDelete answered through the handle) for a Go extension.
func registerHostNative(api ext.API) error {
	if err := api.RegisterCommand("goform", ext.Command{Description: "a Go host-native form", Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
		f, ok := ext.UIAs[ext.HostInputFormUI](c.UI())
		if !ok {
			c.UI().Notify("go form: unavailable", "error")
			return nil
		}
		v, ok := f.HostInputForm(ctx, ext.HostInputFormRequest{Title: "GO-FORM", Heading: "GO HEADING", SubmitLabel: "[ Go ]", Fields: []ext.HostInputField{
			{Name: "name", Type: ext.FieldString, Required: true},
			{Name: "mode", Type: ext.FieldSelect, Choices: []string{"fast", "slow"}, InitialValue: "fast"},
		}})
		keys := make([]string, 0, len(v))
		for k, val := range v {
			keys = append(keys, k+"="+val)
		}
		sort.Strings(keys)
		c.UI().Notify(fmt.Sprintf("go form: %v %s", ok, strings.Join(keys, ",")), "info")
		return nil
	}}); err != nil {
		return err
	}
	return api.RegisterCommand("gopick", ext.Command{Description: "a Go host-native session picker", Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
		p, ok := ext.UIAs[ext.HostSessionPickerUI](c.UI())
		if !ok {
			c.UI().Notify("go pick: unavailable", "error")
			return nil
		}
		now := time.Now()
		rows := []store.SessionInfo{
			{Path: "/go/1.jsonl", ID: "g1", Modified: now, MessageCount: 1, FirstMessage: "GO-ONE"},
			{Path: "/go/2.jsonl", ID: "g2", Modified: now, MessageCount: 2, FirstMessage: "GO-TWO"},
		}
		var h ext.HostSessionPickerHandle
		path, ok := p.HostSessionPicker(ctx, ext.HostSessionPickerRequest{
			Rows:     rows,
			OnHandle: func(hh ext.HostSessionPickerHandle) { h = hh },
			OnDelete: func(path string) {
				var left []store.SessionInfo
				for _, r := range rows {
					if r.Path != path {
						left = append(left, r)
					}
				}
				h.Update(left)
				h.Error("GO-DELETED " + path)
			},
		})
		c.UI().Notify(fmt.Sprintf("go pick: %q %v", path, ok), "info")
		return nil
	}})
}
