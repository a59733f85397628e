package ext

import (
	"strings"
)

// The theme, keybinding, tools-expanded and paste surfaces of ctx.ui (tui.md §4.6, §5.3, §6.1,
// §3.3). They are optional capabilities like those of ui_optional.go: the interactive mode
// implements them, and the helper functions below give every other mode the documented defaults
// (a plain theme, no themes to list, no keys bound, tools collapsed, paste degrading to
// SetEditorText).

// Theme is the active palette as an extension sees it (ctx.ui.theme, tui.md §5.2): each token
// maps to the SGR parameters of its colour ("38;2;r;g;b", "38;5;n", or "" for the terminal
// default). Fg and Bg style text exactly as the interactive mode's own components do; the
// renderer downsamples the 24-bit colours to the terminal (256 or 16 colours, none under
// NO_COLOR). A Theme is immutable once built; the zero Theme (and nil) is plain: every style,
// attributes included, returns its text unchanged.
type Theme struct {
	// Name is the theme's name ("dark", "light", a file's name, "plain" outside the TUI).
	Name string `json:"name"`
	// Path is the file of a custom theme; "" for built-ins.
	Path string `json:"path,omitempty"`
	// ColorMode is "truecolor" or "256color": what the terminal shows (pi's getColorMode).
	ColorMode string `json:"colorMode,omitempty"`
	// FgParams and BgParams map foreground and background tokens to SGR parameters.
	FgParams map[string]string `json:"fg,omitempty"`
	BgParams map[string]string `json:"bg,omitempty"`
}

// Fg colours s with the foreground token and resets only the foreground (SGR 39), so an outer
// background survives. An unknown token, or a plain theme, returns s unchanged.
func (t *Theme) Fg(token, s string) string {
	if t == nil || s == "" {
		return s
	}
	if p := t.FgParams[token]; p != "" {
		return "\x1b[" + p + "m" + s + "\x1b[39m"
	}
	return s
}

// Bg colours the background of s with the token and resets only the background (SGR 49).
func (t *Theme) Bg(token, s string) string {
	if t == nil || s == "" {
		return s
	}
	if p := t.BgParams[token]; p != "" {
		return "\x1b[" + p + "m" + s + "\x1b[49m"
	}
	return s
}

// FgAnsi is the SGR sequence that opens the foreground token ("" for the default colour).
func (t *Theme) FgAnsi(token string) string {
	if t == nil || t.FgParams[token] == "" {
		return ""
	}
	return "\x1b[" + t.FgParams[token] + "m"
}

// BgAnsi is the SGR sequence that opens the background token ("" for the default colour).
func (t *Theme) BgAnsi(token string) string {
	if t == nil || t.BgParams[token] == "" {
		return ""
	}
	return "\x1b[" + t.BgParams[token] + "m"
}

// plain reports whether t styles nothing (nil, or no colours at all: the theme outside the TUI).
func (t *Theme) plain() bool { return t == nil || (len(t.FgParams) == 0 && len(t.BgParams) == 0) }

// HasToken reports whether token is a foreground or background token of the theme.
func (t *Theme) HasToken(token string) bool {
	if t == nil {
		return false
	}
	_, f := t.FgParams[token]
	_, b := t.BgParams[token]
	return f || b
}

// Bold makes s bold (SGR 1, closed with 22).
func (t *Theme) Bold(s string) string {
	if t.plain() {
		return s
	}
	return "\x1b[1m" + s + "\x1b[22m"
}

// Italic makes s italic (SGR 3, closed with 23).
func (t *Theme) Italic(s string) string {
	if t.plain() {
		return s
	}
	return "\x1b[3m" + s + "\x1b[23m"
}

// Underline underlines s (SGR 4, closed with 24).
func (t *Theme) Underline(s string) string {
	if t.plain() {
		return s
	}
	return "\x1b[4m" + s + "\x1b[24m"
}

// Inverse shows s in reverse video (SGR 7, closed with 27).
func (t *Theme) Inverse(s string) string {
	if t.plain() {
		return s
	}
	return "\x1b[7m" + s + "\x1b[27m"
}

// Strikethrough strikes s through (SGR 9, closed with 29).
func (t *Theme) Strikethrough(s string) string {
	if t.plain() {
		return s
	}
	return "\x1b[9m" + s + "\x1b[29m"
}

// ThemeInfo names a theme getAllThemes lists: Path is "" for built-ins.
type ThemeInfo struct {
	Name string `json:"name"`
	Path string `json:"path,omitempty"`
}

// ThemeUI is the theme API of ctx.ui (tui.md §5.3): the live theme, the selectable ones, one
// loaded by name without switching, and switching.
type ThemeUI interface {
	// Theme is the active theme (read it each time: it changes).
	Theme() *Theme
	// AllThemes lists the built-in and custom themes, sorted by name.
	AllThemes() []ThemeInfo
	// ThemeNamed loads a theme without switching to it; nil when unknown or invalid.
	ThemeNamed(name string) *Theme
	// SetTheme switches to the named theme and saves the choice; an unknown or invalid theme
	// falls back to dark and returns an error saying why.
	SetTheme(name string) error
}

