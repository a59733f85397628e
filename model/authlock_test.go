package model

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// shortLockWait makes writes give up on a held lock after d for the rest of the test.
func shortLockWait(t *testing.T, d time.Duration) {
	old := AuthLockWait
	AuthLockWait = d
	t.Cleanup(func() { AuthLockWait = old })
}

// A lock another process holds (pi's proper-lockfile directory auth.json.lock, fresh) blocks a
// write for at most AuthLockWait; the write then fails with ErrAuthLocked and the file is kept.
func TestAuthWriteWaitsForHeldLock(t *testing.T) {
	shortLockWait(t, 30*time.Millisecond)
	dir := t.TempDir()
	path := filepath.Join(dir, "auth.json")
	s, _ := OpenAuth(path)
	if err := s.SetAPIKey("anthropic", "k1"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	err := s.SetAPIKey("anthropic", "k2")
	if !errors.Is(err, ErrAuthLocked) || !strings.Contains(err.Error(), path+".lock") {
		t.Fatalf("write under another's lock: %v", err)
	}
	if c, _, _, _ := s.Reread("anthropic"); c.Key != "k1" {
		t.Fatalf("the file changed under another's lock: %+v", c)
	}
	// Once the other process releases the lock (removes the directory), writes go through and
	// leave no lock behind.
	if err := os.Remove(path + ".lock"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAPIKey("anthropic", "k2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("the lock directory is left behind: %v", err)
	}
}

// A lock directory older than AuthLockStale was left by a process that died: it is taken over.
func TestAuthStaleLockIsTakenOver(t *testing.T) {
	shortLockWait(t, 30*time.Millisecond)
	path := filepath.Join(t.TempDir(), "auth.json")
	if err := os.Mkdir(path+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * AuthLockStale)
	if err := os.Chtimes(path+".lock", old, old); err != nil {
		t.Fatal(err)
	}
	s, _ := OpenAuth(path)
	if err := s.SetAPIKey("openai", "k"); err != nil {
		t.Fatalf("a stale lock blocked the write: %v", err)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("the lock directory is left behind: %v", err)
	}
}

// Two processes (two registries on the same agent directory) find the same OAuth token expired:
// the lock makes the second wait for the first's refresh and use its token, so the provider's
// refresh runs once and neither write is lost.
func TestOAuthRefreshOnceAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	expired := `{"type":"oauth","access":"old","refresh":"r1","expires":1}`
	if err := os.WriteFile(filepath.Join(dir, AuthFile), []byte(`{"corp":`+expired+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	a, _ := Load(dir)
	b, _ := Load(dir)
	var calls atomic.Int32
	inRefresh, finish := make(chan struct{}), make(chan struct{})
	refresh := func(ctx context.Context, cred json.RawMessage) (json.RawMessage, error) {
		if calls.Add(1) == 1 {
			close(inRefresh)
			<-finish
		}
		return json.RawMessage(`{"type":"oauth","access":"new","refresh":"r2","expires":` + jsonInt(time.Now().Add(time.Hour).UnixMilli()) + `}`), nil
	}
	type answer struct {
		key string
		err error
	}
	first := make(chan answer, 1)
	go func() {
		k, err := a.refreshOAuth("corp", refresh)
		first <- answer{k, err}
	}()
	<-inRefresh // a holds the lock now
	second := make(chan answer, 1)
	go func() {
		k, err := b.refreshOAuth("corp", refresh)
		second <- answer{k, err}
	}()
	close(finish)
	for _, ch := range []chan answer{first, second} {
		if got := <-ch; got.err != nil || got.key != "new" {
			t.Fatalf("refresh answered %q, %v", got.key, got.err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the provider's refresh ran %d times, want once", n)
	}
	if _, err := os.Stat(filepath.Join(dir, AuthFile+".lock")); !os.IsNotExist(err) {
		t.Fatalf("the lock directory is left behind: %v", err)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
