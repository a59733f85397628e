//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func startSleep(t *testing.T, g *Group) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = g.Attr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// exited waits (bounded) for cmd to exit and reports whether it did.
func exited(cmd *exec.Cmd) bool {
	done := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(20 * time.Second):
		return false
	}
}

func TestKillEndsTheGroup(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cmd := startSleep(t, g)
	if pgid, _ := syscall.Getpgid(cmd.Process.Pid); pgid != g.Pgid() {
		t.Fatalf("child in group %d, want %d", pgid, g.Pgid())
	}
	g.Kill()
	if !exited(cmd) {
		t.Fatal("the group's member survived Kill")
	}
}

func TestReleaseKeepsTheGroup(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cmd := startSleep(t, g)
	g.Release()
	if err := syscall.Kill(cmd.Process.Pid, 0); err != nil {
		t.Fatalf("Release ended a member of the group: %v", err)
	}
}

// When the watcher's pipe closes (what happens when atomic dies), the watcher kills its group.
func TestWatcherKillsGroupWhenWeGoAway(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cmd := startSleep(t, g)
	_ = g.pipe.Close() // the kernel does this when our process dies
	if !exited(cmd) {
		t.Fatal("the group's member survived the watcher's pipe closing")
	}
	<-g.waited
}

func TestGuardJoinsAnExistingGroup(t *testing.T) {
	leader := exec.Command("sleep", "300")
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = leader.Process.Kill(); _ = leader.Wait() })
	g, err := Guard(leader.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	_ = g.pipe.Close()
	if !exited(leader) {
		t.Fatal("the guarded group's leader survived")
	}
}
