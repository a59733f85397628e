package model

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// auth.json's cross-process lock is the one pi takes with proper-lockfile, so that atomic and pi
// running side by side neither refresh the same OAuth token twice nor lose each other's writes: a
// directory "<auth.json>.lock" created with mkdir (which succeeds for one process only) and
// removed to release. A lock directory whose modification time is older than AuthLockStale is
// taken to be left behind by a process that died and is removed; the holder touches the
// directory every AuthLockStale/2 so that a long refresh is not taken for a dead one.

// AuthLockStale is the age past which a lock directory is taken to be abandoned: pi's refresh
// lock uses 30 s (its holder refreshes the mtime every 15 s).
const AuthLockStale = 30 * time.Second

// AuthLockWait bounds how long a write or a refresh waits for another process's lock before it
// fails; longer than an OAuth refresh (OAuthRefreshTimeout) so that a refresh by the other
// process is waited out.
var AuthLockWait = OAuthRefreshTimeout + 10*time.Second

// ErrAuthLocked is returned (wrapped) when auth.json's lock stayed held past AuthLockWait.
var ErrAuthLocked = errors.New("auth.json is locked by another process")

// lockFile takes the cross-process lock of path (the directory path+".lock"), waiting at most
// wait, and returns the function that releases it. Errors name the lock directory.
func lockFile(path string, wait time.Duration) (unlock func(), err error) {
	dir := path + ".lock"
	deadline := time.Now().Add(wait)
	delay := 10 * time.Millisecond
	for {
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("model: lock %s: %w", dir, err)
		}
		if fi, serr := os.Stat(dir); serr == nil && time.Since(fi.ModTime()) > AuthLockStale {
			// Left behind by a process that died: remove it and try again at once. A removal
			// that fails (another process took it over) just leads to another round.
			_ = os.Remove(dir)
			continue
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("model: lock %s: %w (waited %v)", dir, ErrAuthLocked, wait)
		}
		time.Sleep(min(delay, time.Until(deadline)+time.Millisecond))
		delay = min(delay*2, 500*time.Millisecond)
	}
	// Keep the lock fresh while it is held.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(AuthLockStale / 2)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				_ = os.Chtimes(dir, now, now)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			_ = os.Remove(dir)
		})
	}, nil
}
