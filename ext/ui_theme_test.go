package ext

import "testing"

// surfUI is a UI with the theme, keys, expand and paste capabilities, recording what it is asked.
type surfUI struct {
	NoUI
	th       *Theme
	keys     map[string][]string
	expanded bool
	pasted   string
	setText  string
}

func (u *surfUI) Theme() *Theme                    { return u.th }
func (u *surfUI) AllThemes() []ThemeInfo           { return []ThemeInfo{{Name: "dark"}} }
func (u *surfUI) ThemeNamed(string) *Theme         { return nil }
func (u *surfUI) SetTheme(string) error            { return nil }
func (u *surfUI) KeyBindings() map[string][]string { return u.keys }
func (u *surfUI) ToolsExpanded() bool              { return u.expanded }
func (u *surfUI) SetToolsExpanded(on bool)         { u.expanded = on }
func (u *surfUI) PasteToEditor(text string)        { u.pasted = text }
func (u *surfUI) SetEditorText(text string)        { u.setText = text }

// wrapUI wraps a UI the way the session's prompt wrapper does.
type wrapUI struct{ UI }

func (w wrapUI) Unwrap() UI { return w.UI }

type textUI struct {
	NoUI
	text string
}

func (u *textUI) SetEditorText(text string) { u.text = text }

func TestUISurfacesThroughWrapper(t *testing.T) {
	inner := &surfUI{
		th:   &Theme{Name: "dark", FgParams: map[string]string{"dim": "38;2;1;2;3", "muted": "38;5;8", "text": ""}},
		keys: map[string][]string{"app.tools.expand": {"ctrl+o", "alt+o"}},
	}
	ui := wrapUI{inner}
	if got, want := KeyHint(ui, "app.tools.expand", "to expand"), "\x1b[38;2;1;2;3mctrl+o/alt+o\x1b[39m\x1b[38;5;8m to expand\x1b[39m"; got != want {
		t.Fatalf("KeyHint = %q, want %q", got, want)
	}
	if got := KeyHintIfBound(ui, "app.session.new", "new"); got != "" {
		t.Fatalf("KeyHintIfBound of an unbound action = %q, want \"\"", got)
	}
	if got, want := RawKeyHint(ui, "q", "quit"), "\x1b[38;2;1;2;3mq\x1b[39m\x1b[38;5;8m quit\x1b[39m"; got != want {
		t.Fatalf("RawKeyHint = %q, want %q", got, want)
	}
	if got := ThemeOf(ui).Fg("text", "plain"); got != "plain" {
		t.Fatalf("a token with the default colour styled its text: %q", got)
	}
	SetToolsExpanded(ui, true)
	if !ToolsExpanded(ui) || !inner.expanded {
		t.Fatal("SetToolsExpanded did not reach the wrapped UI")
	}
	PasteToEditor(ui, "x")
	if inner.pasted != "x" || inner.setText != "" {
		t.Fatalf("PasteToEditor: pasted %q, set %q", inner.pasted, inner.setText)
	}
}

func TestUISurfacesDefaults(t *testing.T) {
	ui := &textUI{}
	if th := ThemeOf(ui); th != PlainTheme || th.Fg("accent", "a") != "a" || th.Bg("selectedBg", "b") != "b" {
		t.Fatal("a UI without themes must style nothing")
	}
	if KeyText(ui, "app.tools.expand") != "" || len(AllThemes(ui)) != 0 || ThemeNamed(ui, "dark") != nil {
		t.Fatal("a UI without keys or themes answered some")
	}
	if err := SetTheme(ui, "dark"); err == nil {
		t.Fatal("SetTheme without the interactive UI succeeded")
	}
	if ToolsExpanded(ui) {
		t.Fatal("tools expanded without the interactive UI")
	}
	PasteToEditor(ui, "pasted")
	if ui.text != "pasted" {
		t.Fatalf("PasteToEditor did not fall back to SetEditorText: %q", ui.text)
	}
}

func TestReplacePrefix(t *testing.T) {
	req := AutocompleteRequest{Lines: []string{"first", "say $HO tail"}, CursorLine: 1, CursorCol: 7}
	got := ReplacePrefix(req, "$HOME", "$HO")
	if got.Lines[1] != "say $HOME tail" || got.Lines[0] != "first" || got.CursorLine != 1 || got.CursorCol != 9 {
		t.Fatalf("ReplacePrefix = %+v", got)
	}
	if req.Lines[1] != "say $HO tail" {
		t.Fatal("ReplacePrefix changed the request's lines")
	}
	if got := ReplacePrefix(req, "X", "nope"); got.Lines[1] != "say $HOX tail" || got.CursorCol != 8 {
		t.Fatalf("a prefix not before the cursor must insert at the cursor: %+v", got)
	}
}
