#!/usr/bin/env bash
# The offline demo: atomic fixes a failing Go test in a copy of examples/demo/project, playing a
# recorded model conversation (replay.json) through the real Anthropic provider code. No network,
# no API key. Usage: examples/demo/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/atomic-demo.XXXXXX")

echo "== building atomic"
(cd "$root" && go build -o "$work/bin/atomic" ./cmd/atomic)

cp -R "$here/project" "$work/project"
cd "$work/project"
echo "== the test fails before:"
go test ./... 2>&1 | sed 's/^/   /' || true

echo "== atomic -p \"fix the failing test\"   (in $work/project)"
start=$(date +%s%N)
ATOMIC_CODING_AGENT_DIR="$work/agent" "$work/bin/atomic" --replay "$here/replay.json" -p "fix the failing test"
end=$(date +%s%N)

echo "== the change:"
diff -u "$here/project/stats.go" stats.go | sed 's/^/   /' || true
echo "== the test passes after:"
go test -count=1 ./... 2>&1 | sed 's/^/   /'
echo "== session saved in: $(ls "$work"/agent/sessions/*/*.jsonl)"
echo "== atomic ran for $(( (end - start) / 1000000 )) ms wall time, including the agent's own 'go test' call"
