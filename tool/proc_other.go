//go:build !unix

package tool

import (
	"fmt"

	"github.com/atomic-cli/atomic/internal/procgroup"
	"os"
	"os/exec"
	"strconv"
)

// setProcessGroup is a no-op where process groups do not exist; killProcessTree uses taskkill.
func setProcessGroup(*exec.Cmd) {}

// lifeGroup gives no process group here (there are none); killProcessTree handles the tree.
func lifeGroup(*exec.Cmd) *procgroup.Group { return nil }

// killProcessTree kills p and its descendants with taskkill /F /T, falling back to p alone
// (tools.md §5.1).
func killProcessTree(p *os.Process) {
	if err := exec.Command("taskkill", "/F", "/T", "/PID", strconv.Itoa(p.Pid)).Run(); err != nil {
		_ = p.Kill()
	}
}

// access approximates access(2) by opening path with the requested permissions.
func access(path string, mode AccessMode) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	if mode&AccessRead != 0 {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		f.Close()
	}
	if mode&AccessWrite != 0 {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		f.Close()
	}
	return nil
}

// errnoNameOS has no errno table here; errnoName falls back to fs sentinel errors.
func errnoNameOS(error) string { return "" }

// openNonBlocking refuses an existing non-regular file before opening path (there are no FIFOs
// to block on here).
func openNonBlocking(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular("open", path, fi.Mode())
	}
	return os.OpenFile(path, flag, perm)
}

// checkPrivateDir refuses a spill directory that is a symbolic link or not a directory.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("bash spill directory %s: not a real directory; refusing it", dir)
	}
	return nil
}
