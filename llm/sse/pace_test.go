package sse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// socket is a body like a TCP socket's receive buffer: a writer appends at any time without
// waiting for the reader, and a Read returns everything buffered so far (up to len(p)), blocking
// while the buffer is empty. It counts the reads that returned data.
type socket struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	closed bool
	ready  chan struct{} // signalled (capacity 1) after every write and on close
	reads  int
}

func newSocket() *socket { return &socket{ready: make(chan struct{}, 1)} }

func (s *socket) write(b string) {
	s.mu.Lock()
	s.buf.WriteString(b)
	s.mu.Unlock()
	s.signal()
}

func (s *socket) closeWrite() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.signal()
}

func (s *socket) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

func (s *socket) Read(p []byte) (int, error) {
	for {
		s.mu.Lock()
		if s.buf.Len() > 0 {
			n, _ := s.buf.Read(p)
			s.reads++
			s.mu.Unlock()
			return n, nil
		}
		if s.closed {
			s.mu.Unlock()
			return 0, io.EOF
		}
		s.mu.Unlock()
		<-s.ready
	}
}

func (s *socket) Close() error { return nil }

// A paced body returns every byte in order, reads the first piece at once, holds no piece back
// longer than the interval, and needs far fewer reads than pieces when they come 1 ms apart.
func TestPacedBodyCoalescesInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pieces, interval = 200, 16 * time.Millisecond
		sock := newSocket()
		sent := make([]time.Time, pieces) // when piece i was written
		var want bytes.Buffer
		for i := range pieces {
			want.WriteString(fmt.Sprintf("data: %d\n\n", i))
		}
		go func() {
			for i := range pieces {
				if i > 0 {
					time.Sleep(time.Millisecond)
				}
				sent[i] = time.Now()
				sock.write(fmt.Sprintf("data: %d\n\n", i))
			}
			sock.closeWrite()
		}()
		body := pace(context.Background(), sock, interval, nil)
		var got []byte
		buf := make([]byte, 32<<10)
		var lastSeen []time.Time // the time each read returned, per piece complete by then
		for {
			n, err := body.Read(buf)
			got = append(got, buf[:n]...)
			for len(lastSeen) < bytes.Count(got, []byte("\n\n")) {
				lastSeen = append(lastSeen, time.Now())
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("paced body changed the bytes:\n got %q\nwant %q", got, want.Bytes())
		}
		if lastSeen[0] != sent[0] {
			t.Errorf("first piece read %s after it was sent, want at once", lastSeen[0].Sub(sent[0]))
		}
		for i := range pieces {
			if d := lastSeen[i].Sub(sent[i]); d > interval {
				t.Errorf("piece %d held back %s, more than the %s interval", i, d, interval)
			}
		}
		if limit := pieces/int(interval/time.Millisecond) + 2; sock.reads > limit {
			t.Errorf("%d reads of the body for %d pieces 1ms apart, want at most %d", sock.reads, pieces, limit)
		}
	})
}

// A piece that comes after a pause longer than the interval is read at once.
func TestPacedBodyNoDelayAfterPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sock := newSocket()
		body := pace(context.Background(), sock, 16*time.Millisecond, nil)
		sock.write("a")
		buf := make([]byte, 64)
		if n, err := body.Read(buf); n != 1 || err != nil {
			t.Fatalf("Read = %d, %v", n, err)
		}
		time.Sleep(time.Second)
		sock.write("b")
		start := time.Now()
		if n, err := body.Read(buf); n != 1 || err != nil || buf[0] != 'b' {
			t.Fatalf("Read = %d %q, %v", n, buf[:n], err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("read after a 1s pause waited %s, want no wait", d)
		}
	})
}

// Cancelling the context ends a wait at once with the context's cause.
func TestPacedBodyCancelStopsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		sock := newSocket()
		body := pace(ctx, sock, MaxReadInterval, nil)
		sock.write("a")
		buf := make([]byte, 64)
		if _, err := body.Read(buf); err != nil {
			t.Fatalf("first Read: %v", err)
		}
		sock.write("b") // buffered: only the pacing wait holds the next read back
		type result struct {
			n   int
			err error
			at  time.Time
		}
		done := make(chan result, 1)
		go func() {
			n, err := body.Read(buf)
			done <- result{n, err, time.Now()}
		}()
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("second Read returned %d, %v without waiting", r.n, r.err)
		default:
		}
		stop := errors.New("user abort")
		cancelAt := time.Now()
		cancel(stop)
		synctest.Wait()
		select {
		case r := <-done:
			if !errors.Is(r.err, stop) || r.n != 0 {
				t.Errorf("Read after cancel = %d, %v; want 0 and the cancel cause", r.n, r.err)
			}
			if !r.at.Equal(cancelAt) {
				t.Errorf("Read returned %s after the cancel, want at once", r.at.Sub(cancelAt))
			}
		default:
			t.Fatal("cancel did not end the wait")
		}
	})
}

