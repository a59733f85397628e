package tool

// Bounded, non-blocking file access for the file tools (issue 10 item 11): a named pipe, a
// device or a socket is refused instead of blocking the tool forever, and no tool holds more of
// a file in memory than it needs.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// MaxFileBytes is the largest file LocalFS.ReadFile loads whole (256 MiB): edit and write work on
// whole files, and a bigger one is refused with ErrFileTooLarge instead of exhausting memory. The
// read tool streams instead and has no such limit.
const MaxFileBytes = 256 << 20

// MaxImageBytes is the largest image file the read tool loads (64 MiB).
const MaxImageBytes = 64 << 20

// ErrNotRegular is the cause of an operation refused because its path is a named pipe, a device,
// a socket or a directory rather than a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrFileTooLarge is the cause of a whole-file load refused because the file is over its limit.
var ErrFileTooLarge = errors.New("file too large")

// kindOf names the type of a non-regular file for error messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// notRegular is the error of op refusing path of mode m.
func notRegular(op, path string, m fs.FileMode) error {
	return fmt.Errorf("%s: %s is %s; only regular files can be used: %w", op, path, kindOf(m), ErrNotRegular)
}

// openRegular opens path with flag without blocking on a FIFO (openNonBlocking) and refuses
// anything but a regular file. The caller closes the file.
func openRegular(op, path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := openNonBlocking(path, flag, perm)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, nil, notRegular(op, path, fi.Mode())
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(op, path, fi.Mode())
	}
	return f, fi, nil
}

// readRegular loads a regular file of at most limit bytes.
func readRegular(path string, limit int64) ([]byte, error) {
	f, fi, err := openRegular("read", path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fmt.Errorf("read: %s is %s, over the %s limit for loading a whole file: %w", path, FormatSize64(fi.Size()), FormatSize64(limit), ErrFileTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("read: %s grew past the %s limit while being read: %w", path, FormatSize64(limit), ErrFileTooLarge)
	}
	return data, nil
}

// writeRegular creates or truncates path and writes data; an existing non-regular file is
// refused before anything is written.
func writeRegular(path string, data []byte) error {
	f, _, err := openRegular("write", path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// FormatSize64 is FormatSize for sizes that may not fit an int.
func FormatSize64(n int64) string {
	if n < 1<<20 {
		return FormatSize(int(n))
	}
	return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
}

// FileOpener is an optional interface of ReadOperations: streaming access to a regular file, so
// the read tool holds only the lines of its window in memory (a 2 GB file, /dev/zero). LocalFS
// implements it.
type FileOpener interface {
	// OpenFile opens path for reading; it returns an error wrapping ErrNotRegular for anything
	// but a regular file, without blocking.
	OpenFile(ctx context.Context, path string) (io.ReadCloser, error)
}

// OpenFile implements FileOpener.
func (LocalFS) OpenFile(_ context.Context, path string) (io.ReadCloser, error) {
	f, _, err := openRegular("read", path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// window is the part of a text file the read tool shows, gathered in one streaming pass.
type window struct {
	total     int      // lines in the file (pi counts the piece after a final newline)
	kept      []string // the selected lines up to one past the truncation limits, each clipped
	selLines  int      // selected lines
	selBytes  int      // bytes of the selection joined with "\n"
	firstLen  int      // full length of the first selected line
	keptBytes int
}

// scanWindow reads r line by line and keeps the lines [start, end) (end < 0: to the end) as far
// as readText's truncation can use them; it counts all lines. Memory stays within the limits of
// the window whatever the file's size or line lengths.
func scanWindow(ctx context.Context, r io.Reader, start, end int) (*window, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	w := &window{}
	var line []byte
	lineLen := 0
	clip := DefaultMaxBytes + 1
	read := 0
	for i := 0; ; {
		chunk, err := br.ReadSlice('\n')
		read += len(chunk)
		if read >= 16<<20 {
			read = 0
			if ctx.Err() != nil {
				return nil, ErrAborted
			}
		}
		complete := err == nil
		body := chunk
		if complete {
			body = chunk[:len(chunk)-1]
		}
		selected := i >= start && (end < 0 || i < end)
		if selected && w.keptBytes <= DefaultMaxBytes && len(w.kept) <= DefaultMaxLines && len(line) < clip {
			line = append(line, body[:min(len(body), clip-len(line))]...)
		}
		lineLen += len(body)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		// A line ended (or the file did: the rest is the last line, maybe empty).
		if selected {
			if w.selLines == 0 {
				w.firstLen = lineLen
			} else {
				w.selBytes++
			}
			w.selLines++
			w.selBytes += lineLen
			if w.keptBytes <= DefaultMaxBytes && len(w.kept) <= DefaultMaxLines {
				s := strings.ToValidUTF8(string(line), "\uFFFD")
				w.kept = append(w.kept, s)
				w.keptBytes += len(s) + 1
			}
		}
		line, lineLen = line[:0], 0
		i++
		if err == io.EOF {
			w.total = i
			return w, nil
		}
	}
}
