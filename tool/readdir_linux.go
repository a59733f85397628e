//go:build linux

package tool

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// readDirEntries lists dir with getdents64 into a reusable buffer: names and type bits
// (symbolic links not followed; an entry of unknown type is lstat'ed). It makes no other system
// call than open, getdents64 and close. With keep, the directory stays open and its descriptor is
// returned for openAt (the caller closes it with closeDirFD); otherwise fd is -1.
func readDirEntries(dir string, scratch *[]byte, keep bool) (_ []walkEntry, fd int, _ error) {
	out, fd, err := listDir(dir, scratch)
	if fd >= 0 && !keep {
		closeDirFD(fd)
		fd = -1
	}
	return out, fd, err
}

// closeDirFD closes a descriptor readDirEntries kept; -1 is ignored.
func closeDirFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}

// openAt opens name in the directory open as dirfd, or path when dirfd is -1, retrying on EINTR.
func openAt(dirfd int, name, path string, flags int) (int, error) {
	for {
		var fd int
		var err error
		if dirfd >= 0 {
			fd, err = syscall.Openat(dirfd, name, flags, 0)
		} else {
			fd, err = syscall.Open(path, flags, 0)
		}
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// listDir is readDirEntries; the directory's descriptor is returned open (-1 after an error).
func listDir(dir string, scratch *[]byte) (_ []walkEntry, dirfd int, _ error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	ok := false
	defer func() {
		if !ok {
			syscall.Close(fd)
		}
	}()
	if cap(*scratch) < 32<<10 {
		*scratch = make([]byte, 32<<10)
	}
	buf := (*scratch)[:cap(*scratch)]
	var out []walkEntry
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			if len(out) == 0 {
				return nil, -1, &os.PathError{Op: "getdents", Path: dir, Err: err}
			}
			ok = true
			return out, fd, nil
		}
		if n <= 0 {
			ok = true
			return out, fd, nil
		}
		// The names of the batch are substrings of one string: one allocation per getdents.
		names := string(buf[:n])
		if out == nil {
			out = make([]walkEntry, 0, n/32)
		}
		for off := 0; off < n; {
			// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
			rec := buf[off:n]
			if len(rec) < 19 {
				break
			}
			ino := *(*uint64)(unsafe.Pointer(&rec[0]))
			reclen := int(*(*uint16)(unsafe.Pointer(&rec[16])))
			if reclen < 19 || reclen > len(rec) {
				break
			}
			typ := rec[18]
			name := names[off+19 : off+reclen]
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if ino == 0 || name == "." || name == ".." {
				continue
			}
			e := walkEntry{name: name}
			switch typ {
			case syscall.DT_DIR:
				e.typ = fs.ModeDir
			case syscall.DT_REG:
			case syscall.DT_LNK:
				e.typ = fs.ModeSymlink
			case syscall.DT_FIFO:
				e.typ = fs.ModeNamedPipe
			case syscall.DT_SOCK:
				e.typ = fs.ModeSocket
			case syscall.DT_CHR:
				e.typ = fs.ModeDevice | fs.ModeCharDevice
			case syscall.DT_BLK:
				e.typ = fs.ModeDevice
			default:
				fi, err := os.Lstat(filepath.Join(dir, e.name))
				if err != nil {
					continue
				}
				e.typ = fi.Mode().Type()
			}
			out = append(out, e)
		}
	}
}
