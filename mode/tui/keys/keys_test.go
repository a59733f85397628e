package keys

import (
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"shift+ctrl+p": "ctrl+shift+p", "Escape": "esc", "alt+Enter": "alt+enter", "pageUp": "pgup",
		"ctrl+-": "ctrl+-", "ctrl+]": "ctrl+]", "ctrl+alt+]": "ctrl+alt+]",
	} {
		if got, ok := Canonical(in); !ok || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := Canonical("hyperx+a"); ok {
		t.Error("unknown modifier accepted")
	}
}

// TestLoad applies a user file: a value replaces all defaults, [] unbinds, a legacy flat id is
// migrated and loses to its namespaced spelling.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	src := `{"app.interrupt": "ctrl+x", "expandTools": "ctrl+e", "app.tools.expand": ["alt+o"], "app.exit": []}`
	if err := os.WriteFile(filepath.Join(dir, "keybindings.json"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	esc := tea.KeyPressMsg{Code: tea.KeyEscape}
	ctrlX := tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl}
	altO := tea.KeyPressMsg{Code: 'o', Mod: tea.ModAlt}
	if m.Matches(esc, Interrupt) || !m.Matches(ctrlX, Interrupt) {
		t.Error("app.interrupt not replaced by ctrl+x")
	}
	if !m.Matches(altO, ToolsExpand) || m.Hint(ToolsExpand) != "alt+o" {
		t.Errorf("app.tools.expand = %q; want alt+o (namespaced id wins)", m.Hint(ToolsExpand))
	}
	if len(m.Keys(Exit)) != 0 {
		t.Error("app.exit not unbound")
	}
	d := Default()
	if !d.Matches(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}, MessageFollowUp) {
		t.Error("alt+enter is not app.message.followUp by default")
	}
	if err := os.WriteFile(filepath.Join(dir, "keybindings.json"), []byte(`{`), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := Load(dir); err == nil || !m.Matches(esc, Interrupt) {
		t.Errorf("an invalid file must be ignored as a whole and reported: %v", err)
	}
}
