#!/bin/sh
# make bench: every speed and memory figure trawl claims, each printed beside
# a baseline measured in the same run (the machines are shared and noisy).
# Each bench/bench-*.sh prints its own figures; this runs them in order.
set -u
build=${1:-build}
export TRAWL="$PWD/$build/trawl" TRAWL_BUILD="$PWD/$build" TRAWL_SRC="$PWD"
export TRAWL_NO_PROGRESS=1
out="$PWD/bench/out"
mkdir -p "$out"
export TRAWL_BENCH_OUT="$out"
status=0
for b in bench/bench-*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	sh "$b" || status=1
done
exit $status
