package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// The operations interfaces are the only way the built-in tools reach a file system or a shell
// (seed 004, "Remote Execution"): a tool built with other operations runs against a remote
// machine, a container or a test double. LocalFS and LocalShell are the defaults. Paths handed to
// operations are absolute. Implementations must be safe for concurrent use.

// AccessMode selects what Access checks, with POSIX access(2) bit values.
type AccessMode uint32

// Access modes; combine AccessRead|AccessWrite.
const (
	AccessExists AccessMode = 0
	AccessWrite  AccessMode = 2
	AccessRead   AccessMode = 4
)

// ReadOperations are what the read tool needs.
type ReadOperations interface {
	// Access returns an error when path does not exist or lacks the permissions in mode.
	Access(ctx context.Context, path string, mode AccessMode) error
	// ReadFile returns the whole content of path.
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// WriteOperations are what the write tool needs.
type WriteOperations interface {
	// MkdirAll creates dir and its missing parents.
	MkdirAll(ctx context.Context, dir string) error
	// WriteFile creates or truncates path and writes data.
	WriteFile(ctx context.Context, path string, data []byte) error
}

// EditOperations are what the edit tool needs.
type EditOperations interface {
	Access(ctx context.Context, path string, mode AccessMode) error
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte) error
}

// LsOperations are what the ls tool needs.
type LsOperations interface {
	// Stat follows symbolic links.
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	// ReadDir returns the names of the entries of dir, in any order.
	ReadDir(ctx context.Context, dir string) ([]string, error)
}

// WalkFunc receives one entry of a Walk: its path relative to the walk root with "/" separators
// and its type bits (fs.ModeDir, fs.ModeSymlink, 0 for a regular file, ...). Returning
// fs.SkipAll ends the walk without error; any other error ends it with that error.
type WalkFunc func(rel string, typ fs.FileMode) error

// Walker lists a directory tree the way find and grep see it: hidden entries included, ".git"
// and "node_modules" directories pruned, every .gitignore applied below its own directory only
// (tools.md §9.1, this project's contract), symbolic links reported but not followed.
type Walker interface {
	// Walk calls fn once per entry below root (root itself excluded), never concurrently, in no
	// particular order.
	Walk(ctx context.Context, root string, fn WalkFunc) error
}

// FindOperations are what the find tool needs.
type FindOperations interface {
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	Walker
}

// GrepOperations are what the grep tool needs.
type GrepOperations interface {
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	ReadFile(ctx context.Context, path string) ([]byte, error)
	Walker
}

// ExecOptions are the per-run settings of BashOperations.Exec.
type ExecOptions struct {
	// Env is the environment of the command as "KEY=value" pairs; nil means the current process
	// environment.
	Env []string
	// OnData receives the merged stdout and stderr of the command in arrival order. It is never
	// called concurrently, and p is only valid during the call. It may be nil.
	OnData func(p []byte)
}

// NoExitCode is the exit code Exec reports when the command ended without one (killed by a
// signal that was not ours); pi treats it as success (tools.md §5.1).
const NoExitCode = -1

// BashOperations are what the bash tool needs.
type BashOperations interface {
	// Exec runs command through a shell in cwd and returns its exit code (or NoExitCode) once it
	// has exited and its output has been delivered. When ctx is done first, Exec kills the
	// command's whole process tree and returns context.Cause(ctx).
	Exec(ctx context.Context, command, cwd string, opts ExecOptions) (exitCode int, err error)
}

// LocalFS implements every file operations interface on the local file system. The zero value is
// ready to use.
type LocalFS struct{}

var (
	_ ReadOperations  = LocalFS{}
	_ WriteOperations = LocalFS{}
	_ EditOperations  = LocalFS{}
	_ LsOperations    = LocalFS{}
	_ FindOperations  = LocalFS{}
	_ GrepOperations  = LocalFS{}
	_ BashOperations  = LocalShell{}
)

// Access implements ReadOperations and EditOperations.
func (LocalFS) Access(_ context.Context, path string, mode AccessMode) error {
	return access(path, mode)
}

// ReadFile implements ReadOperations, EditOperations and GrepOperations. It refuses, without
// blocking, anything but a regular file (ErrNotRegular: a FIFO, a device, a socket) and a file
// over MaxFileBytes (ErrFileTooLarge).
func (LocalFS) ReadFile(_ context.Context, path string) ([]byte, error) {
	return readRegular(path, MaxFileBytes)
}

// WriteFile implements WriteOperations and EditOperations; a new file gets mode 0644 (before
// umask), an existing one keeps its mode. An existing FIFO, device or socket is refused
// (ErrNotRegular) without blocking and without writing.
func (LocalFS) WriteFile(_ context.Context, path string, data []byte) error {
	return writeRegular(path, data)
}

