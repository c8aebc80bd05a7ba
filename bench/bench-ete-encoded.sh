#!/bin/sh
# ETE decoding speed on a large, realistic input that is not a repeated
# sample: trawl emulate --ete (timestamps and cycle counts on, as a perf
# session would configure them) makes one snapshot per program from long
# runs of several example programs, about ETE_BENCH_ENC_MB megabytes in
# all (default 105, so that the densities' spread still gives 100). Each snapshot is decoded by trawl (bench/ete-speed.c)
# and by OpenCSD's C API (bench/ocsd/ocsd-speed.c, when libopencsd-dev is
# installed), in process CPU time, with counting consumers and no text
# output; the figures are totals over all snapshots (bytes / CPU seconds),
# so every program weighs by its size. One pass of each (SECONDS 0.1:
# the buffers are large). Targets (issue 16): packet counting >= 1 GB/s
# and >= 15x the library; decode to ranges >= 20x the library.
set -u
. "$TRAWL_SRC/bench/ete-encoded-lib.sh"
if ! ete_enc_usable; then
	echo "bench-ete-encoded: skipped: examples or the emulator not built"
	exit 0
fi
out=${TRAWL_BENCH_OUT:-$TRAWL_SRC/bench/out}/ete-enc
rm -rf "$out"
mkdir -p "$out"

speed=$TRAWL_BUILD/bench-ete-speed
ocsd=""
if [ -f /usr/include/opencsd/c_api/opencsd_c_api.h ] &&
   cc -O2 -o "$out/ocsd-speed" "$TRAWL_SRC/bench/ocsd/ocsd-speed.c" -lopencsd_c_api -lopencsd 2>"$out/cc.log"; then
	ocsd="$out/ocsd-speed"
else
	echo "bench-ete-encoded: OpenCSD headers (libopencsd-dev) missing: no library baseline"
fi

# secs MBS BYTES: the CPU seconds a figure in MB/s stands for
secs() { awk -v r="$1" -v b="$2" 'BEGIN { s = 0; if (r > 0) s = b / r / 1e6; printf "%.6f", s }'; }
tot_b=0 tot_i=0 tc=0 td=0 oc=0 od=0 t_gen=0
echo "$ete_enc_runs" | {
while read -r prog arg share dens; do
	d="$out/$prog"
	ete_enc_make "$out" "$prog" "$arg" "$share" "$dens"
	bytes=$ete_enc_bytes insns=$ete_enc_insns
	set -- $("$speed" "$d" count 0.1)
	tc=$(awk -v a="$tc" -v s="$(secs "$1" "$bytes")" 'BEGIN { print a + s }')
	set -- $("$speed" "$d" decode 0.1)
	td=$(awk -v a="$td" -v s="$(secs "$1" "$bytes")" 'BEGIN { print a + s }')
	if [ -n "$ocsd" ]; then
		regs=$(awk -F= '/^TRCIDR0/{i0=$2} /^TRCIDR1/{i1=$2} /^TRCIDR2/{i2=$2} /^TRCIDR8/{i8=$2}
			/^TRCDEVARCH/{da=$2} /^TRCCONFIGR/{cr=$2} /^TRCTRACEIDR/{ti=$2}
			END {print i0, i1, i2, i8, da, cr, ti}' "$d/ETE_0.ini")
		dumps=$(awk -F= -v d="$d" '/^file=/{f=$2} /^address=/{print $2 "=" d "/" f}' "$d/cpu_0.ini")
		set -- $("$ocsd" "$d/trace.bin" packets 0.1 $regs 2>/dev/null)
		oc=$(awk -v a="$oc" -v s="$(secs "${1:-0}" "$bytes")" 'BEGIN { print a + s }')
		set -- $("$ocsd" "$d/trace.bin" decode 0.1 $regs $dumps 2>/dev/null)
		od=$(awk -v a="$od" -v s="$(secs "${1:-0}" "$bytes")" 'BEGIN { print a + s }')
	fi
	tot_b=$((tot_b + bytes))
	tot_i=$((tot_i + insns))
done
awk -v b="$tot_b" -v i="$tot_i" -v tc="$tc" -v td="$td" -v oc="$oc" -v od="$od" 'BEGIN {
	tcm = 0; tdm = 0; ocm = 0; odm = 0; rc = 0; rd = 0; tdi = 0; odi = 0
	if (tc > 0) tcm = b / tc / 1e6
	if (td > 0) { tdm = b / td / 1e6; tdi = i / td / 1e6 }
	if (oc > 0) ocm = b / oc / 1e6
	if (od > 0) { odm = b / od / 1e6; odi = i / od / 1e6 }
	if (tc > 0 && oc > 0) rc = oc / tc
	if (td > 0 && od > 0) rd = od / td
	printf "encoded input: %d bytes, %d instructions (%.3f bytes per instruction); CPU time, one pass each:\n", b, i, b / i
	printf "packets, counted   trawl %7.1f MB/s   OpenCSD %6.1f MB/s   ratio %5.1fx   (target >= 1000 MB/s, >= 15x)\n", tcm, ocm, rc
	printf "decode to ranges   trawl %7.1f MB/s (%.0f Minsn/s)   OpenCSD %6.2f MB/s (%.1f Minsn/s)   ratio %5.1fx   (target >= 20x)\n", tdm, tdi, odm, odi, rd
}'
}
# peak RSS of the CLI on the largest snapshot
/usr/bin/time -f "%e %M" -o "$out/ttime" "$TRAWL" ete stats "$out/exceptions" >/dev/null 2>&1
set -- $(cat "$out/ttime")
echo "trawl ete stats on $out/exceptions (CLI, load + decode): $1 s, peak RSS $2 KiB"

