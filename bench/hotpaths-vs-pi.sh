#!/usr/bin/env bash
# Times the hot paths of issue 14 items 2-5 side by side with pi 0.73.1, each a whole `-p` run
# against the same fake LLM (cmd/fakellm, Anthropic Messages API, no delay between chunks):
#   events100  a 2,000-delta answer with one extension holding 100 message_update handlers
#   events1    the same answer with one message_update handler
#   stream20k  a 20,000-delta answer with one subscriber that reads the whole partial message
#   resume100k resuming a 100,000-entry session (--session) and answering one prompt
#   resume10k  the same with the session's first 10,000 entries (growth 10k -> 100k)
#   ts1        a one-line answer with one TypeScript extension loaded (start-up)
#   bare       the same run without extensions (the floor of the ts1 and events runs)
# Runs alternate atomic / pi, PAIRS pairs per case (default 5, after one unmeasured warm-up pair);
# each column is the median: wall ms, CPU ms (user+sys) and max RSS MB (/usr/bin/time). The ratio
# columns are pi/atomic (above 1: atomic is faster). The machine is shared: CPU time is the
# steadier number.
# Needs go, node and pi installed with: npm ci --prefix compat/pi
# Usage: bench/hotpaths-vs-pi.sh [PAIRS] [CASE...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pairs=${1:-5}
shift || true
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(bare ts1 events1 events100 stream20k resume10k resume100k)
pi_cli=$root/compat/pi/node_modules/@mariozechner/pi-coding-agent/dist/cli.js
[ -f "$pi_cli" ] || { echo "pi not installed: run npm ci --prefix compat/pi" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found" >&2; exit 1; }

tmp=$(mktemp -d /tmp/hotpaths-vs-pi.XXXXXX)
fake_pid=
cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/atomic" ./cmd/atomic
go build -o "$tmp/fakellm" ./cmd/fakellm
mkdir -p "$tmp/work" "$tmp/home" "$tmp/agent-atomic" "$tmp/agent-pi"
printf '{"lastChangelogVersion":"0.73.1","quietStartup":true}\n' >"$tmp/agent-pi/settings.json"

# script FILE CHUNKS: every request gets one answer of CHUNKS text deltas, no delay.
script() {
	python3 - "$1" "$2" <<'PY'
import json, sys
n = int(sys.argv[2])
turn = {"text": "word " * n if n > 1 else "done", "chunks": n, "delay_ms": 0}
json.dump({"turns": [turn] * 400}, open(sys.argv[1], "w"))
PY
}
# start_fake SCRIPT: a fresh fake LLM serving SCRIPT, and both models.json pointing at it.
start_fake() {
	[ -n "$fake_pid" ] && { kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; }
	rm -f "$tmp/fake.out"
	"$tmp/fakellm" "$1" >"$tmp/fake.out" 2>/dev/null &
	fake_pid=$!
	local url=
	for _ in $(seq 200); do url=$(grep -o 'http://[^ ]*' "$tmp/fake.out" 2>/dev/null | head -1 || true); [ -n "$url" ] && break; sleep 0.02; done
	[ -n "$url" ] || { echo "fakellm did not print its URL" >&2; exit 1; }
	local models='{"providers":{"fake":{"baseUrl":"'$url'","api":"anthropic-messages","apiKey":"x","models":[{"id":"fake-model","name":"Fake Model","contextWindow":100000000,"maxTokens":4096}]}}}'
	for d in "$tmp/agent-atomic" "$tmp/agent-pi"; do printf '%s\n' "$models" >"$d/models.json"; done
}

# The extensions: N message_update handlers that read the whole partial message, as a
# subscriber that renders it would.
handlers_ext() {
	cat >"$1" <<TS
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
let chars = 0;
export default function (pi: ExtensionAPI) {
	for (let k = 0; k < $2; k++) {
		pi.on("message_update", (event: any) => {
			const m = event.message;
			for (const b of m.content) if (b.type === "text") chars += b.text.length;
		});
	}
}
TS
}
handlers_ext "$tmp/h1.ts" 1
handlers_ext "$tmp/h100.ts" 100
cat >"$tmp/tool.ts" <<'TS'
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";
export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "hello",
		label: "Hello",
		description: "Says hello",
		parameters: Type.Object({ name: Type.String() }),
		async execute(_id, params) {
			return { content: [{ type: "text", text: `hello ${params.name}` }], details: {} };
		},
	});
	pi.on("session_start", () => {});
}
TS

