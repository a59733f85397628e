package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.txt": "", "A.md": "", ".hidden": "", "sub/x": "", "Zeta/y": "",
	})
	_ = os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "broken"))
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	ls := NewLs(dir, LsOptions{})
	r := mustRun(t, ls, map[string]any{})
	if want := ".hidden\nA.md\nb.txt\nempty/\nsub/\nZeta/"; text(r) != want || r.Details != nil {
		t.Errorf("got %q %#v, want %q", text(r), r.Details, want)
	}
	r = mustRun(t, ls, map[string]any{"path": "empty"})
	if text(r) != "(empty directory)" {
		t.Errorf("empty: %q", text(r))
	}
	r = mustRun(t, ls, map[string]any{"limit": 2.0})
	if want := ".hidden\nA.md\n\n[2 entries limit reached. Use limit=4 for more]"; text(r) != want {
		t.Errorf("limit: %q", text(r))
	}
	if d, ok := r.Details.(LsDetails); !ok || d.EntryLimitReached != 2 || d.Truncation != nil {
		t.Errorf("limit details %#v", r.Details)
	}
	for _, tt := range []struct{ path, want string }{
		{"nope", "Path not found: " + filepath.Join(dir, "nope")},
		{"b.txt", "Not a directory: " + filepath.Join(dir, "b.txt")},
	} {
		if _, err := run(t, ls, map[string]any{"path": tt.path}); err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v", tt.path, err)
		}
	}
}

func TestLsByteLimit(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("%03d-%s", i, strings.Repeat("n", 200))] = ""
	}
	writeFiles(t, dir, files)
	r := mustRun(t, NewLs(dir, LsOptions{}), map[string]any{})
	if !strings.HasSuffix(text(r), "\n\n[50.0KB limit reached]") {
		t.Errorf("tail %q", text(r)[len(text(r))-60:])
	}
	d, ok := r.Details.(LsDetails)
	if !ok || d.Truncation == nil || d.Truncation.TruncatedBy != TruncatedByBytes || d.Truncation.MaxLines != noLineLimit {
		t.Errorf("details %#v", r.Details)
	}
}
