package selector

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/resource"
)

// TrustChoice is one answer of the project-trust dialog (config-and-resources.md §6, step 6).
type TrustChoice struct {
	Label   string
	Trusted bool
	// Save is "cwd", "parent" or "" (this session only).
	Save string
}

// TrustChoices are the dialog's options, in order.
var TrustChoices = []TrustChoice{
	{Label: "Trust", Trusted: true, Save: "cwd"},
	{Label: "Trust parent folder", Trusted: true, Save: "parent"},
	{Label: "Trust this session only", Trusted: true},
	{Label: "Do not trust", Save: "cwd"},
	{Label: "Do not trust this session only"},
}

// TrustTitle is the dialog's title for cwd and its trust inputs.
func TrustTitle(cwd string, inputs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Trust this project?\n%s\n", cwd)
	if len(inputs) > 0 {
		b.WriteString("Trusting loads its project extensions, settings and resources:")
		for i, in := range inputs {
			if i == 6 {
				fmt.Fprintf(&b, "\n  … and %d more", len(inputs)-i)
				break
			}
			if rel, err := filepath.Rel(cwd, in); err == nil && !strings.HasPrefix(rel, "..") {
				in = rel
			}
			b.WriteString("\n  " + in)
		}
	}
	return b.String()
}

// NewTrust builds the project-trust dialog; onDone gets the choice, ok false when dismissed
// (which means untrusted).
func NewTrust(th slot.Theme, keys slot.Keys, cwd string, inputs []string, onDone func(c TrustChoice, ok bool) tea.Cmd) *slot.Select {
	labels := make([]string, len(TrustChoices))
	for i, c := range TrustChoices {
		labels[i] = c.Label
	}
	return slot.NewSelect(th, keys, TrustTitle(cwd, inputs), labels, 0, func(i int, ok bool) tea.Cmd {
		if !ok || onDone == nil {
			if onDone != nil {
				return onDone(TrustChoice{}, false)
			}
			return nil
		}
		return onDone(TrustChoices[i], true)
	})
}

// ApplyTrust records c in <agentDir>/trust.json: for cwd, or for its parent folder; nothing for
// a session-only choice.
func ApplyTrust(agentDir, cwd string, c TrustChoice) error {
	switch c.Save {
	case "cwd":
		return resource.RememberProjectTrust(agentDir, cwd, c.Trusted)
	case "parent":
		return resource.RememberProjectTrust(agentDir, filepath.Dir(cwd), c.Trusted)
	}
	return nil
}
