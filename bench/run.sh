#!/usr/bin/env bash
# Runs atomic's benchmarks: the end-to-end ones of this package (start-up, a whole -p run, JSON
# streaming, the interactive mode) and the micro-benchmarks beside the code (event JSON, session
# load, providers, tools, the search matcher, literal finder, per-file grep and walk).
# Usage: bench/run.sh [-benchtime 50x].
# bench/search.sh times grep and find against ripgrep and fd on a large tree.
# bench/tui-vs-pi.sh runs the interactive mode side by side with pi 0.73.1 in tmux.
# bench/hotpaths-vs-pi.sh times extension events, streaming to an extension, a 100,000-entry
# resume and TypeScript start-up side by side with pi 0.73.1 (issue 14 items 2-5).
set -euo pipefail
cd "$(dirname "$0")/.."
bt=${1:--benchtime=50x}
go test ./bench -run '^$' -bench 'Version|PrintRunOneBash|JSONModeDeltas' "$bt"
# The interactive mode in a pseudo-terminal: first frame, 2,000-delta stream CPU (empty and with
# a 10,000-message session, and the print-mode baseline), idle bytes and CPU over 5 s, the
# spinner's bytes per frame, and a 10,000-message resume's RSS. A few runs each: they take seconds.
go test ./bench -run '^$' -bench 'TUI|PrintStream2000' -benchtime 3x -timeout 900s
go test ./store -run '^$' -bench 'Load100k|LoadAndContext100k|Append' -benchmem
# Extension dispatch: encoding a stream delta for a host, and (with node) 2,000 / 20,000 deltas to
# 1 and 100 TypeScript message_update handlers.
go test ./ext/host -run '^$' -bench 'StreamState' -benchmem
go test ./exthost/node -run '^$' -bench 'MessageUpdate|EventRoundTrip' -benchtime 3x
go test ./llm/... -run '^$' -bench . -benchmem
go test ./tool -run '^$' -bench 'IgnoreMatch|Walk|Grep|LiteralIndex' -benchmem