# A v3 session of 100,000 messages (50,000 user/assistant pairs), the format both read.
python3 - "$tmp/long.jsonl" "$tmp/work" <<'PY'
import json, sys
out, cwd = sys.argv[1], sys.argv[2]
ts = lambda ms: "2026-05-01T%02d:%02d:%02d.%03dZ" % ((ms // 3600000) % 24, (ms // 60000) % 60, (ms // 1000) % 60, ms % 1000)
base = 1777627800000
with open(out, "w") as f:
    f.write(json.dumps({"type": "session", "version": 3, "id": "0196a000-0000-7000-8000-000000000001", "timestamp": ts(0), "cwd": cwd}) + "\n")
    parent = None
    for i in range(100000):
        k = i // 2
        if i % 2 == 0:
            msg = {"role": "user", "content": [{"type": "text", "text": "question %d: what does function f%d do?" % (k, k)}], "timestamp": base + i}
        else:
            msg = {"role": "assistant", "content": [{"type": "text", "text": "## Answer %d\n\nFunction `f%d` returns **%d**.\n\n- it is pure\n- it is fast\n" % (k, k, k)}],
                   "api": "anthropic-messages", "provider": "fake", "model": "fake-model",
                   "usage": {"input": 10, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 20,
                             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                   "stopReason": "stop", "timestamp": base + i}
        eid = "%08x" % (i + 1)
        f.write(json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": ts(i), "message": msg}) + "\n")
        parent = eid
PY
head -n 10001 "$tmp/long.jsonl" >"$tmp/long10k.jsonl"

# run WHO ARGS...: one -p run; prints "wall_ms cpu_ms rss_mb".
run() {
	local who=$1 out
	shift
	if [ "$who" = atomic ]; then
		out=$(cd "$tmp/work" && env HOME="$tmp/home" ATOMIC_CODING_AGENT_DIR="$tmp/agent-atomic" /usr/bin/time -f '%e %U %S %M' \
			"$tmp/atomic" --model fake/fake-model "$@" 2>&1 >/dev/null | tail -1) || echo "$who $*: the run failed (timing kept)" >&2
	else
		out=$(cd "$tmp/work" && env HOME="$tmp/home" PI_CODING_AGENT_DIR="$tmp/agent-pi" PI_OFFLINE=1 /usr/bin/time -f '%e %U %S %M' \
			node "$pi_cli" --offline --no-skills --no-prompt-templates --no-context-files --model fake/fake-model "$@" 2>&1 >/dev/null | tail -1) || echo "$who $*: the run failed (timing kept)" >&2
	fi
	# A failed run's last line is its error, not the timing: keep the timing line.
	out=$(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$' <<<"$out" | tail -1 || true)
	[ -n "$out" ] || out="0 0 0 0"
	awk '{printf "%d %d %.1f\n", $1 * 1000, ($2 + $3) * 1000, $4 / 1024}' <<<"$out"
}

# args CASE WHO: the command-line arguments of CASE for WHO (resume100k copies the session).
args() {
	case $1 in
	bare) echo "--no-session --no-extensions -p hi" ;;
	ts1) echo "--no-session -e $tmp/tool.ts -p hi" ;;
	events1) echo "--no-session -e $tmp/h1.ts -p hi" ;;
	events100) echo "--no-session -e $tmp/h100.ts -p hi" ;;
	stream20k) echo "--no-session -e $tmp/h1.ts -p hi" ;;
	resume100k)
		cp "$tmp/long.jsonl" "$tmp/work/long-$2.jsonl"
		echo "--no-extensions --session $tmp/work/long-$2.jsonl -p hi"
		;;
	resume10k)
		cp "$tmp/long10k.jsonl" "$tmp/work/long10k-$2.jsonl"
		echo "--no-extensions --session $tmp/work/long10k-$2.jsonl -p hi"
		;;
	esac
}
chunks() {
	case $1 in
	events1 | events100) echo 2000 ;;
	stream20k) echo 20000 ;;
	*) echo 1 ;;
	esac
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v p="$1" -v a="$2" 'BEGIN {if (a > 0) printf "%.1fx", p / a; else print "-"}'; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: compare CPU as well as wall)"
echo "pairs: $pairs per case, alternating atomic/pi; pi $(grep -o '"version": *"[^"]*"' "$(dirname "$pi_cli")/../package.json" | grep -o '[0-9][0-9.]*'); atomic $(git rev-parse --short HEAD)"
printf '%-11s %10s %10s %8s %10s %10s %8s %8s %8s %8s\n' case "atomic ms" "cpu ms" "MB" "pi ms" "cpu ms" "MB" "wall" "cpu" "mem"
for c in "${cases[@]}"; do
	script "$tmp/script.json" "$(chunks "$c")"
	start_fake "$tmp/script.json"
	declare -A col=()
	for i in $(seq 0 "$pairs"); do
		for who in atomic pi; do
			# shellcheck disable=SC2046
			read -r w u m < <(run "$who" $(args "$c" "$who"))
			[ "$i" -eq 0 ] && continue # warm-up
			col[$who.w]+="$w"$'\n'
			col[$who.u]+="$u"$'\n'
			col[$who.m]+="$m"$'\n'
		done
	done
	aw=$(printf '%s' "${col[atomic.w]}" | median); au=$(printf '%s' "${col[atomic.u]}" | median); am=$(printf '%s' "${col[atomic.m]}" | median)
	pw=$(printf '%s' "${col[pi.w]}" | median); pu=$(printf '%s' "${col[pi.u]}" | median); pm=$(printf '%s' "${col[pi.m]}" | median)
	printf '%-11s %10s %10s %8s %10s %10s %8s %8s %8s %8s\n' "$c" "$aw" "$au" "$am" "$pw" "$pu" "$pm" "$(ratio "$pw" "$aw")" "$(ratio "$pu" "$au")" "$(ratio "$pm" "$am")"
	unset col
done
