package command

import (
	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/selector"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/store"
)

func init() {
	add(Command{Name: "tree", Description: "Navigate session tree (switch branches)", Run: runTree})
}

// Summary choices of the "Summarize branch?" selector (tui.md §10.2).
const (
	summaryNone   = "No summary"
	summaryPlain  = "Summarize"
	summaryCustom = "Summarize with custom prompt"
)

// runTree is /tree: pick an entry; a user (or custom) message moves the leaf to its parent and
// puts its text in the editor, any other entry becomes the leaf. When a branch is left behind
// the user chooses whether to summarise it first.
func runTree(h Host, _ string) tea.Cmd {
	rt := h.Runtime()
	st := rt.Session().Store()
	_, rows := h.Size()
	t := selector.NewTree(slotTheme(h), slotKeys(h), st.Tree(), st.LeafID(), rows, func(e *store.Entry) tea.Cmd {
		if e == nil {
			return nil
		}
		return Do(func(h Host) tea.Cmd { return treePicked(h, e) }).cmd()
	})
	t.OnEditLabel = func(e *store.Entry, label string) tea.Cmd {
		id := e.ID
		p := slot.NewPrompt(slotTheme(h), slotKeys(h), "Label for this entry (empty clears it)", "label", 0, func(text string, ok bool) tea.Cmd {
			if !ok {
				return nil
			}
			if err := rt.Session().SetLabel(id, text); err != nil {
				return func() tea.Msg { return notify("error", "Failed to set label: "+err.Error()) }
			}
			t.SetLabel(id, text)
			return nil
		})
		p.SetValue(label)
		h.ShowDialog(p)
		return nil
	}
	if t.Len() == 0 {
		h.Notify("info", "No entries in session")
		return nil
	}
	if rt.Session().IsStreaming() {
		h.Notify("warning", "Wait for the current response to finish before navigating the tree.")
		return nil
	}
	h.ShowDialog(t)
	return nil
}

// cmd wraps a Do message as a command.
func (d Do) cmd() tea.Cmd { return func() tea.Msg { return d } }

// treeTarget is where the leaf goes for a picked entry, and the editor text it brings back.
func treeTarget(e *store.Entry) (target, text string) {
	switch {
	case e.Type == store.TypeMessage && e.Role() == llm.RoleUser && e.Message != nil:
		return e.Parent(), llm.TextOf(e.Message.Content, "\n")
	case e.Type == store.TypeCustomMessage:
		return e.Parent(), llm.TextOf(e.Content, "\n")
	}
	return e.ID, ""
}

func treePicked(h Host, e *store.Entry) tea.Cmd {
	target, text := treeTarget(e)
	st := h.Runtime().Session().Store()
	if target == "" {
		h.Notify("warning", "Cannot navigate before the first message: use /new for an empty conversation")
		if text != "" {
			h.SetEditorText(text)
		}
		return nil
	}
	if target == st.LeafID() {
		if text != "" {
			h.SetEditorText(text)
		}
		h.Notify("info", "Already at the selected point")
		return nil
	}
	choices := []string{summaryNone, summaryPlain, summaryCustom}
	h.ShowDialog(slot.NewSelect(slotTheme(h), slotKeys(h), "Summarize branch?", choices, 0, func(i int, ok bool) tea.Cmd {
		if !ok {
			return nil
		}
		choice := choices[i]
		if choice != summaryCustom {
			return navigate(h, target, text, ext.NavigateOptions{Summarize: choice == summaryPlain})
		}
		// The select closes first; the instructions editor opens after it, from a Do message.
		return Do(func(h Host) tea.Cmd {
			h.ShowDialog(slot.NewTextEditor(slotTheme(h), slotKeys(h), "Custom summarization instructions", "", func(instr string, ok bool) tea.Cmd {
				if !ok {
					return nil
				}
				return navigate(h, target, text, ext.NavigateOptions{Summarize: true, CustomInstructions: instr})
			}))
			return nil
		}).cmd()
	}))
	return nil
}

// navigate moves the leaf to target off the UI goroutine (summarising may call the model), then
// rebuilds the screen and puts text into the editor.
func navigate(h Host, target, text string, o ext.NavigateOptions) tea.Cmd {
	rt := h.Runtime()
	if o.Summarize {
		h.Notify("info", "Summarizing branch...")
	}
	return func() tea.Msg {
		ctx, cancel := opContext()
		defer cancel()
		c, err := rt.NavigateTree(ctx, target, o)
		return later(func(h Host) tea.Cmd {
			switch {
			case err != nil:
				h.Notify("error", "Navigation failed: "+err.Error())
			case c:
				h.Notify("info", "Navigation cancelled")
			default:
				h.Reload()
				if text != "" {
					h.SetEditorText(text)
				}
				h.Notify("info", "Navigated to selected point")
			}
			return nil
		})
	}
}
