#!/usr/bin/env bash
# Times atomic's grep and find tools against ripgrep and fd (what pi's grep and find run) on one
# large real tree with .gitignore files: a copy of GOROOT/src and of the Go module cache (~25k
# files) made a git repository whose .gitignore drops testdata/ and vendor/ directories.
# ripgrep and fd come from the Debian packages, unpacked into a temporary directory (apt-get
# download + dpkg -x); nothing is installed system-wide. Each case runs atomic and the peer
# alternately, PAIRS times (default 7), and prints the medians and the ratio peer/atomic (above 1:
# atomic is faster), then the floors: the driver's start on an empty directory, a bare parallel
# walk of the whole tree (fastwalk, no ignore matching, ignored directories included) and that walk
# reading every regular file.
# Usage: bench/search.sh [PAIRS]     (env SEARCHTOOL=<binary> to time a prebuilt driver)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-7}
work=$(mktemp -d /tmp/atomic-search-bench.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# --- ripgrep and fd, unpacked from the Debian packages ---
(cd "$work" && apt-get download ripgrep fd-find >/dev/null 2>&1) || {
	echo "search.sh: apt-get download ripgrep fd-find failed" >&2
	exit 1
}
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/peers"; done
rg="$work/peers/usr/bin/rg"
fd="$work/peers/usr/bin/fdfind"
[ -x "$fd" ] || fd="$work/peers/usr/bin/fd"

# --- the tree ---
tree="$work/tree"
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
nfiles=$(find "$tree" -type f | wc -l)

# --- atomic's driver ---
bin=${SEARCHTOOL:-}
if [ -z "$bin" ]; then
	bin="$work/searchtool"
	go build -o "$bin" ./bench/searchtool
fi

now() { date +%s%N; }
# ms CMD...: runs CMD once with output discarded and prints its wall time in ms (3 decimals).
ms() {
	local t0 t1
	t0=$(now)
	"$@" >/dev/null 2>&1 || true
	t1=$(now)
	echo $(((t1 - t0) / 1000))
}
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'; }

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
		at+="$(ms "${a[@]}")"$'\n'
		pt+="$(ms "${p[@]}")"$'\n'
	done
	local am pm
	am=$(printf '%s' "$at" | median)
	pm=$(printf '%s' "$pt" | median)
	printf '%-28s atomic %8s ms   peer %8s ms   peer/atomic %6s\n' "$name" "$am" "$pm" \
		"$(awk -v a="$am" -v p="$pm" 'BEGIN {printf "%.2fx", p/a}')"
}
floor() {
	local t=""
	for _ in $(seq "$pairs"); do t+="$(ms "$bin" -tool "$1" "$tree")"$'\n'; done
	printf '%-28s %8s ms\n' "floor: $1" "$(printf '%s' "$t" | median)"
}

echo "tree: $nfiles files; $pairs alternating pairs per case; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
compare "grep common word (func)" "$bin" -tool grep -pattern func "$tree" -- rg_grep func
compare "grep rare literal" "$bin" -tool grep -literal -pattern 'xq7_never_here_zz' "$tree" -- rg_grep -F 'xq7_never_here_zz'
compare "find *.go" "$bin" -tool find -pattern '*.go' "$tree" -- fd_find '*.go'
compare "find *.mod" "$bin" -tool find -pattern '*.mod' "$tree" -- fd_find '*.mod'
empty="$work/empty"
mkdir -p "$empty"
t=""
for _ in $(seq "$pairs"); do t+="$(ms "$bin" -tool find -pattern x "$empty")"$'\n'; done
printf '%-28s %8s ms\n' "floor: process start" "$(printf '%s' "$t" | median)"
floor floor
floor floor-read