// MkdirAll implements WriteOperations; new directories get mode 0755 (before umask).
func (LocalFS) MkdirAll(_ context.Context, dir string) error { return os.MkdirAll(dir, 0o755) }

// Stat implements LsOperations, FindOperations and GrepOperations.
func (LocalFS) Stat(_ context.Context, path string) (fs.FileInfo, error) { return os.Stat(path) }

// ReadDir implements LsOperations.
func (LocalFS) ReadDir(_ context.Context, dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// Walk implements Walker with a parallel directory walk (walk.go).
func (LocalFS) Walk(ctx context.Context, root string, fn WalkFunc) error {
	return walkLocal(ctx, root, fn)
}

// LocalShell implements BashOperations with a local shell. Each command runs as
// "<shell> -c <command>" in its own process group, stdin closed, stdout and stderr merged. The
// group is tied to atomic's life (internal/procgroup): when atomic dies, even by SIGKILL, a
// running command's whole group is killed.
type LocalShell struct {
	// ShellPath is the shell to use (setting shellPath); it must exist. Empty: /bin/bash, else
	// bash on PATH, else sh (tools.md §5.1).
	ShellPath string
	// Args are the arguments before the command; nil means ["-c"]. PowerShell's are
	// PowerShellArgs.
	Args []string
}

// drainGrace bounds how long Exec keeps reading after the shell has exited: background processes
// that inherited the output pipe must not hold the call open.
const drainGrace = 250 * time.Millisecond

// Exec implements BashOperations. Errors: a missing cwd ("Working directory does not exist"), a
// missing ShellPath, a failed start, or context.Cause(ctx) after the process tree was killed.
func (s LocalShell) Exec(ctx context.Context, command, cwd string, opts ExecOptions) (int, error) {
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return NoExitCode, fmt.Errorf("Working directory does not exist: %s\nCannot execute bash commands.", cwd)
	}
	shell, err := s.shell()
	if err != nil {
		return NoExitCode, err
	}
	if err := ctx.Err(); err != nil {
		return NoExitCode, context.Cause(ctx)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return NoExitCode, fmt.Errorf("bash: output pipe: %w", err)
	}
	defer r.Close()
	args := s.Args
	if args == nil {
		args = []string{"-c"}
	}
	cmd := exec.Command(shell, append(slices.Clip(args), command)...)
	cmd.Dir = cwd
	cmd.Env = opts.Env
	cmd.Stdout, cmd.Stderr = w, w
	group := lifeGroup(cmd) // nil: no watcher; the shell leads its own group
	err = cmd.Start()
	w.Close()
	if err != nil {
		if group != nil {
			group.Kill()
		}
		return NoExitCode, fmt.Errorf("bash: start %s: %w", shell, err)
	}

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32*1024)
		for {
			n, err := r.Read(buf)
			if n > 0 && opts.OnData != nil {
				opts.OnData(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var cancelled bool
	select {
	case <-waitDone:
	case <-ctx.Done():
		cancelled = true
		if group != nil {
			group.Kill()
		} else {
			killProcessTree(cmd.Process)
		}
		<-waitDone
	}
	if group != nil && !cancelled {
		group.Release() // background jobs of a finished command keep running, as in pi
	}
	select {
	case <-readDone:
	case <-time.After(drainGrace):
		_ = r.SetReadDeadline(time.Now())
		<-readDone
	}
	if cancelled {
		return NoExitCode, context.Cause(ctx)
	}
	return cmd.ProcessState.ExitCode(), nil
}

// shell resolves the shell binary (tools.md §5.1).
func (s LocalShell) shell() (string, error) {
	if s.ShellPath != "" {
		if _, err := os.Stat(s.ShellPath); err != nil {
			return "", fmt.Errorf("Custom shell path not found: %s", s.ShellPath)
		}
		return s.ShellPath, nil
	}
	return defaultShell(), nil
}

// defaultShell is /bin/bash, else bash on PATH, else sh.
func defaultShell() string {
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "/bin/bash"
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

// errnoName returns the Node-style error code (ENOENT, EACCES, ...) of a file system error, for
// messages that quote it (tools.md §6.2); "UNKNOWN" when there is none.
func errnoName(err error) string {
	if name := errnoNameOS(err); name != "" {
		return name
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "ENOENT"
	case errors.Is(err, fs.ErrPermission):
		return "EACCES"
	case errors.Is(err, fs.ErrExist):
		return "EEXIST"
	}
	return "UNKNOWN"
}

// hasNUL reports whether b looks binary the way ripgrep decides it: it contains a NUL byte.
func hasNUL(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }

// cleanRel turns an OS-relative path into the "/"-separated form tools print.
func cleanRel(rel string) string { return filepath.ToSlash(rel) }
