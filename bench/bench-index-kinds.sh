#!/bin/sh
# The index kinds side by side (issue #18): for the bench trace (a `trawl
# emulate` trace of the sort example, $TRAWL_BENCH_INDEX_INSNS
# instructions, default 10 million), a 4x longer one, and an ES-style
# (LD/ST lines) trace of the first length: each kind's size as a fraction
# of the trace and in bytes per instruction, build speed in lines per
# second, and registers / 64 bytes of memory / last and next writes / PC
# visits at random events in a warm process (median and p99, wall clock
# and the thread's CPU time). Baseline in the same run: the full kind
# built by the binary of $TRAWL_BENCH_BASE (default: where this branch
# left main, the previous binary), compiled into bench/out/base-build, run
# alternately with this one; its queries (its own bench-index-warm on its
# own index) run in turns with this one's too.
# TRAWL_BENCH_KINDS_LONG=0 leaves out the 4x trace (4.4 GB of text),
# TRAWL_BENCH_KINDS_ES=0 the ES-style one.
set -u
build=${TRAWL_BUILD:-build}
out=${TRAWL_BENCH_OUT:-bench/out}
trawl=${TRAWL:-$build/trawl}
src=${TRAWL_SRC:-.}
n=${TRAWL_BENCH_INDEX_INSNS:-10000000}
nq=${TRAWL_BENCH_KINDS_QUERIES:-2000}
mkdir -p "$out"
sort_ex="$build/examples/sort"
[ -x "$sort_ex" ] || { echo "no examples built (AArch64 cross compiler): skipped"; exit 0; }

# the baseline binary, built once per commit of $base_ref
. "$src/bench/base-lib.sh"
bench_base "$out" trawl-bin bench-index-warm
base_warm="$out/base-build/bench-index-warm"
[ -x "$base_warm" ] || base_warm=

measure() { # CMD...: prints "wall cpu maxrss_kb"
	/usr/bin/time -f "%e %U %S %M" -o "$out/kt.txt" "$@" >/dev/null 2>"$out/kerr.txt" || {
		cat "$out/kerr.txt"; return 1; }
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$out/kt.txt"
}

trace_for() { # NAME INSNS STYLE
	f="$out/kinds-$1.tarmac"
	[ -s "$f" ] || "$trawl" emulate "$sort_ex" --style "$3" -n "$2" -o "$f" -- 200000 >/dev/null 2>&1 ||
		return 1
	echo "$f"
}

one_trace() { # LABEL FILE INSNS
	t=$2 insns=$3
	lines=$(wc -l <"$t"); bytes=$(wc -c <"$t")
	grep -o ' M[RW][0-9]* [0-9a-fA-F]*' "$t" | awk 'NR % 97 == 0 { print $2 }' | head -n 20000 >"$out/kaddrs.txt"
	[ -s "$out/kaddrs.txt" ] || grep -oE '(LD|ST)[A-Z0-9]* +[0-9a-f]+' "$t" | awk 'NR % 97 == 0 { print $2 }' | head -n 20000 >"$out/kaddrs.txt"
	printf "%s: %d instructions, %d lines, %d MB (figures on a shared machine: noisy)\n" "$1" "$insns" "$lines" $((bytes / 1000000))
	rounds=${TRAWL_BENCH_KINDS_ROUNDS:-2}
	: >"$out/kbuild.txt"
	r=0
	while [ $r -lt "$rounds" ]; do
		# alternate the binaries so drift of the machine hits both alike
		if [ -n "$base" ]; then
			set -- $(measure "$base" index --force --index "$out/k-base.idx" "$t") && echo "base $1 $2 $3" >>"$out/kbuild.txt"
		fi
		set -- $(measure "$trawl" index --force --kind full --index "$out/k-full.idx" "$t") && echo "full $1 $2 $3" >>"$out/kbuild.txt"
		set -- $(measure "$trawl" index --force --kind compact --index "$out/k-compact.idx" "$t") && echo "compact $1 $2 $3" >>"$out/kbuild.txt"
		r=$((r + 1))
	done
	for k in base full compact; do
		[ -f "$out/k-$k.idx" ] || continue
		size=$(wc -c <"$out/k-$k.idx")
		mw=$(awk -v k=$k '$1 == k { print $2 }' "$out/kbuild.txt" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		mu=$(awk -v k=$k '$1 == k { print $3 }' "$out/kbuild.txt" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		mr=$(awk -v k=$k '$1 == k && $4 > m { m = $4 } END { print m + 0 }' "$out/kbuild.txt")
		awk -v k=$k -v l="$lines" -v b="$bytes" -v n="$insns" -v s="$size" -v mw="$mw" -v mu="$mu" -v mr="$mr" 'BEGIN {
			printf "  %-8s size %6.0f MB = %.3fx the trace, %5.1f B/instruction; build median %.2f s wall (%.2f M lines/s), %.2f s cpu; peak RSS %.0f MB\n",
				k == "base" ? "main" : k, s / 1e6, s / b, s / n, mw, l / mw / 1e6, mu, mr / 1024 }'
	done
	r=0
	while [ $r -lt "$rounds" ]; do
		# queries in turns too: main's (its own reader on its own index), then each kind
		for k in base full compact; do
			w="$build/bench-index-warm"
			[ $k = base ] && w=$base_warm
			[ -n "$w" ] && [ -f "$out/k-$k.idx" ] || continue
			"$w" "$out/k-$k.idx" "$nq" 7 "$out/kaddrs.txt" >"$out/kq-$k.txt" || continue
			awk -v k=$k -v r=$((r + 1)) '{ printf "  %-8s %-16s median %7.1f us  p99 %7.1f us   (cpu: median %7.1f us, p99 %7.1f us)  round %d\n", k == "base" ? "main" : k, $1, $2 / 1e3, $3 / 1e3, $5 / 1e3, $6 / 1e3, r }' "$out/kq-$k.txt"
		done
		r=$((r + 1))
	done
	rm -f "$out/k-base.idx" "$out/k-full.idx" "$out/k-compact.idx"
}

t=$(trace_for "emu-$n" "$n" fm) && one_trace "bench trace" "$t" "$n"
if [ "${TRAWL_BENCH_KINDS_ES:-1}" != 0 ]; then
	t=$(trace_for "es-$n" "$n" ldst) && one_trace "ES-style (LD/ST) trace" "$t" "$n"
fi
if [ "${TRAWL_BENCH_KINDS_LONG:-1}" != 0 ]; then
	t=$(trace_for "emu-$((4 * n))" $((4 * n)) fm) && one_trace "4x trace" "$t" $((4 * n))
	rm -f "$out/kinds-emu-$((4 * n)).tarmac"
fi
