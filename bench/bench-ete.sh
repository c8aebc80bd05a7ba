#!/bin/sh
# ETE decoding speed, trawl beside OpenCSD's trc_pkt_lister on the same
# input in the same run: the largest raw ETE sample of the corpus
# (src_addr) concatenated many times into a snapshot under bench/out.
# OpenCSD (Debian's trc_pkt_lister) has no option to decode without
# printing, so it writes its listing to /dev/null; trawl is timed with a
# counting consumer (bench/ete-speed.c) and through the CLI (`ete stats`).
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
set -- $("$speed" "$out" packets 2)
tp_mbs=$1 tp_pps=$2
set -- $("$speed" "$out" decode 3)
td_mbs=$1 td_ips=$3

# OpenCSD: CPU seconds (user+sys) and peak RSS for the same input
ocsd() {
	/usr/bin/time -f "%U %S %M" -o "$out/time" trc_pkt_lister -ss_dir "$out" "$@" \
		-logfilename /dev/null >/dev/null 2>&1
	awk -v b="$bytes" '{ s = $1 + $2; if (s < 0.001) s = 0.001; printf "%.2f %.1f %d\n", s, b / s / 1e6, $3 }' "$out/time"
}
if command -v trc_pkt_lister >/dev/null 2>&1; then
	set -- $(ocsd)
	op_s=$1 op_mbs=$2 op_rss=$3
	set -- $(ocsd -decode_only)
	od_s=$1 od_mbs=$2 od_rss=$3
else
	echo "bench-ete: trc_pkt_lister not installed (libopencsd-bin): no baseline"
	op_mbs=0 od_mbs=0 op_s=0 od_s=0 op_rss=0 od_rss=0
fi
# trawl CLI end to end (load, decode, count) for RSS and wall time
/usr/bin/time -f "%e %M" -o "$out/ttime" "$TRAWL" ete stats "$out" >/dev/null 2>&1
set -- $(cat "$out/ttime")
tc_s=$1 tc_rss=$2

awk -v tp="$tp_mbs" -v tpp="$tp_pps" -v td="$td_mbs" -v ti="$td_ips" -v op="$op_mbs" -v od="$od_mbs" \
    -v ops="$op_s" -v ods="$od_s" -v orss="$op_rss" -v odrss="$od_rss" -v tcs="$tc_s" -v trss="$tc_rss" 'BEGIN {
	printf "packets  trawl %8.1f MB/s (%.0f Mpackets/s)   OpenCSD %6.1f MB/s (%.2fs, listing to /dev/null)   ratio %5.1fx   target >= 1000 MB/s\n", tp, tpp / 1e6, op, ops, op > 0 ? tp / op : 0
	printf "decode   trawl %8.1f MB/s (%.0f Minsns/s)     OpenCSD %6.1f MB/s (%.2fs, listing to /dev/null)   ratio %5.1fx   target >= 10x\n", td, ti / 1e6, od, ods, od > 0 ? td / od : 0
	printf "trawl ete stats (CLI, load + decode): %.2fs, peak RSS %d KiB;  OpenCSD peak RSS %d KiB (packets) %d KiB (decode)\n", tcs, trss, orss, odrss
}'
