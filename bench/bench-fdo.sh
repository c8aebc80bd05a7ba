#!/bin/sh
# trawl autofdo and trawl coverage over the 10-million-instruction bench
# trace (examples/sort under `trawl emulate`, the trace bench-index uses),
# beside `trawl calltree` from text on the same trace as the baseline,
# interleaved in rounds so a slow minute on the shared machine costs every
# command alike. Target (issue 21): both at >= 0.8x calltree's speed, and
# peak RSS flat in trace length (the same commands on a 2 M trace).
set -u
: "${TRAWL:?}" "${TRAWL_BUILD:?}"
out=${TRAWL_BENCH_OUT:-bench/out}
n=${TRAWL_BENCH_INDEX_INSNS:-10000000}
small=$((n / 5))
elf="$TRAWL_BUILD/examples/sort"
[ -x "$elf" ] || { echo "bench-fdo: examples not built (needs aarch64-linux-gnu-gcc), skipped"; exit 0; }
mkdir -p "$out"
for k in "$n" "$small"; do
	f="$out/index-emu-$k.tarmac"
	[ -s "$f" ] || "$TRAWL" emulate "$elf" -n "$k" -o "$f" -- 200000 >/dev/null 2>&1 ||
		{ echo "bench-fdo: emulate failed"; exit 1; }
done
big="$out/index-emu-$n.tarmac"
echo "trace: $big, $(wc -c <"$big") bytes, $n instructions"

# rounds FILE NAME=CMD...: ${RUNS:-5} interleaved rounds of every command
# (bench/rounds.sh); per command the best wall time, its CPU time and the
# largest peak RSS, written to FILE
. "$(dirname "$0")/rounds.sh"
rounds() {
	res=$1; shift
	: >"$res"
	bench_rounds bench-fdo "$res" "$@"
}
cmds() {
	rounds "$1" "calltree(baseline)=$TRAWL calltree --image $elf $2" \
		"autofdo=$TRAWL autofdo --image $elf $2" \
		"coverage-lcov=$TRAWL coverage --image $elf $2" \
		"coverage-drcov=$TRAWL coverage --image $elf --format drcov $2"
}
cmds "$out/fdo-big.txt" "$big" || exit 1
RUNS=2 cmds "$out/fdo-small.txt" "$out/index-emu-$small.tarmac" || exit 1
awk -v n="$n" -v small="$small" '
	FNR == 1 { f++ }
	f == 1 { name[FNR] = $1; wall[FNR] = $2; cpu[FNR] = $3; rss[FNR] = $4; rows = FNR }
	f == 2 { srss[FNR] = $4 }
	END {
		printf "%-19s %8s %8s %13s %10s %10s %14s %14s\n", "command", "wall s", "cpu s",
		       "M insn/s cpu", "cpu ratio", "wall ratio", "RSS MiB (10M)", "RSS MiB (2M)"
		ok = 1
		for (i = 1; i <= rows; i++) {
			rc = cpu[1] / cpu[i]; rw = wall[1] / wall[i]
			printf "%-19s %8.2f %8.2f %13.2f %9.2fx %9.2fx %14.1f %14.1f\n", name[i], wall[i], cpu[i],
			       n / cpu[i] / 1e6, rc, rw, rss[i] / 1024, srss[i] / 1024
			if (i > 1 && rc < 0.8) ok = 0
		}
		printf "target: autofdo and coverage >= 0.8x calltree (speed ratio by CPU time): %s\n",
		       ok ? "met" : "NOT met"
		printf "(ratio = calltree time / command time; RSS at %d and %d instructions)\n", n, small
	}' "$out/fdo-big.txt" "$out/fdo-small.txt"
