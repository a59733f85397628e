// Package procgroup ties process groups to atomic's lifetime (issue 10 item 13): a child that
// atomic starts must not outlive it, even when atomic is killed with SIGKILL and cannot clean up.
//
// A Group is a new process group led by a tiny watcher process (a POSIX shell blocked reading a
// pipe whose only writer is atomic). Children started into the group with Attr join it. When
// atomic dies, for any reason, the kernel closes the pipe, the watcher's read returns, and the
// watcher kills its whole group. On Linux every child also gets PR_SET_PDEATHSIG (SIGKILL), so the
// direct child dies at once even before the watcher acts.
//
// Release ends the watcher without touching the rest of the group (a command that finished
// normally may leave background jobs); Kill ends the whole group. Where process groups do not
// exist (Windows) New returns ErrUnsupported and callers fall back to their own handling.
package procgroup
