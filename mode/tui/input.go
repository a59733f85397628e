package tui

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/chat"
	"github.com/atomic-cli/atomic/mode/tui/command"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/session"
)

type (
	promptDoneMsg struct{ err error }
	steerDoneMsg  struct {
		text string
		err  error
	}
	shortcutDoneMsg struct{ err error }
	editorDoneMsg   struct {
		text string
		ok   bool
		err  error
	}
	bashChunkMsg struct {
		b    *chat.BashBlock
		text string
	}
	bashDoneMsg struct {
		b   *chat.BashBlock
		res session.BashResult
		err error
	}
)

// onKey routes a key press: the shown dialog gets every key; otherwise the precedence of tui.md
// §4.4 — extension shortcuts, interrupt, exit, app actions, the completion list, submit, editor.
func (m *model) onKey(k tea.KeyPressMsg) tea.Cmd {
	d := m.keyDialog()
	if cd, ok := d.(*customDialog); !ok || cd.editor {
		m.armedCtrlC = nil // the keys went elsewhere
	}
	if d != nil {
		// A custom editor is the editor: extension shortcuts come first (tui.md §4.4).
		if cd, ok := d.(*customDialog); ok && cd.editor {
			if press := keys.Press(k); hasShortcut(m, press) {
				return m.runShortcut(press)
			}
		}
		if cd, ok := d.(*customDialog); ok && !cd.editor {
			if cmd, used := m.ctrlCToComponent(cd, k); used {
				return cmd
			}
			// A reserving overlay leaves the transcript's scroll keys to the transcript
			// (Atomic), so the rows it covers can be paged into view.
			if cd.reserve && m.rt != nil {
				for _, a := range m.km.Actions(k) {
					if strings.HasPrefix(a, "tui.altScreen.") {
						if cmd, used := m.appAction(a, k); used {
							return cmd
						}
					}
				}
			}
		}
		// A second Ctrl+C within the window always gets the user out, even past a stuck dialog.
		if m.km.Matches(k, keys.Clear) && time.Since(m.lastCtrlC) < doublePress {
			return m.Quit()
		}
		// A custom editor passes Ctrl+C on as the app.clear action (EditorAction), which
		// counts the press itself: counting it here too would make that first press quit.
		if cd, ok := d.(*customDialog); m.km.Matches(k, keys.Clear) && (!ok || !cd.editor) {
			m.lastCtrlC = time.Now()
		}
		cmd := d.HandleKey(k)
		m.popDone()
		return cmd
	}
	if m.rt == nil {
		return m.onKeyStarting(k)
	}
	press := keys.Press(k)
	if _, ok := m.rt.Session().Runner().Shortcut(press); ok {
		return m.runShortcut(press)
	}
	if m.complete != nil {
		if cmd, used := m.completionKey(k); used {
			return cmd
		}
	}
	acts := m.km.Actions(k)
	for _, a := range acts {
		if cmd, used := m.appAction(a, k); used {
			return cmd
		}
	}
	if m.km.Matches(k, keys.Submit) {
		// A backslash before the cursor turns Enter into a newline (tui.md §3.2).
		if strings.HasSuffix(m.ed.BeforeCursor(), "\\") {
			m.ed.ReplaceBeforeCursor(1, "\n")
			return nil
		}
		return m.submitEditor()
	}
	if m.km.Matches(k, keys.Tab) {
		return m.tabComplete()
	}
	if m.ed.HandleKey(k) {
		m.refreshCompletion(false)
	}
	return nil
}

