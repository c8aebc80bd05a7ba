#!/bin/sh
# Tarmac reading speed: `trawl stats` over >= 1 GB of generated Fast Models
# style AArch64 text, beside `wc -l` and `cat >/dev/null` on the same file
# in the same run (the machines are shared, so ratios are what to compare).
# Prints MB/s, lines/s and peak RSS, and RSS on a quarter-size trace to show
# memory does not grow with the trace. Each figure is the best of 3 runs.
# TRAWL_BENCH_TARMAC_MB overrides the size (default 1024).
set -u
build=${TRAWL_BUILD:-build}
out=${TRAWL_BENCH_OUT:-bench/out}
mb=${TRAWL_BENCH_TARMAC_MB:-1024}
trawl=${TRAWL:-$build/trawl}
gen=$build/bench-gen-tarmac
mkdir -p "$out"
big="$out/tarmac-fm-big.tarmac"
small="$out/tarmac-fm-small.tarmac"
tmp="$out/tarmac-time.$$"
trap 'rm -f "$big" "$small" "$tmp"' EXIT INT TERM

[ -x "$gen" ] || { echo "bench-tarmac: $gen not built"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-tarmac: /usr/bin/time is needed"; exit 1; }

t0=$(date +%s.%N)
"$gen" "$mb" >"$big" || exit 1
"$gen" $((mb / 4)) >"$small" || exit 1
t1=$(date +%s.%N)
bytes=$(stat -c %s "$big")
cat "$big" >/dev/null   # page cache warm for every contender

# best wall-clock seconds and peak RSS (KiB) of 3 runs: "secs kib"
best() {
	b=""
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$tmp" "$@" >/dev/null 2>&1 || { echo "fail"; return; }
		r=$(cat "$tmp")
		b=$(printf '%s\n%s\n' "$b" "$r" | awk 'NF == 2 && ($1 < s || s == "") { s = $1; m = $2 } END { print s, m }')
	done
	echo "$b"
}

wc_r=$(best wc -l "$big")
cat_r=$(best cat "$big")
st_r=$(best "$trawl" stats --no-timing "$big")
sm_r=$(best "$trawl" stats --no-timing "$small")
lines=$(wc -l <"$big")
case "$st_r" in fail*) echo "bench-tarmac: trawl stats failed"; "$trawl" stats "$big" | tail -3; exit 1;; esac

awk -v bytes="$bytes" -v lines="$lines" -v gen="$(echo "$t1 - $t0" | bc 2>/dev/null || echo 0)" \
    -v wc="$wc_r" -v cat="$cat_r" -v st="$st_r" -v sm="$sm_r" -v mb="$mb" 'BEGIN {
	split(wc, w); split(cat, c); split(st, s); split(sm, q)
	if (s[1] <= 0) s[1] = 0.001; if (w[1] <= 0) w[1] = 0.001; if (c[1] <= 0) c[1] = 0.001
	printf "trace: %.0f MB of Fast Models style AArch64 text, %d lines (generated in %.1f s)\n", bytes / 1e6, lines, gen
	printf "baseline wc -l:         %6.2f s  %7.0f MB/s\n", w[1], bytes / 1e6 / w[1]
	printf "baseline cat >/dev/null:%6.2f s  %7.0f MB/s\n", c[1], bytes / 1e6 / c[1]
	printf "trawl stats:            %6.2f s  %7.0f MB/s  %.2f M lines/s  peak RSS %d KiB\n", s[1], bytes / 1e6 / s[1], lines / 1e6 / s[1], s[2]
	printf "trawl stats, %d MB trace: peak RSS %d KiB (memory vs trace size: %.2fx for 4x the text)\n", mb / 4, q[2], s[2] / (q[2] ? q[2] : 1)
	printf "ratios: trawl stats takes %.1fx the time of wc -l, %.1fx of cat; target >= 400 MB/s: %s\n", s[1] / w[1], s[1] / c[1], (bytes / 1e6 / s[1] >= 400) ? "met" : "NOT met"
}'
