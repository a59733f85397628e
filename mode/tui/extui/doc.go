// Package extui is ctx.ui where the interactive screen is not up yet: Inline runs each
// extension dialog alone in the terminal (the project-trust prompt and the project_trust
// handlers, which run before the session exists; config-and-resources.md §6). Once the screen
// runs, mode/tui's own ctx.ui takes over and shows the same mode/tui/slot dialogs in the editor
// slot.
//
// extui imports ext, mode/tui/slot and Bubble Tea. Inline is safe for concurrent use: dialogs
// run one at a time.
package extui
