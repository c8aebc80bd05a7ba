#!/bin/sh
# trawl serve (issue 15): software-event traces first (bench-serve-events.py),
# then, on emulated traces of two sizes (examples/recurse
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
command -v python3 >/dev/null 2>&1 || { echo "bench-serve: python3 missing, skipped"; exit 0; }

# Software events: rec-demo recordings of about 10^6 and 10^7 events
# (SERVE_BENCH_EV_SMALL / _BIG events), 4 threads, as bench-events makes them.
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
if [ -x "$demo" ]; then
	evs=${SERVE_BENCH_EV_SMALL:-1000000}
	evb=${SERVE_BENCH_EV_BIG:-10000000}
	for n in "$evs" "$evb"; do
		[ -d "$out/serve-ev-$n" ] && continue
		echo "recording rec-demo for about $n events..."
		# rings big enough that nothing is dropped at 10^8 events
		buf=256M
		[ "$n" -gt 20000000 ] && buf=1024M
		TRAWL_REC_BUFFER=$buf "$demo" --threads 4 --packets $((n * 11 / 160)) --out "$out/serve-ev-$n" \
			>/dev/null 2>&1 || { echo "bench-serve: rec-demo failed"; exit 1; }
	done
	python3 "$TRAWL_SRC/bench/bench-serve-events.py" "$TRAWL" "$TRAWL_SRC/examples/rec-demo/analysis.tdef" \
		"$out/serve-ev-$evs" "$out/serve-ev-$evb" || exit 1
	[ "${SERVE_BENCH_KEEP:-}" = 1 ] || rm -rf "$out/serve-ev-$evs" "$out/serve-ev-$evb"
else
	echo "bench-serve: rec-demo not built, the software-event figures skipped"
fi
[ -x "$TRAWL_BUILD/examples/recurse" ] || { echo "bench-serve: examples not built, skipped"; exit 0; }
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
