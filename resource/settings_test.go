package resource

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSettingsDefaultsWithoutFiles(t *testing.T) {
	s, warns := LoadSettings(SettingsOptions{AgentDir: t.TempDir(), Cwd: t.TempDir(), ProjectTrusted: true})
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	want := DefaultSettings()
	if !reflect.DeepEqual(s.Retry, want.Retry) || !reflect.DeepEqual(s.Compaction, want.Compaction) || !s.Images.AutoResize {
		t.Fatalf("defaults: %+v", s)
	}
}

func TestLoadSettingsMergesProjectOverGlobal(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(agent, "settings.json"), "\xEF\xBB\xBF"+`{
		"defaultProvider": "anthropic", "defaultModel": "claude-x", "defaultThinkingLevel": "low",
		"retry": {"enabled": true, "maxRetries": 5, "baseDelayMs": 10},
		"compaction": {"reserveTokens": 1000},
		"fallbackModels": ["openai/a", "openai/b"],
		"theme": "dark", "defaultProjectTrust": "always"}`)
	writeFile(t, filepath.Join(cwd, ".pi", "settings.json"), `{"defaultModel": "legacy"}`)
	writeFile(t, filepath.Join(cwd, ".atomic", "settings.json"), `{
		"defaultModel": "claude-y",
		"retry": {"maxDelayMs": 20},
		"fallbackModels": ["openai/c"],
		"images": {"blockImages": true},
		"defaultProjectTrust": "never",
		"custom": {"x": 1}}`)
	s, warns := LoadSettings(SettingsOptions{AgentDir: agent, Cwd: cwd, ProjectTrusted: true})
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	if s.DefaultProvider != "anthropic" || s.DefaultModel != "claude-y" || s.DefaultThinkingLevel != "low" {
		t.Errorf("model keys: %+v", s)
	}
	if s.Retry != (RetrySettings{Enabled: true, MaxRetries: 5, BaseDelayMs: 10, MaxDelayMs: 20, MaxRetryDelayMs: 60000}) {
		t.Errorf("retry (deep merge): %+v", s.Retry)
	}
	if s.Compaction.ReserveTokens != 1000 || s.Compaction.KeepRecentTokens != 20000 || !s.Compaction.Enabled {
		t.Errorf("compaction: %+v", s.Compaction)
	}
	if !reflect.DeepEqual(s.FallbackModels, []string{"openai/c"}) {
		t.Errorf("arrays replace wholesale: %v", s.FallbackModels)
	}
	if !s.Images.BlockImages || !s.Images.AutoResize {
		t.Errorf("images: %+v", s.Images)
	}
	if s.DefaultProjectTrust != "always" {
		t.Errorf("defaultProjectTrust is global only: %q", s.DefaultProjectTrust)
	}
	if s.Raw["theme"] != "dark" || s.Raw["custom"] == nil {
		t.Errorf("unknown keys kept: %v", s.Keys())
	}
}

func TestLoadSettingsLegacyProjectDir(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(cwd, ".pi", "settings.json"), `{"defaultModel": "legacy"}`)
	s, _ := LoadSettings(SettingsOptions{AgentDir: agent, Cwd: cwd, ProjectTrusted: true})
	if s.DefaultModel != "legacy" {
		t.Fatalf("legacy .pi/settings.json not read: %+v", s)
	}
}

func TestLoadSettingsUntrustedProjectSkipped(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(cwd, ".atomic", "settings.json"), `{"defaultModel": "p"}`)
	s, warns := LoadSettings(SettingsOptions{AgentDir: agent, Cwd: cwd})
	if s.DefaultModel != "" || len(warns) != 1 || !strings.Contains(warns[0].Error(), "not trusted") {
		t.Fatalf("got %q, %v", s.DefaultModel, warns)
	}
}

func TestLoadSettingsBadValuesWarnWithFileAndKey(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	global := filepath.Join(agent, "settings.json")
	project := filepath.Join(cwd, ".atomic", "settings.json")
	writeFile(t, global, `{"retry": {"maxRetries": "three", "baseDelayMs": -5}}`)
	writeFile(t, project, `{"compaction": {"enabled": "yes"}, "fallbackModels": [1]}`)
	s, warns := LoadSettings(SettingsOptions{AgentDir: agent, Cwd: cwd, ProjectTrusted: true})
	var all []string
	for _, w := range warns {
		all = append(all, w.Error())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{
		global + ": retry.maxRetries: expected an integer, got a string",
		global + ": retry.baseDelayMs: must not be negative",
		project + ": compaction.enabled: expected a boolean, got a string",
		project + ": fallbackModels: expected an array of strings",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing warning %q in:\n%s", want, joined)
		}
	}
	if s.Retry.MaxRetries != 3 || s.Retry.BaseDelayMs != 2000 || !s.Compaction.Enabled {
		t.Errorf("bad values must keep defaults: %+v %+v", s.Retry, s.Compaction)
	}
}

