//go:build linux

package tool

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// readDirEntries lists dir with getdents64 into a reusable buffer: names and type bits
// (symbolic links not followed; an entry of unknown type is lstat'ed). It makes no other system
// call than open, getdents64 and close.
func readDirEntries(dir string, scratch *[]byte) ([]walkEntry, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
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
				return nil, &os.PathError{Op: "getdents", Path: dir, Err: err}
			}
			return out, nil
		}
		if n <= 0 {
			return out, nil
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
			name := rec[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			off += reclen
			if ino == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			e := walkEntry{name: string(name)}
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
