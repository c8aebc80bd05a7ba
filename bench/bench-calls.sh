#!/bin/sh
# Call-structure speed: calltree and profile end to end on a 20-million-
# instruction emulated trace (examples/recurse under `trawl emulate`, about
# 2.3 GB of Tarmac; the synthetic bench-gen-calls trace when the examples
# are not built), beside `trawl stats` on the same file (reading and parsing
# alone) measured in the same run. Prints instructions per second by wall
# clock and by CPU time, ratios against the baseline, and peak RSS.
# Target (issue 8): >= 10 M instructions/s end to end. The call commands
# parse only what the call analysis reads (partial parsing); profile
# --parse-all shows the full parse for comparison. --use-index reads the
# index's event table and releases it behind the scan: its RSS must stay
# small (tens of MiB) whatever the trace length.
# CALLS_BENCH_INSNS=N picks another size; the trace is kept in bench/out/.
set -u
: "${TRAWL:?}" "${TRAWL_BUILD:?}"
out=${TRAWL_BENCH_OUT:-bench/out}
n=${CALLS_BENCH_INSNS:-20000000}
mkdir -p "$out"
if [ -x "$TRAWL_BUILD/examples/recurse" ]; then
	trace="$out/calls-recurse-$n.tarmac"
	if [ ! -s "$trace" ]; then
		echo "emulating examples/recurse for $n instructions..."
		"$TRAWL" emulate "$TRAWL_BUILD/examples/recurse" -n "$n" -o "$trace.tmp" -- 24 >/dev/null 2>&1 &&
			mv "$trace.tmp" "$trace" || { echo "bench-calls: emulate failed"; exit 1; }
	fi
	image="--image $TRAWL_BUILD/examples/recurse"
else
	trace="$out/calls-synthetic-$n.tarmac"
	if [ ! -s "$trace" ]; then
		echo "generating $trace ($n instructions, examples not built)..."
		"$TRAWL_BUILD/bench-gen-calls" "$n" >"$trace.tmp" 2>"$trace.truth" && mv "$trace.tmp" "$trace" ||
			{ echo "bench-calls: generator failed"; exit 1; }
	fi
	image=""
fi
echo "trace: $trace, $(wc -c <"$trace") bytes"

# rounds NAME=CMD...: the commands in interleaved rounds (bench/rounds.sh),
# per command the best wall time, its CPU time and the largest peak RSS
. "$(dirname "$0")/rounds.sh"
rounds() { bench_rounds bench-calls "$out/calls-results.txt" "$@"; }
rm -f "$out/calls-results.txt"
rounds "stats(baseline)=$TRAWL stats $trace" "profile=$TRAWL profile $image $trace" \
	"calltree=$TRAWL calltree $image $trace" || exit 1
RUNS=1 rounds "flamegraph=$TRAWL flamegraph $image $trace" || exit 1
# the same with every line parsed (no partial parsing): what it saves
RUNS=1 rounds "profile-parse-all=$TRAWL profile --parse-all $image $trace" || exit 1
# the fast path: per-event PC and encoding from the time-travel index (built
# once here, and timed: every later command on the trace reuses it)
ix="$out/calls-bench.trawlidx"
/usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$TRAWL" index --force --index "$ix" "$trace" >/dev/null 2>&1 ||
	{ echo "bench-calls: index build failed"; exit 1; }
set -- $(cat "$out/time.txt")
echo "index-build $1 $(awk "BEGIN { print $2 + $3 }") $4" >"$out/calls-index.txt"
ln -sf "$(basename "$ix")" "$trace.trawlidx" 2>/dev/null || cp "$ix" "$trace.trawlidx"
RUNS=3 rounds "profile-index=$TRAWL profile --use-index $image $trace" \
	"calltree-index=$TRAWL calltree --use-index $image $trace" || exit 1

awk -v n="$n" '
	{ name[NR] = $1; wall[NR] = $2; cpu[NR] = $3; rss[NR] = $4; at[$1] = NR }
	function met(a, b, v) { return n / v[at[a]] / 1e6 >= 10 && n / v[at[b]] / 1e6 >= 10 ? "met" : "NOT met" }
	END {
		printf "%-17s %8s %8s %12s %12s %9s %9s\n", "command", "wall s", "cpu s",
		       "M insn/s wall", "M insn/s cpu", "cpu/stats", "RSS MiB"
		for (i = 1; i <= NR; i++)
			printf "%-17s %8.2f %8.2f %12.2f %12.2f %8.2fx %9.1f\n", name[i], wall[i], cpu[i],
			       n / wall[i] / 1e6, n / cpu[i] / 1e6, cpu[i] / cpu[1], rss[i] / 1024
		printf "target >= 10 M instructions/s (calltree, profile) from text: %s by CPU time, %s by wall clock\n",
		       met("profile", "calltree", cpu), met("profile", "calltree", wall)
		printf "  with --use-index: %s by CPU time, %s by wall clock\n",
		       met("profile-index", "calltree-index", cpu), met("profile-index", "calltree-index", wall)
		printf "partial parsing: profile takes %.2fx the CPU time of profile --parse-all\n",
		       cpu[at["profile"]] / cpu[at["profile-parse-all"]]
	}' "$out/calls-results.txt"
awk -v n="$n" '{ printf "index build (once): %.2f s wall, %.2f s cpu, %.1f MiB RSS\n", $2, $3, $4 / 1024 }' \
	"$out/calls-index.txt"
if [ -s "$trace.truth" ]; then # synthetic trace: the generator counted its calls
	calls=$("$TRAWL" profile --csv "$trace" | awk -F, 'NR > 2 { s += $3 } END { print s }')
	want=$(sed -n 's/.*calls \([0-9]*\).*/\1/p' "$trace.truth")
	[ "$calls" = "$want" ] || { echo "bench-calls: $calls calls found, generator made $want"; exit 1; }
	echo "calls found: $calls (generator: $want)"
fi
