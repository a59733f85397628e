package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File permissions: session files hold whole conversations, tool output included, so they are
// private to the user.
const (
	fileMode = 0o600
	dirMode  = 0o700
)

// writer performs the file writes of a Session. The write function is a seam for tests that
// simulate a failing disk.
type writer struct {
	sync  bool
	write func(f *os.File, b []byte) (int, error)
}

func (w *writer) do(f *os.File, b []byte) error {
	write := w.write
	if write == nil {
		write = (*os.File).Write
	}
	if _, err := write(f, b); err != nil {
		return err
	}
	if w.sync {
		return f.Sync()
	}
	return nil
}

// create writes data as the whole content of a new file at path, creating its directory. An
// existing empty file is filled; an existing non-empty file is never overwritten. On failure the
// file is removed again (or truncated back to empty when it existed).
func (w *writer) create(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			if st, serr := f.Stat(); serr != nil || st.Size() != 0 || !st.Mode().IsRegular() {
				f.Close()
				return fmt.Errorf("store: create %s: file already exists and is not empty", path)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	err = w.do(f, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if created {
			os.Remove(path)
		} else {
			os.Truncate(path, 0)
		}
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	return nil
}

// appendLine appends one complete line (ending in \n) to an existing file with a single write. If
// the file does not end in \n (a torn last line from a crash), a \n is written first so the
// fragment stays a line of its own. On failure the file is truncated back to its previous size.
// A missing file is reported with an error matching fs.ErrNotExist.
func (w *writer) appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("store: append %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("store: append %s: %w", path, err)
	}
	size := st.Size()
	buf := line
	if size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err != nil {
			f.Close()
			return fmt.Errorf("store: append %s: %w", path, err)
		}
		if last[0] != '\n' {
			buf = make([]byte, 0, len(line)+1)
			buf = append(append(buf, '\n'), line...)
		}
	}
	err = w.do(f, buf)
	if err != nil {
		f.Truncate(size)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
		os.Truncate(path, size)
	}
	if err != nil {
		return fmt.Errorf("store: append %s: %w", path, err)
	}
	return nil
}

// replace atomically replaces the content of path (write a temporary file, then rename), keeping
// the file's permissions. Used for migrations.
func replace(path string, data []byte) error {
	mode := fs.FileMode(fileMode)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("store: rewrite %s: %w", path, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("store: rewrite %s: %w", path, err)
	}
	return nil
}
