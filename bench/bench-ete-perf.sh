#!/bin/sh
# Issue 20's speed figure: decoding a perf.data costs no more than decoding
# the same bytes as a snapshot (target: within 1.1x). The input is
# bench-ete-encoded's encoder-made ETE (ete-encoded-lib.sh, about 105 MB);
# the test helper tests/cli/perf-mkdata.py writes each program's trace into
# a perf.data (raw-format AUX data, the snapshot's ETE registers, its memory
# dumps as the MMAP2'd files) twice: in one AUXTRACE record, and in 64 KiB
# AUXTRACE records each with its AUX record, as perf writes a recording in
# pieces. The CLI decodes each, `trawl ete stats` (load, decode to ranges,
# count), as whole processes: each round runs every program's snapshot then
# its perf.data files, ETE_BENCH_PERF_RUNS rounds (default 5) after a
# warm-up round; a round's CPU seconds (user + sys) are summed over the
# programs. Printed: the medians, MB/s of AUX data, the median (and range)
# of the rounds' ratios perf.data / snapshot, peak RSS. The files live in a
# temporary folder (TMPDIR, /tmp) removed at the end.
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
# kinds: the source of each program's trace, a suffix to its snapshot folder
kinds="snapshot: perf.data:.data chunked:.chunked.data"

# the stats of SRC that any source of the same bytes must match
answers() { "$TRAWL" ete stats "$1" 2>&1 | grep -E '^  (ranges|instructions|atoms|exceptions|no-image)'; }

# check SRC decodes to the emulator's instruction count and the snapshot's
# answers (bar the trace ID and the helper's padding)
check() { # PROG SRC
	answers "$2" >"$2.stats"
	got=$(awk '$1 == "instructions" { print $2 }' "$2.stats")
	if [ "$got" != "$ete_enc_insns" ]; then
		echo "bench-ete-perf: $2 decodes to ${got:-no} instructions, not $ete_enc_insns"
		status=1
	elif ! cmp -s "$out/$1.stats" "$2.stats"; then
		echo "bench-ete-perf: $2 decodes differently: $(diff "$out/$1.stats" "$2.stats" | tr '\n' ' ')"
		status=1
	fi
}

while read -r prog arg share dens; do
	ete_enc_make "$out" "$prog" "$arg" "$share" "$dens"
	d="$out/$prog"
	maps=$(awk -F= -v d="$d" '/^file=/{f=$2} /^address=/{printf " --map %s=%s/%s", $2, d, f}' "$d/cpu_0.ini")
	mk="python3 $TRAWL_SRC/tests/cli/perf-mkdata.py"
	# shellcheck disable=SC2086 # $maps is a list of options
	$mk "$d.data" "$d/trace.bin" /none --regs "$d/ETE_0.ini" $maps &&
		$mk "$d.chunked.data" "$d/trace.bin" /none --regs "$d/ETE_0.ini" $maps --split 65536 ||
		{ echo "bench-ete-perf: $prog: perf.data not written"; exit 1; }
	answers "$d" >"$d.stats"
	check "$prog" "$d.data"
	check "$prog" "$d.chunked.data"
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
	for k in $kinds; do : >"$out/${k%%:*}.r"; done
	for p in $progs; do
		for k in $kinds; do one "$out/${k%%:*}.r" "$out/$p${k#*:}"; done
	done
	# round 0 warms the page cache: not counted
	for k in $kinds; do
		[ "$r" -gt 0 ] && awk '{ s += $1; if ($2 > m) m = $2 } END { print s, m }' "$out/${k%%:*}.r" \
			>>"$out/${k%%:*}"
	done
	r=$((r + 1))
