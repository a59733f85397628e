package tool

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ignoreTree exercises the .gitignore semantics the walk applies: nested scoping, negation,
// directory-only rules, anchored rules, "**", and a nested repository.
var ignoreTree = map[string]string{
	".gitignore": "*.tmp\n!important.tmp\n/only-root.txt\nout/\n!out/keep\ndocs/**/draft.md\n" +
		"[Bb]uild-*\n",
	"a.tmp":               "",
	"important.tmp":       "",
	"only-root.txt":       "",
	"out/keep":            "",
	"docs/draft.md":       "",
	"docs/a/b/draft.md":   "",
	"docs/a/final.md":     "",
	"Build-1/x":           "",
	"build-2":             "",
	"rebuild-3":           "",
	"sub/only-root.txt":   "",
	"sub/out":             "", // a file: "out/" matches directories only
	"sub/.gitignore":      "!keep.tmp\n*.md\n/anch.txt\nlib/*.o\n",
	"sub/keep.tmp":        "",
	"sub/drop.tmp":        "",
	"sub/x.md":            "",
	"sub/anch.txt":        "",
	"sub/deeper/anch.txt": "",
	"sub/deeper/y.md":     "",
	"sub/lib/a.o":         "",
	"sub/lib/deep/b.o":    "",
	"other/x.md":          "",
	"other/anch.txt":      "",
	"other/lib/a.o":       "",
	"repo/.git/config":    "",
	"repo/a.tmp":          "", // the parent's *.tmp stops at the nested repository
	"repo/.gitignore":     "*.md\n",
	"repo/r.md":           "",
	"node_modules/m.js":   "",
	"x/node_modules/n.js": "",
	".hidden/h.txt":       "",
	"anch.txt":            "",
}

var ignoreTreeWant = []string{
	".gitignore", ".hidden/", ".hidden/h.txt", "anch.txt",
	"docs/", "docs/a/", "docs/a/b/", "docs/a/final.md",
	"important.tmp",
	"other/", "other/anch.txt", "other/lib/", "other/lib/a.o", "other/x.md",
	"rebuild-3",
	"repo/", "repo/.gitignore", "repo/a.tmp",
	"sub/", "sub/.gitignore", "sub/deeper/", "sub/deeper/anch.txt", "sub/keep.tmp",
	"sub/lib/", "sub/lib/deep/", "sub/lib/deep/b.o", "sub/only-root.txt", "sub/out",
	"x/",
}

func ignoreRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, ignoreTree)
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWalkIgnoreSemantics(t *testing.T) {
	dir := ignoreRepo(t)
	var got []string
	err := LocalFS{}.Walk(context.Background(), dir, func(rel string, typ fs.FileMode) error {
		if typ.IsDir() {
			rel += "/"
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got) // the order is not part of Walk's contract
	if !slices.Equal(got, ignoreTreeWant) {
		t.Errorf("walk\n got %q\nwant %q", got, ignoreTreeWant)
	}
	// Walked from inside the repository, the rules of the directories above still apply.
	got = got[:0]
	err = LocalFS{}.Walk(context.Background(), filepath.Join(dir, "sub"), func(rel string, typ fs.FileMode) error {
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{".gitignore", "deeper", "deeper/anch.txt", "keep.tmp", "lib", "lib/deep", "lib/deep/b.o", "only-root.txt", "out"}
	if !slices.Equal(got, want) {
		t.Errorf("walk of sub\n got %q\nwant %q", got, want)
	}
}

// genericFS is LocalFS behind another type, so find and grep take their generic path (any
// Operations: walk everything, sort, then search) instead of the local ordered walk.
type genericFS struct{ LocalFS }

func TestLocalPathEqualsGenericPath(t *testing.T) {
	for _, tree := range []func(testing.TB) string{func(t testing.TB) string { return gitRepo(t.(*testing.T)) }, ignoreRepo} {
		dir := tree(t)
		cases := []struct {
			tool string
			args map[string]any
		}{
			{"find", map[string]any{"pattern": "*"}},
			{"find", map[string]any{"pattern": "*.tmp"}},
			{"find", map[string]any{"pattern": "**/*.md"}},
			{"find", map[string]any{"pattern": "*", "limit": 3.0}},
			{"grep", map[string]any{"pattern": "TODO"}},
			{"grep", map[string]any{"pattern": "todo", "ignoreCase": true, "limit": 2.0}},
			{"grep", map[string]any{"pattern": "o", "glob": "!*.go", "context": 1.0}},
			{"grep", map[string]any{"pattern": "[a-z]+", "glob": "src/**"}},
			{"grep", map[string]any{"pattern": "zzz"}},
		}
		for _, c := range cases {
			var local, generic Tool
			if c.tool == "find" {
				local, generic = NewFind(dir, FindOptions{}), NewFind(dir, FindOptions{Operations: genericFS{}})
			} else {
				local, generic = NewGrep(dir, GrepOptions{}), NewGrep(dir, GrepOptions{Operations: genericFS{}})
			}
			a, b := mustRun(t, local, c.args), mustRun(t, generic, c.args)
			if text(a) != text(b) || fmt.Sprint(a.Details) != fmt.Sprint(b.Details) {
				t.Errorf("%s %v: local\n%s\ngeneric\n%s", c.tool, c.args, text(a), text(b))
			}
		}
	}
}

// TestWalkStopsEarly checks that the ordered walk hands out results in path order as they are
// ready and that stopping at a limit does not wait for the files after it: every file but the
// first blocks its worker until the visit has returned.
func TestWalkStopsEarly(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%5, i)] = "x\n"
	}
	writeFiles(t, dir, files)
	release := make(chan struct{})
	w, rd := startWalk(context.Background(), dir, walkHooks{
		entry: func(e *walkEntry) {
			if !e.typ.IsDir() {
				e.search = true
			}
		},
		search: func(j *fileJob, _ *[]byte) {
			if j.display != "d0/f00.txt" {
				<-release
			}
		},
	})
	var seen []string
	err := w.visit(rd, func(e *walkEntry) error {
		if e.job == nil {
			return nil
		}
		if !w.waitJob(e.job) {
			t.Fatal("job not done")
		}
		seen = append(seen, e.rel)
		return errStopWalk
	})
	close(release)
	w.finish()
	if err != nil || !slices.Equal(seen, []string{"d0/f00.txt"}) {
		t.Errorf("visit = %v, saw %q", err, seen)
	}
}

func TestGrepFindStopAtLimitInPathOrder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("p%d/q%03d.txt", i%7, i)] = "needle\nhay\nneedle\n"
	}
	writeFiles(t, dir, files)
	var all []string
	for name := range files {
		all = append(all, name)
	}
	slices.Sort(all)
	r := mustRun(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "needle", "limit": 5.0})
	want := []string{all[0] + ":1: needle", all[0] + ":3: needle", all[1] + ":1: needle", all[1] + ":3: needle", all[2] + ":1: needle"}
	if got := text(r); got != strings.Join(want, "\n")+"\n\n[5 matches limit reached. Use limit=10 for more, or refine pattern]" {
		t.Errorf("grep got\n%s", got)
	}
	r = mustRun(t, NewFind(dir, FindOptions{}), map[string]any{"pattern": "*.txt", "limit": 4.0})
	if got := text(r); got != strings.Join(all[:4], "\n")+"\n\n[4 results limit reached. Use limit=8 for more, or refine pattern]" {
		t.Errorf("find got\n%s", got)
	}
}

