//go:build !linux

package tool

import "os"

// readDirEntries lists dir: names and type bits (symbolic links not followed).
func readDirEntries(dir string, _ *[]byte) ([]walkEntry, error) {
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
