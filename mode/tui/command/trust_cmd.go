package command

import (
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/selector"
	"github.com/atomic-cli/atomic/resource"
)

func init() {
	add(Command{Name: "trust", Description: "Trust or distrust this project's extensions and settings", Run: runTrust})
}

// agentDirHost is the optional Host capability /trust needs: where trust.json lives.
type agentDirHost interface{ AgentDir() string }

// runTrust is /trust: the project-trust choices; a saved decision takes effect on restart
// (config-and-resources.md §6: /trust writes trust.json only).
func runTrust(h Host, _ string) tea.Cmd {
	ad, ok := h.(agentDirHost)
	if !ok || ad.AgentDir() == "" {
		h.Notify("error", "Project trust needs the agent directory, which this screen does not know.")
		return nil
	}
	agentDir := ad.AgentDir()
	cwd := h.Runtime().Session().Store().Cwd()
	home, _ := os.UserHomeDir()
	h.ShowDialog(selector.NewTrust(slotTheme(h), slotKeys(h), cwd, resource.TrustInputs(cwd, home), func(c selector.TrustChoice, ok bool) tea.Cmd {
		if !ok {
			return nil
		}
		return func() tea.Msg {
			if err := selector.ApplyTrust(agentDir, cwd, c); err != nil {
				return notify("error", "Failed to save project trust: "+err.Error())
			}
			if c.Save == "" {
				return notify("info", "Nothing saved: a session-only choice applies when atomic starts. Restart atomic and choose again.")
			}
			return notify("info", "Project trust saved ("+c.Label+"). Restart atomic for it to take effect.")
		}
	}))
	return nil
}
