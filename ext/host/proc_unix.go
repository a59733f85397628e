//go:build unix

package host

import (
	"os/exec"
	"syscall"

	"github.com/atomic-cli/atomic/internal/procgroup"
)

// setProcAttr puts the child in its own process group, so a terminal's Ctrl+C reaches atomic
// (which shuts the host down in order) and not the host directly; on Linux the host also gets
// the parent-death signal, so it dies with atomic.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	procgroup.SetPdeathsig(cmd.SysProcAttr)
}
