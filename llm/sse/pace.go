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
// caller's buffer, pacedBody holds the next read back until interval has passed since that data
// came, so the socket buffer gathers the events in between and one read returns them all.
//
// Bytes are passed through as the body returns them: none is dropped, added or reordered. The
// first read, a read after one that filled the buffer, and a read after a gap longer than interval
// go to the body at once, so the first event and an event after a pause are not delayed; any
// other event is held back at most interval. A pacedBody belongs to one reading goroutine.
//
// A fast sender must never be slowed down. A reader that sleeps lets the kernel's receive queue
// fill with small segments, each costing far more buffer memory than its payload, so the window
// closes after a few dozen events and the sender stalls until the sleep ends: a stream of 20,000
// events sent without pause took 4.8 s instead of 0.2 s. So where the connection is known
// (quiet, Linux) the held-back read does not sleep: it raises the socket's receive low-water
// mark, blocks in the read, and lowers the mark when interval ends. The kernel wakes the read
// early once the mark's worth of data has come, when its receive memory runs short, when the
// window nearly closes, or at the end of the stream (tcp_epollin_ready), so a fast stream is read
// as fast as it comes, while the small events of a slow one wake nobody. A canceled request ends
// the blocked read as it ends any read of the body: the transport closes the connection.
//
// Without the low-water mark (another platform, a connection that is not a socket) the held-back
// read sleeps out the interval instead, ending at once when ctx ends (the read then returns
// context.Cause(ctx)); once a read returns fastRead bytes or more the stream is known to be fast
// and is no longer paced.
type pacedBody struct {
	io.ReadCloser
	ctx      context.Context
	interval time.Duration
	last     time.Time // when the previous short read brought data; zero: read at once
	timer    *time.Timer
	quiet    lowWater // nil when the connection is unknown or the platform has no low-water mark
	fast     bool     // without quiet: a read brought fastRead bytes, pacing is off
}

// fastRead is the size of a read, in bytes, that shows a stream read without the low-water mark
// to be fast (8 KiB: at a 16 ms interval, 500 KB/s, many times a model's token rate); such a
// stream is no longer paced, as sleeping would throttle it.
const fastRead = 8 << 10

// lowWater raises (hold) and restores (release) the receive low-water mark of the connection a
// paced body is read from. Errors are ignored: without the mark the pacing still works, with one
// wakeup per packet. release may be called from another goroutine (the interval's timer) while a
// read is blocked.
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

// Read reads the body once, after a short read holding the read back for the rest of the
// interval (see pacedBody).
func (b *pacedBody) Read(p []byte) (int, error) {
	var d time.Duration
	if !b.last.IsZero() && len(p) > 0 && !b.fast {
		d = b.interval - time.Since(b.last)
	}
	var n int
	var err error
	switch {
	case d <= 0:
		n, err = b.ReadCloser.Read(p)
	case b.quiet != nil:
		n, err = b.readQuiet(p, d)
	default:
		if err := b.wait(d); err != nil {
			return 0, err
		}
		n, err = b.ReadCloser.Read(p)
		b.fast = n >= fastRead
	}
	if n > 0 && n < len(p) && err == nil {
		b.last = time.Now()
	} else {
		b.last = time.Time{}
	}
	return n, err
}

// readQuiet reads with the low-water mark raised for at most d: the read returns when the mark's
// worth of data has come (or the kernel wakes it sooner, see pacedBody) or, after d, with
// whatever has come by then.
func (b *pacedBody) readQuiet(p []byte, d time.Duration) (int, error) {
	b.quiet.hold()
	t := time.AfterFunc(d, b.quiet.release)
	n, err := b.ReadCloser.Read(p)
	t.Stop()
	b.quiet.release()
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
