package resource

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rel(root string, srcs []ExtensionSource) string {
	var out []string
	for _, s := range srcs {
		r, _ := filepath.Rel(root, s.Path)
		out = append(out, s.Scope+":"+filepath.ToSlash(r))
	}
	return strings.Join(out, " ")
}

func TestDiscoverExtensions(t *testing.T) {
	root := t.TempDir()
	agent := filepath.Join(root, "agent")
	cwd := filepath.Join(root, "proj")
	for _, p := range []string{
		"agent/extensions/b.ts", "agent/extensions/a.js", "agent/extensions/types.d.ts", "agent/extensions/notes.md",
		"agent/extensions/dir/index.ts", "agent/extensions/dir/helper.ts", "agent/extensions/jsdir/index.js",
		"agent/extensions/empty/README.md", "agent/extensions/.hidden.ts",
		"agent/extensions/pkg/src/main.ts", "agent/extensions/pkg/index.ts",
		"proj/.atomic/extensions/p.ts", "proj/.pi/extensions/legacy/index.ts",
		"cli/one.ts", "cli/dir/index.ts",
	} {
		write(t, filepath.Join(root, p), "export default () => {}")
	}
	write(t, filepath.Join(agent, "extensions/pkg/package.json"), `{"atomic": {"extensions": ["./src/main.ts", "./missing.ts"]}}`)

	d := DiscoverExtensions(DiscoverOptions{Cwd: cwd, AgentDir: agent, CLI: []string{"../cli/one.ts", filepath.Join(root, "cli/dir"), "../agent/extensions/b.ts", "npm:foo", "nope.ts"}})
	want := "global:agent/extensions/a.js global:agent/extensions/b.ts global:agent/extensions/dir/index.ts global:agent/extensions/jsdir/index.js global:agent/extensions/pkg/src/main.ts cli:cli/one.ts cli:cli/dir/index.ts"
	if got := rel(root, d.Extensions); got != want {
		t.Errorf("untrusted:\n got %s\nwant %s", got, want)
	}
	if len(d.Untrusted) != 2 || len(d.Warnings) != 2 {
		t.Errorf("untrusted %v, warnings %v", d.Untrusted, d.Warnings)
	}

	d = DiscoverExtensions(DiscoverOptions{Cwd: cwd, AgentDir: agent, ProjectTrusted: true})
	if got := rel(root, d.Extensions); !strings.HasPrefix(got, "project:proj/.atomic/extensions/p.ts project:proj/.pi/extensions/legacy/index.ts global:") {
		t.Errorf("trusted: %s", got)
	}

	d = DiscoverExtensions(DiscoverOptions{Cwd: cwd, AgentDir: agent, ProjectTrusted: true, NoDiscovery: true, CLI: []string{"../cli/one.ts"}})
	if got := rel(root, d.Extensions); got != "cli:cli/one.ts" {
		t.Errorf("--no-extensions: %s", got)
	}
}

func TestProjectTrust(t *testing.T) {
	root := t.TempDir()
	agent := filepath.Join(root, "agent")
	proj := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(root)
	check := func(store string, wantTrusted, wantDecided bool) {
		t.Helper()
		if store != "" {
			write(t, filepath.Join(agent, "trust.json"), store)
		}
		trusted, decided, err := ProjectTrust(agent, proj)
		if err != nil || trusted != wantTrusted || decided != wantDecided {
			t.Errorf("%s: trusted %v decided %v err %v", store, trusted, decided, err)
		}
	}
	check("", false, false)
	check(`{"`+filepath.Join(real, "a")+`": true}`, true, true)
	check(`{"`+filepath.Join(real, "a")+`": true, "`+filepath.Join(real, "a", "b")+`": false}`, false, true)
	check(`{"`+filepath.Join(real, "a", "b")+`": null}`, false, false)
	write(t, filepath.Join(agent, "trust.json"), `{"/x": "yes"}`)
	if _, _, err := ProjectTrust(agent, proj); !errors.Is(err, ErrInvalidTrustStore) {
		t.Errorf("invalid store: %v", err)
	}
}