// ctrlCToComponent applies the terminal UI's Ctrl+C escape hatch to an extension component that
// holds the keys (Atomic's rule, tui.md §3.9): Ctrl+C is matched by the physical key, not the
// app.clear binding. A component that did not declare handlesCtrlC is closed by the first press,
// as if cancelled (ctx.ui.custom resolves undefined; the editor comes back). A declared one
// receives the press and is armed; the next press, if no other key came between and it still
// holds the keys, closes it, so no component can trap the keyboard. Any other key disarms.
// used is false for keys other than Ctrl+C, which go to the component as usual.
func (m *model) ctrlCToComponent(cd *customDialog, k tea.KeyPressMsg) (tea.Cmd, bool) {
	armed := m.armedCtrlC
	m.armedCtrlC = nil
	// The physical key: Ctrl and c, whatever the lock keys' state (Kitty reports them).
	if k.Code != 'c' || k.Mod&^(tea.ModCapsLock|tea.ModNumLock|tea.ModScrollLock) != tea.ModCtrl {
		return nil, false
	}
	if cd.handlesCtrlC && armed != cd {
		m.armedCtrlC = cd
		cmd := cd.HandleKey(k)
		m.popDone()
		return cmd, true
	}
	cd.close()
	m.popDone()
	return nil, true
}

// onKeyStarting handles keys before the runtime is attached, so that input typed while the
// session starts ends up exactly as it would once it is ready: keys that only edit the text (and
// Ctrl+C, Ctrl+D on an empty editor, Ctrl+Z, Ctrl+G, the tool/thinking toggles, scrolling) act at
// once, with the built-in completion list (commands, @files, paths) following the text; keys
// whose effect needs the session or the full completion list (Escape, the model and thinking
// keys, follow-up and dequeue, possible extension shortcuts, and Tab, Enter, Up and Down on a
// slash command or an open list) are held, with every key after them, and replayed in order once
// the runtime is attached (attach). Enter on other text keeps the prompt for the runtime.
func (m *model) onKeyStarting(k tea.KeyPressMsg) tea.Cmd {
	if m.km.Matches(k, keys.Clear) {
		// Always at once, so a stuck start can be left: the second press quits, the first
		// clears the editor and drops what was held.
		if time.Since(m.lastCtrlC) < doublePress {
			return m.Quit()
		}
		m.lastCtrlC = time.Now()
		m.ed.Reset()
		m.complete, m.completeStale, m.held = nil, false, nil
		return nil
	}
	if len(m.held) > 0 || m.holdKey(k) {
		m.held = append(m.held, k)
		return nil
	}
	if m.complete != nil {
		if cmd, used := m.completionKey(k); used {
			return cmd
		}
	}
	for _, a := range m.km.Actions(k) {
		switch a {
		case keys.Exit, keys.Suspend, keys.EditorExternal, keys.ToolsExpand, keys.ThinkingToggle, keys.PasteImage,
			keys.ViewPageUp, keys.ViewPageDown, keys.ViewHalfPageUp, keys.ViewHalfPageDown,
			keys.ViewLineUp, keys.ViewLineDown, keys.ViewTop, keys.ViewBottom:
			if cmd, used := m.appAction(a, k); used {
				return cmd
			}
		case keys.Interrupt:
			return nil // Escape on text with nothing to interrupt (holdKey held the rest)
		}
	}
	switch {
	case m.km.Matches(k, keys.Submit):
		if strings.HasSuffix(m.ed.BeforeCursor(), "\\") {
			m.ed.ReplaceBeforeCursor(1, "\n")
			return nil
		}
		return m.submitEditor()
	case m.km.Matches(k, keys.Tab):
		return m.tabComplete()
	}
	if m.ed.HandleKey(k) {
		m.refreshCompletion(false)
		return nil
	}
	m.held = append(m.held, k) // maybe an extension shortcut: known once extensions are loaded
	return nil
}

// submitEditor sends the editor's trimmed text (nothing when it is blank): it joins the history,
// the editor and the completion list are cleared.
func (m *model) submitEditor() tea.Cmd {
	text := strings.TrimSpace(m.ed.Value())
	if text == "" {
		return nil
	}
	m.ed.AddHistory(text)
	m.ed.Reset()
	m.complete, m.completeStale = nil, false
	return m.submit(text)
}

// tabComplete is Tab in the editor: the completion list is refreshed and, when it holds one
// item, that item is applied.
func (m *model) tabComplete() tea.Cmd {
	m.refreshCompletion(true)
	if m.complete != nil && len(m.complete.items) == 1 {
		return m.applyCompletion(false)
	}
	return nil
}

