package tool

import (
	"fmt"
	"strings"
	"testing"
)

// The xxHash32 reference values (seed 0) of the algorithm's specification.
func TestXXHash32(t *testing.T) {
	for in, want := range map[string]uint32{
		"":    0x02CC5D05,
		"a":   0x550D7456,
		"abc": 0x32D153FF,
		"Nobody inspects the spammish repetition": 0xE2293B2F,
	} {
		if got := xxHash32([]byte(in)); got != want {
			t.Errorf("xxHash32(%q) = %08X, want %08X", in, got, want)
		}
	}
}

func TestContentTagNormalises(t *testing.T) {
	base := ContentTag([]byte("a\nb\n"))
	if len(base) != 4 || strings.ToUpper(base) != base {
		t.Fatalf("tag %q", base)
	}
	for _, v := range []string{"\uFEFFa\nb\n", "a\r\nb\r\n", "a \t\nb  \n", "a\rb\r"} {
		if got := ContentTag([]byte(v)); got != base {
			t.Errorf("ContentTag(%q) = %s, want %s", v, got, base)
		}
	}
	if ContentTag([]byte("a\nc\n")) == base && ContentTag([]byte("x\n")) == base {
		t.Errorf("different texts share the tag %s", base)
	}
}

func TestSearch(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.txt":         "one\ntwo\nneedle here\nthree\nfour\nfive\nsix\n",
		"src/b.go":      "package b\n// Needle upper\n",
		"src/deep/c.go": "needle\n",
		"bin.dat":       "needle\x00",
		"ctx.txt":       "l1\nl2\nneedle a\nl4\nneedle b\nl6\nl7\nl8\nl9\n",
	})
	s := NewSearch(dir, SearchOptions{})
	tag := func(p string) string { return ContentTag([]byte(readFile(t, dir+"/"+p))) }
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"workspace", map[string]any{"pattern": "needle"}, strings.Join([]string{
			"[a.txt#" + tag("a.txt") + "]", " 2:two", "*3:needle here", " 4:three", " 5:four", " 6:five",
			"[ctx.txt#" + tag("ctx.txt") + "]", " 2:l2", "*3:needle a", " 4:l4", "*5:needle b", " 6:l6", " 7:l7", " 8:l8",
			"# src/deep/", "[src/deep/c.go#" + tag("src/deep/c.go") + "]", "*1:needle",
		}, "\n")},
		{"case-insensitive with i", map[string]any{"pattern": "needle upper", "i": true, "paths": "src"},
			"# src/\n[src/b.go#" + tag("src/b.go") + "]\n 1:package b\n*2:// Needle upper"},
		{"case false", map[string]any{"pattern": "NEEDLE UPPER", "case": false, "paths": []any{"src"}},
			"# src/\n[src/b.go#" + tag("src/b.go") + "]\n 1:package b\n*2:// Needle upper"},
		{"glob", map[string]any{"pattern": "needle", "paths": "src/**/*.go"},
			"# src/deep/\n[src/deep/c.go#" + tag("src/deep/c.go") + "]\n*1:needle"},
		{"line range", map[string]any{"pattern": "needle", "paths": "ctx.txt:4-6"},
			"[ctx.txt#" + tag("ctx.txt") + "]\n 4:l4\n*5:needle b\n 6:l6\n 7:l7\n 8:l8"},
		{"joined paths split", map[string]any{"pattern": "needle", "paths": "a.txt, src/deep"},
			"[a.txt#" + tag("a.txt") + "]\n 2:two\n*3:needle here\n 4:three\n 5:four\n 6:five\n# src/deep/\n[src/deep/c.go#" + tag("src/deep/c.go") + "]\n*1:needle"},
		{"missing among several", map[string]any{"pattern": "needle", "paths": []any{"nope", "src/deep/c.go"}},
			"# src/deep/\n[src/deep/c.go#" + tag("src/deep/c.go") + "]\n*1:needle\n\n[Skipped missing paths: nope]"},
		{"nothing", map[string]any{"pattern": "absent"}, "No matches found"},
		{"past the end", map[string]any{"pattern": "needle", "skip": 9.0}, "No more results (skip=9)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, s, tt.args)
			if text(r) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", text(r), tt.want)
			}
			d := r.Details.(SearchDetails)
			if d.DisplayContent != text(r) || d.Cwd != dir {
				t.Errorf("details %+v", d)
			}
		})
	}
	for _, bad := range []map[string]any{
		{"pattern": "  "},
		{"pattern": "("},
		{"pattern": "x", "paths": "missing.txt"},
		{"pattern": "x", "paths": "src:1-2"},
		{"pattern": "x", "paths": "a.zip:inner.txt"},
		{"pattern": "x", "skip": -1.0},
	} {
		if _, err := run(t, s, bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestSearchDetailsCount(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"x/a.txt": "hit\nmiss\nhit\n", "b.txt": "hit\n"})
	r := mustRun(t, NewSearch(dir, SearchOptions{}), map[string]any{"pattern": "hit"})
	d := r.Details.(SearchDetails)
	if d.MatchCount != 3 || d.FileCount != 2 || d.FileMatches["x/a.txt"] != 2 || d.FileMatches["b.txt"] != 1 ||
		strings.Join(d.Files, ",") != "b.txt,x/a.txt" || d.ScopePath != "." || d.Meta.Source != "." || d.FileLimitReached {
		t.Errorf("details %+v", d)
	}
}

