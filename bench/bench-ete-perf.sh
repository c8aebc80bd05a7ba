#!/bin/sh
# Issue 20's speed figure: decoding a perf.data costs no more than decoding
# the same bytes as a snapshot (target: within 1.1x). The input is
# bench-ete-encoded's encoder-made ETE (ete-encoded-lib.sh, about 105 MB);
# the test helper tests/cli/perf-mkdata.py writes each program's trace into
# a perf.data (raw-format AUX data, the snapshot's ETE registers, its memory
# dumps as the MMAP2'd files). The CLI decodes both, `trawl ete stats`
# (load, decode to ranges, count), as whole processes: each round runs every
# program's snapshot then its perf.data, ETE_BENCH_PERF_RUNS rounds
# (default 5) after a warm-up round; a round's CPU seconds (user + sys) are
# summed over the programs. Printed: the medians, MB/s of AUX data, the
# median of the rounds' ratios perf.data / snapshot, peak RSS. The files
# live in a temporary folder (TMPDIR, /tmp) removed at the end.
set -u
. "$TRAWL_SRC/bench/ete-encoded-lib.sh"
if ! ete_enc_usable || ! command -v python3 >/dev/null; then
	echo "bench-ete-perf: skipped: examples, the emulator or python3 missing"
	exit 0
fi
runs=${ETE_BENCH_PERF_RUNS:-5}
out=$(mktemp -d "${TMPDIR:-/tmp}/trawl-bench-ete-perf.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
progs="" tot=0 status=0
while read -r prog arg share dens; do
	ete_enc_make "$out" "$prog" "$arg" "$share" "$dens"
	d="$out/$prog"
	maps=$(awk -F= -v d="$d" '/^file=/{f=$2} /^address=/{printf " --map %s=%s/%s", $2, d, f}' "$d/cpu_0.ini")
	# shellcheck disable=SC2086 # $maps is a list of options
	python3 "$TRAWL_SRC/tests/cli/perf-mkdata.py" "$d.perf.data" "$d/trace.bin" /none \
		--regs "$d/ETE_0.ini" $maps || { echo "bench-ete-perf: $prog: perf.data not written"; exit 1; }
	# the same answers both ways, bar the trace ID and the helper's padding
	for s in "$d" "$d.perf.data"; do
		"$TRAWL" ete stats "$s" 2>&1 | grep -E '^  (ranges|instructions|atoms|exceptions|no-image)' >"$s.stats"
	done
	# and every instruction the emulator ran
	got=$(awk '$1 == "instructions" { print $2 }' "$d.perf.data.stats")
	if [ "$got" != "$ete_enc_insns" ]; then
		echo "bench-ete-perf: $prog: the perf.data decodes to ${got:-no} instructions, not $ete_enc_insns"
		status=1
	elif ! cmp -s "$d.stats" "$d.perf.data.stats"; then
		echo "bench-ete-perf: $prog: the perf.data decodes differently: $(diff "$d.stats" "$d.perf.data.stats" | tr '\n' ' ')"
		status=1
	fi
	progs="$progs $prog"
	tot=$((tot + ete_enc_bytes))
done <<RUNS
$ete_enc_runs
RUNS

# one CLI run; appends "CPU-seconds peak-KiB" to FILE
one() { # FILE SRC
	/usr/bin/time -f "%U %S %M" -o "$out/t" "$TRAWL" ete stats "$2" >/dev/null 2>&1
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$out/t" >>"$1"
}
r=0
while [ "$r" -le "$runs" ]; do
	: >"$out/snap.r" && : >"$out/perf.r"
	for p in $progs; do
		one "$out/snap.r" "$out/$p"
		one "$out/perf.r" "$out/$p.perf.data"
	done
	# round 0 warms the page cache: not counted
	[ "$r" -gt 0 ] && awk '{ s += $1; if ($2 > m) m = $2 } END { print s, m }' "$out/snap.r" >>"$out/snap" &&
		awk '{ s += $1; if ($2 > m) m = $2 } END { print s, m }' "$out/perf.r" >>"$out/perf"
	r=$((r + 1))
done
paste -d' ' "$out/snap" "$out/perf" | awk -v b="$tot" -v n="$runs" '
function med(a, k,   i, j, t) {
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{ s[NR] = $1; p[NR] = $3; q[NR] = ($1 > 0 ? $3 / $1 : 0)
  if ($2 > ms) ms = $2; if ($4 > mp) mp = $4 }
END {
	lo = 1e9; hi = 0
	for (i = 1; i <= NR; i++) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i] }
	sm = med(s, NR); pm = med(p, NR); qm = med(q, NR)
	printf "perf.data vs snapshot, %d bytes of AUX data, trawl ete stats (CPU s, medians of %d rounds):\n", b, n
	printf "snapshot   %6.2f s  %7.1f MB/s   peak RSS %d KiB\n", sm, (sm > 0 ? b / sm / 1e6 : 0), ms
	printf "perf.data  %6.2f s  %7.1f MB/s   peak RSS %d KiB\n", pm, (pm > 0 ? b / pm / 1e6 : 0), mp
	printf "ratio perf.data / snapshot %.3fx (rounds %.3f-%.3f; target <= 1.1x)\n", qm, lo, hi
}' || status=1
exit $status
