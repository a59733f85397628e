#!/usr/bin/env bash
# Measures atomic's interactive mode side by side with pi 0.73.1 (issue 11, "Numbers it must
# reach"), both in tmux at 120x40 against the same fake LLM (cmd/fakellm, Anthropic Messages API):
#   1. CPU (utime+stime of the UI process, /proc/<pid>/stat) for one 2,000-delta streamed answer
#   2. the same with a 10,000-message session already on screen (resumed with --session)
#   3. time to first frame: spawn to the footer (the model name) in the program's output, read
#      from a pseudo-terminal (120x40) by a small Python reader (no tmux polling); floors: the same
#      for `echo fake-model` and for `atomic --version`
#   6. the stream's floors: a Go program (bench/streamfloor) that only receives the same 2,000
#      deltas with atomic's SSE client (llm/sse), its CPU: reading each delta as it arrives (one
#      wakeup per delta: ~60-100 us of CPU each on a Firecracker VM), and reading once a frame
#      (33 ms) as the interactive mode does (sse.Call.ReadInterval, tui.StreamReadInterval): the
#      coalesced floor, the one atomic's number compares with
#   4. bytes written to the terminal in 5 s idle (tmux pipe-pane)
#   5. RSS (VmRSS) with the 10,000-message session open, before and after the stream
# Runs alternate atomic / pi; each number is the median of N runs (default 5).
# A manual bench: not part of `go test`. Needs tmux, go, node and pi installed with
#   npm ci --prefix compat/pi
# Usage: bench/tui-vs-pi.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${1:-5}
pi_cli=$root/compat/pi/node_modules/@mariozechner/pi-coding-agent/dist/cli.js
[ -f "$pi_cli" ] || { echo "pi not installed: run npm ci --prefix compat/pi" >&2; exit 1; }
command -v tmux >/dev/null || { echo "tmux not found" >&2; exit 1; }

tmp=$(mktemp -d /tmp/tui-vs-pi.XXXXXX)
sock=$tmp/tmux.sock
fake_pid=
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null || true
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
tm() { tmux -S "$sock" "$@"; }

go build -o "$tmp/atomic" ./cmd/atomic
go build -o "$tmp/fakellm" ./cmd/fakellm
go build -o "$tmp/streamfloor" ./bench/streamfloor
# ff.py TEXT CMD...: ms from spawning CMD on a 120x40 pseudo-terminal until TEXT is in its output.
cat >"$tmp/ff.py" <<'EOF'
import os, sys, time, pty, subprocess, select, fcntl, termios, struct
text = sys.argv[1].encode(); cmd = sys.argv[2:]
m, s = pty.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor")
t0 = time.perf_counter()
p = subprocess.Popen(cmd, stdin=s, stdout=s, stderr=s, env=env, close_fds=True, start_new_session=True)
buf, out = b"", "timeout"
while True:
    r, _, _ = select.select([m], [], [], 30)
    if not r:
        break
    try:
        buf += os.read(m, 65536)
    except OSError:
        break
    if text in buf:
        out = "%.1f" % ((time.perf_counter() - t0) * 1000)
        break
p.kill(); p.wait()
print(out)
EOF
hz=$(getconf CLK_TCK)

# The fake LLM's script: every request gets one answer of 2,000 text deltas (1 ms apart) ending in
# a marker the bench waits for.
python3 - "$tmp/script.json" <<'EOF'
import json, sys
words = []
for i in range(2000):
    words.append("word.\n\n" if i % 40 == 39 else "**bold** " if i % 7 == 3 else "word ")
turn = {"text": "".join(words) + "END-OF-ANSWER", "chunks": 2000, "delay_ms": 1}
json.dump({"turns": [turn] * 64}, open(sys.argv[1], "w"))
EOF

# start_fake starts a fresh fake LLM (turn counting starts again) and writes both models.json.
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
# pi: no changelog / what's-new screen on start.
printf '{"lastChangelogVersion":"0.73.1","quietStartup":true}\n' >"$tmp/agent-pi/settings.json"

