//go:build unix

package host

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the child in its own process group, so a terminal's Ctrl+C reaches atomic
// (which shuts the host down in order) and not the host directly.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
