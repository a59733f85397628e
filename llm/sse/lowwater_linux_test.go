package sse

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

func rcvLowat(t *testing.T, c net.Conn) int {
	t.Helper()
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rawLowat(t, rc)
}

func rawLowat(t *testing.T, rc syscall.RawConn) int {
	t.Helper()
	var v int
	var gerr error
	if err := rc.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT) }); err != nil {
		t.Fatal(err)
	}
	if gerr != nil {
		t.Fatal(gerr)
	}
	return v
}

// Over a real TCP connection a paced stream with the low-water mark held during its waits
// delivers every event in order, and leaves the socket's mark at 1 for whoever reuses it.
func TestPacedStreamOverTCP(t *testing.T) {
	const events = 100
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range events {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush() // a packet per event: the reader's reads are short and it waits
		}
	}))
	defer srv.Close()
	var conn net.Conn
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		conn = c
		return c, err
	}}
	defer tr.CloseIdleConnections()
	res, err := Open(context.Background(), &Call{Client: &http.Client{Transport: tr}, URL: srv.URL, ReadInterval: 16 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := res.HTTP.Body.(*pacedBody); !ok || b.quiet == nil {
		t.Fatalf("body %T without a low-water control", res.HTTP.Body)
	}
	for i := 0; ; i++ {
		ev, err := res.Events.Next()
		if err == io.EOF {
			if i != events {
				t.Fatalf("%d events, want %d", i, events)
			}
			break
		}
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if string(ev.Data) != fmt.Sprint(i) {
			t.Fatalf("event %d is %q", i, ev.Data)
		}
	}
	if v := rcvLowat(t, conn); v != 1 {
		t.Errorf("SO_RCVLOWAT after the stream = %d, want 1", v)
	}
	res.Close()
}

// The low-water control reaches the TCP socket under TLS too.
func TestLowWaterUnderTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: x\n\n")
	}))
	defer srv.Close()
	cw := &connWatch{}
	req, _ := http.NewRequestWithContext(cw.trace(context.Background()), http.MethodPost, srv.URL, nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lw := cw.lowWater()
	if lw == nil {
		t.Fatal("no low-water control for a TLS connection")
	}
	lw.hold()
	if v := rawLowat(t, lw.(socketLowWater).rc); v != heldLowWater {
		t.Errorf("held SO_RCVLOWAT = %d, want %d", v, heldLowWater)
	}
	lw.release()
	if v := rawLowat(t, lw.(socketLowWater).rc); v != 1 {
		t.Errorf("released SO_RCVLOWAT = %d, want 1", v)
	}
}

// A held-back read over a real TCP connection returns as soon as the sender has sent more than
// the low-water mark, long before its interval ends: a fast sender is never throttled by the
// pacing (the kernel wakes the read, tcp_epollin_ready).
func TestHeldReadWakesForFastSender(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sent := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(sent)
			return
		}
		sent <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, ok := <-sent
	if !ok {
		t.Fatal("accept failed")
	}
	defer s.Close()
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	// An interval of an hour: only the kernel's wakeup can end the held-back read in time.
	body := &pacedBody{ReadCloser: c, ctx: context.Background(), interval: time.Hour, quiet: newSocketLowWater(rc)}
	buf := make([]byte, 4*heldLowWater)
	s.Write([]byte("a"))
	if n, err := body.Read(buf); n != 1 || err != nil {
		t.Fatalf("first Read = %d, %v", n, err)
	}
	got := make(chan int, 1)
	go func() {
		n, _ := body.Read(buf)
		got <- n
	}()
	s.Write(make([]byte, 2*heldLowWater))
	select {
	case n := <-got:
		if n == 0 {
			t.Fatal("held-back read returned nothing")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("held-back read not woken by 32 KiB of data: a fast sender would be throttled")
	}
	if v := rcvLowat(t, c); v != 1 {
		t.Errorf("SO_RCVLOWAT after the read = %d, want 1", v)
	}
}
