#!/bin/sh
# Call-structure speed: calltree and profile end to end on a call-heavy
# AArch64 Tarmac trace (default 20 million instructions, ~2.6 GB), beside
# `trawl stats` on the same file (reading and parsing alone) measured in the
# same run. Prints instructions per second, ratios against the baseline,
# and peak RSS. Target (issue 8): >= 10 M instructions/s end to end.
# CALLS_BENCH_INSNS=N picks another size; the trace is kept in bench/out/.
set -u
: "${TRAWL:?}" "${TRAWL_BUILD:?}"
out=${TRAWL_BENCH_OUT:-bench/out}
n=${CALLS_BENCH_INSNS:-20000000}
trace="$out/calls-$n.tarmac"
mkdir -p "$out"
if [ ! -s "$trace" ]; then
	echo "generating $trace ($n instructions)..."
	"$TRAWL_BUILD/bench-gen-calls" "$n" >"$trace.tmp" 2>"$trace.truth" && mv "$trace.tmp" "$trace" ||
		{ echo "bench-calls: generator failed"; exit 1; }
fi
echo "trace: $trace, $(wc -c <"$trace") bytes; generator says: $(cat "$trace.truth" 2>/dev/null)"

# run NAME CMD...: best of 2 wall times (s) and the larger peak RSS (KiB)
run() {
	name=$1; shift
	best="" rss=0
	for i in 1 2; do
		/usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/err.txt" ||
			{ echo "bench-calls: '$*' failed: $(head -3 "$out/err.txt")"; return 1; }
		set -- "$@"
		t=$(cut -d' ' -f1 "$out/time.txt") m=$(cut -d' ' -f2 "$out/time.txt")
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
		[ "$m" -gt "$rss" ] && rss=$m
	done
	eval "t_$name=$best rss_$name=$rss"
}
run stats "$TRAWL" stats "$trace" || exit 1
run profile "$TRAWL" profile "$trace" || exit 1
run calltree "$TRAWL" calltree "$trace" || exit 1
run flame "$TRAWL" flamegraph "$trace" || exit 1

awk -v n="$n" -v ts="$t_stats" -v tp="$t_profile" -v tc="$t_calltree" -v tf="$t_flame" \
    -v rs="$rss_stats" -v rp="$rss_profile" -v rc="$rss_calltree" -v rf="$rss_flame" 'BEGIN {
	printf "%-22s %8s %14s %10s %12s\n", "command", "seconds", "M insns/s", "vs stats", "peak RSS MiB"
	printf "%-22s %8.2f %14.2f %10s %12.1f\n", "stats (baseline)", ts, n / ts / 1e6, "1.00x", rs / 1024
	printf "%-22s %8.2f %14.2f %9.2fx %12.1f\n", "profile", tp, n / tp / 1e6, tp / ts, rp / 1024
	printf "%-22s %8.2f %14.2f %9.2fx %12.1f\n", "calltree (to /dev/null)", tc, n / tc / 1e6, tc / ts, rc / 1024
	printf "%-22s %8.2f %14.2f %9.2fx %12.1f\n", "flamegraph", tf, n / tf / 1e6, tf / ts, rf / 1024
	printf "target: >= 10 M insns/s end to end for calltree and profile: %s\n",
		(n / tp / 1e6 >= 10 && n / tc / 1e6 >= 10) ? "met" : "NOT met"
}'
# sanity: the profile's call count matches what the generator made
calls=$("$TRAWL" profile --csv "$trace" | awk -F, 'NR > 2 { s += $3 } END { print s }')
want=$(sed -n 's/.*calls \([0-9]*\).*/\1/p' "$trace.truth" 2>/dev/null)
[ -z "$want" ] || [ "$calls" = "$want" ] || { echo "bench-calls: $calls calls found, generator made $want"; exit 1; }
echo "calls found: $calls (generator: ${want:-?})"
