package resource

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveGlobalSetting: a key is set (dotted keys inside objects) and every other key, known or
// not, is kept; a file that is not a JSON object is left untouched with an error naming it.
func TestSaveGlobalSetting(t *testing.T) {
	dir := t.TempDir()
	if err := SaveGlobalSetting(dir, "defaultModel", "claude-sonnet-4-6"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte(`{"myOwnKey": [1, 2], "compaction": {"reserveTokens": 1000}, "theme": "dark"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range []struct {
		key string
		v   any
	}{{"compaction.enabled", false}, {"theme", "light"}, {"retry.enabled", true}} {
		if err := SaveGlobalSetting(dir, kv.key, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := `{"compaction":{"enabled":false,"reserveTokens":1000},"myOwnKey":[1,2],"retry":{"enabled":true},"theme":"light"}`
	if got, _ := json.Marshal(m); string(got) != want {
		t.Fatalf("settings.json = %s, want %s", got, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want the file's own 0600 kept", st.Mode().Perm())
	}
	s, warnings := LoadSettings(SettingsOptions{AgentDir: dir})
	if len(warnings) > 0 || s.Compaction.Enabled || s.Theme != "light" {
		t.Fatalf("reloaded: %+v %v", s, warnings)
	}

	broken := `{"theme": "dark",` // a typo: never overwritten
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	err = SaveGlobalSetting(dir, "theme", "light")
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("saving into a broken file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != broken {
		t.Fatalf("the broken file was changed: %s", b)
	}
}
