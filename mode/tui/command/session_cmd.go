package command

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/export"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/selector"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
)

func init() {
	add(
		Command{Name: "new", Description: "Start a new session", Run: runNew},
		Command{Name: "resume", Description: "Resume a different session", Run: runResume},
		Command{Name: "fork", Description: "Create a new fork from a previous message", Run: runFork},
		Command{Name: "clone", Description: "Duplicate the current session at the current position", Run: runClone},
		Command{Name: "name", ArgumentHint: "<name>", Description: "Set session display name", Run: runName},
		Command{Name: "session", Description: "Show session info and stats", Run: runSessionInfo},
		Command{Name: "copy", Description: "Copy last agent message to clipboard", Run: runCopy},
		Command{Name: "export", ArgumentHint: "[file]", Description: "Export session (HTML default, or a .jsonl path for a copy)", Run: runExport},
		Command{Name: "compact", ArgumentHint: "[instructions]", Description: "Manually compact the session context", Run: runCompact},
		Command{Name: "reload", Description: "Reload keybindings, extensions, skills, prompts, and themes", Run: runReload},
	)
}

// replaced finishes a session replacement on the UI goroutine: cancelled says so, an error is
// shown, otherwise the screen is rebuilt from the new session and ok runs.
func replaced(cancelled bool, err error, what string, ok func(h Host)) tea.Msg {
	return later(func(h Host) tea.Cmd {
		switch {
		case err != nil:
			h.Notify("error", what+" failed: "+err.Error())
		case cancelled:
			h.Notify("info", what+" cancelled by an extension")
		default:
			h.Reload()
			if ok != nil {
				ok(h)
			}
		}
		return nil
	})
}

// runNew is /new (session_before_switch may cancel).
func runNew(h Host, _ string) tea.Cmd {
	rt := h.Runtime()
	return func() tea.Msg {
		ctx, cancel := opContext()
		defer cancel()
		c, err := rt.NewSession(ctx, ext.NewSessionOptions{})
		return replaced(c, err, "New session", func(h Host) { h.Notify("info", "✓ New session started") })
	}
}

// uiReloader is the optional Host capability /reload uses to read keybindings.json and the
// theme again.
type uiReloader interface{ ReloadUI() }

// runResume is /resume: the session picker over this folder's sessions (Tab: all of them).
func runResume(h Host, _ string) tea.Cmd {
	rt := h.Runtime()
	st := rt.Session().Store()
	dir := st.SessionDir()
	local, err := store.List(st.Cwd(), dir)
	if err != nil {
		h.Notify("error", "Cannot list sessions: "+err.Error())
		return nil
	}
	current := st.SessionFile()
	loadAll := func() ([]store.SessionInfo, error) { return store.ListAll(filepath.Dir(dir)) }
	remove := func(path string) error {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("delete session: %w", err)
		}
		return nil
	}
	picker := selector.NewSessions(slotTheme(h), slotKeys(h), visibleSessions(local), loadAll, current, nil, remove, func(in *store.SessionInfo) tea.Cmd {
		if in == nil || in.Path == current {
			return nil
		}
		path := in.Path
		return func() tea.Msg {
			ctx, cancel := opContext()
			defer cancel()
			c, err := rt.SwitchSession(ctx, path, ext.SwitchOptions{})
			return replaced(c, err, "Resume", func(h Host) { h.Notify("info", "Resumed session") })
		}
	})
	picker.SetRename(func(path, name string) error { return renameSession(rt, current, path, name) })
	h.ShowDialog(picker)
	return nil
}

// renameSession sets the display name of the session file at path (a session_info entry): the
// live session through the runtime (session_info_changed follows), any other file by opening it
// for writing (which fails while another process holds it).
func renameSession(rt *session.Runtime, current, path, name string) error {
	if path == current {
		if err := rt.Session().SetSessionName(name); err != nil {
			return fmt.Errorf("rename session: %w", err)
		}
		return nil
	}
	st, err := store.Open(path, "")
	if err != nil {
		return fmt.Errorf("rename session %s: %w", filepath.Base(path), err)
	}
	_, err = st.AppendSessionInfo(name)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("rename session %s: %w", filepath.Base(path), err)
	}
	return nil
}

