// Package bench holds the end-to-end benchmarks of atomic that the issue targets name: start-up
// of the real binary, a whole print-mode run against the fake LLM server, JSON-mode streaming of
// 10,000 text deltas, and the interactive mode driven in a pseudo-terminal (tui_test.go: first
// frame, streaming CPU, idle output, spinner bytes, a 10,000-message resume). They are `go test
// -bench` benchmarks (never timed assertions); run them with bench/run.sh, which also reports
// peak RSS.
package bench
