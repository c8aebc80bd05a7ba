#!/bin/sh
# The time-travel index: build speed (trace lines per second), index size
# against the trace, peak resident memory of the build (and whether it
# grows with the trace), and query latency (registers at a line, 64 bytes
# of memory at a line) from freshly started processes with the index in the
# page cache. Baselines in the same run: `wc -l` and `trawl cat` over the
# same trace, and a single event-record read for the queries.
#
# The trace is a `trawl emulate` trace of $TRAWL_BENCH_INDEX_INSNS
# instructions (default 10 million) of the sort example; when the examples
# are not built (no AArch64 cross compiler), a synthetic AArch64 Tarmac
# trace of the same length (bench/index-gen.c).
set -u
build=${TRAWL_BUILD:-build}
out=${TRAWL_BENCH_OUT:-bench/out}
trawl=${TRAWL:-$build/trawl}
n=${TRAWL_BENCH_INDEX_INSNS:-10000000}
small=$((n / 5))
mkdir -p "$out"
sort_ex="$build/examples/sort"
if [ -x "$sort_ex" ]; then
	kind=emulate
	big_trace="$out/index-emu-$n.tarmac"
	small_trace="$out/index-emu-$small.tarmac"
else
	kind=synthetic
	big_trace="$out/index-$n.tarmac"
	small_trace="$out/index-$small.tarmac"
fi
for t in "$big_trace:$n" "$small_trace:$small"; do
	f=${t%%:*}; k=${t##*:}
	[ -s "$f" ] && continue
	if [ $kind = emulate ]; then
		# sorting 200000 numbers runs far longer than n: -n stops it
		"$trawl" emulate "$sort_ex" -n "$k" -o "$f" -- 200000 >/dev/null 2>&1 || exit 1
	else
		"$build/bench-index-gen" "$k" >"$f" || exit 1
	fi
done
# addresses the trace really accessed, for the memory queries
grep -o ' M[RW][0-9]* [0-9a-fA-F]*' "$big_trace" | awk 'NR % 97 == 0 { print $2 }' |
	head -n 20000 >"$out/addrs.txt"
lines=$(wc -l <"$big_trace")
bytes=$(wc -c <"$big_trace")

# run CMD, print "wall user+sys maxrss_kb"
measure() {
	/usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/err.txt" || {
		cat "$out/err.txt"; return 1; }
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$out/time.txt"
}

set -- $(measure wc -l "$big_trace"); wc_wall=$1
set -- $(measure "$trawl" cat "$big_trace"); cat_wall=$1 cat_cpu=$2
set -- $(measure "$trawl" index --force "$big_trace"); ix_wall=$1 ix_cpu=$2 ix_rss=$3
set -- $(measure "$trawl" index --force "$small_trace"); sm_rss=$3
isize=$(wc -c <"$big_trace.trawlidx")

awk -v k="$kind" -v l="$lines" -v b="$bytes" -v n="$n" -v w="$wc_wall" -v cw="$cat_wall" -v cc="$cat_cpu" \
    -v iw="$ix_wall" -v ic="$ix_cpu" -v ir="$ix_rss" -v sr="$sm_rss" -v is="$isize" 'BEGIN {
	printf "trace (%s): %d instructions, %d lines, %.0f MB\n", k, n, l, b / 1e6
	printf "build: %.2f s wall, %.2f s cpu: %.0f lines/s (wall), %.0f lines/s (cpu)   target >= 1000000\n", iw, ic, l / iw, l / ic
	printf "  baseline wc -l %.2f s (build is %.1fx), trawl cat %.2f s wall %.2f s cpu (build is %.2fx its cpu)\n", w, iw / (w > 0 ? w : 0.01), cw, cc, ic / (cc > 0 ? cc : 0.01)
	printf "index size: %.0f MB = %.2fx the trace (%.1f bytes/line)   target <= 2x\n", is / 1e6, is / b, is / l
	printf "build peak RSS: %.0f MB (trace of 1/5 the length: %.0f MB, ratio %.2f)   target <= 1024 MB, flat\n", ir / 1024, sr / 1024, ir / sr
}'

# queries: 20 fresh processes x 50 random lines each
: >"$out/q.txt"
i=0
while [ $i -lt 20 ]; do
	"$build/bench-index-query" "$big_trace" "$big_trace.trawlidx" 50 $((i * 7919 + 1)) \
		"$out/addrs.txt" >>"$out/q.txt" || exit 1
	i=$((i + 1))
done
for kind in regs mem open base regsf memf; do
	grep "^$kind " "$out/q.txt" | awk '{print $2}' | sort -n >"$out/q-$kind.txt"
done
Q="$out" awk 'function pct(f, p,   n, v, i) { n = 0; while ((getline v < f) > 0) a[++n] = v; close(f);
		i = int(p * n + 0.5); if (i < 1) i = 1; if (i > n) i = n; r = a[i]; delete a; return r }
	BEGIN {
		d = ENVIRON["Q"]
		b = pct(d "/q-base.txt", 0.5)
		printf "regs-at-line: median %.1f us, p99 %.1f us   target < 20 / < 100 us\n", pct(d "/q-regs.txt", 0.5) / 1e3, pct(d "/q-regs.txt", 0.99) / 1e3
		printf "mem-at-line (64 bytes): median %.1f us, p99 %.1f us   target < 20 / < 100 us\n", pct(d "/q-mem.txt", 0.5) / 1e3, pct(d "/q-mem.txt", 0.99) / 1e3
		printf "  baseline one event-record read: median %.2f us (regs %.1fx, mem %.1fx); open (checks, identity hash) median %.0f us\n", b / 1e3, pct(d "/q-regs.txt", 0.5) / b, pct(d "/q-mem.txt", 0.5) / b, pct(d "/q-open.txt", 0.5) / 1e3
		printf "  minor page faults per query (load-independent): regs median %d p99 %d, mem median %d p99 %d\n", pct(d "/q-regsf.txt", 0.5), pct(d "/q-regsf.txt", 0.99), pct(d "/q-memf.txt", 0.5), pct(d "/q-memf.txt", 0.99)
	}' </dev/null
