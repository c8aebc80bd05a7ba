#!/bin/sh
# Trust costs (issue #13): a one-shot `trawl regs --at` on the big index
# with block checksums checked (a fresh process per query, index in the
# page cache) beside the same query of a baseline trawl (TRAWL_BASELINE:
# for example a build of the branch point; skipped when unset), and the
# trace content hash in MB/s beside a plain read of the trace. A process
# start dominates the one-shot command, so the query itself is also timed
# inside fresh processes (bench-index-query: open + registers-at-a-line,
# first query of the process), beside the baseline build's own
# bench-index-query (TRAWL_BASELINE_BUILD, optional) on its own index.
#
# Uses the trace bench-index.sh uses (a `trawl emulate` trace of
# $TRAWL_BENCH_INDEX_INSNS instructions of the sort example, else the
# synthetic one), generating it when it is missing.
set -u
build=${TRAWL_BUILD:-build}
out=${TRAWL_BENCH_OUT:-bench/out}
trawl=${TRAWL:-$build/trawl}
base=${TRAWL_BASELINE:-}
base_build=${TRAWL_BASELINE_BUILD:-}
n=${TRAWL_BENCH_INDEX_INSNS:-10000000}
runs=${TRAWL_BENCH_TRUST_RUNS:-21}
mkdir -p "$out"
if [ -x "$build/examples/sort" ]; then
	trace="$out/index-emu-$n.tarmac"
	[ -s "$trace" ] || "$trawl" emulate "$build/examples/sort" -n "$n" -o "$trace" -- 200000 \
		>/dev/null 2>&1 || exit 1
else
	trace="$out/index-$n.tarmac"
	[ -s "$trace" ] || "$build/bench-index-gen" "$n" >"$trace" || exit 1
fi
idx="$out/trust-new.trawlidx"
"$trawl" index "$trace" --index "$idx" >/dev/null 2>&1 || exit 1
if [ -n "$base" ]; then
	bidx="$out/trust-base.trawlidx"
	[ -s "$bidx" ] || "$base" index "$trace" --index "$bidx" >/dev/null 2>&1 || exit 1
fi
lines=$("$trawl" info "$trace" --index "$idx" --json | sed 's/.*"lines":\([0-9]*\).*/\1/')

# wall time of one command in microseconds
us() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || return 1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$out/trust-new.txt"; : >"$out/trust-base.txt"; : >"$out/trust-ver.txt"
i=0
seed=7
while [ $i -lt "$runs" ]; do
	seed=$(((seed * 1103515245 + 12345) % 2147483648))
	at=$((seed % lines + 1))
	us "$trawl" regs "$trace" --index "$idx" --at $at >>"$out/trust-new.txt" || exit 1
	[ -n "$base" ] && { us "$base" regs "$trace" --index "$bidx" --at $at >>"$out/trust-base.txt" || exit 1; }
	us "$trawl" version >>"$out/trust-ver.txt"
	i=$((i + 1))
done
new=$(median <"$out/trust-new.txt")
ver=$(median <"$out/trust-ver.txt")
printf "one-shot trawl regs --at (checksums checked): median %d us over %d processes (process start, trawl version: %d us)\n" \
	"$new" "$runs" "$ver"
if [ -n "$base" ]; then
	old=$(median <"$out/trust-base.txt")
	awk -v a="$new" -v b="$old" 'BEGIN { printf "  baseline %s: median %d us (new/baseline %.2fx)\n", ENVIRON["TRAWL_BASELINE"], b, a / b }'
fi
# in-process: the first regs query of 20 fresh processes x 1, and open
grep -o ' M[RW][0-9]* [0-9a-fA-F]*' "$trace" | awk 'NR % 97 == 0 { print $2 }' |
	head -n 2000 >"$out/trust-addrs.txt"
inproc() { # BUILD INDEX -> "open_us regs_us" medians
	: >"$out/trust-q.txt"
	j=0
	while [ $j -lt 20 ]; do
		"$1/bench-index-query" "$trace" "$2" 1 $((j * 7919 + 1)) "$out/trust-addrs.txt" \
			>>"$out/trust-q.txt" || return 1
		j=$((j + 1))
	done
	o=$(grep '^open ' "$out/trust-q.txt" | awk '{print $2}' | median)
	r=$(grep '^regs ' "$out/trust-q.txt" | awk '{print $2}' | median)
	echo "$o $r"
}
set -- $(inproc "$build" "$idx") || exit 1
printf "first regs query in a fresh process (checksums checked): median %.1f us; open %.0f us\n" \
	$(awk -v r="$2" -v o="$1" 'BEGIN { print r / 1e3, o / 1e3 }')
if [ -n "$base_build" ] && [ -n "$base" ]; then
	set -- $(inproc "$base_build" "$bidx") || exit 1
	printf "  baseline build %s: median %.1f us; open %.0f us\n" "$base_build" \
		$(awk -v r="$2" -v o="$1" 'BEGIN { print r / 1e3, o / 1e3 }')
fi
"$build/bench-hash-speed" "$trace" "$idx" >"$out/trust-hash.txt" || exit 1
awk '{ v[$1] = $2 } END {
	printf "trace content hash (XXH3-64): %.0f MB/s (%.2f s for the trace); plain read of the same file %.0f MB/s (%.2f s)\n", v["hash"], v["hash_s"], v["read"], v["read_s"]
	printf "full index check (trawl index, info --verify): %.0f MB/s (%.2f s)\n", v["verify"], v["verify_s"]
}' "$out/trust-hash.txt"
