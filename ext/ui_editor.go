package ext

// Custom editors (ctx.ui.setEditorComponent, tui.md §7.4): a component takes the editor's place
// and the keyboard. It reports what the built-in editor would do through EditorEventsUI: a
// submitted text, an app action it did not handle itself (pi's CustomEditor passes app
// keybindings such as app.tools.expand or app.clear on), and text changes (getEditorText).

// EditorComponentUI replaces the editor with a component.
type EditorComponentUI interface {
	// SetEditorComponent puts the component factory makes in the editor's place; nil restores
	// the built-in editor with the component's last text.
	SetEditorComponent(factory ComponentFactory)
}

// EditorEventsUI receives what a custom editor does.
type EditorEventsUI interface {
	// EditorSubmit submits text as the built-in editor's Enter does.
	EditorSubmit(text string)
	// EditorAction runs an app action id ("app.tools.expand", "app.interrupt", "app.exit"…).
	EditorAction(action string)
	// EditorChanged records the editor's text (getEditorText).
	EditorChanged(text string)
}

// SetEditorComponent replaces ui's editor when it has one; elsewhere it reports at debug level.
func SetEditorComponent(ui UI, factory ComponentFactory) {
	if e, ok := UIAs[EditorComponentUI](ui); ok {
		e.SetEditorComponent(factory)
		return
	}
	if factory != nil {
		uiDebugf("ctx.ui.setEditorComponent", "this mode has no editor; the factory is not run")
	}
}