func TestLoadSettingsInvalidJSON(t *testing.T) {
	agent := t.TempDir()
	writeFile(t, filepath.Join(agent, "settings.json"), `{"retry": `)
	s, warns := LoadSettings(SettingsOptions{AgentDir: agent, Cwd: t.TempDir()})
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), "settings.json: invalid JSON") {
		t.Fatalf("warnings: %v", warns)
	}
	if !s.Retry.Enabled {
		t.Fatal("defaults expected")
	}
}

func TestMergeSettingsDoesNotModifyInputs(t *testing.T) {
	base := map[string]any{"a": map[string]any{"x": 1.0, "y": 2.0}, "l": []any{1.0}}
	over := map[string]any{"a": map[string]any{"y": 3.0}, "l": []any{2.0}}
	got := MergeSettings(base, over)
	want := map[string]any{"a": map[string]any{"x": 1.0, "y": 3.0}, "l": []any{2.0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	if base["a"].(map[string]any)["y"] != 2.0 {
		t.Fatal("base modified")
	}
}

func TestLoadSettingsStreamDeadline(t *testing.T) {
	for _, c := range []struct {
		json         string
		deadline     int
		idle, maxRet int
		warn         bool
	}{
		{`{}`, 300000, 600000, 60000, false},
		{`{"streamDeadlineMs": 2000, "httpIdleTimeoutMs": 5000, "retry": {"provider": {"maxRetryDelayMs": 1000}}}`, 2000, 5000, 1000, false},
		{`{"streamDeadlineMs": 0}`, 0, 600000, 60000, false},
		{`{"streamDeadlineMs": "disabled"}`, 0, 600000, 60000, false},
		{`{"streamDeadlineMs": "soon"}`, 300000, 600000, 60000, true},
		{`{"streamDeadlineMs": -5}`, 300000, 600000, 60000, true},
	} {
		agent := t.TempDir()
		if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(c.json), 0o644); err != nil {
			t.Fatal(err)
		}
		s, warns := LoadSettings(SettingsOptions{AgentDir: agent, Cwd: t.TempDir()})
		if s.StreamDeadlineMs != c.deadline || s.HTTPIdleTimeoutMs != c.idle || s.Retry.MaxRetryDelayMs != c.maxRet || (len(warns) > 0) != c.warn {
			t.Errorf("%s: deadline %d idle %d maxRetryDelay %d warnings %v", c.json, s.StreamDeadlineMs, s.HTTPIdleTimeoutMs, s.Retry.MaxRetryDelayMs, warns)
		}
	}
}

// shellPath, shellCommandPrefix and Atomic's defaultTools: an unset defaultTools is nil, [] is
// empty (no built-in tool), non-string entries are dropped, and a non-array is a warning.
func TestLoadSettingsShellAndDefaultTools(t *testing.T) {
	agent := t.TempDir()
	s, _ := LoadSettings(SettingsOptions{AgentDir: agent, Cwd: t.TempDir()})
	if s.DefaultTools != nil || s.ShellPath != "" || s.ShellCommandPrefix != "" {
		t.Fatalf("unset keys: %+v", s)
	}
	writeFile(t, filepath.Join(agent, "settings.json"), `{"shellPath": "/bin/zsh", "shellCommandPrefix": "shopt -s expand_aliases", "defaultTools": ["read", 3, "grep"]}`)
	s, warns := LoadSettings(SettingsOptions{AgentDir: agent, Cwd: t.TempDir()})
	if len(warns) != 0 || s.ShellPath != "/bin/zsh" || s.ShellCommandPrefix != "shopt -s expand_aliases" || !reflect.DeepEqual(s.DefaultTools, []string{"read", "grep"}) {
		t.Fatalf("set keys: %+v %v", s, warns)
	}
	writeFile(t, filepath.Join(agent, "settings.json"), `{"defaultTools": []}`)
	if s, _ = LoadSettings(SettingsOptions{AgentDir: agent, Cwd: t.TempDir()}); s.DefaultTools == nil || len(s.DefaultTools) != 0 {
		t.Fatalf("defaultTools []: %#v", s.DefaultTools)
	}
	writeFile(t, filepath.Join(agent, "settings.json"), `{"defaultTools": "read"}`)
	s, warns = LoadSettings(SettingsOptions{AgentDir: agent, Cwd: t.TempDir()})
	if s.DefaultTools != nil || len(warns) != 1 || !strings.Contains(warns[0].Error(), "defaultTools") {
		t.Fatalf("defaultTools not an array: %#v %v", s.DefaultTools, warns)
	}
}
