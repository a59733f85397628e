package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// A replacement that fails before anything is torn down (an invalid session file, a failing
// setup) leaves the live session usable: no shutdown, no stale contexts.
func TestFailedReplacementKeepsTheSession(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("junk\n"), 0o644)
	var shutdowns int
	factory := func(api ext.API) error {
		ext.On(api, func(ext.Context, *ext.SessionShutdown) (ext.None, error) { shutdowns++; return nil, nil })
		return nil
	}
	st, err := store.Create(dir, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := NewRuntime(context.Background(), Options{Store: st, Model: &llm.Model{ID: "m", Provider: "p", API: "x"},
		Provider: textProvider("ok"), Extensions: []ext.Factory{factory}})
	if err != nil {
		t.Fatal(err)
	}
	before := rt.Session()
	if _, err := rt.SwitchSession(context.Background(), bad, ext.SwitchOptions{}); err == nil {
		t.Fatal("switching to an invalid file succeeded")
	}
	if _, err := rt.NewSession(context.Background(), ext.NewSessionOptions{Setup: func(*store.Session) error { return os.ErrPermission }}); err == nil {
		t.Fatal("a failing setup did not fail newSession")
	}
	if rt.Session() != before || shutdowns != 0 {
		t.Fatalf("the live session was replaced or shut down (%d shutdowns)", shutdowns)
	}
	if err := rt.Prompt(context.Background(), "still here?", nil); err != nil {
		t.Fatalf("the runtime is unusable after a failed replacement: %v", err)
	}
}
