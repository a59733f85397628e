package sse

import "syscall"

// socketLowWater sets SO_RCVLOWAT of a TCP socket. On Linux a raised mark keeps epoll from
// reporting the socket readable for less data (tcp_data_ready), while a non-blocking read still
// returns whatever is buffered; lowering it to 1 signals readiness at once if data is waiting.
type socketLowWater struct{ rc syscall.RawConn }

func newSocketLowWater(rc syscall.RawConn) lowWater { return socketLowWater{rc} }

func (s socketLowWater) set(n int) {
	_ = s.rc.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n)
	})
}

func (s socketLowWater) hold()    { s.set(heldLowWater) }
func (s socketLowWater) release() { s.set(1) }
