//go:build !unix

package tool

import "errors"

// readSearchable reads a file for grep (see the unix version): ok is false for anything but a
// readable regular file, tooBig for a file over limit; the caller checks a file that matched for
// NUL bytes (binary). buf and probe are not used.
func readSearchable(_ int, _, path string, buf *[]byte, limit int64, _ func([]byte) bool) (data []byte, tooBig, ok bool) {
	data, err := readRegular(path, limit)
	if err != nil {
		if errors.Is(err, ErrFileTooLarge) {
			return nil, true, false
		}
		return nil, false, false
	}
	return data, false, true
}
