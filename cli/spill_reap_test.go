package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/tool"
)

// TestReapSpillsDaily: old spill directories are reaped when the last reaping is a day old or
// never happened, and not again within the day (start-up must not read every session's
// directory on each run).
func TestReapSpillsDaily(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	now := time.Now()
	old := now.Add(-31 * 24 * time.Hour)
	oldDir := func(name string) string {
		d, err := tool.SpillDir(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := oldDir("session-a")
	reapSpillsDaily(now) // never reaped before: reaps
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Fatalf("old spill directory kept on the first reaping: %v", err)
	}
	stamp := filepath.Join(tool.SpillRoot(), reapSpillStamp)
	if fi, err := os.Stat(stamp); err != nil || fi.ModTime().Sub(now).Abs() > time.Second {
		t.Fatalf("stamp %v, err %v", fi, err)
	}

	b := oldDir("session-b")
	reapSpillsDaily(now.Add(time.Hour)) // reaped an hour ago: skipped
	if _, err := os.Stat(b); err != nil {
		t.Fatalf("reaped again within the day: %v", err)
	}
	reapSpillsDaily(now.Add(25 * time.Hour)) // a day later: reaps
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Fatalf("old spill directory kept a day later: %v", err)
	}
}
