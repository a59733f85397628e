// Package tool defines the Tool interface the agent calls and the built-in tools of atomic (read,
// bash, edit, write, ls, find, grep) with the shapes and limits of ../shared/spec/tools.md (pi column;
// later pi's multi-edit edits[] and file mutation queue).
//
// Built-in tools reach the file system and shell only through the operations interfaces in
// operations.go, so they can run against a remote machine (seed 004, "Remote Execution"); LocalFS and
// LocalShell are the defaults. find and grep walk the tree in-process (walk.go, gitignore.go) instead
// of running fd and ripgrep. Builtins builds the whole set; DefaultNames and AllNames name it.
//
// tool imports llm and internal/procgroup; nothing above it. Tools are safe for concurrent use; file mutations (edit,
// write) are serialised per file by a shared MutationQueue.
package tool
