package resource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSettingsExtensionsAndPackages(t *testing.T) {
	root := t.TempDir()
	agent := filepath.Join(root, "agent")
	cwd := filepath.Join(root, "proj")
	for _, p := range []string{
		"agent/mine/one.ts", "agent/dirext/index.ts", "agent/globbed/a.ts", "agent/globbed/b.js", "agent/globbed/c.md",
		"pkgs/manifest/src/main.ts", "pkgs/manifest/src/other.ts", "pkgs/legacy/lib/x.ts",
		"pkgs/convention/extensions/conv.ts", "pkgs/convention/extensions/skip.md", "pkgs/filtered/extensions/keep.ts",
		"pkgs/filtered/extensions/drop.ts", "pkgs/none/extensions/n.ts",
		"proj/.atomic/ext/proj.ts", "proj/.atomic/pkg/extensions/pp.ts",
	} {
		write(t, filepath.Join(root, p), "export default () => {}")
	}
	write(t, filepath.Join(root, "pkgs/manifest/package.json"), `{"atomic": {"extensions": ["src/main.ts", "src/missing.ts"]}, "pi": {"extensions": ["src/other.ts"]}}`)
	write(t, filepath.Join(root, "pkgs/legacy/package.json"), `{"pi": {"extensions": ["lib/*.ts"]}}`)
	write(t, filepath.Join(agent, "settings.json"), `{
		"extensions": ["mine/one.ts", "dirext", "globbed/*", "missing.ts", "!nope"],
		"packages": ["../pkgs/manifest", "../pkgs/legacy", "../pkgs/convention",
			{"source": "../pkgs/filtered", "extensions": ["extensions/keep.ts"]},
			{"source": "../pkgs/none", "extensions": []},
			"npm:@scope/pkg@1.0.0", "git:github.com/a/b"]
	}`)
	write(t, filepath.Join(cwd, ".atomic/settings.json"), `{"extensions": ["ext/proj.ts"], "packages": ["pkg"]}`)

	d := DiscoverExtensions(DiscoverOptions{Cwd: cwd, AgentDir: agent})
	want := "global:agent/mine/one.ts global:agent/dirext/index.ts global:agent/globbed/a.ts global:agent/globbed/b.js " +
		"global:pkgs/manifest/src/main.ts global:pkgs/legacy/lib/x.ts global:pkgs/convention/extensions/conv.ts global:pkgs/filtered/extensions/keep.ts"
	if got := rel(root, d.Extensions); got != want {
		t.Errorf("untrusted:\n got %s\nwant %s", got, want)
	}
	var ws []string
	for _, w := range d.Warnings {
		ws = append(ws, w.Error())
	}
	all := strings.Join(ws, "\n")
	for _, sub := range []string{`"missing.ts"`, `"!nope": !, + and - patterns are not supported yet`, "package npm:@scope/pkg@1.0.0 is not installed", "run `atomic install git:github.com/a/b`"} {
		if !strings.Contains(all, sub) {
			t.Errorf("warnings lack %q:\n%s", sub, all)
		}
	}

	d = DiscoverExtensions(DiscoverOptions{Cwd: cwd, AgentDir: agent, ProjectTrusted: true})
	// Settings entries (global, then project) come before the packages (global, then project).
	wantTrusted := strings.Replace(want, " global:pkgs/manifest", " project:proj/.atomic/ext/proj.ts global:pkgs/manifest", 1) + " project:proj/.atomic/pkg/extensions/pp.ts"
	if got := rel(root, d.Extensions); got != wantTrusted {
		t.Errorf("trusted: got %s", got)
	}
}

func TestTrustInputs(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	cwd := filepath.Join(root, "home", "work", "proj")
	write(t, filepath.Join(cwd, ".atomic/todos/x.json"), "{}")
	write(t, filepath.Join(home, ".agents/skills/s/SKILL.md"), "x")
	if got := TrustInputs(cwd, home); len(got) != 0 {
		t.Errorf("inert dirs and the user's skills need no trust: %v", got)
	}
	write(t, filepath.Join(root, "home/work/.agents/skills/s/SKILL.md"), "x")
	write(t, filepath.Join(cwd, ".pi/SYSTEM.md"), "x")
	got := TrustInputs(cwd, home)
	if len(got) != 2 || !strings.HasSuffix(got[0], filepath.Join(".pi", "SYSTEM.md")) || !strings.HasSuffix(got[1], filepath.Join("work", ".agents", "skills")) {
		t.Errorf("got %v", got)
	}
	// A context file in an ancestor is a trust input too: it only reaches the model when trusted.
	write(t, filepath.Join(root, "home/work/CLAUDE.md"), "x")
	got = TrustInputs(cwd, home)
	if len(got) != 3 || !strings.HasSuffix(got[1], filepath.Join("work", "CLAUDE.md")) {
		t.Errorf("with a context file: got %v", got)
	}
}

func TestRememberProjectTrust(t *testing.T) {
	agent := t.TempDir()
	cwd := t.TempDir()
	write(t, filepath.Join(agent, "trust.json"), `{"/elsewhere": false, "/gone": null}`)
	if err := RememberProjectTrust(agent, cwd, true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(agent, "trust.json"))
	want := "{\n  \"/elsewhere\": false,\n  \"" + canonical(cwd) + "\": true\n}\n"
	if string(b) != want {
		t.Errorf("got %q\nwant %q", b, want)
	}
	if trusted, decided, err := ProjectTrust(agent, filepath.Join(cwd)); !trusted || !decided || err != nil {
		t.Errorf("ProjectTrust = %v %v %v", trusted, decided, err)
	}
	if _, err := os.Stat(filepath.Join(agent, "trust.json.lock")); !os.IsNotExist(err) {
		t.Errorf("the lock file is left: %v", err)
	}
	write(t, filepath.Join(agent, "trust.json"), `{"x": 1}`)
	if err := RememberProjectTrust(agent, cwd, false); err == nil || !strings.Contains(err.Error(), "Invalid trust store") {
		t.Errorf("invalid store: %v", err)
	}
}