// visibleSessions drops workflow-owned sessions (session-format.md §3).
func visibleSessions(in []store.SessionInfo) []store.SessionInfo {
	out := in[:0:0]
	for _, s := range in {
		if !s.Internal {
			out = append(out, s)
		}
	}
	return out
}

// runFork is /fork: pick one of the session's user messages; the new session holds the path
// before it and the editor gets its text.
func runFork(h Host, _ string) tea.Cmd {
	rt := h.Runtime()
	msgs := rt.Session().UserMessagesForForking()
	if len(msgs) == 0 {
		h.Notify("info", "No messages to fork from")
		return nil
	}
	items := make([]selector.ForkMessage, len(msgs))
	for i, m := range msgs {
		items[i] = selector.ForkMessage{EntryID: m.EntryID, Text: m.Text}
	}
	h.ShowDialog(selector.NewFork(slotTheme(h), slotKeys(h), items, func(m *selector.ForkMessage) tea.Cmd {
		if m == nil {
			return nil
		}
		id, text := m.EntryID, m.Text
		return func() tea.Msg {
			ctx, cancel := opContext()
			defer cancel()
			c, err := rt.Fork(ctx, id, ext.ForkOptions{})
			return replaced(c, err, "Fork", func(h Host) {
				h.SetEditorText(text)
				h.Notify("info", "Forked to new session")
			})
		}
	}))
	return nil
}

// runClone is /clone: a new session file duplicating the active branch at the current leaf.
func runClone(h Host, _ string) tea.Cmd {
	rt := h.Runtime()
	if rt.Session().Store().LeafID() == "" {
		h.Notify("info", "Nothing to clone yet")
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := opContext()
		defer cancel()
		c, err := rt.Clone(ctx)
		return replaced(c, err, "Clone", func(h Host) { h.Notify("info", "Cloned to new session") })
	}
}

// runName is /name <name>; without a name it shows the current one.
func runName(h Host, args string) tea.Cmd {
	s := h.Runtime().Session()
	if args == "" {
		if n := s.SessionName(); n != "" {
			h.Notify("info", "Session name: "+n)
		} else {
			h.Notify("warning", "Usage: /name <name>")
		}
		return nil
	}
	if err := s.SetSessionName(args); err != nil {
		h.Notify("error", "Failed to set session name: "+err.Error())
		return nil
	}
	h.Notify("info", "Session name set: "+args)
	return nil
}

