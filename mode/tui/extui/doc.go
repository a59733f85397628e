// Package extui is ctx.ui for the interactive mode (tui.md §7): UI implements ext.UI for the
// extension goroutines (Go handlers, the TypeScript host's request goroutines) and Host keeps, on
// the Bubble Tea goroutine, what those calls put on screen: the open dialogs, the footer statuses,
// the widgets above and below the editor and the terminal title.
//
// Concurrency: UI's methods are called from any goroutine. They never touch UI state; each one
// posts a message to the program (send, normally tea.Program.Send) and a blocking dialog then
// waits on its own reply channel, bounded by the caller's ctx (timeout, AbortSignal) and by the
// program's end. Host is owned by the Bubble Tea goroutine: the root model hands it every
// message and asks it for the slot, the status line and the widgets. The UI loop therefore never
// blocks on an extension, and an extension blocks only itself.
//
// extui imports ext, mode/tui/dialog and Bubble Tea.
package extui
