#!/bin/sh
# A screen of text (50 lines) at random events of a compressed trace
# (issue #18: <= 5 ms), beside the plain trace, in one warm process
# (bench-text-screen): median and p99 wall time and CPU time (the machine
# is shared: wall p99 includes being descheduled, CPU time much less), the
# time to build the seek file, and its size as a fraction of the
# compressed trace. Copies: gzip -6 (one member), zstd -3 (one frame: a
# seekable copy of the text is made), zstd of 1 MB pieces (many frames:
# restart points only). Trace: bench-gen-tarmac, $TRAWL_BENCH_TEXT_MB MB.
set -u
build=${TRAWL_BUILD:-build}
out=${TRAWL_BENCH_OUT:-bench/out}/text
trawl=${TRAWL:-$build/trawl}
mb=${TRAWL_BENCH_TEXT_MB:-400}
screens=${TRAWL_BENCH_TEXT_SCREENS:-500}
mkdir -p "$out"
command -v zstd >/dev/null 2>&1 || { echo "SKIP: zstd is not installed"; exit 0; }
P="$out/gen-$mb.tarmac"
[ -s "$P" ] || "$build/bench-gen-tarmac" "$mb" >"$P" || exit 1
[ -s "$P.gz" ] || gzip -6 -c "$P" >"$P.gz" || exit 1
[ -s "$P.zst" ] || zstd -q -3 -c "$P" >"$P.zst" || exit 1
if [ ! -s "$out/frames-$mb.zst" ]; then
	split -b 1000000 "$P" "$out/piece." || exit 1
	for p in "$out"/piece.*; do zstd -q -3 -c "$p"; done >"$out/frames-$mb.zst"
	rm -f "$out"/piece.*
fi
echo "trace: $(wc -c <"$P") bytes, $(wc -l <"$P") lines; load average $(cut -d' ' -f1-3 /proc/loadavg) (shared machine)"
for f in "$P" "$P.gz" "$P.zst" "$out/frames-$mb.zst"; do
	"$trawl" index "$f" >/dev/null 2>&1 || { echo "index of $f failed"; exit 1; }
	rm -f "$f.trawlseek"
	# first open builds the seek file (timed as open_ms), then again warm
	first=$("$build/bench-text-screen" "$f" 20) || exit 1
	line=$("$build/bench-text-screen" "$f" "$screens") || exit 1
	comp=$(wc -c <"$f")
	echo "$line" | awk -v name="$(basename "$f")" -v comp="$comp" -v first="$first" '{
		split(first, a, " ")
		for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		for (i = 1; i < 20; i += 2) w[a[i]] = a[i + 1]
		printf "%-22s screen wall median %7.3f ms p99 %7.3f ms; cpu median %7.3f ms p99 %7.3f ms; ", name,
			v["median_us"] / 1e3, v["p99_us"] / 1e3, v["cpu_median_us"] / 1e3, v["cpu_p99_us"] / 1e3
		printf "seek file %d bytes (%.3fx the file, %.4fx the text), built in %.2f s; sum %s\n",
			v["seek_bytes"], v["seek_bytes"] / comp, v["seek_bytes"] / v["text_bytes"], w["open_ms"] / 1e3, v["sum"]
	}'
done | tee "$out/result.txt"
# the same screens must give the same text from every copy
[ "$(awk '{ print $NF }' "$out/result.txt" | sort -u | wc -l)" = 1 ] || { echo "copies differ"; exit 1; }
