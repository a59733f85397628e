package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// gitTree is a tree exercising .gitignore scoping (tools.md §9.1, this project's contract).
var gitTree = map[string]string{
	".gitignore":               "*.log\n/build/\n",
	"main.go":                  "package main // TODO root\n",
	"app.log":                  "TODO log\n",
	"build/out.go":             "TODO build\n",
	"src/.gitignore":           "gen/\n!keep.log\n",
	"src/a.go":                 "TODO a\n",
	"src/keep.log":             "TODO keep\n",
	"src/gen/z.go":             "TODO gen\n",
	"other/gen/y.go":           "TODO other gen\n",
	"other/build/x.go":         "TODO nested build\n",
	".hidden/h.go":             "TODO hidden\n",
	"node_modules/m/index.js":  "TODO module\n",
	"nested/.git/HEAD":         "ref\n",
	"nested/.gitignore":        "secret.go\n",
	"nested/secret.go":         "TODO secret\n",
	"nested/app.log":           "TODO nested log\n",
	"nested/.git/objects/o.go": "TODO object\n",
}

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, gitTree)
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFindHonoursGitignore(t *testing.T) {
	dir := gitRepo(t)
	find := NewFind(dir, FindOptions{})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"go files at any depth", map[string]any{"pattern": "*.go"},
			".hidden/h.go\nmain.go\nother/build/x.go\nother/gen/y.go\nsrc/a.go"},
		{"path pattern", map[string]any{"pattern": "src/**"}, "src/\nsrc/.gitignore\nsrc/a.go\nsrc/keep.log"},
		// nested/ is its own repository: the parent's *.log rule stops at its boundary.
		{"logs", map[string]any{"pattern": "**/*.log"}, "nested/app.log\nsrc/keep.log"},
		{"directories keep a slash", map[string]any{"pattern": "gen"}, "other/gen/"},
		{"subdirectory search", map[string]any{"pattern": "*", "path": "src"}, ".gitignore\na.go\nkeep.log"},
		{"nothing", map[string]any{"pattern": "*.rs"}, "No files found matching pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, find, tt.args)
			if text(r) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", text(r), tt.want)
			}
		})
	}
}

func TestFindInsideRepoAppliesParentRules(t *testing.T) {
	dir := gitRepo(t)
	r := mustRun(t, NewFind(filepath.Join(dir, "src"), FindOptions{}), map[string]any{"pattern": "*.log", "path": "."})
	if text(r) != "keep.log" {
		t.Errorf("got %q", text(r))
	}
}

func TestFindLimits(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = ""
	}
	writeFiles(t, dir, files)
	r := mustRun(t, NewFind(dir, FindOptions{}), map[string]any{"pattern": "*.txt", "limit": 5.0})
	want := "f00.txt\nf01.txt\nf02.txt\nf03.txt\nf04.txt\n\n[5 results limit reached. Use limit=10 for more, or refine pattern]"
	if text(r) != want {
		t.Errorf("got %q", text(r))
	}
	if d, ok := r.Details.(FindDetails); !ok || d.ResultLimitReached != 5 {
		t.Errorf("details %#v", r.Details)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "*", "path": "missing"}, "Path not found: " + filepath.Join(dir, "missing")},
		{map[string]any{"pattern": "*", "path": "f00.txt"}, "Not a directory: " + filepath.Join(dir, "f00.txt")},
		{map[string]any{"pattern": "[a"}, "Invalid glob pattern: [a"},
	} {
		if _, err := run(t, NewFind(dir, FindOptions{}), tt.args); err == nil || err.Error() != tt.want {
			t.Errorf("%v: err = %v", tt.args, err)
		}
	}
}
