//go:build !linux

package tool

import "os"

// readDirEntries lists dir: names and type bits (symbolic links not followed). Directories are
// never kept open here: fd is -1 (files are opened by their whole path).
func readDirEntries(dir string, _ *[]byte, _ bool) (_ []walkEntry, fd int, _ error) {
	out, err := listDir(dir)
	return out, -1, err
}

// closeDirFD does nothing: readDirEntries keeps no directory open on this system.
func closeDirFD(int) {}

func listDir(dir string) ([]walkEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil && len(des) == 0 {
		return nil, err
	}
	out := make([]walkEntry, len(des))
	for i, de := range des {
		out[i] = walkEntry{name: de.Name(), typ: de.Type()}
	}
	return out, nil
}
