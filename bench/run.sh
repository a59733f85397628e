#!/usr/bin/env bash
# Runs atomic's benchmarks: the end-to-end ones of this package (start-up, a whole -p run, JSON
# streaming) and the micro-benchmarks beside the code (event JSON, session load, providers,
# tools). Usage: bench/run.sh [-benchtime 50x]
set -euo pipefail
cd "$(dirname "$0")/.."
bt=${1:--benchtime=50x}
go test ./bench -run '^$' -bench . "$bt"
go test ./store -run '^$' -bench 'Load100k|Append' -benchmem
go test ./llm/... -run '^$' -bench . -benchmem
