package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/component"
)

// Custom editors (ctx.ui.setEditorComponent, tui.md §7.4): the component sits at the bottom of
// the editor slot's dialog stack, so it draws in the editor's place and gets every key (dialogs
// an extension opens meanwhile go on top of it). What the built-in editor would do on its keys —
// submit, app actions, text changes — comes back through EditorSubmit, EditorAction and
// EditorChanged.

// SetEditorComponent implements ext.EditorComponentUI.
func (x *extUI) SetEditorComponent(factory ext.ComponentFactory) {
	x.send(extMsg(func(m *model) tea.Cmd {
		if old := m.customEditor(); old != nil {
			old.close()
			m.popDone()
		}
		if factory == nil {
			x.mu.Lock()
			text := x.text
			x.mu.Unlock()
			m.ed.SetText(text)
			return nil
		}
		c := factory(x.handle(func(any) {}))
		if c == nil {
			return nil
		}
		d := &customDialog{c: c, editor: true}
		m.complete = nil
		m.dialogs = append([]component.Dialog{d}, m.dialogs...)
		return nil
	}))
}

// customEditor is the custom editor in the slot, or nil.
func (m *model) customEditor() *customDialog {
	for _, d := range m.dialogs {
		if cd, ok := d.(*customDialog); ok && cd.editor && !cd.closed {
			return cd
		}
	}
	return nil
}

// EditorSubmit implements ext.EditorEventsUI: the text is submitted as from the editor.
func (x *extUI) EditorSubmit(text string) {
	x.setMirror("")
	x.send(extMsg(func(m *model) tea.Cmd {
		text = strings.TrimSpace(text)
		if text == "" {
			return nil
		}
		m.ed.AddHistory(text)
		return m.submit(text)
	}))
}

// EditorAction implements ext.EditorEventsUI: an app keybinding the custom editor passed on.
func (x *extUI) EditorAction(action string) {
	x.send(extMsg(func(m *model) tea.Cmd {
		cmd, _ := m.appAction(action, tea.KeyPressMsg{})
		return cmd
	}))
}

// EditorChanged implements ext.EditorEventsUI.
func (x *extUI) EditorChanged(text string) { x.setMirror(text) }

var (
	_ ext.EditorComponentUI = (*extUI)(nil)
	_ ext.EditorEventsUI    = (*extUI)(nil)
)

// hasShortcut reports whether an extension registered a shortcut for the key press.
func hasShortcut(m *model, press string) bool {
	_, ok := m.rt.Session().Runner().Shortcut(press)
	return ok
}
