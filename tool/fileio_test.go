//go:build unix

package tool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test when it has not returned after a generous bound: the tools
// under test used to block forever.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still blocked after 30s", what)
	}
}

func TestFileToolsRefuseFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cases := []struct {
		tool Tool
		args map[string]any
	}{
		{NewRead(dir, ReadOptions{}), map[string]any{"path": "pipe"}},
		{NewEdit(dir, EditOptions{}), map[string]any{"path": "pipe", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}}},
		{NewWrite(dir, WriteOptions{}), map[string]any{"path": "pipe", "content": "x"}},
	}
	for _, c := range cases {
		var err error
		within(t, c.tool.Name()+" on a FIFO", func() { _, err = run(t, c.tool, c.args) })
		if err == nil || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), "pipe") {
			t.Errorf("%s on a FIFO: err = %v, want a refusal naming the named pipe", c.tool.Name(), err)
		}
	}
	// grep over a tree holding a FIFO skips it.
	writeFiles(t, dir, map[string]string{"a.txt": "needle\n"})
	var res Result
	var err error
	within(t, "grep over a FIFO", func() { res, err = run(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "needle"}) })
	if err != nil || text(res) != "a.txt:1: needle" {
		t.Errorf("grep = %q, %v", text(res), err)
	}
}

func TestReadDevZeroIsRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	var err error
	within(t, "read /dev/zero", func() { _, err = run(t, NewRead("/", ReadOptions{}), map[string]any{"path": "/dev/zero"}) })
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "character device") {
		t.Fatalf("read /dev/zero: %v", err)
	}
}

// allocDuring returns the bytes allocated while f runs.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A huge file is read in a window: memory stays small whatever the file's size.
func TestReadHugeFileKeepsOnlyTheWindow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 99) + "\n"
	chunk := strings.Repeat(line, 10000) // 1 MB
	for i := 0; i < 50; i++ {
		if _, err := f.WriteString(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	var res Result
	alloc := allocDuring(func() { res = mustRun(t, NewRead(dir, ReadOptions{}), map[string]any{"path": "big.log", "offset": 5}) })
	if !strings.Contains(text(res), "[Showing lines 5-516 of 500001 (50.0KB limit). Use offset=517 to continue.]") {
		t.Fatalf("notice: %q", text(res)[len(text(res))-200:])
	}
	if alloc > 32<<20 {
		t.Errorf("reading a 50 MB file allocated %d MB", alloc>>20)
	}
	// One line longer than memory should ever hold: a sparse file of 512 MiB of NULs without a newline.
	sparse := filepath.Join(dir, "sparse.bin")
	if err := os.WriteFile(sparse, []byte("text start "), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 512<<20); err != nil {
		t.Fatal(err)
	}
	alloc = allocDuring(func() { res = mustRun(t, NewRead(dir, ReadOptions{}), map[string]any{"path": "sparse.bin"}) })
	if want := "[Line 1 is 512.0MB, exceeds 50.0KB limit."; !strings.HasPrefix(text(res), want) {
		t.Errorf("text %q, want %q…", text(res), want)
	}
	if alloc > 32<<20 {
		t.Errorf("reading a 512 MiB line allocated %d MB", alloc>>20)
	}
}

// The streaming read gives exactly what the whole-file read gives.
func TestReadStreamingMatchesWholeFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"empty.txt": "", "nl.txt": "\n", "small.txt": "alpha\nbeta\ngamma\n", "many.txt": numbered(2500),
		"wide.txt": strings.Repeat(strings.Repeat("w", 999)+"\n", 60), "huge1.txt": strings.Repeat("h", 60*1024) + "\nsecond",
		"mid-huge.txt": "a\nb\n" + strings.Repeat("h", 70*1024) + "\nc", "bad-utf8.txt": "ok\n\xff\xfe bad\nend",
	}
	writeFiles(t, dir, files)
	stream := NewRead(dir, ReadOptions{})
	whole := NewRead(dir, ReadOptions{Operations: wholeFileOps{}})
	for name := range files {
		for _, args := range []map[string]any{
			{}, {"offset": 2}, {"limit": 1}, {"offset": 2, "limit": 3}, {"offset": 3, "limit": 0}, {"offset": 2000, "limit": 10}, {"offset": 99999},
		} {
			args["path"] = name
			r1, e1 := run(t, stream, args)
			r2, e2 := run(t, whole, args)
			if (e1 == nil) != (e2 == nil) || e1 != nil && e1.Error() != e2.Error() {
				t.Errorf("%v: errors %v vs %v", args, e1, e2)
				continue
			}
			if text(r1) != text(r2) {
				t.Errorf("%v: text differs:\n%q\n%q", args, clipText(text(r1)), clipText(text(r2)))
			}
			if a, b := jsonOf(t, r1.Details), jsonOf(t, r2.Details); a != b {
				t.Errorf("%v: details differ:\n%s\n%s", args, clipText(a), clipText(b))
			}
		}
	}
}

func clipText(s string) string {
	if len(s) > 300 {
		return s[:150] + "…" + s[len(s)-150:]
	}
	return s
}

// wholeFileOps is LocalFS without FileOpener: the read tool's whole-file path.
type wholeFileOps struct{}

func (wholeFileOps) Access(ctx context.Context, path string, mode AccessMode) error {
	return LocalFS{}.Access(ctx, path, mode)
}

func (wholeFileOps) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return os.ReadFile(path)
}

func TestGrepSkipsHugeFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "needle one\n"})
	big := filepath.Join(dir, "huge.log")
	if err := os.WriteFile(big, []byte("needle in the huge file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, GrepMaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	var res Result
	alloc := allocDuring(func() { res = mustRun(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "needle"}) })
	want := "a.txt:1: needle one\n\n[Skipped 1 file(s) over the 64.0MB grep limit: huge.log. Use bash (rg, grep) to search them]"
	if text(res) != want {
		t.Fatalf("grep = %q\nwant %q", text(res), want)
	}
	if d, ok := res.Details.(GrepDetails); !ok || d.SkippedLargeFiles != 1 {
		t.Errorf("details %#v", res.Details)
	}
	if alloc > 16<<20 {
		t.Errorf("grep allocated %d MB", alloc>>20)
	}
	res = mustRun(t, NewGrep(dir, GrepOptions{}), map[string]any{"pattern": "nothing"})
	if !strings.HasPrefix(text(res), "No matches found\n\n[Skipped 1 file(s)") {
		t.Errorf("no match: %q", text(res))
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