# A v3 session of 10,000 messages (5,000 user/assistant pairs with markdown), the format both
# programs read (/work/shared/spec/session-format.md).
python3 - "$tmp/long.jsonl" "$tmp/work" <<'EOF'
import json, sys
out, cwd = sys.argv[1], sys.argv[2]
ts = lambda ms: "2026-05-01T09:%02d:%02d.%03dZ" % ((ms // 60000) % 60, (ms // 1000) % 60, ms % 1000)
base = 1777627800000
with open(out, "w") as f:
    f.write(json.dumps({"type": "session", "version": 3, "id": "0196a000-0000-7000-8000-000000000001",
                        "timestamp": ts(0), "cwd": cwd}) + "\n")
    parent = None
    for i in range(10000):
        k = i // 2
        if i % 2 == 0:
            msg = {"role": "user", "content": [{"type": "text", "text": "question %d: what does function f%d do?" % (k, k)}],
                   "timestamp": base + i}
        else:
            msg = {"role": "assistant", "content": [{"type": "text", "text": "## Answer %d\n\nFunction `f%d` returns **%d**.\n\n- it is pure\n- it is fast\n" % (k, k, k)}],
                   "api": "anthropic-messages", "provider": "fake", "model": "fake-model",
                   "usage": {"input": 10, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 20,
                             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                   "stopReason": "stop", "timestamp": base + i}
        eid = "%08x" % (i + 1)
        f.write(json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": ts(i), "message": msg}) + "\n")
        parent = eid
EOF

now_ms() { local t=$EPOCHREALTIME; echo $(( ${t%.*} * 1000 + 10#${t#*.} / 1000 )); }
cpu_ms() { local s; s=$(cut -d')' -f2- "/proc/$1/stat"); set -- $s; echo $(( (${12} + ${13}) * 1000 / hz )); }
rss_mb() { awk '/^VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }

# launch NAME SESSIONARG: a pane running a shell that waits for Enter, then execs the program, so
# the clock starts at the exec and the pane's pid is the UI process.
launch() {
	local who=$1; shift
	local cmd
	if [ "$who" = atomic ]; then
		cmd="env HOME=$tmp/home ATOMIC_CODING_AGENT_DIR=$tmp/agent-atomic $tmp/atomic --model fake/fake-model $*"
	else
		cmd="env HOME=$tmp/home PI_CODING_AGENT_DIR=$tmp/agent-pi PI_OFFLINE=1 node $pi_cli --offline --no-extensions --no-skills --no-prompt-templates --no-context-files --model fake/fake-model $*"
	fi
	tm kill-session -t b 2>/dev/null || true
	tm new-session -d -s b -x 120 -y 40 -c "$tmp/work" "read _; exec $cmd"
	sleep 0.2
}
# wait_for TEXT TIMEOUT_MS: poll the pane every 5 ms until TEXT shows; prints elapsed ms since $t0.
wait_for() {
	local text=$1 limit=$2 t
	while :; do
		if tm capture-pane -p -t b 2>/dev/null | grep -qF -- "$text"; then echo $(( $(now_ms) - t0 )); return 0; fi
		t=$(now_ms); (( t - t0 > limit )) && { echo "timeout waiting for '$text'" >&2; tm capture-pane -p -t b >&2 || true; return 1; }
		sleep 0.005
	done
}
pane_pid() { tm display-message -p -t b '#{pane_pid}'; }
footer_text=fake-model

# command_of WHO ARGS...: the command line launch runs (no spaces in any part).
command_of() {
	local who=$1; shift
	if [ "$who" = atomic ]; then
		echo "env HOME=$tmp/home ATOMIC_CODING_AGENT_DIR=$tmp/agent-atomic $tmp/atomic --model fake/fake-model $*"
	else
		echo "env HOME=$tmp/home PI_CODING_AGENT_DIR=$tmp/agent-pi PI_OFFLINE=1 node $pi_cli --offline --no-extensions --no-skills --no-prompt-templates --no-context-files --model fake/fake-model $*"
	fi
}
# pty_ff WHO: spawn to first frame (the footer text), read from a pseudo-terminal.
pty_ff() { (cd "$tmp/work" && python3 "$tmp/ff.py" "$footer_text" $(command_of "$1" --no-session)); }

# run_empty WHO: first frame, idle bytes, stream CPU on an empty session.
run_empty() {
	local who=$1 pid ff c0 c1 idle
	start_fake
	ff=$(pty_ff "$who")
	launch "$who" --no-session
	t0=$(now_ms); tm send-keys -t b Enter
	wait_for "$footer_text" 20000 >/dev/null
	pid=$(pane_pid)
	sleep 1
	tm pipe-pane -t b -o "cat > $tmp/idle.bytes"
	sleep 5
	tm pipe-pane -t b
	idle=$(stat -c %s "$tmp/idle.bytes")
	c0=$(cpu_ms "$pid")
	t0=$(now_ms); tm send-keys -t b -l "stream please"; tm send-keys -t b Enter
	wait_for END-OF-ANSWER 60000 >/dev/null
	c1=$(cpu_ms "$pid")
	echo "$ff $idle $((c1 - c0))"
	tm kill-session -t b
	kill "$fake_pid"
}
# run_long WHO: RSS with the 10,000-message session open, then stream CPU on top of it.
run_long() {
	local who=$1 pid c0 c1 r0 r1 load
	start_fake
	cp "$tmp/long.jsonl" "$tmp/work/long-$who.jsonl"
	launch "$who" --session "$tmp/work/long-$who.jsonl"
	t0=$(now_ms); tm send-keys -t b Enter
	load=$(wait_for "$footer_text" 60000)
	pid=$(pane_pid)
	sleep 2
	r0=$(rss_mb "$pid")
	c0=$(cpu_ms "$pid")
	t0=$(now_ms); tm send-keys -t b -l "stream please"; tm send-keys -t b Enter
	wait_for END-OF-ANSWER 120000 >/dev/null
	c1=$(cpu_ms "$pid")
	r1=$(rss_mb "$pid")
	echo "$load $r0 $r1 $((c1 - c0))"
	tm kill-session -t b
	kill "$fake_pid"
}

# run_floor: the first-frame path around `echo` printing the footer text (spawn and read cost),
# and around `atomic --version` (exec and Go start-up of the binary).
run_floor() {
	echo "$(python3 "$tmp/ff.py" "$footer_text" /bin/echo "$footer_text") $(python3 "$tmp/ff.py" 0.1 "$tmp/atomic" --version)"
}
# run_streamfloor: CPU of receiving the same stream in a Go program that does nothing with it,
# reading every delta as it comes, then reading in batches once a frame (33 ms).
run_streamfloor() {
	start_fake
	local url; url=$(grep -o 'http://[^ ]*' "$tmp/fake.out" | head -1)
	echo "$("$tmp/streamfloor" "$url") $("$tmp/streamfloor" "$url" 33)"
	kill "$fake_pid"
}
# run_print WHO: CPU of a -p run of the same 2,000-delta answer (no UI at all): the provider,
# agent and process share of the stream numbers.
run_print() {
	local who=$1 out
	start_fake
	if [ "$who" = atomic ]; then
		out=$(cd "$tmp/work" && env HOME="$tmp/home" ATOMIC_CODING_AGENT_DIR="$tmp/agent-atomic" /usr/bin/time -f '%U %S' \
			"$tmp/atomic" --model fake/fake-model --no-session -p "stream please" 2>&1 >/dev/null | tail -1)
	else
		out=$(cd "$tmp/work" && env HOME="$tmp/home" PI_CODING_AGENT_DIR="$tmp/agent-pi" PI_OFFLINE=1 /usr/bin/time -f '%U %S' \
			node "$pi_cli" --offline --no-extensions --no-skills --no-prompt-templates --no-context-files \
			--model fake/fake-model --no-session -p "stream please" 2>&1 >/dev/null | tail -1)
	fi
	kill "$fake_pid"
	awk '{printf "%d", ($1 + $2) * 1000}' <<<"$out"
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared with other agents: numbers are noisy)"
echo "runs: $runs each, alternating atomic/pi; pi $(grep -o '"version": *"[^"]*"' "$(dirname "$pi_cli")/../package.json" | grep -o '[0-9][0-9.]*'); atomic $(git rev-parse --short HEAD)"
tm new-session -d -s keep -x 120 -y 40 "sleep 100000"
declare -A col
for i in $(seq "$runs"); do
	for who in atomic pi; do
		read -r ff idle cpu < <(run_empty "$who")
		col[$who.ff]+="$ff "; col[$who.idle]+="$idle "; col[$who.cpu]+="$cpu "
		read -r load r0 r1 cpul < <(run_long "$who")
		col[$who.load]+="$load "; col[$who.rss0]+="$r0 "; col[$who.rss1]+="$r1 "; col[$who.cpul]+="$cpul "
		col[$who.print]+="$(run_print "$who") "
		if [ "$who" = atomic ]; then
			read -r fe fv < <(run_floor)
			col[floor.echo]+="$fe "; col[floor.version]+="$fv "
			read -r fs fc < <(run_streamfloor)
			col[floor.stream]+="$fs "; col[floor.coalesced]+="$fc "
		fi
		echo "run $i $who: first-frame ${ff}ms idle ${idle}B stream-cpu ${cpu}ms | resume-10k ${load}ms rss ${r0}/${r1}MB stream-cpu-10k ${cpul}ms" >&2
	done
done

row() {
	local label=$1 key=$2 a p
	a=$(tr ' ' '\n' <<<"${col[atomic.$key]}" | grep . | median)
	p=$(tr ' ' '\n' <<<"${col[pi.$key]}" | grep . | median)
	printf '%-50s %12s %12s %10s\n' "$label" "$a" "$p" "$(awk -v a="$a" -v p="$p" 'BEGIN {if (a > 0) printf "%.1fx", p/a; else print "inf"}')"
}
printf '\n%-50s %12s %12s %10s\n' "median of $runs (machine shared, loaded)" atomic "pi 0.73.1" pi/atomic
floor() { tr ' ' '\n' <<<"${col[floor.$1]}" | grep . | median; }
row "stream 2,000 deltas: UI CPU ms" cpu
printf '%-50s %12s   (floor: receiving the stream in Go, a read per delta)\n' "" "$(floor stream)"
printf '%-50s %12s   (coalesced floor: the same read once a frame, 33 ms)\n' "" "$(floor coalesced)"
row "same, 10,000-message session on screen: ms" cpul
row "first frame (spawn to footer, pty), ms" ff
printf '%-50s %12s   (floor: echo of the footer text)\n' "" "$(floor echo)"
printf '%-50s %12s   (floor: atomic --version)\n' "" "$(floor version)"
row "resume 10,000 messages to footer, ms" load
row "baseline: whole -p run (start-up + stream), CPU ms" print
row "idle 5 s: bytes to terminal" idle
row "RSS, 10,000-message session open, MB" rss0
row "RSS after the stream on it, MB" rss1
echo "CPU from /proc/<pid>/stat utime+stime (${hz} Hz ticks: 10 ms resolution); the resume time includes tmux polling (5 ms)."