func TestGrepAbortedWalk(t *testing.T) {
	dir := ignoreRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewGrep(dir, GrepOptions{}).Execute(ctx, Call{ID: "c", Name: "grep", Args: map[string]any{"pattern": "x"}}, nil); err != ErrAborted {
		t.Errorf("grep: err = %v, want ErrAborted", err)
	}
}

func BenchmarkIgnoreMatch(b *testing.B) {
	f := parseIgnore([]byte("*.log\n/build/\nnode_modules/\n*.o\n!keep.o\ndocs/**/draft.md\n[Tt]emp*\nvendor/\n*.swp\ncoverage/\n"))
	names := []string{"main.go", "server.log", "keep.o", "a.o", "README.md", "Temp1", "draft.md", "vendor", "x.swp", "handler_test.go"}
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range names {
			f.matchIn("src/pkg/", 2, n, false)
		}
	}
}

func BenchmarkWalk(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{".gitignore": "*.log\ngen/\n"}
	for i := range 2000 {
		files[fmt.Sprintf("p%d/s%d/f%d.go", i%20, i%7, i)] = ""
		if i%10 == 0 {
			files[fmt.Sprintf("p%d/gen/f%d.go", i%20, i)] = ""
			files[fmt.Sprintf("p%d/f%d.log", i%20, i)] = ""
		}
	}
	writeFiles(b, dir, files)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := walkLocal(context.Background(), dir, func(string, fs.FileMode) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// openFDs counts the process's open file descriptors (Linux); -1 where it cannot tell.
func openFDs() int {
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(des)
}

// TestWalkClosesDirectories checks that the directory descriptors grep keeps open for opening
// files relative to them are all closed after a whole search, a search stopped at its limit, and
// an aborted one; and that the results are those of files opened by their whole path.
func TestWalkClosesDirectories(t *testing.T) {
	if openFDs() < 0 {
		t.Skip("no /proc/self/fd")
	}
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("a%d/b%d/f%03d.txt", i%9, i%4, i)] = "hay\nneedle\n"
	}
	writeFiles(t, dir, files)
	before := openFDs()
	grep := NewGrep(dir, GrepOptions{})
	r := mustRun(t, grep, map[string]any{"pattern": "needle", "limit": 1000.0})
	if got := strings.Count(text(r), ":2: needle"); got != 400 {
		t.Errorf("whole search: %d matches, want 400", got)
	}
	mustRun(t, grep, map[string]any{"pattern": "needle", "limit": 3.0})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := grep.Execute(ctx, Call{ID: "c", Name: "grep", Args: map[string]any{"pattern": "needle"}}, nil); err != ErrAborted {
		t.Errorf("aborted grep: err = %v", err)
	}
	mustRun(t, NewSearch(dir, SearchOptions{}), map[string]any{"pattern": "needle"})
	if after := openFDs(); after != before {
		t.Errorf("open descriptors: %d before, %d after", before, after)
	}
}
