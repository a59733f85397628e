#!/usr/bin/env bash
# Render cost of an extension component (issue 12 acceptance, "Render cost"): frames per second
# and CPU while one answer of 2,000 text deltas (1 ms apart) streams and a factory widget of an
# unchanged TypeScript extension re-renders on every delta (message_update -> setText ->
# tui.requestRender()). Runs atomic and pi 0.73.1 side by side in tmux (120x40) against the same
# fake LLM (cmd/fakellm), each with and without the extension (the baseline).
#   frames  the terminal output's synchronized-output starts (ESC[?2026h), captured with
#           tmux pipe-pane; atomic paints at most one frame per 16 ms (tui.frameInterval)
#   fps     frames / the stream's wall time (prompt sent -> the answer's end marker on screen)
#   cpu     utime+stime (/proc/<pid>/stat) of the UI process and its children still running
#           (atomic's Node extension host; pi runs extensions in its own process), in ms
#   widget  the last count the widget showed (deltas it saw)
# Each number is the median of N runs (default 3). A manual bench, not part of `go test`.
# Needs tmux, go, node and pi installed with `npm ci --prefix compat/pi`.
# Usage: bench/ui-component-fps.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${1:-3}
pi_cli=$root/compat/pi/node_modules/@mariozechner/pi-coding-agent/dist/cli.js
[ -f "$pi_cli" ] || { echo "pi not installed: run npm ci --prefix compat/pi" >&2; exit 1; }
command -v tmux >/dev/null || { echo "tmux not found" >&2; exit 1; }

tmp=$(mktemp -d /tmp/ui-fps.XXXXXX)
sock=$tmp/tmux.sock
fake_pid=
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null || true
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
tm() { tmux -S "$sock" "$@"; }
hz=$(getconf CLK_TCK)

go build -o "$tmp/atomic" ./cmd/atomic
go build -o "$tmp/fakellm" ./cmd/fakellm

python3 - "$tmp/script.json" <<'PY'
import json, sys
turn = {"text": "word " * 2000 + "END-OF-ANSWER", "chunks": 2000, "delay_ms": 1}
json.dump({"turns": [turn] * 16}, open(sys.argv[1], "w"))
PY

cat >"$tmp/widget.ts" <<'TS'
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Text } from "@mariozechner/pi-tui";

// A factory widget that re-renders on every streamed delta.
export default function (pi: ExtensionAPI) {
	let deltas = 0;
	let text: Text | undefined;
	let tui: { requestRender(): void } | undefined;
	pi.on("session_start", (_e, ctx) => {
		ctx.ui.setWidget("deltas", (t) => {
			tui = t;
			text = new Text("DELTAS 0", 0, 0);
			return text;
		});
	});
	pi.on("message_update", () => {
		deltas++;
		text?.setText("DELTAS " + deltas);
		tui?.requestRender();
	});
}
TS

start_fake() {
	[ -n "$fake_pid" ] && { kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; }
	rm -f "$tmp/fake.out"
	"$tmp/fakellm" "$tmp/script.json" >"$tmp/fake.out" 2>/dev/null &
	fake_pid=$!
	local url=
	for _ in $(seq 200); do url=$(grep -o 'http://[^ ]*' "$tmp/fake.out" 2>/dev/null | head -1 || true); [ -n "$url" ] && break; sleep 0.02; done
	[ -n "$url" ] || { echo "fakellm did not print its URL" >&2; exit 1; }
	local models='{"providers":{"fake":{"baseUrl":"'$url'","api":"anthropic-messages","apiKey":"x","models":[{"id":"fake-model","name":"Fake Model","contextWindow":100000,"maxTokens":4096}]}}}'
	for d in "$tmp/agent-atomic" "$tmp/agent-pi"; do mkdir -p "$d"; printf '%s\n' "$models" >"$d/models.json"; done
}
mkdir -p "$tmp/work" "$tmp/home" "$tmp/agent-atomic" "$tmp/agent-pi"
printf '{"lastChangelogVersion":"0.73.1","quietStartup":true}\n' >"$tmp/agent-pi/settings.json"

