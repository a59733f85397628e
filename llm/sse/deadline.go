package sse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// ErrStalled is the cause of a stream cut because the server sent nothing for longer than the
// call's StreamDeadline (settings.json streamDeadlineMs). The session retries it like a dropped
// connection.
var ErrStalled = errors.New("stream stalled")

// stallError is the error of one stalled call: ErrStalled plus the gap that was exceeded.
func stallError(d time.Duration, phase string) error {
	return fmt.Errorf("%w: the server sent nothing for %s %s (streamDeadlineMs)", ErrStalled, d, phase)
}

// watchdog cuts a call whose server stays silent for longer than d: before the response headers
// and between any two reads of the body that brought data. Its context is the one the request
// runs under; the cut cancels it with a stall error as the cause.
type watchdog struct {
	d      time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	timer *time.Timer
	phase string // "before the response headers", then "between two stream events"
}

// newWatchdog starts a watchdog of d over ctx; d <= 0 gives nil (no deadline).
func newWatchdog(ctx context.Context, d time.Duration) *watchdog {
	if d <= 0 {
		return nil
	}
	w := &watchdog{d: d, phase: "before the response headers"}
	w.ctx, w.cancel = context.WithCancelCause(ctx)
	w.timer = time.AfterFunc(d, w.fire)
	return w
}

func (w *watchdog) fire() {
	w.mu.Lock()
	phase := w.phase
	w.mu.Unlock()
	w.cancel(stallError(w.d, phase))
}

// kick restarts the countdown after the server sent something.
func (w *watchdog) kick(phase string) {
	w.mu.Lock()
	w.phase = phase
	w.mu.Unlock()
	w.timer.Reset(w.d)
}

// stop ends the watchdog and releases its context.
func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel(context.Canceled)
}

// cause returns the stall error when the watchdog cut the call, else err.
func (w *watchdog) cause(err error) error {
	if c := context.Cause(w.ctx); errors.Is(c, ErrStalled) {
		return c
	}
	return err
}

// watchedBody restarts the watchdog on every read that brings data and reports a cut as the stall
// error.
type watchedBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.kick("between two stream events")
	}
	if err != nil && err != io.EOF {
		err = b.w.cause(err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	return b.ReadCloser.Close()
}

// NewHTTPClient returns the client for provider calls: the default transport's settings (proxy
// from the environment, HTTP/2, dial and TLS timeouts) with idle connections closed after idle
// (settings.json httpIdleTimeoutMs; 0 keeps the default transport's 90 s).
func NewHTTPClient(idle time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if idle > 0 {
		t.IdleConnTimeout = idle
	}
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: t}
}
