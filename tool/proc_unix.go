//go:build unix

package tool

import (
	"errors"

	"fmt"
	"github.com/atomic-cli/atomic/internal/procgroup"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in a process group of its own, so that killProcessTree can
// reach every process it spawned.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// lifeGroup prepares cmd to start in a process group tied to atomic's life (procgroup: killed
// even when atomic is killed with SIGKILL; parent-death signal on Linux). When the group's watcher
// cannot start, cmd still gets a process group of its own and nil is returned.
func lifeGroup(cmd *exec.Cmd) *procgroup.Group {
	g, err := procgroup.New()
	if err != nil {
		setProcessGroup(cmd)
		procgroup.SetPdeathsig(cmd.SysProcAttr)
		return nil
	}
	cmd.SysProcAttr = g.Attr()
	return g
}

// killProcessTree sends SIGKILL to the process group led by p, falling back to p alone
// (tools.md §5.1).
func killProcessTree(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}

// access checks path with access(2).
func access(path string, mode AccessMode) error {
	if err := syscall.Access(path, uint32(mode)); err != nil {
		return &os.PathError{Op: "access", Path: path, Err: err}
	}
	return nil
}

var errnoNames = map[syscall.Errno]string{
	syscall.ENOENT: "ENOENT", syscall.EACCES: "EACCES", syscall.EPERM: "EPERM",
	syscall.EISDIR: "EISDIR", syscall.ENOTDIR: "ENOTDIR", syscall.EROFS: "EROFS",
	syscall.ELOOP: "ELOOP", syscall.ENAMETOOLONG: "ENAMETOOLONG", syscall.EBUSY: "EBUSY",
	syscall.ENOSPC: "ENOSPC", syscall.EIO: "EIO", syscall.EEXIST: "EEXIST",
}

// errnoNameOS returns the name of the errno inside err, or "".
func errnoNameOS(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errnoNames[errno]
	}
	return ""
}

// openNonBlocking opens path with O_NONBLOCK, so that opening a FIFO without a writer (or, for
// writing, without a reader) returns at once; regular files ignore the flag.
func openNonBlocking(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
}

// checkPrivateDir refuses a spill directory that is a symbolic link, not a directory, or not
// owned by the current user, and makes it 0700.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("bash spill directory %s: not a real directory (a symbolic link?); refusing it", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("bash spill directory %s: owned by uid %d, not by us; refusing it", dir, st.Uid)
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}