// holdKey reports whether a key typed before the runtime is attached waits for it
// (onKeyStarting).
func (m *model) holdKey(k tea.KeyPressMsg) bool {
	slash := strings.HasPrefix(m.ed.Text(), "/") && !strings.Contains(m.ed.BeforeCursor(), "\n")
	if (m.complete != nil || slash) && (m.km.Matches(k, keys.Tab) || m.km.Matches(k, keys.Submit)) {
		return true // the list, or the command, may be another once extensions are loaded
	}
	if m.complete != nil && (m.km.Matches(k, keys.SelectUp) || m.km.Matches(k, keys.SelectDown)) {
		return true
	}
	for _, a := range m.km.Actions(k) {
		switch a {
		case keys.Interrupt:
			if m.complete != nil {
				return false // closes the list
			}
			// Escape interrupts the prompt sent at attach, clears `!` text, or (twice on an
			// empty editor) opens the tree; on other text it does nothing.
			return len(m.prompts) > 0 || m.ed.Empty() || strings.HasPrefix(strings.TrimSpace(m.ed.Text()), "!")
		case keys.ThinkingCycle, keys.ModelCycleForward, keys.ModelCycleBackward, keys.ModelSelect,
			keys.MessageFollowUp, keys.MessageDequeue:
			return true
		}
	}
	return false
}

// appAction runs an app.* or viewport action; used is false when the action does not apply now
// (so the key falls through to the editor).
func (m *model) appAction(a string, k tea.KeyPressMsg) (tea.Cmd, bool) {
	var s *session.Session // nil before the runtime is attached: onKeyStarting runs only actions without it
	if m.rt != nil {
		s = m.rt.Session()
	}
	switch a {
	case keys.Interrupt:
		switch {
		case m.working():
			m.restoreQueue()
			s.Abort()
			if s.IsCompacting() {
				s.AbortCompaction()
			}
			if s.IsRetrying() {
				s.AbortRetry()
			}
			m.lastEsc = time.Time{}
		case m.bashCancel != nil:
			m.bashCancel()
		case strings.HasPrefix(strings.TrimSpace(m.ed.Text()), "!"):
			m.ed.Reset()
		case m.ed.Empty():
			if time.Since(m.lastEsc) < doublePress {
				m.lastEsc = time.Time{}
				if c, ok := m.cmds.Lookup("tree"); ok {
					return c.Run(m, ""), true
				}
				return nil, true
			}
			m.lastEsc = time.Now()
		}
		return nil, true
	case keys.Clear:
		if time.Since(m.lastCtrlC) < doublePress {
			return m.Quit(), true
		}
		m.lastCtrlC = time.Now()
		if m.working() {
			s.Abort()
		} else {
			m.ed.Reset()
			m.complete = nil
		}
		return nil, true
	case keys.Exit:
		if m.ed.Empty() {
			return m.Quit(), true
		}
		return nil, false
	case keys.ThinkingCycle:
		lvl, ok, err := s.CycleThinkingLevel()
		switch {
		case err != nil:
			m.notice("error", err.Error())
		case !ok:
			m.notice("info", "Current model does not support thinking")
		default:
			m.notice("info", "Thinking level: "+lvl)
			m.saveSetting("defaultThinkingLevel", lvl)
		}
		m.footerCache = nil
		return nil, true
	case keys.ModelCycleForward, keys.ModelCycleBackward:
		dir := "forward"
		if a == keys.ModelCycleBackward {
			dir = "backward"
		}
		c, err := s.CycleModel(dir)
		switch {
		case err != nil:
			m.notice("error", err.Error())
		case c == nil:
			m.notice("info", "Only one model available")
		default:
			msg := "Switched to " + c.Model.ID
			if c.ThinkingLevel != "" && c.Model.Reasoning {
				msg += " (thinking: " + c.ThinkingLevel + ")"
			}
			m.notice("info", msg)
			m.saveSetting("defaultProvider", c.Model.Provider)
			m.saveSetting("defaultModel", c.Model.ID)
		}
		m.footerCache = nil
		return nil, true
	case keys.ModelSelect:
		if c, ok := m.cmds.Lookup("model"); ok {
			return c.Run(m, ""), true
		}
		return nil, false
	case keys.ToolsExpand:
		m.SetToolsExpanded(!m.chat.Env.Expanded)
		return nil, true
	case keys.ThinkingToggle:
		m.chat.Env.ShowThinking = !m.chat.Env.ShowThinking
		m.chat.Invalidate()
		return nil, true
	case keys.EditorExternal:
		return m.externalEditor(), true
	case keys.PasteImage:
		return m.pasteClipboardImage(), true
	case keys.MessageFollowUp:
		text := strings.TrimSpace(m.ed.Value())
		if text == "" {
			return nil, true
		}
		m.ed.AddHistory(text)
		m.ed.Reset()
		if !m.working() {
			return m.submit(text), true
		}
		return m.queue(text, true), true
	case keys.MessageDequeue:
		n := m.restoreQueue()
		if n == 0 {
			m.notice("info", "No queued messages to restore")
		} else {
			m.notice("info", "Restored "+itoa(n)+" queued message(s) to editor")
		}
		return nil, true
	case keys.Suspend:
		m.releaseTerminal()
		return tea.Suspend, true
	case keys.ViewPageUp:
		m.chat.Scroll(max(m.height/2, 1))
		return nil, true
	case keys.ViewPageDown:
		m.chat.Scroll(-max(m.height/2, 1))
		return nil, true
	case keys.ViewHalfPageUp:
		m.chat.Scroll(max(m.height/4, 1))
		return nil, true
	case keys.ViewHalfPageDown:
		m.chat.Scroll(-max(m.height/4, 1))
		return nil, true
	case keys.ViewLineUp:
		m.chat.Scroll(1)
		return nil, true
	case keys.ViewLineDown:
		m.chat.Scroll(-1)
		return nil, true
	case keys.ViewTop:
		m.chat.ScrollToTop()
		return nil, true
	case keys.ViewBottom:
		m.chat.ScrollToEnd()
		return nil, true
	}
	return nil, false
}