// KeysUI exposes the effective keybindings (keybindings.json over the defaults, tui.md §4).
type KeysUI interface {
	// KeyBindings maps every action id to the display labels of its keys (lower case, "esc",
	// "enter"), in configured order; an unbound action is absent or empty. The map is shared:
	// callers must not modify it.
	KeyBindings() map[string][]string
}

// ToolsExpandedUI is the global expand flag of tool rows and custom messages (app.tools.expand,
// tui.md §6.1).
type ToolsExpandedUI interface {
	ToolsExpanded() bool
	SetToolsExpanded(expanded bool)
}

// PasteUI pastes text into the editor as a bracketed paste, so the large-paste marker rules of
// tui.md §3.3 apply (ctx.ui.pasteToEditor).
type PasteUI interface {
	PasteToEditor(text string)
}

// PlainTheme is the theme outside the interactive UI: every style returns its text.
var PlainTheme = &Theme{Name: "plain"}

// ThemeOf returns ui's active theme, or PlainTheme when ui has none.
func ThemeOf(ui UI) *Theme {
	if t, ok := UIAs[ThemeUI](ui); ok {
		if th := t.Theme(); th != nil {
			return th
		}
	}
	return PlainTheme
}

// AllThemes lists ui's themes; none without the interactive UI.
func AllThemes(ui UI) []ThemeInfo {
	if t, ok := UIAs[ThemeUI](ui); ok {
		return t.AllThemes()
	}
	return nil
}

// ThemeNamed loads a theme of ui by name; nil when unknown or without the interactive UI.
func ThemeNamed(ui UI, name string) *Theme {
	if t, ok := UIAs[ThemeUI](ui); ok {
		return t.ThemeNamed(name)
	}
	return nil
}

// errNoThemes is SetTheme's answer outside the interactive UI.
var errNoThemes = &themeError{"themes need the interactive UI"}

type themeError struct{ s string }

func (e *themeError) Error() string { return e.s }

// SetTheme switches ui's theme; outside the interactive UI it fails (pi's {success:false}).
func SetTheme(ui UI, name string) error {
	if t, ok := UIAs[ThemeUI](ui); ok {
		return t.SetTheme(name)
	}
	return errNoThemes
}

// KeyText is the keys bound to action joined by "/" ("ctrl+o"), "" when unbound or without the
// interactive UI (pi's keyText).
func KeyText(ui UI, action string) string {
	if k, ok := UIAs[KeysUI](ui); ok {
		return strings.Join(k.KeyBindings()[action], "/")
	}
	return ""
}

// KeyHint is pi's keyHint: the keys of action (dim) then " description" (muted), in ui's theme.
// An unbound action has no key text, so the hint is " description" (as pi's).
func KeyHint(ui UI, action, description string) string {
	th := ThemeOf(ui)
	return th.Fg("dim", KeyText(ui, action)) + th.Fg("muted", " "+description)
}

// KeyHintIfBound is KeyHint, or "" when action has no key.
func KeyHintIfBound(ui UI, action, description string) string {
	if KeyText(ui, action) == "" {
		return ""
	}
	return KeyHint(ui, action, description)
}

// RawKeyHint formats a literal key (not an action id) like KeyHint.
func RawKeyHint(ui UI, key, description string) string {
	th := ThemeOf(ui)
	return th.Fg("dim", key) + th.Fg("muted", " "+description)
}

// ToolsExpanded reports ui's expand flag; false without the interactive UI.
func ToolsExpanded(ui UI) bool {
	if t, ok := UIAs[ToolsExpandedUI](ui); ok {
		return t.ToolsExpanded()
	}
	return false
}

// SetToolsExpanded sets ui's expand flag; nothing without the interactive UI.
func SetToolsExpanded(ui UI, expanded bool) {
	if t, ok := UIAs[ToolsExpandedUI](ui); ok {
		t.SetToolsExpanded(expanded)
	}
}

// PasteToEditor pastes text into ui's editor; a UI without paste sets the editor text instead
// (pi's RPC mode does the same).
func PasteToEditor(ui UI, text string) {
	if p, ok := UIAs[PasteUI](ui); ok {
		p.PasteToEditor(text)
		return
	}
	ui.SetEditorText(text)
}

// UIWrapper is a UI that wraps another (the session's ui_prompt reporting wrapper): the optional
// capabilities of the wrapped UI are found through Unwrap.
type UIWrapper interface {
	Unwrap() UI
}

// UIAs finds capability T in ui or in the UIs it wraps (UIWrapper), outermost first.
func UIAs[T any](ui UI) (T, bool) {
	for depth := 0; ui != nil && depth < 16; depth++ {
		if c, ok := ui.(T); ok {
			return c, true
		}
		w, ok := ui.(UIWrapper)
		if !ok {
			break
		}
		ui = w.Unwrap()
	}
	var zero T
	return zero, false
}
