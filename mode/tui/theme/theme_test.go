package theme

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltinsHaveEveryToken checks dark and light resolve every required token, and that Fg
// resets only the foreground (tui.md §5.2).
func TestBuiltinsHaveEveryToken(t *testing.T) {
	for _, th := range []*Theme{Dark(), Light()} {
		for _, tok := range FgTokens {
			if !th.Has(tok) {
				t.Errorf("%s: missing %s", th.Name, tok)
			}
		}
		for _, tok := range BgTokens {
			if !th.Has(tok) {
				t.Errorf("%s: missing %s", th.Name, tok)
			}
		}
	}
	if got := Dark().Fg("accent", "x"); got != "\x1b[38;2;138;190;183mx\x1b[39m" {
		t.Errorf("Fg(accent) = %q", got)
	}
	if got := Dark().Fg("text", "x"); got != "x" {
		t.Errorf("Fg(text) with the terminal default = %q, want plain", got)
	}
	if got := Dark().Bg("selectedBg", "x"); !strings.HasSuffix(got, "\x1b[49m") {
		t.Errorf("Bg must end with a background reset: %q", got)
	}
}

// TestCustomTheme loads a theme file with vars and a palette index, and rejects a file missing
// a token with an error naming it.
func TestCustomTheme(t *testing.T) {
	dir := t.TempDir()
	src := strings.Replace(darkJSON, `"name": "dark"`, `"name": "mine"`, 1)
	src = strings.Replace(src, `"accent": "cyan"`, `"accent": 33`, 1)
	if err := os.MkdirAll(filepath.Join(dir, "themes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "themes", "mine.json"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(src, `"name": "mine"`, `"name": "bad"`, 1)
	bad = strings.Replace(bad, `"bashMode": "green"`, `"bashModeX": "green"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "themes", "bad.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	th, err := Named(dir, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if got := th.Fg("accent", "x"); got != "\x1b[38;5;33mx\x1b[39m" {
		t.Errorf("palette colour: %q", got)
	}
	list, errs := List(dir)
	if len(list) != 3 || list[2].Name != "mine" {
		t.Errorf("List = %+v", list)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `missing colour "bashMode"`) {
		t.Errorf("errs = %v", errs)
	}
	if _, err := Named(dir, "nope"); err == nil || !strings.Contains(err.Error(), "unknown theme") {
		t.Errorf("unknown theme: %v", err)
	}
}

// Sources: the agent dir's themes, then extra files and directories (packages, project,
// --theme); the first of a name wins; NoDiscovery (--no-themes) skips the agent dir only.
func TestSources(t *testing.T) {
	agent, pkg := t.TempDir(), t.TempDir()
	named := func(name string) []byte {
		return []byte(strings.Replace(darkJSON, `"name": "dark"`, `"name": "`+name+`"`, 1))
	}
	os.MkdirAll(filepath.Join(agent, "themes"), 0o755)
	os.WriteFile(filepath.Join(agent, "themes", "a.json"), named("agent-theme"), 0o644)
	os.WriteFile(filepath.Join(pkg, "p.json"), named("pkg-theme"), 0o644)
	os.WriteFile(filepath.Join(pkg, "dup.json"), named("agent-theme"), 0o644)
	single := filepath.Join(t.TempDir(), "single.json")
	os.WriteFile(single, named("flag-theme"), 0o644)
	s := Sources{AgentDir: agent, Paths: []string{pkg, single}}
	list, errs := s.List()
	var names []string
	for _, i := range list {
		names = append(names, i.Name+"="+filepath.Base(i.Path))
	}
	if strings.Join(names, " ") != "agent-theme=a.json dark=. flag-theme=single.json light=. pkg-theme=p.json" || len(errs) != 0 {
		t.Errorf("List = %v %v", names, errs)
	}
	if th, err := s.Named("pkg-theme"); err != nil || th.Name != "pkg-theme" {
		t.Errorf("Named(pkg-theme) = %v, %v", th, err)
	}
	s.NoDiscovery = true
	if th, err := s.Named("agent-theme"); err != nil || th.Path != filepath.Join(pkg, "dup.json") {
		t.Errorf("--no-themes: agent-theme should come from the package: %v, %v", th, err)
	}
	if _, err := (Sources{AgentDir: agent, NoDiscovery: true}).Named("agent-theme"); err == nil {
		t.Errorf("--no-themes still found the agent dir's theme")
	}
}