func itoa(n int) string { return strconv.Itoa(n) }

// restoreQueue moves every queued steer and follow-up back into the editor (steers first, joined
// by a blank line, then the current text) and returns how many there were (tui.md §3.8).
func (m *model) restoreQueue() int {
	steer, follow := m.rt.Session().ClearQueue()
	var parts []string
	parts = append(parts, steer...)
	parts = append(parts, follow...)
	m.pending = nil
	if len(parts) == 0 {
		return 0
	}
	if cur := m.ed.Value(); strings.TrimSpace(cur) != "" {
		parts = append(parts, cur)
	}
	m.ed.SetText(strings.Join(parts, "\n\n"))
	return len(steer) + len(follow)
}

// submit handles a submitted line (tui.md §2.1 dispatch order): a built-in command, `!`/`!!`
// user bash, a steer while working, or a new prompt.
func (m *model) submit(text string) tea.Cmd {
	m.chat.ScrollToEnd() // what is sent, and its answer, show even when the view was scrolled up
	if m.rt == nil {
		m.prompts = append(m.prompts, text)
		m.notice("info", "Starting… the prompt is sent once the session is ready")
		return nil
	}
	if name, args, ok := command.Parse(text); ok {
		if c, found := m.cmds.Lookup(name); found {
			return c.Run(m, args)
		}
	}
	if strings.HasPrefix(text, "!") {
		exclude := strings.HasPrefix(text, "!!")
		cmdText := strings.TrimSpace(strings.TrimLeft(text, "!"))
		if cmdText != "" {
			if m.bashCancel != nil {
				m.notice("warning", "A bash command is already running. Press Esc to cancel it first.")
				m.ed.SetText(text)
				return nil
			}
			return m.runBash(cmdText, exclude)
		}
	}
	if m.working() {
		return m.queue(text, false)
	}
	m.prompting = true
	m.promptIsCmd = m.rt.Session().IsExtensionCommand(text)
	ctx := m.ctx
	rt := m.rt
	images := m.takeImages(text)
	return func() tea.Msg {
		s := rt.Session()
		err := s.PromptWith(ctx, text, session.PromptOptions{Source: "interactive", Images: images})
		if err == nil {
			if werr := s.WaitIdle(ctx); werr != nil && ctx.Err() == nil {
				err = werr
			}
		}
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		return promptDoneMsg{err}
	}
}

