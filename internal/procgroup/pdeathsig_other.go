//go:build unix && !linux

package procgroup

import "syscall"

// setPdeathsig does nothing: only Linux has a parent-death signal; the group watcher covers it.
func setPdeathsig(*syscall.SysProcAttr) {}
