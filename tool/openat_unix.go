//go:build unix && !linux

package tool

import "syscall"

// openAt opens path, retrying on EINTR: directories are never kept open on this system
// (readDirEntries), so dirfd is always -1 and name is not used.
func openAt(_ int, _, path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