now_ms() { local t=$EPOCHREALTIME; echo $(( ${t%.*} * 1000 + 10#${t#*.} / 1000 )); }
# cpu_tree_ms PID: utime+stime of PID and of its live descendants, in ms.
cpu_tree_ms() {
	local total=0 p s
	for p in $1 $(pgrep -P "$1" 2>/dev/null || true) $(for c in $(pgrep -P "$1" 2>/dev/null || true); do pgrep -P "$c" 2>/dev/null || true; done); do
		[ -r "/proc/$p/stat" ] || continue
		s=$(cut -d')' -f2- "/proc/$p/stat"); set -- $s
		total=$(( total + ${12} + ${13} ))
	done
	echo $(( total * 1000 / hz ))
}
wait_for() {
	local text=$1 limit=$2 start; start=$(now_ms)
	while :; do
		tm capture-pane -p -t b 2>/dev/null | grep -qF -- "$text" && return 0
		(( $(now_ms) - start > limit )) && { echo "timeout waiting for '$text'" >&2; tm capture-pane -p -t b >&2 || true; return 1; }
		sleep 0.005
	done
}

# run WHO EXT: prints "frames fps cpu_ms wall_ms widget" for one streamed answer.
run() {
	local who=$1 ext=$2 cmd extarg=
	[ "$ext" = yes ] && extarg="-e $tmp/widget.ts"
	if [ "$who" = atomic ]; then
		cmd="env HOME=$tmp/home ATOMIC_CODING_AGENT_DIR=$tmp/agent-atomic $tmp/atomic --no-session --model fake/fake-model $extarg"
	else
		cmd="env HOME=$tmp/home PI_CODING_AGENT_DIR=$tmp/agent-pi PI_OFFLINE=1 node $pi_cli --offline --no-session --no-skills --no-prompt-templates --no-context-files --model fake/fake-model $extarg"
	fi
	start_fake
	tm kill-session -t b 2>/dev/null || true
	tm new-session -d -s b -x 120 -y 40 -c "$tmp/work" "exec $cmd"
	wait_for fake-model 60000
	[ "$ext" = yes ] && wait_for "DELTAS 0" 20000
	sleep 1
	local pid; pid=$(tm display-message -p -t b '#{pane_pid}')
	tm pipe-pane -t b -o "cat > $tmp/out.bytes"
	local c0 t0 c1 t1
	c0=$(cpu_tree_ms "$pid"); t0=$(now_ms)
	tm send-keys -t b -l "stream please"; tm send-keys -t b Enter
	wait_for END-OF-ANSWER 120000
	t1=$(now_ms); c1=$(cpu_tree_ms "$pid")
	sleep 0.3
	tm pipe-pane -t b
	local frames widget=-
	frames=$(grep -a -o $'\e\[?2026h' "$tmp/out.bytes" | wc -l)
	[ "$ext" = yes ] && widget=$(tm capture-pane -p -t b | grep -o 'DELTAS [0-9]*' | tail -1 | cut -d' ' -f2)
	echo "$frames $(( frames * 1000 / (t1 - t0 > 0 ? t1 - t0 : 1) )) $((c1 - c0)) $((t1 - t0)) $widget"
	tm kill-session -t b
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-8s %-9s %7s %5s %7s %8s %7s\n' program widget frames fps cpu_ms wall_ms deltas
for who in atomic pi; do
	for ext in no yes; do
		: >"$tmp/res"
		for _ in $(seq "$runs"); do run "$who" "$ext" >>"$tmp/res"; done
		printf '%-8s %-9s %7s %5s %7s %8s %7s\n' "$who" "$ext" \
			"$(cut -d' ' -f1 "$tmp/res" | median)" "$(cut -d' ' -f2 "$tmp/res" | median)" \
			"$(cut -d' ' -f3 "$tmp/res" | median)" "$(cut -d' ' -f4 "$tmp/res" | median)" "$(cut -d' ' -f5 "$tmp/res" | tail -1)"
	done
done
