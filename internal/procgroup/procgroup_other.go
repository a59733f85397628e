//go:build !unix

package procgroup

import "errors"

// ErrUnsupported is returned by New and Guard where process groups do not exist.
var ErrUnsupported = errors.New("procgroup: process groups are not supported on this system")

// Group is not available here; New and Guard always fail with ErrUnsupported.
type Group struct{}

// New returns ErrUnsupported.
func New() (*Group, error) { return nil, ErrUnsupported }

// Guard returns ErrUnsupported.
func Guard(int) (*Group, error) { return nil, ErrUnsupported }

// Pgid returns 0.
func (*Group) Pgid() int { return 0 }

// Release does nothing.
func (*Group) Release() {}

// Kill does nothing.
func (*Group) Kill() {}