done
# one line per round: snapshot s, KiB, perf.data s, KiB, chunked s, KiB
paste -d' ' "$out/snapshot" "$out/perf.data" "$out/chunked" | awk -v b="$tot" -v n="$runs" '
function med(a, k,   i, j, t) {
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function row(name, c,   i, s, q, lo, hi, m, sm) {
	lo = 1e9; hi = 0; m = 0
	for (i = 1; i <= NR; i++) {
		s[i] = sec[i, c]; q[i] = (sec[i, 0] > 0 ? sec[i, c] / sec[i, 0] : 0)
		if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i]; if (kib[i, c] > m) m = kib[i, c]
	}
	sm = med(s, NR)
	printf "%-22s %6.2f s  %6.1f MB/s  peak RSS %6d KiB", name, sm, (sm > 0 ? b / sm / 1e6 : 0), m
	if (c) printf "  ratio %.3fx (rounds %.3f-%.3f; target <= 1.1x)", med(q, NR), lo, hi
	printf "\n"
}
{ for (c = 0; c < 3; c++) { sec[NR, c] = $(2 * c + 1); kib[NR, c] = $(2 * c + 2) } }
END {
	printf "perf.data vs snapshot, %d bytes of AUX data, trawl ete stats (CPU s, medians of %d rounds):\n", b, n
	row("snapshot", 0)
	row("perf.data", 1)
	row("perf.data, 64K chunks", 2)
}' || status=1

# trawl index of a perf.data beside the same bytes as a snapshot (the ETE
# reader's two sources), paired round by round: a smaller input of the
# same kind (ETE_BENCH_PERF_INDEX_MB, default 2 MB of `exceptions`), as
# the index builder runs at a few M instructions/s. Both indexes must
# hold the same number of events. CPU seconds, medians of the rounds.
ete_enc_mb=${ETE_BENCH_PERF_INDEX_MB:-2}
mkdir -p "$out/ix"
ete_enc_make "$out/ix" exceptions 100000 100 0.19
d="$out/ix/exceptions"
maps=$(awk -F= -v d="$d" '/^file=/{f=$2} /^address=/{printf " --map %s=%s/%s", $2, d, f}' "$d/cpu_0.ini")
# shellcheck disable=SC2086 # $maps is a list of options
python3 "$TRAWL_SRC/tests/cli/perf-mkdata.py" "$d.data" "$d/trace.bin" /none --regs "$d/ETE_0.ini" $maps ||
	{ echo "bench-ete-perf: index input: perf.data not written"; exit 1; }
ixone() { # FILE SRC: appends "CPU-seconds peak-KiB events"
	/usr/bin/time -f "%U %S %M" -o "$out/t" "$TRAWL" index --force --index "$out/ix/i.trawlidx" "$2" \
		>"$out/ix/log" 2>&1
	ev=$(sed -n 's/.*: \([0-9]*\) events,.*/\1/p' "$out/ix/log")
	awk -v e="${ev:-0}" '{ printf "%.2f %d %d\n", $1 + $2, $3, e }' "$out/t" >>"$1"
	rm -f "$out/ix/i.trawlidx"
}
: >"$out/ix/snap" && : >"$out/ix/perf"
r=0
while [ "$r" -le "$runs" ]; do
	ixone "$out/ix/snap.r" "$d"
	ixone "$out/ix/perf.r" "$d.data"
	[ "$r" -gt 0 ] && tail -n 1 "$out/ix/snap.r" >>"$out/ix/snap" && tail -n 1 "$out/ix/perf.r" >>"$out/ix/perf"
	r=$((r + 1))
done
paste -d' ' "$out/ix/snap" "$out/ix/perf" | awk -v n="$runs" -v insns="$ete_enc_insns" '
function med(a, k,   i, j, t) {
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{ s[NR] = $1; p[NR] = $4; q[NR] = ($1 > 0 ? $4 / $1 : 0); if ($2 > ms) ms = $2; if ($5 > mp) mp = $5
  if ($3 != $6) bad = 1; ev = $3 }
END {
	if (bad) { print "bench-ete-perf: the perf.data index holds other events than the snapshot'"'"'s"; exit 1 }
	lo = 1e9; hi = 0; for (i = 1; i <= NR; i++) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i] }
	a = med(s, NR); b = med(p, NR)
	printf "trawl index, %d events (CPU s, medians of %d rounds):\n", ev, n
	printf "%-22s %6.2f s  %6.2f M insn/s  peak RSS %6d KiB\n", "snapshot", a, (a > 0 ? insns / a / 1e6 : 0), ms
	printf "%-22s %6.2f s  %6.2f M insn/s  peak RSS %6d KiB  ratio %.3fx (rounds %.3f-%.3f; target <= 1.1x)\n", "perf.data", b, (b > 0 ? insns / b / 1e6 : 0), mp, med(q, NR), lo, hi
}' || status=1
exit $status
