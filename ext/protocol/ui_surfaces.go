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

// Autocomplete providers (ctx.ui.addAutocompleteProvider; docs/extension-protocol.md
// "Autocomplete providers").
const (
	// MethodUIAddAutocompleteProvider (sync request, host → core) stacks host provider Provider
	// over the current chain; the result is {below?}: the host provider directly under it, which
	// the host calls itself.
	MethodUIAddAutocompleteProvider = "ui.addAutocompleteProvider"
	// MethodUIAutocompleteSuggest (request, host → core) asks the chain under Provider for
	// suggestions: AutocompleteSuggestions or null.
	MethodUIAutocompleteSuggest = "ui.autocomplete.suggest"
	// MethodUIAutocompleteApply (sync request, host → core) applies an item with the chain
	// under Provider: the AutocompleteEdit.
	MethodUIAutocompleteApply = "ui.autocomplete.apply"
	// MethodAutocompleteSuggest (request, core → host, cancellable) asks host provider Provider
	// for suggestions.
	MethodAutocompleteSuggest = "autocomplete.suggest"
	// MethodAutocompleteApply (request, core → host) applies an item with host provider Provider.
	MethodAutocompleteApply = "autocomplete.apply"
)

// AutocompleteParams are the params of the autocomplete methods: the provider, the editor state
// (lines, cursorLine, cursorCol, force) and, to apply, the item and its prefix.
type AutocompleteParams struct {
	Ctx               int64             `json:"ctx,omitempty"`
	Provider          int64             `json:"provider"`
	TriggerCharacters []string          `json:"triggerCharacters,omitempty"`
	Lines             []string          `json:"lines"`
	CursorLine        int               `json:"cursorLine"`
	CursorCol         int               `json:"cursorCol"`
	Force             bool              `json:"force,omitempty"`
	Item              *AutocompleteItem `json:"item,omitempty"`
	Prefix            string            `json:"prefix,omitempty"`
}

// AutocompleteItem is one suggestion on the wire.
type AutocompleteItem struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// AddAutocompleteProviderResult is ui.addAutocompleteProvider's {below?}.
type AddAutocompleteProviderResult struct {
	Below int64 `json:"below,omitempty"`
}

// Custom rendering (docs/extension-protocol.md "Renderers"): the core asks the host for the lines
// of a tool row's slot, a custom message or a custom entry at a width; the host answers
// RenderResult, or null to let the built-in renderer draw it. A renderer's invalidate() sends
// render.invalidate with the request's Key.
const (
	MethodRenderTool       = "render.tool"
	MethodRenderMessage    = "render.message"
	MethodRenderEntry      = "render.entry"
	MethodRenderInvalidate = "render.invalidate"
)

// RenderParams are the params of render.tool, render.message and render.entry.
type RenderParams struct {
	ExtRef
	// Key names the thing rendered (a tool call id, a message's entry id) for render.invalidate.
	Key string `json:"key"`
	// Tool and Slot ("call" or "result") of render.tool.
	Tool string `json:"tool,omitempty"`
	Slot string `json:"slot,omitempty"`
	// CustomType of render.message and render.entry.
	CustomType string `json:"customType,omitempty"`
	// Request is the rest: ext.ToolRenderRequest, ext.MessageRenderRequest or
	// ext.EntryRenderRequest.
	Request any `json:"request"`
}

// RenderResult is a renderer's lines.
type RenderResult struct {
	Lines []string `json:"lines"`
}

// InvalidateParams name what render.invalidate re-renders.
type InvalidateParams struct {
	Key string `json:"key"`
}

// Custom editors (ctx.ui.setEditorComponent; docs/extension-protocol.md "Custom editors"), all
// notifications from the host: ui.setEditorComponent mounts host component Component in the
// editor's place (0 restores the built-in editor); the component reports ui.editor.submit (Text),
// ui.editor.action (Action, an app action id) and ui.editor.change (Text).
const (
	MethodUISetEditorComponent = "ui.setEditorComponent"
	MethodUIEditorSubmit       = "ui.editor.submit"
	MethodUIEditorAction       = "ui.editor.action"
	MethodUIEditorChange       = "ui.editor.change"
)

