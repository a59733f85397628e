package protocol

// The theme, keybinding, tools-expanded and paste surfaces of ctx.ui (docs/extension-protocol.md
// §4, "Theme and keys"; tui.md §4.6, §5.3). The getters are synchronous requests (the Node host
// sends them on the sync channel); setToolsExpanded and pasteToEditor are notifications.
const (
	// MethodUITheme (request) answers the active theme, or with Name the named one without
	// switching: a ThemePalette, or null when the name is unknown.
	MethodUITheme = "ui.theme"
	// MethodUIGetAllThemes (request) answers [{name, path?}], sorted by name.
	MethodUIGetAllThemes = "ui.getAllThemes"
	// MethodUISetTheme (request) switches the theme: a SetThemeResult.
	MethodUISetTheme = "ui.setTheme"
	// MethodUIKeybindings (request) answers the effective keybindings: action id → key labels.
	MethodUIKeybindings = "ui.keybindings"
	// MethodUIGetToolsExpanded (request) answers the expand flag of tool rows.
	MethodUIGetToolsExpanded = "ui.getToolsExpanded"
	// MethodUISetToolsExpanded (notification) sets it.
	MethodUISetToolsExpanded = "ui.setToolsExpanded"
	// MethodUIPasteToEditor (notification) pastes text into the editor.
	MethodUIPasteToEditor = "ui.pasteToEditor"
)

// UISurfaceParams are the params of the methods above.
type UISurfaceParams struct {
	Ctx int64 `json:"ctx"`
	// Name of ui.theme (absent: the active theme) and ui.setTheme.
	Name string `json:"name,omitempty"`
	// Expanded of ui.setToolsExpanded.
	Expanded bool `json:"expanded,omitempty"`
	// Text of ui.pasteToEditor.
	Text string `json:"text,omitempty"`
}

// ThemePalette is a resolved theme on the wire: token → SGR parameters ("38;2;r;g;b",
// "38;5;n", "" for the terminal default). Outside the interactive UI Name is "plain" and the maps
// are empty.
type ThemePalette struct {
	Name      string            `json:"name"`
	Path      string            `json:"path,omitempty"`
	ColorMode string            `json:"colorMode"`
	Fg        map[string]string `json:"fg"`
	Bg        map[string]string `json:"bg"`
}

// SetThemeResult is setTheme's {success, error?}.
type SetThemeResult struct {
	Success bool   `json:"success"`
	Error   string `json:"error,omitempty"`
}
