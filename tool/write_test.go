package tool

import (
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	write := NewWrite(dir, WriteOptions{Queue: NewMutationQueue()})
	tests := []struct {
		name, path, content, want string
	}{
		{"creates parent dirs", "a/b/c.txt", "hello", "Successfully wrote 5 bytes to a/b/c.txt"},
		{"overwrites", "a/b/c.txt", "bye", "Successfully wrote 3 bytes to a/b/c.txt"},
		{"counts UTF-16 code units like pi", "u.txt", "é😀", "Successfully wrote 3 bytes to u.txt"},
		{"empty content", "@empty.txt", "", "Successfully wrote 0 bytes to @empty.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, write, map[string]any{"path": tt.path, "content": tt.content})
			if text(r) != tt.want || r.Details != nil {
				t.Errorf("got %q %#v, want %q", text(r), r.Details, tt.want)
			}
			if got := readFile(t, ResolveToCwd(tt.path, dir)); got != tt.content {
				t.Errorf("file has %q", got)
			}
		})
	}
	writeFiles(t, dir, map[string]string{"file": "x"})
	if _, err := run(t, write, map[string]any{"path": filepath.Join("file", "child.txt"), "content": "x"}); err == nil {
		t.Error("writing below a file succeeded")
	}
}