// queue sends text as a steer (Enter) or follow-up (Alt+Enter) while the agent works and shows
// it in the pending area until the agent takes it.
func (m *model) queue(text string, followUp bool) tea.Cmd {
	// Extension commands run at once, even while streaming (tui.md §2.1).
	s := m.rt.Session()
	if !s.IsExtensionCommand(text) {
		m.pending = append(m.pending, pendingItem{followUp: followUp, text: text})
	}
	behavior := "steer"
	if followUp {
		behavior = "followUp"
	}
	ctx := m.ctx
	return func() tea.Msg {
		err := s.PromptWith(ctx, text, session.PromptOptions{Source: "interactive", StreamingBehavior: behavior})
		return steerDoneMsg{text: text, err: err}
	}
}

// runBash runs a user `!cmd` (tui.md §3.6): the row shows the output as it arrives; Escape
// cancels.
func (m *model) runBash(cmdText string, exclude bool) tea.Cmd {
	b := &chat.BashBlock{Command: cmdText, Running: true, Excluded: exclude}
	m.chat.Append(b)
	ctx, cancel := context.WithCancel(m.ctx)
	m.bashCancel = cancel
	s := m.rt.Session()
	send := m.ext.send
	return func() tea.Msg {
		res, err := s.ExecuteBash(ctx, cmdText, session.BashOptions{
			ExcludeFromContext: exclude,
			OnChunk:            func(t string) { send(bashChunkMsg{b: b, text: t}) },
		})
		return bashDoneMsg{b: b, res: res, err: err}
	}
}

func (m *model) onBashDone(msg bashDoneMsg) {
	if m.bashCancel != nil {
		m.bashCancel()
		m.bashCancel = nil
	}
	b := msg.b
	b.Running = false
	if msg.err != nil {
		b.Output += "\n" + msg.err.Error()
	} else {
		b.Output, b.ExitCode, b.Cancelled = msg.res.Output, msg.res.ExitCode, msg.res.Cancelled
		b.Truncated, b.FullPath = msg.res.Truncated, msg.res.FullOutputPath
	}
	m.chat.Touch(b)
}

// runShortcut runs an extension shortcut's handler off the UI goroutine (tui.md §4.5).
func (m *model) runShortcut(key string) tea.Cmd {
	s := m.rt.Session()
	ctx := m.ctx
	return func() tea.Msg { return shortcutDoneMsg{err: s.InvokeShortcut(ctx, key)} }
}

// externalEditor opens $VISUAL or $EDITOR on the editor text (tui.md §3.7).
func (m *model) externalEditor() tea.Cmd {
	ed := os.Getenv("VISUAL")
	if ed == "" {
		ed = os.Getenv("EDITOR")
	}
	if ed == "" {
		m.notice("warning", "No editor configured. Set $VISUAL or $EDITOR environment variable.")
		return nil
	}
	f, err := os.CreateTemp("", "atomic-editor-*.atomic.md")
	if err != nil {
		m.notice("error", "External editor: "+err.Error())
		return nil
	}
	path := f.Name()
	_, _ = f.WriteString(m.ed.Value())
	f.Close()
	parts := strings.Fields(ed)
	c := exec.Command(parts[0], append(parts[1:], path)...)
	return tea.Exec(&termExec{c: c, m: m}, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorDoneMsg{err: err}
		}
		b, rerr := os.ReadFile(filepath.Clean(path))
		if rerr != nil {
			return editorDoneMsg{err: rerr}
		}
		return editorDoneMsg{text: strings.TrimSuffix(string(b), "\n"), ok: true}
	})
}
