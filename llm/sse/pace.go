package sse

import (
	"context"
	"io"
	"time"
)

// MaxReadInterval is the longest Call.ReadInterval honoured (100 ms); a longer one is clamped to
// it, so a misconfigured interval cannot hold a stream back for long.
const MaxReadInterval = 100 * time.Millisecond

// pacedBody coalesces the reads of a streamed response body. A server that sends many small
// events (a token each) wakes a plain reader once per event, and on a virtual machine each wakeup
// costs more CPU than the event's parsing. After a read that returned data without filling the
// caller's buffer, pacedBody lets the next read of the underlying body wait until interval has
// passed since that data came, so the socket buffer gathers the events in between and one read
// returns them all.
//
// Bytes are passed through as the body returns them: none is dropped, added or reordered. The
// first read, a read after one that filled the buffer, and a read after a gap longer than interval
// go to the body at once, so the first event and an event after a pause are not delayed; any
// other event is held back at most interval. A wait ends at once when ctx ends; the read then
// returns context.Cause(ctx). A pacedBody belongs to one reading goroutine.
//
// Waiting alone does not stop the wakeups: the runtime's network poller is still woken by every
// packet that reaches the socket, even when no goroutine reads it. So while it waits, pacedBody
// also raises the socket's receive low-water mark (quiet, see lowWater), which keeps the kernel
// from signalling readiness for small amounts of data, and lowers it again before it reads. The
// mark is raised only for the wait itself, so a connection shared with other streams (HTTP/2) is
// held back at most interval, never longer.
type pacedBody struct {
	io.ReadCloser
	ctx      context.Context
	interval time.Duration
	last     time.Time // when the previous short read brought data; zero: read at once
	timer    *time.Timer
	quiet    lowWater // nil when the connection is unknown or the platform has no low-water mark
}

// lowWater raises (hold) and restores (release) the receive low-water mark of the connection a
// paced body is read from. Errors are ignored: without the mark the pacing still works, with one
// wakeup per packet.
type lowWater interface {
	hold()
	release()
}

// pace returns body paced by interval (clamped to MaxReadInterval) under ctx, quieting quiet
// (may be nil) while it waits, or body itself when interval <= 0.
func pace(ctx context.Context, body io.ReadCloser, interval time.Duration, quiet lowWater) io.ReadCloser {
	if interval <= 0 {
		return body
	}
	return &pacedBody{ReadCloser: body, ctx: ctx, interval: min(interval, MaxReadInterval), quiet: quiet}
}

// Read waits out the rest of the interval after a short read, then reads the body once.
func (b *pacedBody) Read(p []byte) (int, error) {
	if !b.last.IsZero() && len(p) > 0 {
		if d := b.interval - time.Since(b.last); d > 0 {
			if b.quiet != nil {
				b.quiet.hold()
			}
			err := b.wait(d)
			if b.quiet != nil {
				b.quiet.release()
			}
			if err != nil {
				return 0, err
			}
		}
	}
	n, err := b.ReadCloser.Read(p)
	if n > 0 && n < len(p) && err == nil {
		b.last = time.Now()
	} else {
		b.last = time.Time{}
	}
	return n, err
}

// wait sleeps d or until ctx ends, whichever comes first; it returns ctx's cause in the second case.
func (b *pacedBody) wait(d time.Duration) error {
	if b.timer == nil {
		b.timer = time.NewTimer(d)
	} else {
		b.timer.Reset(d)
	}
	select {
	case <-b.timer.C:
		return nil
	case <-b.ctx.Done():
		b.timer.Stop()
		return context.Cause(b.ctx)
	}
}

// Close stops the pacing timer and closes the body.
func (b *pacedBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	return b.ReadCloser.Close()
}
