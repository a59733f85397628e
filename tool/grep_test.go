package tool

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestGrepHonoursGitignore(t *testing.T) {
	dir := gitRepo(t)
	r := mustRun(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "TODO"})
	want := strings.Join([]string{
		".hidden/h.go:1: TODO hidden",
		"main.go:1: package main // TODO root",
		"nested/app.log:1: TODO nested log",
		"other/build/x.go:1: TODO nested build",
		"other/gen/y.go:1: TODO other gen",
		"src/a.go:1: TODO a",
		"src/keep.log:1: TODO keep",
	}, "\n")
	if text(r) != want || r.Details != nil {
		t.Errorf("got\n%s\nwant\n%s\ndetails %#v", text(r), want, r.Details)
	}
}

func TestGrep(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.txt":     "alpha\nBeta\ngamma\ndelta\nepsilon\n",
		"b.md":      "beta in markdown\n",
		"crlf.txt":  "one\r\nbeta two\r\n",
		"regex.txt": "a.c\nabc\n",
		"bin.dat":   "beta\x00binary",
		"sub/c.txt": "x\nbeta\n",
		"long.txt":  strings.Repeat("q", 600) + "beta\n",
	})
	grep := NewGrep(dir, GrepOptions{})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"case sensitive", map[string]any{"pattern": "beta"},
			"b.md:1: beta in markdown\ncrlf.txt:2: beta two\nlong.txt:1: " + strings.Repeat("q", 500) + "... [truncated]\nsub/c.txt:2: beta" +
				"\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"},
		{"ignore case with glob", map[string]any{"pattern": "beta", "ignoreCase": true, "glob": "*.txt", "path": "."},
			"a.txt:2: Beta\ncrlf.txt:2: beta two\nlong.txt:1: " + strings.Repeat("q", 500) + "... [truncated]\nsub/c.txt:2: beta" +
				"\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"},
		{"negated glob", map[string]any{"pattern": "beta", "glob": "!*.txt"}, "b.md:1: beta in markdown"},
		{"path glob", map[string]any{"pattern": "beta", "glob": "sub/**"}, "sub/c.txt:2: beta"},
		{"regex", map[string]any{"pattern": "a.c", "path": "regex.txt"}, "regex.txt:1: a.c\nregex.txt:2: abc"},
		{"literal", map[string]any{"pattern": "a.c", "literal": true}, "regex.txt:1: a.c"},
		{"literal ignoring case", map[string]any{"pattern": "A.C", "literal": true, "ignoreCase": true}, "regex.txt:1: a.c"},
		{"context", map[string]any{"pattern": "gamma", "context": 1.0},
			"a.txt-2- Beta\na.txt:3: gamma\na.txt-4- delta"},
		{"context at the edges", map[string]any{"pattern": "alpha|epsilon", "context": 2.0, "path": "a.txt"},
			"a.txt:1: alpha\na.txt-2- Beta\na.txt-3- gamma\na.txt-3- gamma\na.txt-4- delta\na.txt:5: epsilon"},
		{"single file uses its base name", map[string]any{"pattern": "beta", "path": "sub/c.txt"}, "c.txt:2: beta"},
		{"limit", map[string]any{"pattern": "a", "path": "a.txt", "limit": 2.0},
			"a.txt:1: alpha\na.txt:2: Beta\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]"},
		{"no match", map[string]any{"pattern": "zzz"}, "No matches found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, grep, tt.args)
			if text(r) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", clip(text(r)), clip(tt.want))
			}
		})
	}
	r := mustRun(t, grep, map[string]any{"pattern": "a", "path": "a.txt", "limit": 2.0})
	if d, ok := r.Details.(GrepDetails); !ok || d.MatchLimitReached != 2 || d.LinesTruncated || d.Truncation != nil {
		t.Errorf("limit details %#v", r.Details)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "x", "path": "missing"}, "Path not found: " + filepath.Join(dir, "missing")},
		{map[string]any{"pattern": "(unclosed"}, `Invalid regular expression "(unclosed"`},
	} {
		if _, err := run(t, grep, tt.args); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v: err = %v", tt.args, err)
		}
	}
}