// EditorParams are the params of the custom-editor notifications.
type EditorParams struct {
	Ctx       int64  `json:"ctx"`
	Component int64  `json:"component,omitempty"`
	Text      string `json:"text,omitempty"`
	Action    string `json:"action,omitempty"`
}

// Host-native pickers (docs/extension-protocol.md "Host-native session picker").
const (
	// MethodUIHostSessionPicker (cancellable request, host → core) shows the built-in session
	// selector over UIParams.Rows; the answer is the picked row's path, or null on
	// cancel. $/cancelRequest closes the picker (handle.close()). A UI without the native picker
	// answers an error naming the call.
	MethodUIHostSessionPicker = "ui.hostSessionPicker"
	// MethodUIHostSessionPickerUpdate (notification, host → core) replaces the rows of open
	// picker HostPickerParams.Picker (handle.update(rows)).
	MethodUIHostSessionPickerUpdate = "ui.hostSessionPicker.update"
	// MethodUIHostSessionPickerError (notification, host → core) shows HostPickerParams.Message
	// in the picker (handle.error(message)).
	MethodUIHostSessionPickerError = "ui.hostSessionPicker.error"
	// MethodHostSessionPickerDelete (notification, core → host) says the user confirmed ctrl+d on
	// row HostPickerParams.Path: the host calls the request's onDelete(path). The row stays until
	// the extension answers with update or error.
	MethodHostSessionPickerDelete = "hostSessionPicker.delete"
	// MethodUIHostInputForm (cancellable request, host → core) shows the host-native input form
	// UIParams.Form; the answer is the values by field name, or null on cancel.
	MethodUIHostInputForm = "ui.hostInputForm"
)

// HostPickerParams are the params of the picker's update, error and delete notifications.
type HostPickerParams struct {
	// Picker is the id the host gave the picker in UIParams.Picker.
	Picker  int64                  `json:"picker"`
	Rows    []HostSessionPickerRow `json:"rows,omitempty"`
	Message string                 `json:"message,omitempty"`
	Path    string                 `json:"path,omitempty"`
}

// HostSessionPickerRow is one JSON-safe row of ctx.ui.hostSessionPicker (pi's SessionInfo with
// createdAt/modifiedAt as epoch milliseconds).
type HostSessionPickerRow struct {
	Path              string `json:"path"`
	ID                string `json:"id,omitempty"`
	Cwd               string `json:"cwd,omitempty"`
	Name              string `json:"name,omitempty"`
	ParentSessionPath string `json:"parentSessionPath,omitempty"`
	CreatedAt         int64  `json:"createdAt,omitempty"`  // epoch milliseconds
	ModifiedAt        int64  `json:"modifiedAt,omitempty"` // epoch milliseconds
	MessageCount      int    `json:"messageCount,omitempty"`
	FirstMessage      string `json:"firstMessage,omitempty"`
	AllMessagesText   string `json:"allMessagesText,omitempty"`
	// Summary is shown in the picker's summary column; MessageColor (success, warning, accent
	// or error) colors the row's text (Atomic's HostSessionPickerRow).
	Summary      string `json:"summary,omitempty"`
	MessageColor string `json:"messageColor,omitempty"`
}

// HostInputForm is ui.hostInputForm's request on the wire (ext.HostInputFormRequest).
type HostInputForm struct {
	Title       string           `json:"title"`
	Fields      []HostInputField `json:"fields"`
	Heading     string           `json:"heading,omitempty"`
	SubmitLabel string           `json:"submitLabel,omitempty"`
}

// HostInputField is one field of HostInputForm (ext.HostInputField).
type HostInputField struct {
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	Description  string   `json:"description,omitempty"`
	Required     bool     `json:"required,omitempty"`
	Choices      []string `json:"choices,omitempty"`
	Placeholder  string   `json:"placeholder,omitempty"`
	InitialValue string   `json:"initialValue"`
}