# trawl index of a ~1 MB encoder-made snapshot (issue 16: >= 5 M
# instructions/s): emulate --ete of sort 100000 (18 M instructions, 0.054
# bytes each), indexed by this binary and by the baseline (base-lib.sh:
# $TRAWL_BENCH_BASE, default where this branch left main) in turns, each
# into a fresh index as a user's first `trawl index` makes it (build, then
# the verify read); medians of ETE_BENCH_INDEX_ROUNDS rounds (default 3),
# CPU = user + sys, peak RSS the largest. Then both binaries' answers on
# their own index, byte for byte: calltree, profile, pc, regs, mem.
src=$TRAWL_SRC
. "$TRAWL_SRC/bench/base-lib.sh"
bench_base "${TRAWL_BENCH_OUT:-$TRAWL_SRC/bench/out}" trawl-bin bench-index-warm
[ -n "$base" ] || echo "trawl index: no baseline binary (TRAWL_BENCH_BASE)"
snap="$out/index-snap"
"$TRAWL" emulate --ete "$snap" "$ex/sort" -- 100000 >/dev/null 2>"$out/isnap.log" </dev/null
insns=$(sed -n 's/.*: \([0-9]*\) instructions, .*/\1/p' "$out/isnap.log")
bytes=$(stat -c %s "$snap/trace.bin")
: >"$out/itimes"
r=0
while [ $r -lt "${ETE_BENCH_INDEX_ROUNDS:-3}" ]; do
	for who in base this; do
		bin=$TRAWL
		[ $who = base ] && bin=$base
		[ -n "$bin" ] || continue
		rm -f "$out/i-$who.idx"
		/usr/bin/time -f "$who %e %U %S %M" -a -o "$out/itimes" "$bin" index \
			--index "$out/i-$who.idx" "$snap" >/dev/null 2>"$out/ierr" ||
			{ echo "trawl index ($who) failed:"; cat "$out/ierr"; }
	done
	r=$((r + 1))
done
for who in base this; do
	grep -q "^$who " "$out/itimes" || continue
	awk -v w=$who -v n="$insns" -v b="$bytes" '$1 == w { wall[++k] = $2; cpu[k] = $3 + $4; if ($5 > m) m = $5 }
	function med(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((k + 1) / 2)] }
	END { c = med(cpu, k); x = med(wall, k)
		printf "trawl index, %d KB snapshot, %d instructions (%s): %5.2f M insn/s CPU (%.2f s), %5.2f M insn/s wall (%.2f s), peak RSS %d MB  (target >= 5 M/s)\n",
			b / 1000, n, w == "base" ? "baseline" : "this build", n / c / 1e6, c, n / x / 1e6, x, m / 1024 }' "$out/itimes"
done
if [ -n "$base" ]; then
	q=0 same=0
	E="$ex/sort"
	for args in "calltree --image $E" "profile --image $E" "pc @ 0x400820 --limit 50" \
		"pc @ 0x400820 --from 9000000 --limit 50" "regs @ --at 1" "regs @ --at 9000000" \
		"regs @ --at $insns" "mem @ --at 5000000 0x400820 64" "mem @ --at $insns 0x400500 256"; do
		for who in base this; do
			bin=$TRAWL
			[ $who = base ] && bin=$base
			# pc, regs and mem read the index just built; calltree and profile the trace
			set -- $args
			cmd=$1
			shift
			a=$(echo "$*" | sed "s|^@|--index $out/i-$who.idx $snap|")
			[ "$a" = "$*" ] && a="$* $snap"
			"$bin" $cmd $a >"$out/ans-$who" 2>&1
			echo "exit $?" >>"$out/ans-$who"
		done
		q=$((q + 1))
		if cmp -s "$out/ans-base" "$out/ans-this"; then
			same=$((same + 1))
		else
			echo "trawl index: answers differ: $args"
		fi
	done
	echo "trawl index: $same of $q queries answer byte for byte as the baseline's (calltree, profile, pc, regs, mem)"
fi
rm -rf "$snap" "$out"/i-*.idx
