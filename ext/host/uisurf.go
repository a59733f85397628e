package host

import (
	"encoding/json"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// The theme, keybinding, tools-expanded and paste methods (ext/ui_theme.go); outside the
// interactive UI they answer the defaults of ext.ThemeOf and friends.
func init() {
	surface := func(fn func(ui ext.UI, a *protocol.UISurfaceParams) any) handlerFunc {
		return func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			a, c, err := ctxCall(s, params, func(a *protocol.UISurfaceParams) int64 { return a.Ctx })
			if err != nil {
				return nil, err
			}
			return fn(c.UI(), a), nil
		}
	}
	methods[protocol.MethodUITheme] = surface(func(ui ext.UI, a *protocol.UISurfaceParams) any {
		if a.Name == "" {
			return palette(ext.ThemeOf(ui))
		}
		if t := ext.ThemeNamed(ui, a.Name); t != nil {
			return palette(t)
		}
		return nil
	})
	methods[protocol.MethodUIGetAllThemes] = surface(func(ui ext.UI, _ *protocol.UISurfaceParams) any {
		return append([]ext.ThemeInfo{}, ext.AllThemes(ui)...)
	})
	methods[protocol.MethodUISetTheme] = surface(func(ui ext.UI, a *protocol.UISurfaceParams) any {
		if err := ext.SetTheme(ui, a.Name); err != nil {
			return protocol.SetThemeResult{Error: err.Error()}
		}
		return protocol.SetThemeResult{Success: true}
	})
	methods[protocol.MethodUIKeybindings] = surface(func(ui ext.UI, _ *protocol.UISurfaceParams) any {
		if k, ok := ext.UIAs[ext.KeysUI](ui); ok {
			if b := k.KeyBindings(); b != nil {
				return b
			}
		}
		return map[string][]string{}
	})
	methods[protocol.MethodUIGetToolsExpanded] = surface(func(ui ext.UI, _ *protocol.UISurfaceParams) any {
		return ext.ToolsExpanded(ui)
	})
	methods[protocol.MethodUISetToolsExpanded] = surface(func(ui ext.UI, a *protocol.UISurfaceParams) any {
		ext.SetToolsExpanded(ui, a.Expanded)
		return nil
	})
	methods[protocol.MethodUIPasteToEditor] = surface(func(ui ext.UI, a *protocol.UISurfaceParams) any {
		ext.PasteToEditor(ui, a.Text)
		return nil
	})
}

// palette is t on the wire (never nil maps, so the host can index them).
func palette(t *ext.Theme) protocol.ThemePalette {
	p := protocol.ThemePalette{Name: t.Name, Path: t.Path, ColorMode: t.ColorMode, Fg: t.FgParams, Bg: t.BgParams}
	if p.ColorMode == "" {
		p.ColorMode = "truecolor"
	}
	if p.Fg == nil {
		p.Fg = map[string]string{}
	}
	if p.Bg == nil {
		p.Bg = map[string]string{}
	}
	return p
}
