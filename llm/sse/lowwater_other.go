//go:build !linux

package sse

import "syscall"

// newSocketLowWater returns nil: elsewhere than Linux a raised SO_RCVLOWAT can make a non-blocking
// read refuse the data it holds (BSD), so paced bodies only wait, without quieting the socket.
func newSocketLowWater(syscall.RawConn) lowWater { return nil }
