package resource

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSource(t *testing.T) {
	cases := []struct {
		in, kind, name, repo, host, path, ref string
		pinned                                bool
	}{
		{in: "npm:foo", kind: PackageNPM, name: "foo"},
		{in: "npm:foo@1.2.3", kind: PackageNPM, name: "foo", pinned: true},
		{in: "npm:@scope/pkg", kind: PackageNPM, name: "@scope/pkg"},
		{in: "npm:@scope/pkg@^2", kind: PackageNPM, name: "@scope/pkg", pinned: true},
		{in: "git:github.com/o/r", kind: PackageGit, repo: "https://github.com/o/r", host: "github.com", path: "o/r"},
		{in: "git:github.com/o/r@v1", kind: PackageGit, repo: "https://github.com/o/r", host: "github.com", path: "o/r", ref: "v1", pinned: true},
		{in: "git:git@github.com:o/r.git@main", kind: PackageGit, repo: "git@github.com:o/r.git", host: "github.com", path: "o/r", ref: "main", pinned: true},
		{in: "https://gitlab.com/g/sub/r.git", kind: PackageGit, repo: "https://gitlab.com/g/sub/r.git", host: "gitlab.com", path: "g/sub/r"},
		{in: "ssh://git@host.io/o/r@abc", kind: PackageGit, repo: "ssh://git@host.io/o/r", host: "host.io", path: "o/r", ref: "abc", pinned: true},
		{in: "git:file:///srv/repos/r.git", kind: PackageGit, repo: "file:///srv/repos/r.git", host: "local", path: "srv/repos/r"},
		{in: "./pkg", kind: PackageLocal},
		{in: "~/pkg", kind: PackageLocal},
		{in: "plain-name", kind: PackageLocal},
	}
	for _, c := range cases {
		s, err := ParseSource(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if s.Kind != c.kind || s.Name != c.name || s.Repo != c.repo || s.Host != c.host || s.Path != c.path || s.Ref != c.ref || s.Pinned != c.pinned {
			t.Errorf("%s: got %+v", c.in, s)
		}
	}
	for _, bad := range []string{"", "npm:", "npm:@scope", "npm:foo@", "git:nohost", "git:github.com/only", "https://host.io/one", "file://otherhost/a/b"} {
		if _, err := ParseSource(bad); err == nil || !strings.Contains(err.Error(), "bad package source") {
			t.Errorf("%q: want a bad package source error, got %v", bad, err)
		}
	}
	// One package whatever the ref or protocol.
	a, _ := ParseSource("git:github.com/o/r@v1")
	b, _ := ParseSource("git:git@github.com:o/r")
	if a.Identity("/x") != b.Identity("/y") {
		t.Errorf("identities differ: %s %s", a.Identity("/x"), b.Identity("/y"))
	}
	n1, _ := ParseSource("npm:foo@1")
	n2, _ := ParseSource("npm:foo")
	if n1.Identity("") != n2.Identity("") {
		t.Errorf("npm identities differ")
	}
}

// Package contents: the manifest ("atomic" over "pi") or the convention directories, and the
// object-form filters (absent = all, [] = none, patterns narrow; !, + and -).
func TestPackageContents(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	for _, p := range []string{"extensions/a.ts", "extensions/b.ts", "skills/one/SKILL.md", "skills/two/SKILL.md", "prompts/p.md", "prompts/sub/q.md", "themes/t.json", "README.md"} {
		write(t, filepath.Join(pkg, p), "x")
	}
	pl := PackagePlaces{AgentDir: root, Cwd: root}
	src, _ := ParseSource("./pkg")
	names := func(rs []PackageResource) string {
		var out []string
		for _, r := range rs {
			rel, _ := filepath.Rel(pkg, r.Path)
			out = append(out, filepath.ToSlash(rel))
		}
		return strings.Join(out, " ")
	}
	res, err := PackageContents(pl, src, PackageScopeUser, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(res.Extensions) + "|" + names(res.Skills) + "|" + names(res.Prompts) + "|" + names(res.Themes); got != "extensions/a.ts extensions/b.ts|skills/one/SKILL.md skills/two/SKILL.md|prompts/p.md prompts/sub/q.md|themes/t.json" {
		t.Errorf("convention: %s", got)
	}
	if res.Skills[0].Origin.PackageRoot != pkg || res.Skills[0].Origin.Source != "./pkg" || res.Skills[0].Origin.Scope != PackageScopeUser {
		t.Errorf("origin: %+v", res.Skills[0].Origin)
	}
	res, _ = PackageContents(pl, src, PackageScopeUser, map[string][]string{"extensions": {"!b.ts"}, "skills": {}, "prompts": {"prompts/sub/*"}})
	if got := names(res.Extensions) + "|" + names(res.Skills) + "|" + names(res.Prompts) + "|" + names(res.Themes); got != "extensions/a.ts||prompts/sub/q.md|themes/t.json" {
		t.Errorf("filtered: %s", got)
	}
	res, _ = PackageContents(pl, src, PackageScopeUser, map[string][]string{"skills": {"!*", "+skills/two"}, "extensions": {"extensions/*.ts", "-extensions/a.ts"}})
	if got := names(res.Extensions) + "|" + names(res.Skills); got != "extensions/b.ts|skills/two/SKILL.md" {
		t.Errorf("force include/exclude: %s", got)
	}
	// A manifest lists what the package offers; "atomic" wins over "pi".
	write(t, filepath.Join(pkg, "package.json"), `{"atomic": {"skills": ["skills/one"], "prompts": ["prompts/**/*.md", "!q.md"]}, "pi": {"extensions": ["extensions/a.ts"]}}`)
	res, _ = PackageContents(pl, src, PackageScopeUser, nil)
	if got := names(res.Extensions) + "|" + names(res.Skills) + "|" + names(res.Prompts) + "|" + names(res.Themes); got != "|skills/one/SKILL.md|prompts/p.md|" {
		t.Errorf("manifest: %s", got)
	}
	// Not installed: an error saying how to install it.
	npm, _ := ParseSource("npm:absent")
	if _, err := PackageContents(pl, npm, PackageScopeProject, nil); err == nil || !strings.Contains(err.Error(), "atomic install -l npm:absent") {
		t.Errorf("not installed: %v", err)
	}
}

// Project entries win over global ones of the same package; an untrusted project's are not read.
func TestResolvePackagesDedupe(t *testing.T) {
	root := t.TempDir()
	agent, cwd := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	write(t, filepath.Join(root, "pkg/extensions/a.ts"), "x")
	write(t, filepath.Join(root, "pkg/extensions/b.ts"), "x")
	write(t, filepath.Join(agent, "settings.json"), `{"packages": ["../pkg"]}`)
	write(t, filepath.Join(cwd, ".atomic/settings.json"), `{"packages": [{"source": "../../pkg", "extensions": ["extensions/b.ts"]}]}`)
	pl := PackagePlaces{AgentDir: agent, Cwd: cwd}
	res, warns := ResolvePackages(pl, true)
	if len(warns) > 0 || len(res.Extensions) != 1 || filepath.Base(res.Extensions[0].Path) != "b.ts" || res.Extensions[0].Origin.Scope != PackageScopeProject {
		t.Errorf("trusted: %+v %v", res.Extensions, warns)
	}
	res, _ = ResolvePackages(pl, false)
	if len(res.Extensions) != 2 || res.Extensions[0].Origin.Scope != PackageScopeUser {
		t.Errorf("untrusted: %+v", res.Extensions)
	}
}
