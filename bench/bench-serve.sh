#!/bin/sh
# trawl serve (issue 15): on emulated traces of two sizes (examples/recurse
# under `trawl emulate`, about 230 MB and 1 GB of Tarmac; SERVE_BENCH_SMALL /
# SERVE_BENCH_BIG instructions pick others), with the index built by
# `trawl index` first (its own figures are bench-index's): the first
# timeline drawn after a page load in headless Chromium, API request
# latencies (p50/p99) at every zoom level, and the server's RSS. The small
# trace is the baseline: the big one's figures are printed as ratios to it.
# Targets: first timeline <= 1 s, every request p99 <= 50 ms, RSS <= 200 MB
# and flat in trace size. The traces are deleted afterwards
# (SERVE_BENCH_KEEP=1 keeps them).
set -u
: "${TRAWL:?}" "${TRAWL_BUILD:?}" "${TRAWL_SRC:?}"
out=${TRAWL_BENCH_OUT:-bench/out}
mkdir -p "$out"
[ -x "$TRAWL_BUILD/examples/recurse" ] || { echo "bench-serve: examples not built, skipped"; exit 0; }
command -v python3 >/dev/null 2>&1 || { echo "bench-serve: python3 missing, skipped"; exit 0; }
small=${SERVE_BENCH_SMALL:-2000000}
big=${SERVE_BENCH_BIG:-9000000}
for n in "$small" "$big"; do
	t="$out/serve-recurse-$n.tarmac"
	if [ ! -s "$t" ]; then
		echo "emulating examples/recurse for $n instructions..."
		"$TRAWL" emulate "$TRAWL_BUILD/examples/recurse" -n "$n" -o "$t.tmp" -- 24 >/dev/null 2>&1 &&
			mv "$t.tmp" "$t" || { echo "bench-serve: emulate failed"; exit 1; }
	fi
done
python3 "$TRAWL_SRC/bench/bench-serve.py" "$TRAWL" "$TRAWL_BUILD/examples/recurse" \
	"$out/serve-recurse-$small.tarmac" "$out/serve-recurse-$big.tarmac"
rc=$?
if [ "${SERVE_BENCH_KEEP:-}" != 1 ]; then
	for n in "$small" "$big"; do
		rm -f "$out/serve-recurse-$n.tarmac" "$out/serve-recurse-$n.tarmac.trawlidx"
	done
fi
exit $rc
