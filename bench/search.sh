#!/usr/bin/env bash
# Times atomic's grep and find tools against ripgrep and fd (what pi's grep and find run) on one
# large real tree with .gitignore files: a copy of GOROOT/src and of the Go module cache (~25k
# files) made a git repository whose .gitignore drops testdata/ and vendor/ directories.
# ripgrep and fd come from the Debian packages, unpacked into a temporary directory (apt-get
# download + dpkg -x); nothing is installed system-wide. Each case runs atomic and the peer
# alternately, PAIRS times (default 7), and prints the medians and the ratio peer/atomic (above 1:
# atomic is faster), then the floors: the driver's start on an empty directory, a bare parallel
# walk of the whole tree (fastwalk, no ignore matching, ignored directories included) and that walk
# reading every regular file. Each column is a median: wall ms and CPU ms (user+sys of the whole
# command, the steadier number on a shared machine); the ratios are peer/atomic.
# Usage: bench/search.sh [PAIRS] [CASE...]   CASE: common rare findgo findmod floors (default all)
#   env SEARCHTOOL=<binary>  time a prebuilt driver
#   env SEARCHWORK=<dir>     keep the peers and the tree in <dir> and reuse them on the next run
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-7}
shift || true
cases=" ${*:-common rare findgo findmod floors} "
want() { [[ $cases == *" $1 "* ]]; }
if [ -n "${SEARCHWORK:-}" ]; then
	work=$SEARCHWORK
	mkdir -p "$work"
else
	work=$(mktemp -d /tmp/atomic-search-bench.XXXXXX)
	trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fi

# --- ripgrep and fd, unpacked from the Debian packages ---
if [ ! -x "$work/peers/usr/bin/rg" ]; then
	(cd "$work" && apt-get download ripgrep fd-find >/dev/null 2>&1) || {
		echo "search.sh: apt-get download ripgrep fd-find failed" >&2
		exit 1
	}
	for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/peers"; done
fi
rg="$work/peers/usr/bin/rg"
fd="$work/peers/usr/bin/fdfind"
[ -x "$fd" ] || fd="$work/peers/usr/bin/fd"

# --- the tree ---
tree="$work/tree"
if [ ! -f "$tree/goroot/.gitignore" ]; then
	rm -rf "$tree"
	mkdir -p "$tree/.git"
	cp -r "$(go env GOROOT)/src" "$tree/goroot"
	modcache=$(go env GOMODCACHE)
	if [ -d "$modcache" ]; then
		mkdir -p "$tree/mod"
		cp -r "$modcache"/* "$tree/mod/" 2>/dev/null || true
		rm -rf "$tree/mod/cache"
	fi
	chmod -R u+w "$tree"
	printf 'testdata/\nvendor/\n*.golden\n' >"$tree/.gitignore"
	printf '*_windows.go\n!syscall_windows.go\n' >"$tree/goroot/.gitignore"
fi
nfiles=$(find "$tree" -type f | wc -l)

# --- atomic's driver ---
bin=${SEARCHTOOL:-}
if [ -z "$bin" ]; then
	bin="$work/searchtool"
	go build -o "$bin" ./bench/searchtool
fi

# run CMD...: runs CMD once with output discarded and prints "WALL CPU" in microseconds, CPU being
# user+sys of CMD and everything it started (bash's time keyword: rusage of the children).
run() {
	local out
	out=$({ TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1 || true; } 2>&1)
	awk '{printf "%d %d\n", $1*1e6, ($2+$3)*1e6}' <<<"${out##*$'\n'}"
}
# median COLUMN: the median of column COLUMN of stdin's lines (microseconds), in ms.
median() { awk -v c="$1" '{print $c}' | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'; }
ratio() { awk -v a="$1" -v p="$2" 'BEGIN {printf "%.2fx", p/a}'; }

rg_grep() { "$rg" --line-number --color=never --hidden --no-heading "$@" "$tree" | head -n 100; }
fd_find() { "$fd" --glob --color=never --hidden --max-results 1000 "$1" "$tree"; }

# compare NAME ATOMIC-CMD -- PEER-CMD
compare() {
	local name=$1
	shift
	local a=() p=()
	while [ "$1" != "--" ]; do a+=("$1"); shift; done
	shift
	p=("$@")
	local at="" pt=""
	"${a[@]}" >/dev/null 2>&1 || true # warm the page cache for both
	"${p[@]}" >/dev/null 2>&1 || true
	for _ in $(seq "$pairs"); do
		at+="$(run "${a[@]}")"$'\n'
		pt+="$(run "${p[@]}")"$'\n'
	done
	local aw pw ac pc
	aw=$(printf '%s' "$at" | median 1)
	pw=$(printf '%s' "$pt" | median 1)
	ac=$(printf '%s' "$at" | median 2)
	pc=$(printf '%s' "$pt" | median 2)
	printf '%-26s atomic %7s ms %7s cpu   peer %7s ms %7s cpu   peer/atomic wall %6s cpu %6s\n' \
		"$name" "$aw" "$ac" "$pw" "$pc" "$(ratio "$aw" "$pw")" "$(ratio "$ac" "$pc")"
}
# floor NAME CMD...: the medians of CMD alone.
floor() {
	local name=$1 t=""
	shift
	for _ in $(seq "$pairs"); do t+="$(run "$@")"$'\n'; done
	printf '%-26s        %7s ms %7s cpu\n' "floor: $name" "$(printf '%s' "$t" | median 1)" "$(printf '%s' "$t" | median 2)"
}

echo "tree: $nfiles files; $pairs alternating pairs per case; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
want common && compare "grep common word (func)" "$bin" -tool grep -pattern func "$tree" -- rg_grep func
want rare && compare "grep rare literal" "$bin" -tool grep -literal -pattern 'xq7_never_here_zz' "$tree" -- rg_grep -F 'xq7_never_here_zz'
want findgo && compare "find *.go" "$bin" -tool find -pattern '*.go' "$tree" -- fd_find '*.go'
want findmod && compare "find *.mod" "$bin" -tool find -pattern '*.mod' "$tree" -- fd_find '*.mod'
if want floors; then
	empty="$work/empty"
	mkdir -p "$empty"
	floor "process start" "$bin" -tool find -pattern x "$empty"
	floor "bare walk" "$bin" -tool floor "$tree"
	floor "bare walk + read" "$bin" -tool floor-read "$tree"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
