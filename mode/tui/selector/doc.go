// Package selector holds the built-in pickers that take the editor slot (tui.md §10): the model
// selector and the scoped-models list, the session picker of /resume, the tree navigator of
// /tree, the user-message list of /fork and the settings list.
//
// Each picker implements dialog.Dialog (the shape of mode/tui/component.Dialog), owns its state and
// is driven by the Bubble Tea goroutine only. It reports through the callback given to its
// constructor, called at most once for the final choice, on that goroutine; callbacks must not
// block (run session operations in a tea.Cmd). Pickers read plain data (models, session infos,
// tree nodes) handed to them; they never call the session themselves.
//
// selector imports llm, store, resource, mode/tui/fuzzy and mode/tui/slot.
package selector
