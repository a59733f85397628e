// Package pi tests atomic against the real pi 0.73.1 (npm @mariozechner/pi-coding-agent, pinned
// in package.json): session files atomic writes must open and continue in pi, and pi's in atomic.
// The tests need `npm ci --prefix compat/pi` (run by .ci/run); without node_modules they skip
// and say so.
package pi