func TestSearchPages(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 45 {
		files[fmt.Sprintf("f%02d.txt", i)] = "match\n"
	}
	writeFiles(t, dir, files)
	s := NewSearch(dir, SearchOptions{})
	first := mustRun(t, s, map[string]any{"pattern": "match"})
	d := first.Details.(SearchDetails)
	if d.FileCount != 20 || !d.FileLimitReached || d.Meta.Limits == nil || d.Meta.Limits.FileLimit != 20 ||
		!strings.HasSuffix(text(first), "[20 matching files shown. Use skip=20 to view more.]") || d.Files[0] != "f00.txt" {
		t.Fatalf("first page %+v\n%s", d, text(first))
	}
	third := mustRun(t, s, map[string]any{"pattern": "match", "skip": 40.0})
	d = third.Details.(SearchDetails)
	if d.FileCount != 5 || d.FileLimitReached || d.Files[0] != "f40.txt" || strings.Contains(text(third), "skip=") {
		t.Fatalf("last page %+v\n%s", d, text(third))
	}
}

func TestSearchPerFileCap(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"many.txt": strings.Repeat("hit\n", 250), "sub/x.txt": strings.Repeat("hit\n", 30)})
	s := NewSearch(dir, SearchOptions{})
	single := mustRun(t, s, map[string]any{"pattern": "hit", "paths": "many.txt", "skip": 3.0})
	if d := single.Details.(SearchDetails); d.MatchCount != 200 || !d.PerFileLimitReached || !strings.Contains(text(single), "[skip does not apply") {
		t.Errorf("single file: %d matches, capped %v", d.MatchCount, d.PerFileLimitReached)
	}
	multi := mustRun(t, s, map[string]any{"pattern": "hit"})
	if d := multi.Details.(SearchDetails); d.FileMatches["many.txt"] != 20 || d.FileMatches["sub/x.txt"] != 20 || !d.PerFileLimitReached {
		t.Errorf("several files: %+v", d.FileMatches)
	}
}

func TestSearchGitignore(t *testing.T) {
	dir := gitRepo(t)
	s := NewSearch(dir, SearchOptions{})
	on := mustRun(t, s, map[string]any{"pattern": "TODO"}).Details.(SearchDetails)
	off := mustRun(t, s, map[string]any{"pattern": "TODO", "gitignore": false}).Details.(SearchDetails)
	grep := text(mustRun(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "TODO"}))
	if on.FileCount != strings.Count(grep, "\n")+1 {
		t.Errorf("search sees %v, grep sees\n%s", on.Files, grep)
	}
	if off.FileCount <= on.FileCount {
		t.Errorf("gitignore=false sees %v, with rules %v", off.Files, on.Files)
	}
}
