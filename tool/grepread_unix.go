//go:build unix

package tool

import "syscall"

// sniffBytes is how much of a big file is read first to detect a binary file (a NUL byte) before
// the rest is read.
const sniffBytes = 8 << 10

// sniffAbove is the size from which a file is sniffed before being read whole.
const sniffAbove = 64 << 10

// readSearchable reads a file for grep with as few system calls as it takes (open, fstat, one
// read, close), into *buf, which it grows and reuses. ok is false for anything but a readable
// regular file: a FIFO or device (opened without blocking, refused), an unreadable file, a file
// over sniffAbove with a NUL byte in its first sniffBytes (binary, not read further). tooBig
// reports a file over limit, which is not read. The data is not checked for NUL bytes as a whole:
// the caller searches it first and drops the file as binary (hasNUL) only when it matched, which
// saves a pass over every file without a match.
// The file is name in the directory open as dirfd (see walkDir.fd), or path when dirfd is -1.
func readSearchable(dirfd int, name, path string, buf *[]byte, limit int64) (data []byte, tooBig, ok bool) {
	fd, err := openAt(dirfd, name, path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY)
	if err != nil {
		return nil, false, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, false, false
	}
	size := st.Size
	if size > limit {
		return nil, true, false
	}
	if int64(cap(*buf)) < size+1 {
		*buf = make([]byte, size+1+size/4)
	}
	b := (*buf)[:cap(*buf)]
	n := 0
	if size > sniffAbove {
		m, err := readOnce(fd, b[:sniffBytes])
		n = m
		if err != nil || hasNUL(b[:n]) {
			return nil, false, false
		}
	}
	for {
		want := len(b) - n
		m, err := readOnce(fd, b[n:])
		n += m
		if err != nil {
			return nil, false, false
		}
		if int64(n) > limit {
			return nil, true, false
		}
		if m < want && int64(n) >= size {
			break // a short read at or past the size fstat gave: the end of the file
		}
		if m == 0 {
			break
		}
		if n == len(b) {
			nb := make([]byte, 2*len(b))
			copy(nb, b[:n])
			*buf = nb
			b = nb
		}
	}
	return b[:n], false, true
}

// readOnce does one read(2) into b, retrying on EINTR.
func readOnce(fd int, b []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}
