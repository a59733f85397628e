package tui

import (
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

// surfMirror is what the theme, keybinding and expand getters of ctx.ui answer without waiting
// for the Bubble Tea loop: copies the model refreshes whenever it changes them. Guarded by
// extUI.mu.
type surfMirror struct {
	theme     *ext.Theme
	keys      map[string][]string
	expanded  bool
	colorMode string
	ac        ext.AutocompleteProvider // the outermost extension provider; nil: the built-in list
}

// colorMode is pi's getColorMode for the terminal the UI draws on: "truecolor" when it shows
// 24-bit colour, otherwise "256color" (the renderer downsamples further as needed).
func colorMode(out io.Writer, env []string) string {
	if out == nil {
		out = os.Stdout
	}
	if env == nil {
		env = os.Environ()
	}
	if colorprofile.Detect(out, env) == colorprofile.TrueColor {
		return "truecolor"
	}
	return "256color"
}

// extTheme converts a TUI theme to the palette extensions style with.
func (x *extUI) extTheme(t *theme.Theme) *ext.Theme {
	x.mu.Lock()
	mode := x.surf.colorMode
	x.mu.Unlock()
	if mode == "" {
		mode = colorMode(x.u.opts.Out, x.u.opts.Env)
		x.mu.Lock()
		x.surf.colorMode = mode
		x.mu.Unlock()
	}
	fg, bg := t.Params()
	return &ext.Theme{Name: t.Name, Path: t.Path, ColorMode: mode, FgParams: fg, BgParams: bg}
}

// mirrorTheme records the model's theme for Theme.
func (x *extUI) mirrorTheme(t *theme.Theme) {
	et := x.extTheme(t)
	x.mu.Lock()
	x.surf.theme = et
	x.mu.Unlock()
}

// mirrorKeys records the model's keybindings for KeyBindings.
func (x *extUI) mirrorKeys(km *keys.Map) {
	l := km.Labels()
	x.mu.Lock()
	x.surf.keys = l
	x.mu.Unlock()
}

// mirrorExpanded records the model's expand flag for ToolsExpanded.
func (x *extUI) mirrorExpanded(on bool) {
	x.mu.Lock()
	x.surf.expanded = on
	x.mu.Unlock()
}

// Theme implements ext.ThemeUI: the active theme (dark before the screen exists).
func (x *extUI) Theme() *ext.Theme {
	x.mu.Lock()
	t := x.surf.theme
	x.mu.Unlock()
	if t == nil {
		th, _ := x.u.opts.themes().Named(x.u.opts.Theme)
		t = x.extTheme(th)
	}
	return t
}

// AllThemes implements ext.ThemeUI: built-ins and the custom themes (Options.themes), sorted by name.
func (x *extUI) AllThemes() []ext.ThemeInfo {
	list, _ := x.u.opts.themes().List()
	out := make([]ext.ThemeInfo, len(list))
	for i, t := range list {
		out[i] = ext.ThemeInfo{Name: t.Name, Path: t.Path}
	}
	return out
}

// ThemeNamed implements ext.ThemeUI: nil for an unknown or invalid theme.
func (x *extUI) ThemeNamed(name string) *ext.Theme {
	t, err := x.u.opts.themes().Named(name)
	if err != nil {
		return nil
	}
	return x.extTheme(t)
}

// SetTheme implements ext.ThemeUI (tui.md §5.3): the theme switches at once (the getters see it
// before SetTheme returns), the screen re-renders, and a name that differs from the current one
// is saved as the "theme" setting. An unknown or invalid theme switches to dark and returns why.
func (x *extUI) SetTheme(name string) error {
	t, err := x.u.opts.themes().Named(name)
	x.mirrorTheme(t)
	x.send(extMsg(func(m *model) tea.Cmd {
		changed := m.th.Name != t.Name
		m.SetTheme(t)
		if err == nil && changed {
			m.saveSetting("theme", t.Name)
		}
		return nil
	}))
	return err
}

// KeyBindings implements ext.KeysUI: the effective bindings (keybindings.json over the
// defaults).
func (x *extUI) KeyBindings() map[string][]string {
	x.mu.Lock()
	k := x.surf.keys
	x.mu.Unlock()
	if k == nil {
		km, _ := keys.Load(x.u.opts.AgentDir)
		x.mirrorKeys(km)
		return km.Labels()
	}
	return k
}

// ToolsExpanded implements ext.ToolsExpandedUI.
func (x *extUI) ToolsExpanded() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.surf.expanded
}

// SetToolsExpanded implements ext.ToolsExpandedUI: every tool row, custom message and summary
// re-renders expanded or collapsed, as app.tools.expand does.
func (x *extUI) SetToolsExpanded(on bool) {
	x.mirrorExpanded(on)
	x.send(extMsg(func(m *model) tea.Cmd { m.SetToolsExpanded(on); return nil }))
}

// PasteToEditor implements ext.PasteUI: text goes into the editor as a bracketed paste would
// (a large paste becomes a `[paste #n …]` marker, tui.md §3.3).
func (x *extUI) PasteToEditor(text string) {
	x.send(extMsg(func(m *model) tea.Cmd {
		m.ed.Paste(text)
		m.ext.setMirror(m.ed.Value())
		return nil
	}))
}

var (
	_ ext.ThemeUI         = (*extUI)(nil)
	_ ext.KeysUI          = (*extUI)(nil)
	_ ext.ToolsExpandedUI = (*extUI)(nil)
	_ ext.PasteUI         = (*extUI)(nil)
)