func TestGrepByteLimit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"big.txt": strings.Repeat(strings.Repeat("m", 400)+"\n", 300)})
	r := mustRun(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "m", "limit": 1000.0})
	if !strings.HasSuffix(text(r), "\n\n[50.0KB limit reached]") {
		t.Errorf("tail %q", text(r)[len(text(r))-80:])
	}
	if d, ok := r.Details.(GrepDetails); !ok || d.Truncation == nil || d.MatchLimitReached != 0 {
		t.Errorf("details %#v", r.Details)
	}
}

func BenchmarkGrep(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{}
	var body strings.Builder
	for i := range 400 {
		fmt.Fprintf(&body, "func handler%d(w http.ResponseWriter, r *http.Request) { return }\n", i)
	}
	for i := range 200 {
		files[fmt.Sprintf("pkg%d/file%d.go", i%20, i)] = body.String()
	}
	files["pkg0/needle.go"] = "package x\n// FindMe here\n"
	writeFiles(b, dir, files)
	grep := NewGrep(dir, GrepOptions{})
	for _, bc := range []struct {
		name string
		args map[string]any
	}{
		{"regex", map[string]any{"pattern": `Find[M]e`}},
		{"literal", map[string]any{"pattern": "FindMe", "literal": true}},
		{"ignoreCase", map[string]any{"pattern": "findme", "ignoreCase": true}},
		{"manyMatches", map[string]any{"pattern": `handler\d+`}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := run(b, grep, bc.args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGrepSkipsBinaryFiles checks that a file holding a NUL byte anywhere is skipped even when it
// matches, whether the NUL lies in the first 8 KiB a big file is sniffed in, after it, or in a
// small file, for grep and search alike; a text file of the same size is searched.
func TestGrepSkipsBinaryFiles(t *testing.T) {
	text100k := strings.Repeat("filler line of text\n", 5000) // 100,000 bytes
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"big-late-nul.dat":  "needle\n" + text100k[:60000] + "\x00" + text100k[60000:],
		"big-early-nul.dat": "needle\n\x00" + text100k,
		"big-text.txt":      text100k + "needle at the end\n",
		"small-nul.dat":     "needle\x00",
		"small-text.txt":    "a needle\n",
	})
	r := mustRun(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "needle", "literal": true})
	if got, want := text(r), "big-text.txt:5001: needle at the end\nsmall-text.txt:1: a needle"; got != want {
		t.Errorf("grep got\n%s\nwant\n%s", got, want)
	}
	r = mustRun(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "need[l]e"})
	if got, want := text(r), "big-text.txt:5001: needle at the end\nsmall-text.txt:1: a needle"; got != want {
		t.Errorf("grep regex got\n%s\nwant\n%s", got, want)
	}
	r = mustRun(t, NewSearch(dir, SearchOptions{}), map[string]any{"pattern": "needle"})
	if got := text(r); strings.Contains(got, ".dat") || !strings.Contains(got, "big-text.txt") || !strings.Contains(got, "small-text.txt") {
		t.Errorf("search got\n%s", got)
	}
}

