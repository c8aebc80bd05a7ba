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
