package sse

import (
	"context"
	"net"
	"net/http/httptrace"
	"sync"
	"syscall"
)

// heldLowWater is the receive low-water mark, in bytes, set on a connection while a paced body
// waits: the kernel signals the socket readable only once this much has arrived (or the
// connection ends, or memory runs short), so the small events that arrive meanwhile wake nobody.
// It stays well below the default receive buffer (128 KiB) so setting it never grows the buffer.
const heldLowWater = 16 << 10

// connWatch learns the connection a request is sent on (httptrace GotConn) and gives the paced
// body its low-water control.
type connWatch struct {
	mu   sync.Mutex
	conn net.Conn
}

// trace returns ctx with a client trace that records the request's connection in w.
func (w *connWatch) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		w.mu.Lock()
		w.conn = info.Conn
		w.mu.Unlock()
	}})
}

// lowWater returns the low-water control of the recorded connection, nil when there is none or
// it is not a socket (a test transport, a platform without the option).
func (w *connWatch) lowWater() lowWater {
	w.mu.Lock()
	c := w.conn
	w.mu.Unlock()
	for c != nil {
		if sc, ok := c.(syscall.Conn); ok {
			rc, err := sc.SyscallConn()
			if err != nil {
				return nil
			}
			return newSocketLowWater(rc)
		}
		u, ok := c.(interface{ NetConn() net.Conn }) // *tls.Conn
		if !ok {
			return nil
		}
		c = u.NetConn()
	}
	return nil
}
