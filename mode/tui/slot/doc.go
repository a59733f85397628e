// Package slot holds the components that take the interactive mode's editor slot (tui.md §0,
// §7.2): the extension dialogs (select, confirm, input, editor, with the timeout countdown), the
// single-line input and the scrolling list the selectors are built from, and the frame they share.
//
// Every component implements Dialog and owns its state. It is driven only by the Bubble Tea loop
// (Update and View are called on the UI goroutine); results leave through the callback given to
// its constructor, called exactly once on that goroutine, and must not block. Extension
// goroutines never touch a component: package extui turns their calls into messages.
//
// Colours come from Theme, a small set of lipgloss styles the root maps from the active theme
// (Plain gives uncoloured output for golden tests). slot imports Bubble Tea, lipgloss,
// charmbracelet/x/ansi and mode/tui/fuzzy; nothing else of ours.
package slot
