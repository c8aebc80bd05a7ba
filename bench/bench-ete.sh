#!/bin/sh
# ETE decoding speed, trawl beside OpenCSD's trc_pkt_lister on the same
# input in the same run: the largest raw ETE sample of the corpus
# (src_addr) concatenated many times into a snapshot under bench/out.
# Both decoders are timed in process CPU time with counting consumers and
# no text output: trawl through bench/ete-speed.c, OpenCSD through its C
# API (bench/ocsd/ocsd-speed.c, built here when libopencsd-dev is
# installed). Debian's trc_pkt_lister (1.3.3) has no option to decode
# without printing, so its figures (listing to /dev/null) are shown apart.
# Each figure: the mean over the whole run, the median pass and [the fastest
# pass] (shared machines: the median and fastest pass resist neighbours).
# Targets: packets >= 1 GB/s, decode >= 10x OpenCSD.
set -u
corpus=${TRAWL_CORPUS:-$TRAWL_SRC/../shared/corpus}
src=$corpus/ete/ete/src_addr
if [ ! -d "$src" ]; then
	echo "bench-ete: skipped: no ETE corpus at $corpus/ete"
	exit 0
fi
copies=${ETE_BENCH_COPIES:-600}
out=${TRAWL_BENCH_OUT:-$TRAWL_SRC/bench/out}/ete-big
rm -rf "$out"
mkdir -p "$out"
cp "$src"/*.ini "$out"/
for d in "$src"/bindir*; do ln -s "$d" "$out/$(basename "$d")"; done
buf=$(sed -n 's/^file=//p' "$src/trace.ini" | head -1)
i=0
while [ $i -lt "$copies" ]; do cat "$src/$buf"; i=$((i + 1)); done >"$out/$buf"
bytes=$(wc -c <"$out/$buf")
echo "input: $src/$buf x $copies = $bytes bytes"

speed=$TRAWL_BUILD/bench-ete-speed
set -- $("$speed" "$out" count 2)
tn_mbs=$1 tn_best=$4 tn_med=$5
set -- $("$speed" "$out" packets 2)
tp_mbs=$1 tp_pps=$2 tp_best=$4 tp_med=$5
set -- $("$speed" "$out" decode 3)
td_mbs=$1 td_ips=$3 td_best=$4 td_med=$5

# OpenCSD without text output: bench/ocsd/ocsd-speed.c against the C API
# (libopencsd-dev), same input, same counting consumers
cfgregs=$(awk -F= '/^TRCIDR0/{i0=$2} /^TRCIDR1/{i1=$2} /^TRCIDR2/{i2=$2} /^TRCIDR8/{i8=$2}
	/^TRCDEVARCH/{da=$2} /^TRCCONFIGR/{cr=$2} /^TRCTRACEIDR/{ti=$2}
	END {print i0, i1, i2, i8, da, cr, ti}' "$src"/ETE_0_s1.ini)
dumps=$(awk -F= -v d="$src" '/^file=/{f=$2} /^address=/{print $2 "=" d "/" f}' "$src/cpu_0.ini")
op_mbs=0 od_mbs=0 od_ips=0 op_best=0 od_best=0 op_med=0 od_med=0 baseline="none"
if [ -f /usr/include/opencsd/c_api/opencsd_c_api.h ] &&
   cc -O2 -o "$out/ocsd-speed" "$TRAWL_SRC/bench/ocsd/ocsd-speed.c" -lopencsd_c_api -lopencsd 2>"$out/cc.log"; then
	set -- $("$out/ocsd-speed" "$out/$buf" packets 2 $cfgregs 2>/dev/null)
	op_mbs=${1:-0} op_best=${4:-0} op_med=${5:-0}
	set -- $("$out/ocsd-speed" "$out/$buf" decode 3 $cfgregs $dumps 2>/dev/null)
	od_mbs=${1:-0} od_ips=${3:-0} od_best=${4:-0} od_med=${5:-0}
	baseline="OpenCSD C API, no text output"
else
	echo "bench-ete: OpenCSD headers (libopencsd-dev) missing: no API baseline"
fi
# OpenCSD's own tool, which can only print (listing to /dev/null)
lp_mbs=0 ld_mbs=0 lrss=0
if command -v trc_pkt_lister >/dev/null 2>&1; then
	/usr/bin/time -f "%U %S %M" -o "$out/time" trc_pkt_lister -ss_dir "$out" -logfilename /dev/null >/dev/null 2>&1
	set -- $(awk -v b="$bytes" '{ s = $1 + $2; if (s < 0.001) s = 0.001; printf "%.2f %d\n", b / s / 1e6, $3 }' "$out/time")
	lp_mbs=$1
	/usr/bin/time -f "%U %S %M" -o "$out/time" trc_pkt_lister -ss_dir "$out" -decode_only -logfilename /dev/null >/dev/null 2>&1
	set -- $(awk -v b="$bytes" '{ s = $1 + $2; if (s < 0.001) s = 0.001; printf "%.2f %d\n", b / s / 1e6, $3 }' "$out/time")
	ld_mbs=$1 lrss=$2
fi
# trawl CLI end to end (load, decode, count) for RSS and wall time
/usr/bin/time -f "%e %M" -o "$out/ttime" "$TRAWL" ete stats "$out" >/dev/null 2>&1
set -- $(cat "$out/ttime")
tc_s=$1 tc_rss=$2

awk -v tp="$tp_mbs" -v tpp="$tp_pps" -v tc="$tn_mbs" -v td="$td_mbs" -v ti="$td_ips" \
    -v tcb="$tn_best" -v tpb="$tp_best" -v tdb="$td_best" -v opb="$op_best" -v odb="$od_best" \
    -v tcm="$tn_med" -v tpm="$tp_med" -v tdm="$td_med" -v opm="$op_med" -v odm="$od_med" \
    -v op="$op_mbs" -v od="$od_mbs" -v oi="$od_ips" -v lp="$lp_mbs" -v ld="$ld_mbs" \
    -v tcs="$tc_s" -v trss="$tc_rss" -v lrss="$lrss" -v base="$baseline" 'BEGIN {
	printf "baseline: %s\n", base
	printf "CPU time over the whole run (mean), median pass / [fastest single pass]:\n"
	printf "packets, counted       trawl %7.1f MB/s, %7.1f [%7.1f]   OpenCSD %6.1f MB/s, %6.1f [%6.1f]   ratio %5.1fx, %5.1fx [%5.1fx]   (target >= 1000 MB/s)\n", tc, tcm, tcb, op, opm, opb, (op > 0 ? tc / op : 0), (opm > 0 ? tcm / opm : 0), (opb > 0 ? tcb / opb : 0)
	printf "packets, 64-B records  trawl %7.1f MB/s, %7.1f [%7.1f] (%.0f Mpackets/s)\n", tp, tpm, tpb, tpp / 1e6
	printf "decode to ranges       trawl %7.1f MB/s, %7.1f [%7.1f] (%.0f Minsn/s)   OpenCSD %6.2f MB/s, %6.2f [%6.2f] (%.0f Minsn/s)   ratio %5.1fx, %5.1fx [%5.1fx]   (target >= 10x)\n", td, tdm, tdb, ti / 1e6, od, odm, odb, oi / 1e6, (od > 0 ? td / od : 0), (odm > 0 ? tdm / odm : 0), (odb > 0 ? tdb / odb : 0)
	printf "trc_pkt_lister (prints; listing to /dev/null): packets %.2f MB/s, decode %.2f MB/s, peak RSS %d KiB\n", lp, ld, lrss
	printf "trawl ete stats (CLI, load + decode): %.2f s, peak RSS %d KiB\n", tcs, trss
}'

# trawl index of the snapshot itself (the ETE reader, no text) beside the
# old way in the same run (trawl ete tarmac, then trawl index of the
# Tarmac). Instructions per second of process CPU time (user + sys) and
# of wall time, median of three runs each, peak RSS. Target: >= 5 M
# instructions/s. The input is the repeated src_addr sample above (an
# encoder-made 1 MB snapshot is not available yet).
ix_time() { # label command...: median "cpu wall rss" of three runs
	shift # the label names the call for the reader; the command follows it
	for r in 1 2 3; do
		/usr/bin/time -f "%U %S %e %M" -o "$out/itime" "$@" >/dev/null 2>&1
		awk '{ printf "%.3f %.3f %d\n", $1 + $2, $3, $4 }' "$out/itime"
	done | sort -n | sed -n 2p
}
insns=$("$TRAWL" info --memory-index "$out" 2>/dev/null | sed -n 's/^events: *//p')
set -- $(ix_time direct "$TRAWL" index --force --index "$out/direct.trawlidx" "$out")
ixd_cpu=$1 ixd_wall=$2 ixd_rss=$3
set -- $(ix_time tarmac sh -c "\"$TRAWL\" ete tarmac \"$out\" -o \"$out/t.tarmac\" &&
	\"$TRAWL\" index --force --index \"$out/t.trawlidx\" \"$out/t.tarmac\"")