// runSessionInfo is /session: name, file, id, message and token counts, cost (tui.md §2.1).
func runSessionInfo(h Host, _ string) tea.Cmd {
	s := h.Runtime().Session()
	st, err := s.Stats()
	if err != nil {
		h.Notify("error", err.Error())
		return nil
	}
	file := st.SessionFile
	if file == "" {
		file = "In-memory"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Session Info\n\n")
	if n := s.SessionName(); n != "" {
		fmt.Fprintf(&b, "Name: %s\n", n)
	}
	fmt.Fprintf(&b, "File: %s\nID: %s\n\nMessages\nUser: %d\nAssistant: %d\nTool Calls: %d\nTool Results: %d\nTotal: %d\n\n",
		file, st.SessionID, st.UserMessages, st.AssistantMessages, st.ToolCalls, st.ToolResults, st.TotalMessages)
	fmt.Fprintf(&b, "Tokens\nInput: %d\nOutput: %d\n", st.Tokens.Input, st.Tokens.Output)
	if st.Tokens.CacheRead > 0 {
		fmt.Fprintf(&b, "Cache Read: %d\n", st.Tokens.CacheRead)
	}
	if st.Tokens.CacheWrite > 0 {
		fmt.Fprintf(&b, "Cache Write: %d\n", st.Tokens.CacheWrite)
	}
	fmt.Fprintf(&b, "Total: %d\n", st.Tokens.Total)
	if st.Cost > 0 {
		fmt.Fprintf(&b, "\nCost\nTotal: $%.4f\n", st.Cost)
	}
	h.Notify("info", strings.TrimRight(b.String(), "\n"))
	return nil
}

// runCopy is /copy: the last assistant text to the clipboard (OSC 52).
func runCopy(h Host, _ string) tea.Cmd {
	text, ok := h.Runtime().Session().LastAssistantText()
	if !ok {
		h.Notify("error", "No agent messages to copy yet.")
		return nil
	}
	h.Notify("info", "Copied last agent message to clipboard")
	return tea.SetClipboard(text)
}

// runExport is /export [file]: HTML (default path beside the session), or a copy of the JSONL
// file when the path ends in .jsonl. The path may be quoted.
func runExport(h Host, args string) tea.Cmd {
	st := h.Runtime().Session().Store()
	path := strings.Trim(args, `"'`)
	return func() tea.Msg {
		var out string
		var err error
		if strings.HasSuffix(strings.ToLower(path), ".jsonl") {
			out, err = copyJSONL(st, path)
		} else {
			out, err = export.Session(st, path)
		}
		if err != nil {
			return notify("error", "Failed to export session: "+err.Error())
		}
		return notify("info", "Session exported to: "+out)
	}
}

// copyJSONL copies the session file to path and returns its absolute form.
func copyJSONL(st *store.Session, path string) (string, error) {
	src := st.SessionFile()
	if !st.IsPersisted() || src == "" {
		return "", export.ErrInMemory
	}
	in, err := os.Open(src)
	if err != nil {
		return "", export.ErrNothingYet
	}
	defer in.Close()
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	out, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", fmt.Errorf("copy %s: %w", abs, err)
	}
	return abs, out.Close()
}

// runCompact is /compact [instructions]: a manual compaction; the instructions guide the
// planner (as RPC compact's customInstructions). The screen follows it through the session's
// compaction_start / compaction_end events (loader, failure notice); afterwards the transcript
// is rebuilt so it starts with the compaction row. Only a failure before the compaction started
// is reported here.
func runCompact(h Host, args string) tea.Cmd {
	s := h.Runtime().Session()
	if s.IsCompacting() {
		h.Notify("warning", "A compaction is already running.")
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := opContext()
		defer cancel()
		_, err := s.Compact(ctx, session.CompactManual, 0, nil, args)
		var stale *ext.StaleContextError
		switch {
		case errors.As(err, &stale):
			return notify("error", "Compaction failed: "+err.Error())
		case err != nil:
			return nil
		}
		// The transcript is rebuilt from the branch, which now starts with the compaction row.
		return later(func(h Host) tea.Cmd { h.Reload(); return nil })
	}
}

// runReload is /reload, refused while the agent works or compacts.
func runReload(h Host, _ string) tea.Cmd {
	rt := h.Runtime()
	s := rt.Session()
	switch {
	case s.IsStreaming():
		h.Notify("warning", "Wait for the current response to finish before reloading.")
		return nil
	case s.IsCompacting():
		h.Notify("warning", "Wait for compaction to finish before reloading.")
		return nil
	}
	h.Notify("info", "Reloading…")
	return func() tea.Msg {
		ctx, cancel := opContext()
		defer cancel()
		if err := rt.Reload(ctx); err != nil {
			return notify("error", "Reload failed: "+err.Error())
		}
		return later(func(h Host) tea.Cmd {
			if r, ok := h.(uiReloader); ok {
				r.ReloadUI()
			}
			h.Reload()
			h.Notify("info", "Reloaded extensions, skills, prompts, themes and keybindings")
			return nil
		})
	}
}
