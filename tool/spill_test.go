//go:build unix

package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A command that writes far more than the cap (the issue's `yes` wrote 2.2 GB in 3 s) leaves a
// spill file of SpillMaxBytes plus a marker saying how much was not saved.
func TestBashSpillFileIsCapped(t *testing.T) {
	dir := t.TempDir()
	b := NewBash(dir, BashOptions{TempDir: dir})
	const total = SpillMaxBytes + 5<<20
	res := mustRun(t, b, map[string]any{"command": "yes | head -c " + itoa(total)})
	d, ok := res.Details.(BashDetails)
	if !ok || d.FullOutputPath == "" {
		t.Fatalf("details %#v", res.Details)
	}
	fi, err := os.Stat(d.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < SpillMaxBytes || fi.Size() > SpillMaxBytes+200 {
		t.Fatalf("spill file is %d bytes, want the %d cap plus a marker", fi.Size(), SpillMaxBytes)
	}
	f, _ := os.Open(d.FullOutputPath)
	defer f.Close()
	tail := make([]byte, 200)
	n, _ := f.ReadAt(tail, fi.Size()-200)
	want := "[atomic: output truncated: this file is capped at 64.0MB; 5242880 more bytes were not saved]\n"
	if !strings.HasSuffix(string(tail[:n]), want) {
		t.Fatalf("spill file ends %q, want the marker %q", tail[:n], want)
	}
	if d.Truncation == nil || d.Truncation.TotalBytes != total {
		t.Errorf("truncation %+v, want the whole output counted", d.Truncation)
	}
}

func itoa(n int) string { return jsNumber(float64(n)) }

func TestSpillDirPrivateAndReaped(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := SpillDir("sess-1")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(os.TempDir(), "atomic-"+itoa(os.Getuid()), "sess-1"); dir != want {
		t.Fatalf("SpillDir = %s, want %s", dir, want)
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	// A symbolic link in place of a session directory is refused.
	if err := os.Symlink(t.TempDir(), filepath.Join(SpillRoot(), "evil")); err != nil {
		t.Fatal(err)
	}
	if _, err := SpillDir("evil"); err == nil {
		t.Error("SpillDir followed a symbolic link")
	}
	// Old session directories are reaped, recent ones kept.
	f, err := createSpill(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("out"))
	f.Close()
	fresh, _ := SpillDir("sess-2")
	old := time.Now().Add(-31 * 24 * time.Hour)
	os.Chtimes(f.path, old, old)
	os.Chtimes(dir, old, old)
	if n := ReapSpills("", SpillMaxAge, time.Now()); n != 1 {
		t.Errorf("reaped %d directories, want 1", n)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the old session's spills survived: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("the recent session's directory was removed: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(SpillRoot(), "evil")); err != nil {
		t.Errorf("the symbolic link was touched: %v", err)
	}
	if err := RemoveSpillDir("sess-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("RemoveSpillDir left %s", fresh)
	}
}