// TestGrepBigFiles covers files read in chunks (over chunkAbove): a match in a late chunk, on a
// line across a chunk boundary, on a line longer than a chunk, on a last line without newline,
// several matches with context, binary files, and files without a match. The local ordered walk
// must give what the generic path (each file read whole) gives.
func TestGrepBigFiles(t *testing.T) {
	filler := func(n int) string { return strings.Repeat("filler line of text\n", n/20) } // n bytes
	boundary := 128 << 10
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a-late.txt":       filler(300000) + "the needle here\n" + filler(10000),
		"b-boundary.txt":   filler(boundary-20) + strings.Repeat("y", 17) + "abcneedle\n" + filler(200000),
		"c-longline.txt":   strings.Repeat("a", 300000) + "needle\nend\n",
		"d-nonewline.txt":  filler(200000) + "last needle",
		"e-none.txt":       filler(400000),
		"f-latenul.dat":    filler(150000) + "\x00" + filler(50000) + "needle\n",
		"g-earlynul.dat":   "\x00" + filler(200000) + "needle\n",
		"h-multi.txt":      filler(200) + "Needle one\n" + filler(140000) + "NEEDLE two\n" + filler(140000) + "needle three\n",
		"i-small.txt":      "needle small\n",
		"j-crlf.txt":       strings.Repeat("filler line of tex\r\n", 10000) + "needle crlf\r\n",
		"k-exactchunk.txt": filler(boundary) + "needle after an exact chunk\n",
	})
	cases := []map[string]any{
		{"pattern": "needle", "literal": true},
		{"pattern": "need[l]e"},
		{"pattern": "NEEDLE", "ignoreCase": true},
		{"pattern": "needle", "ignoreCase": true, "literal": true, "context": 1.0},
		{"pattern": "^y+abcneedle$"},
		{"pattern": "needle (one|two|three)", "ignoreCase": true, "limit": 2.0},
		{"pattern": "absent", "literal": true},
		{"pattern": "a+needle$"},
	}
	local, generic := NewGrep(dir, GrepOptions{}), NewGrep(dir, GrepOptions{Operations: genericFS{}})
	for _, args := range cases {
		a, b := mustRun(t, local, args), mustRun(t, generic, args)
		if text(a) != text(b) || fmt.Sprint(a.Details) != fmt.Sprint(b.Details) {
			t.Errorf("%v: local\n%.2000s\ngeneric\n%.2000s", args, text(a), text(b))
		}
	}
	want := strings.Join([]string{
		"a-late.txt:15001: the needle here",
		"b-boundary.txt:6553: yyyyyyyyyyyyyyyyyabcneedle",
		"c-longline.txt:1: " + strings.Repeat("a", 500) + "... [truncated]",
		"d-nonewline.txt:10001: last needle",
		"h-multi.txt:14013: needle three",
		"i-small.txt:1: needle small",
		"j-crlf.txt:10001: needle crlf",
		"k-exactchunk.txt:6554: needle after an exact chunk",
	}, "\n") + "\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
	if got := text(mustRun(t, local, cases[0])); got != want {
		t.Errorf("literal needle: got\n%.3000s\nwant\n%s", got, want)
	}
	r := mustRun(t, NewSearch(dir, SearchOptions{}), map[string]any{"pattern": "needle"})
	for _, name := range []string{"a-late.txt", "b-boundary.txt", "c-longline.txt", "d-nonewline.txt", "h-multi.txt", "k-exactchunk.txt"} {
		if !strings.Contains(text(r), name) {
			t.Errorf("search: no %s in\n%.3000s", name, text(r))
		}
	}
	if strings.Contains(text(r), ".dat") || strings.Contains(text(r), "e-none") {
		t.Errorf("search: binary or match-less file in\n%.3000s", text(r))
	}
}

// BenchmarkGrepFile is the per-file cost of grep's local path for a literal that is absent: open
// (relative to the directory), fstat, read (in chunks above chunkAbove), search, close, with the
// worker's buffer reused, for a small, a medium and a big source file.
func BenchmarkGrepFile(b *testing.B) {
	dir := b.TempDir()
	line := "func (s *server) handle(w http.ResponseWriter, r *http.Request) error { return nil }\n"
	sizes := map[string]int{"4KiB": 4 << 10, "64KiB": 64 << 10, "1MiB": 1 << 20}
	files := map[string]string{}
	for name, n := range sizes {
		files[name+".go"] = strings.Repeat(line, n/len(line)+1)[:n]
	}
	writeFiles(b, dir, files)
	m, err := newLineMatcher("xq7_never_here_zz", true, false)
	if err != nil {
		b.Fatal(err)
	}
	s := grepSearch{m: m, limit: DefaultGrepLimit}
	var listing []byte
	_, dirfd, err := readDirEntries(dir, &listing, true) // -1 where directories are not kept open
	if err != nil {
		b.Fatal(err)
	}
	defer closeDirFD(dirfd)
	for _, name := range []string{"4KiB", "64KiB", "1MiB"} {
		b.Run(name, func(b *testing.B) {
			var scratch []byte
			b.SetBytes(int64(sizes[name]))
			b.ReportAllocs()
			for b.Loop() {
				data, _, ok := readSearchable(dirfd, name+".go", filepath.Join(dir, name+".go"), &scratch, GrepMaxFileBytes, m.anyLine)
				if ok && s.searchData(data, name) != nil {
					b.Fatal("match")
				}
			}
		})
	}
}