ixt_cpu=$1 ixt_wall=$2 ixt_rss=$3
rm -f "$out/direct.trawlidx" "$out/t.trawlidx" "$out/t.tarmac"
awk -v n="${insns:-0}" -v dc="$ixd_cpu" -v dw="$ixd_wall" -v dr="$ixd_rss" \
    -v tc="$ixt_cpu" -v tw="$ixt_wall" -v tr="$ixt_rss" 'BEGIN {
	printf "trawl index of the snapshot (%d instructions): %.2f M insn/s CPU, %.2f M insn/s wall, peak RSS %d KiB   (target >= 5 M insn/s)\n", n, n / dc / 1e6, n / dw / 1e6, dr
	printf "  via trawl ete tarmac + trawl index:          %.2f M insn/s CPU, %.2f M insn/s wall, peak RSS %d KiB   direct/old CPU time %.2fx\n", n / tc / 1e6, n / tw / 1e6, tr, dc / tc
}'

# Second input: the figures above repeat one 3 KB sample, whose period the
# branch predictor learns, so they flatter both decoders. Real trace has
# local patterns (atoms then an address, an exception then a context) but
# no short period. bench/ete-mix.c builds such a stream from every raw ETE
# sample of the corpus (and ETMv4 ones whose packets read the same way):
# runs of 1..16 consecutive packets taken from random places, fixed seed,
# same size as the input above, decoded with src_addr's registers. Only
# packet syntax survives the cut (address compression and contexts refer to
# a foreign history), so decoding to ranges stays on the first input.
# OpenCSD's C API here has no ETE packet sink, so the packet boundaries are
# checked with trc_pkt_lister's listing instead: trawl and OpenCSD must
# find packets at exactly the same offsets.
mix=${TRAWL_BENCH_OUT:-$TRAWL_SRC/bench/out}/ete-mix
run=${ETE_BENCH_MIX_RUN:-16}
rm -rf "$mix"
mkdir -p "$mix"
cp "$src"/*.ini "$mix"/
if ! "$TRAWL_BUILD/bench-ete-mix" "$mix/$buf" "$bytes" 1 "$run" "$src" \
	$(ls -d "$corpus"/ete/ete/* "$corpus"/ete/etmv4/* 2>/dev/null | grep -v '/src_addr$') \
	>"$mix/mix.txt" 2>"$mix/mix.log"; then
	echo "bench-ete: skipped the mixed input: $(tail -1 "$mix/mix.log")"
	exit 0
fi
set -- $(cat "$mix/mix.txt")
mx_pkts=$2 mx_bytes=$4 mx_samples=$6
mx_left=$(grep -c 'left out' "$mix/mix.log")
set -- $("$speed" "$mix" count 2)
mn_mbs=$1 mn_best=$4 mn_med=$5 mn_pkts=$6
set -- $("$speed" "$mix" packets 2)
mp_mbs=$1 mp_pps=$2 mp_best=$4 mp_med=$5 mp_pkts=$6
mo_mbs=0 mo_best=0 mo_med=0
if [ "$baseline" != none ]; then
	set -- $("$out/ocsd-speed" "$mix/$buf" packets 2 $cfgregs 2>/dev/null)
	mo_mbs=${1:-0} mo_best=${4:-0} mo_med=${5:-0}
fi
agree="not checked (no trc_pkt_lister)"
if command -v trc_pkt_lister >/dev/null 2>&1; then
	trc_pkt_lister -ss_dir "$mix" -logfilename "$mix/ocsd.ppl" >/dev/null 2>&1
	sed -n 's/^Idx:\([0-9]*\);.*/\1/p' "$mix/ocsd.ppl" >"$mix/ocsd.idx"
	mo_pkts=$(wc -l <"$mix/ocsd.idx")
	if [ "$mn_pkts" = "$mx_pkts" ] && [ "$mp_pkts" = "$mx_pkts" ] && cmp -s "$mix/ocsd.idx" "$mix/$buf.idx"; then
		agree="agree: $mx_pkts packets at the same offsets"
	else
		agree="DISAGREE: built $mx_pkts, trawl counted $mn_pkts, trawl records $mp_pkts, OpenCSD $mo_pkts (see $mix)"
	fi
	rm -f "$mix/ocsd.ppl"
