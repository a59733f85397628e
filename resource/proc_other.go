//go:build !unix

package resource

import "os/exec"

// startInGroup leaves cmd as it is where process groups do not exist; the context's
// cancellation kills the command itself.
func startInGroup(*exec.Cmd) (release func()) { return func() {} }
