//go:build unix

package resource

import (
	"os/exec"
	"syscall"

	"github.com/atomic-cli/atomic/internal/procgroup"
)

// startInGroup prepares cmd to run in a process group tied to atomic's life (procgroup), so an
// npm or git command and everything it starts die with atomic and with a cancelled context.
// The returned release ends the group's watcher after cmd finished.
func startInGroup(cmd *exec.Cmd) (release func()) {
	g, err := procgroup.New()
	if err != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		procgroup.SetPdeathsig(cmd.SysProcAttr)
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		return func() {}
	}
	cmd.SysProcAttr = g.Attr()
	cmd.Cancel = func() error { g.Kill(); return nil }
	return g.Release
}
