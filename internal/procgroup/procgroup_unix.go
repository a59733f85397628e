//go:build unix

package procgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// ErrUnsupported is returned by New where process groups do not exist.
var ErrUnsupported = errors.New("procgroup: process groups are not supported on this system")

// watcherScript blocks until stdin reaches EOF (atomic died or released it with a kill), then
// kills the watcher's own process group.
const watcherScript = "read x; kill -KILL 0"

// Group is a process group tied to the current process's life. It is safe for concurrent use.
type Group struct {
	pgid    int
	watcher *exec.Cmd
	pipe    *os.File // write end: held open by us only (close-on-exec)
	waited  chan struct{}
}

// New starts the watcher of a new process group. Errors name the failed step.
func New() (*Group, error) { return start(0) }

// start starts a watcher in group pgid, or in a new group led by the watcher when pgid is 0.
func start(pgid int) (*Group, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("procgroup: watcher pipe: %w", err)
	}
	cmd := exec.Command("/bin/sh", "-c", watcherScript)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("procgroup: start the watcher of process group %d: %w", pgid, err)
	}
	r.Close()
	if pgid == 0 {
		pgid = cmd.Process.Pid
	}
	g := &Group{pgid: pgid, watcher: cmd, pipe: w, waited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(g.waited)
	}()
	return g, nil
}

// Pgid returns the group's id.
func (g *Group) Pgid() int { return g.pgid }

// Attr returns the attributes that start a child inside the group (with the parent-death signal
// on Linux). It is meant for exec.Cmd.SysProcAttr.
func (g *Group) Attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pgid: g.pgid}
	setPdeathsig(a)
	return a
}

// Release ends the watcher only; the rest of the group keeps running (background jobs of a
// command that finished). It waits for the watcher to be reaped.
func (g *Group) Release() {
	_ = g.watcher.Process.Signal(syscall.SIGKILL)
	<-g.waited
	_ = g.pipe.Close()
}

// Kill sends SIGKILL to every process of the group, the watcher included, and waits for the
// watcher to be reaped.
func (g *Group) Kill() {
	_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
	<-g.waited
	_ = g.pipe.Close()
}

// Guard ties an existing process group (led by a child we started, e.g. with Setpgid) to our
// life: a watcher joins that group and kills it when we die. Release and Kill act as on a Group
// made by New.
func Guard(pgid int) (*Group, error) { return start(pgid) }

// SetPdeathsig adds the parent-death signal (SIGKILL) to a where the system has one (Linux).
func SetPdeathsig(a *syscall.SysProcAttr) { setPdeathsig(a) }
