package rpc

import (
	"context"
	"sync"
)

// loginSet is the provider logins in flight (login_provider), so that cancel_login_provider
// can cancel them (rpc-and-json.md §6.4). A login is registered when its frame is read, before it
// runs, so a cancel read right after it is never lost.
type loginSet struct {
	mu     sync.Mutex
	active map[*login]struct{}
}

// login is one login_provider command: its provider, its loginId ("" when the client gave none)
// and the cancel of its context once it runs.
type login struct {
	provider, id string
	cancel       context.CancelFunc // nil until the command runs
	cancelled    bool               // a cancel came before the command ran
}

// add registers a login of provider with loginID.
func (l *loginSet) add(provider, loginID string) *login {
	e := &login{provider: provider, id: loginID}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active == nil {
		l.active = map[*login]struct{}{}
	}
	l.active[e] = struct{}{}
	return e
}

// start gives e the context it runs under: a child of ctx that cancel_login_provider cancels
// (already cancelled when a cancel came first). The caller must call the returned stop.
func (l *loginSet) start(ctx context.Context, e *login) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	l.mu.Lock()
	e.cancel = cancel
	if e.cancelled {
		cancel()
	}
	l.mu.Unlock()
	return ctx, func() { cancel(); l.remove(e) }
}

// remove forgets e.
func (l *loginSet) remove(e *login) {
	l.mu.Lock()
	delete(l.active, e)
	l.mu.Unlock()
}

// cancel cancels the logins of provider in flight: all of them when loginID is "", else only the
// one with that loginId (a stale id cancels nothing). It returns how many it cancelled.
func (l *loginSet) cancel(provider, loginID string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for e := range l.active {
		if e.provider != provider || (loginID != "" && e.id != loginID) {
			continue
		}
		e.cancelled = true
		if e.cancel != nil {
			e.cancel()
		}
		n++
	}
	return n
}
