#!/usr/bin/env bash
# The offline demo in the interactive terminal UI: the same recorded conversation as run.sh,
# played through the real Anthropic provider code, in a copy of examples/demo/project. The first
# prompt is given on the command line; watch the tool rows stream, press ctrl+o to expand them,
# then /quit (or ctrl+d). No network, no API key. Usage: examples/demo/interactive.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/atomic-demo.XXXXXX")
(cd "$root" && go build -o "$work/bin/atomic" ./cmd/atomic)
cp -R "$here/project" "$work/project"
cd "$work/project"
ATOMIC_CODING_AGENT_DIR="$work/agent" "$work/bin/atomic" --replay "$here/replay.json" "fix the failing test"
echo "== the change:"
diff -u "$here/project/stats.go" stats.go | sed 's/^/   /' || true
echo "== session saved in: $(ls "$work"/agent/sessions/*/*.jsonl)"
