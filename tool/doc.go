// Package tool defines the Tool interface the agent calls and the built-in tools of atomic (read,
// bash, edit, write, ls, find, grep) with the shapes and limits of ../shared/spec/tools.md (pi column).
//
// Built-in tools reach the file system and shell only through the operations interfaces in
// operations.go, so they can run against a remote machine (seed 004, "Remote Execution").
// tool imports llm and nothing above it. Tools are safe for concurrent use; file mutations are
// serialised per file by the shared MutationQueue.
package tool
