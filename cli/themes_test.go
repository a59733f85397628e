package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The theme paths the terminal UI gets (config-and-resources.md §13): a trusted project's
// themes, settings "themes" entries, the packages' themes, --theme; --no-themes keeps only
// --theme (and -e and resources_discover ones).
func TestThemePaths(t *testing.T) {
	root := t.TempDir()
	agent, cwd := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	for p, content := range map[string]string{
		"agent/settings.json":          `{"themes": ["mythemes"], "packages": ["../pkg"]}`,
		"pkg/themes/pkg.json":          `{}`,
		"proj/.atomic/themes/one.json": `{}`,
	} {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(content), 0o644)
	}
	o := &Options{Stderr: io.Discard, Getenv: func(string) string { return "" }, ThemePaths: []string{filepath.Join(root, "flag.json")}}
	o.Approve = true
	got := strings.Join(o.themePaths(agent, cwd), " ")
	want := strings.Join([]string{
		filepath.Join(cwd, ".atomic", "themes"), filepath.Join(cwd, ".pi", "themes"),
		filepath.Join(agent, "mythemes"), filepath.Join(root, "pkg", "themes", "pkg.json"), filepath.Join(root, "flag.json"),
	}, " ")
	if got != want {
		t.Errorf("themePaths:\n got %s\nwant %s", got, want)
	}
	o.NoThemes = true
	if got := strings.Join(o.themePaths(agent, cwd), " "); got != filepath.Join(root, "flag.json") {
		t.Errorf("--no-themes: %s", got)
	}
	u := &Options{Stderr: io.Discard, Getenv: func(string) string { return "" }}
	u.NoApprove = true
	if got := strings.Join(u.themePaths(agent, cwd), " "); strings.Contains(got, "proj") {
		t.Errorf("untrusted project's themes: %s", got)
	}
}
