// Package tui is the interactive mode (tui.md): the terminal UI `atomic` opens when it runs in a
// terminal without -p or --mode (also `atomic "first prompt"`, -c, -r, -e). It is built on
// Bubble Tea v2 and runs on the alternate screen with its own scroll view (Atomic's fullscreen
// layout, tui.md §1.1): the transcript fills the top, and a docked stack at the bottom holds the
// queued messages, the working line, extension widgets, the editor slot and the footer.
//
// # Pieces
//
//	mode/tui            the root model (layout, focus, keys, submit, queue), the session event
//	                    feed, ctx.ui for extensions, the header and footer
//	mode/tui/chat       the transcript: blocks (user, assistant, tool rows, notices, bash runs,
//	                    summaries) cached per width, rendered only where visible
//	mode/tui/editor     the prompt editor
//	mode/tui/component  the Component and Dialog interfaces and line helpers
//	mode/tui/command    the slash-command registry and the Host interface commands act through
//	mode/tui/slot       the extension dialogs ctx.ui shows (select, confirm, input, editor, with
//	                    the timeout countdown) and the list / input / frame pickers are built of
//	mode/tui/selector   /model, /scoped-models, /resume, /tree, /fork, /settings and trust pickers
//	mode/tui/extui      ctx.ui before the screen exists (trust prompt, project_trust handlers)
//	mode/tui/fuzzy      the fuzzy matcher of pickers and completion
//	mode/tui/keys       keybindings.json and the action ids
//	mode/tui/theme      themes and the colour tokens
//	mode/tui/tuitest    the end-to-end harness: the real binary in a PTY read through a virtual
//	                    terminal
//
// # A dialog in the editor slot
//
// Anything that takes over the editor — a selector, an extension dialog, the trust dialog —
// implements component.Dialog:
//
//	Render(width int) []string          // styled lines, each at most width cells
//	HandleKey(k tea.KeyPressMsg) tea.Cmd // every key while shown, Escape and Ctrl+C included
//	Done() bool                          // true once finished; the host then restores the editor
//
// and optionally component.Updater (non-key messages: its own tea.Tick timers for a countdown,
// async results), component.Paster (bracketed paste), component.Cursor (where the terminal cursor
// goes) and component.Canceller (closed from outside: an extension's AbortSignal). Show one with
// Host.ShowDialog(d) from a command or from a Do message; dialogs stack, the top one has the
// keyboard, and the editor keeps its text underneath. A dialog delivers its result through the
// callback it was built with before Done turns true. dialog.Frame draws the standard frame of
// tui.md §7.2. A second Ctrl+C within 500 ms always quits, whatever the dialog does.
//
// # Theme tokens
//
// Style with the *theme.Theme the Host gives you (Host.Theme(), read it at render time — it
// changes): th.Fg(token, s) for the foreground tokens of tui.md §5.1 (accent, border,
// borderAccent, borderMuted, success, error, warning, muted, dim, text, thinkingText, toolTitle,
// toolOutput, md*, toolDiff*, syntax*, thinking*, bashMode, customMessage*, userMessageText),
// th.Bg(token, s) for selectedBg, userMessageBg, customMessageBg, toolPendingBg, toolSuccessBg,
// toolErrorBg; theme.Bold / Italic / Inverse / Underline / Strike for attributes. Fg resets only
// the foreground and Bg only the background, so they nest. An unknown token panics. Colours are
// written as 24-bit SGR and Bubble Tea downsamples them to the terminal (256/16 colours, none under
// NO_COLOR).
//
// # Slash commands
//
// A built-in command is a command.Command registered once in mode/tui/command (add a file there
// whose init calls add(Command{...}); Builtins() orders them as tui.md §2.1 lists them):
//
//	add(command.Command{Name: "name", ArgumentHint: "<name>", Description: "Set the session name",
//		Run: func(h command.Host, args string) tea.Cmd { … },
//		Complete: func(h command.Host, prefix string) []command.Completion { … }})
//
// Run is called on the Bubble Tea goroutine with the trimmed arguments. Anything that blocks
// (runtime replacement, compaction, export, extension round trips) goes into the returned
// tea.Cmd; to come back to the screen from there, return a command.Do func(h Host) tea.Cmd
// message. After replacing the session (/new, /resume, /fork, /tree) call h.Reload(), or let the
// model notice: it rebuilds whenever Runtime().Session() changes. Submitted text is dispatched as
// tui.md §2.1 says: built-in command → `!`/`!!` bash → steer while working → prompt (extension
// commands and unknown `/foo` go to the session's prompt path).
//
// # Concurrency
//
// The model and every component are owned by the Bubble Tea goroutine. The session's events
// arrive through an unbounded queue (push never blocks the agent) and a pump that hands them to
// the loop at most once per 16 ms frame, coalesced; key presses are handled at once. ctx.ui calls
// from extensions are sent to the loop as messages; their dialogs block the extension, never the
// UI. Nothing runs on a timer while idle: the spinner ticks only while the working line shows.
//
// tui imports session, ext, agent, llm, store, resource and its subpackages; only the command line imports
// it.
package tui
