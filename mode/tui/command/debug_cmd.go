package command

import (
	"fmt"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
)

func init() {
	add(Command{Name: "debug", Description: "Write the rendered lines and messages to a debug log", Hidden: true, Run: runDebug})
}

// debugHost is the optional Host capability /debug needs: the report and the file it goes to.
type debugHost interface {
	DebugLog() (path string, report []byte)
}

// runDebug is /debug (hidden from autocomplete): the screen's rendered lines with their widths
// and the session's messages go to the debug log in the agent dir; the notice names the file.
func runDebug(h Host, _ string) tea.Cmd {
	dh, ok := h.(debugHost)
	if !ok {
		h.Notify("error", "Debug log: this screen cannot report its lines.")
		return nil
	}
	path, report := dh.DebugLog()
	if path == "" {
		h.Notify("error", "Debug log: no agent directory to write it to.")
		return nil
	}
	return func() tea.Msg {
		if err := writeDebugLog(path, report); err != nil {
			return notify("error", err.Error())
		}
		return notify("info", "Debug log written to: "+path)
	}
}

// writeDebugLog replaces the file at path with report, creating its folder.
func writeDebugLog(path string, report []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write debug log %s: %w", path, err)
	}
	if err := os.WriteFile(path, report, 0o600); err != nil {
		return fmt.Errorf("write debug log %s: %w", path, err)
	}
	return nil
}