fi
awk -v n="$mx_samples" -v lo="$mx_left" -v b="$mx_bytes" -v r="$run" -v ag="$agree" \
    -v tc="$mn_mbs" -v tcm="$mn_med" -v tcb="$mn_best" -v tp="$mp_mbs" -v tpm="$mp_med" -v tpb="$mp_best" -v tpp="$mp_pps" \
    -v op="$mo_mbs" -v opm="$mo_med" -v opb="$mo_best" 'BEGIN {
	printf "mixed input: %d corpus trace buffers (%d left out, see ete-mix/mix.log), runs of 1-%d packets from random places (seed 1), %d bytes; packets %s\n", n, lo, r, b, ag
	printf "mixed packets, counted       trawl %7.1f MB/s, %7.1f [%7.1f]   OpenCSD %6.1f MB/s, %6.1f [%6.1f]   ratio %5.1fx, %5.1fx [%5.1fx]\n", tc, tcm, tcb, op, opm, opb, (op > 0 ? tc / op : 0), (opm > 0 ? tcm / opm : 0), (opb > 0 ? tcb / opb : 0)
	printf "mixed packets, 64-B records  trawl %7.1f MB/s, %7.1f [%7.1f] (%.0f Mpackets/s)\n", tp, tpm, tpb, tpp / 1e6
	printf "mixed decode to ranges: not measured (the cuts break address and context history; see docs/ete.md)\n"
}'
