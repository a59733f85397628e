package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/store"
)

func init() {
	add(Command{Name: "import", ArgumentHint: "<path.jsonl>", Description: "Import and resume a session from a JSONL file", Run: runImport})
}

// runImport is /import <path.jsonl>: after a Yes to "Replace current session with <path>?" the
// file is checked (a readable session file), copied into this folder's session directory unless
// it already lives there, and the runtime switches to it as /resume does
// (session_before_switch may cancel; session_switch follows).
func runImport(h Host, args string) tea.Cmd {
	path := strings.Trim(strings.TrimSpace(args), `"'`)
	if path == "" {
		h.Notify("warning", "Usage: /import <path.jsonl>")
		return nil
	}
	rt := h.Runtime()
	st := rt.Session().Store()
	if !filepath.IsAbs(path) {
		path = filepath.Join(st.Cwd(), path)
	}
	path = filepath.Clean(path)
	h.ShowDialog(slot.NewConfirm(slotTheme(h), slotKeys(h), "Replace current session with "+path+"?", "", 0, func(yes bool) tea.Cmd {
		if !yes {
			return nil
		}
		return func() tea.Msg {
			dest, err := importSessionFile(path, st.SessionDir(), st.SessionFile())
			if err != nil {
				return notify("error", "Failed to import session: "+err.Error())
			}
			ctx, cancel := opContext()
			defer cancel()
			c, err := rt.SwitchSession(ctx, dest, ext.SwitchOptions{})
			return replaced(c, err, "Import", func(h Host) { h.Notify("info", "Session imported from: "+path) })
		}
	}))
	return nil
}

// importSessionFile checks that src is a session file and returns the path to switch to: src
// itself when it is in dir, else its copy dir/<base name of src>. Importing onto the live
// session file (current) is refused.
func importSessionFile(src, dir, current string) (string, error) {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("file not found: %s", src)
	}
	ro, err := store.OpenReadOnly(src)
	if err != nil {
		return "", fmt.Errorf("not a session file: %w", err)
	}
	_ = ro.Close()
	if dir == "" || filepath.Clean(filepath.Dir(src)) == filepath.Clean(dir) {
		return src, nil
	}
	dest := filepath.Join(dir, filepath.Base(src))
	if current != "" && filepath.Clean(dest) == filepath.Clean(current) {
		return "", fmt.Errorf("import %s: it would overwrite the current session file %s", src, current)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("import %s: %w", src, err)
	}
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("import %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", fmt.Errorf("import %s: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", fmt.Errorf("import %s to %s: %w", src, dest, err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("import %s to %s: %w", src, dest, err)
	}
	return dest, nil
}