// A read that fills the caller's buffer is followed by an immediate read: more is likely waiting.
func TestPacedBodyFullReadDoesNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sock := newSocket()
		body := pace(context.Background(), sock, 16*time.Millisecond, nil)
		sock.write("abcdef")
		buf := make([]byte, 3)
		start := time.Now()
		for _, want := range []string{"abc", "def"} {
			n, err := body.Read(buf)
			if err != nil || string(buf[:n]) != want {
				t.Fatalf("Read = %q, %v; want %q", buf[:n], err, want)
			}
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("reads of a full buffer waited %s", d)
		}
	})
}

func TestPaceOffAndClamp(t *testing.T) {
	sock := newSocket()
	if got := pace(context.Background(), sock, 0, nil); got != io.ReadCloser(sock) {
		t.Errorf("pace with interval 0 = %T, want the body itself", got)
	}
	if got := pace(context.Background(), sock, time.Hour, nil).(*pacedBody); got.interval != MaxReadInterval {
		t.Errorf("interval of 1h clamped to %s, want %s", got.interval, MaxReadInterval)
	}
}

// Open with a ReadInterval yields the same events as without one.
func TestOpenReadIntervalSameEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var parts []part
		var want []string
		for i := range 50 {
			parts = append(parts, part{time.Millisecond, fmt.Sprintf("event: delta\ndata: {\"i\":%d}\n\n", i)})
			want = append(want, fmt.Sprintf("{\"i\":%d}", i))
		}
		tr := &scriptedTransport{parts: parts}
		res, err := Open(context.Background(), &Call{Client: &http.Client{Transport: tr}, URL: "http://fake/v1/messages",
			StreamDeadline: time.Second, ReadInterval: 16 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		var got []string
		for {
			ev, err := res.Events.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			got = append(got, string(ev.Data))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("events = %q, want %q", got, want)
		}
	})
}

// recordingLowWater logs hold and release into the same log as the socket's reads.
type recordingLowWater struct{ log *[]string }

func (r recordingLowWater) hold()    { *r.log = append(*r.log, "hold") }
func (r recordingLowWater) release() { *r.log = append(*r.log, "release") }

// loggingSocket logs each read that returned data.
type loggingSocket struct {
	*socket
	log *[]string
}

func (s loggingSocket) Read(p []byte) (int, error) {
	n, err := s.socket.Read(p)
	if n > 0 {
		*s.log = append(*s.log, "read "+string(p[:n]))
	}
	return n, err
}

// The low-water mark is raised only around a held-back read and lowered again after it; a read
// after a pause is not held back.
func TestPacedBodyLowWaterAroundHeldRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log []string
		sock := newSocket()
		body := pace(context.Background(), loggingSocket{sock, &log}, 16*time.Millisecond, recordingLowWater{&log})
		buf := make([]byte, 64)
		sock.write("a")
		body.Read(buf) // the first read: at once
		sock.write("b")
		body.Read(buf) // held back: hold, read, release
		time.Sleep(time.Second)
		sock.write("c")
		body.Read(buf) // after a pause: at once
		want := "read a,hold,read b,release,read c"
		if got := strings.Join(log, ","); got != want {
			t.Errorf("sequence %q, want %q", got, want)
		}
	})
}

// Without the low-water mark, a read of fastRead bytes or more turns pacing off: a fast stream is
// never slept on again.
func TestPacedBodyFastStreamNotPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sock := newSocket()
		body := pace(context.Background(), sock, 16*time.Millisecond, nil)
		buf := make([]byte, 4*fastRead)
		sock.write("a")
		body.Read(buf)
		sock.write(strings.Repeat("x", fastRead))
		body.Read(buf) // held back 16 ms, then a fast read
		start := time.Now()
		for range 3 {
			sock.write("y")
			if n, err := body.Read(buf); n != 1 || err != nil {
				t.Fatalf("Read = %d, %v", n, err)
			}
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("reads of a fast stream waited %s", d)
		}
	})
}
