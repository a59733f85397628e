//go:build unix

package tool

import (
	"bytes"
	"syscall"
)

// sniffBytes is how much of a big file is read first to detect a binary file (a NUL byte) before
// the rest is read.
const sniffBytes = 8 << 10

// sniffAbove is the size from which a file is sniffed before being read whole.
const sniffAbove = 64 << 10

// chunkBytes is the size of the chunks a big file is first searched in, and chunkAbove the size
// from which a file is: a chunk stays in the processor's cache between the copy from the kernel
// and the search, and the buffer does not grow to the size of the biggest file.
const (
	chunkBytes = 128 << 10
	chunkAbove = chunkBytes
)

// readSearchable reads a file for grep with as few system calls as it takes (open, fstat, one
// read, close), into *buf, which it grows and reuses. With probe (which reports whether any line
// of a run of whole lines may match), a file over chunkAbove is first read in chunks of whole
// lines, each handed to probe, and read whole only once a chunk passed; when none does, ok is
// false (nothing matches). ok is false for anything but a readable
// regular file: a FIFO or device (opened without blocking, refused), an unreadable file, a file
// over sniffAbove with a NUL byte in its first sniffBytes (binary, not read further). tooBig
// reports a file over limit, which is not read. The data is not checked for NUL bytes as a whole:
// the caller searches it first and drops the file as binary (hasNUL) only when it matched, which
// saves a pass over every file without a match.
// The file is name in the directory open as dirfd (see walkDir.fd), or path when dirfd is -1.
func readSearchable(dirfd int, name, path string, buf *[]byte, limit int64, probe func(lines []byte) bool) (data []byte, tooBig, ok bool) {
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
	if probe != nil && size > chunkAbove {
		if !probeChunks(fd, buf, limit, probe) {
			return nil, false, false
		}
		if _, err := syscall.Seek(fd, 0, 0); err != nil {
			return nil, false, false
		}
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

// probeChunks reads the open file fd in chunks of whole lines into *buf (grown only for a line
// longer than a chunk) and reports whether probe passed one of them. It reports false for a read
// error, a file with a NUL byte in its first sniffBytes (binary) and a file that grew past limit.
func probeChunks(fd int, buf *[]byte, limit int64, probe func([]byte) bool) bool {
	if cap(*buf) < chunkBytes {
		*buf = make([]byte, chunkBytes)
	}
	b := (*buf)[:chunkBytes]
	carry := 0 // bytes of a line not finished in the previous chunk, at b[:carry]
	var total int64
	for first := true; ; {
		m, err := readOnce(fd, b[carry:])
		if err != nil {
			return false
		}
		if total += int64(m); total > limit {
			return false
		}
		n := carry + m
		if first && m > 0 {
			first = false
			if hasNUL(b[:min(n, sniffBytes)]) {
				return false
			}
		}
		if m == 0 { // the end of the file: its last line has no newline
			return n > 0 && probe(b[:n])
		}
		// The carried bytes hold no newline: look in the new ones only, first with the
		// vectorised forward search (a long line has none), then for the last one.
		if fresh := b[carry:n]; bytes.IndexByte(fresh, '\n') >= 0 {
			cut := carry + bytes.LastIndexByte(fresh, '\n') + 1
			if probe(b[:cut]) {
				return true
			}
			carry = copy(b, b[cut:n])
		} else {
			carry = n
		}
		if carry > len(b)/2 { // a long line: room for more of it, not many short reads
			nb := make([]byte, 2*len(b))
			copy(nb, b[:carry])
			*buf, b = nb, nb
		}
	}
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
