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

# best of 3 runs: "wall-secs kib cpu-secs" (wall and CPU time each the
# best seen; CPU = user + system, which shared machines disturb far less
# than wall time)
best() {
	b=""
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M %U %S" -o "$tmp" "$@" >/dev/null 2>&1 || { echo "fail"; return; }
		r=$(awk '{ print $1, $2, $3 + $4 }' "$tmp")
		b=$(printf '%s\n%s\n' "$b" "$r" | awk 'NF == 3 {
			if (s == "" || $1 < s) s = $1
			if (c == "" || $3 < c) c = $3
			if ($2 > m) m = $2 } END { print s, m, c }')
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
    -v wc="$wc_r" -v cat="$cat_r" -v st="$st_r" -v sm="$sm_r" -v mb="$mb" \
    -v load="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" 'BEGIN {
	split(wc, w); split(cat, c); split(st, s); split(sm, q)
	for (i = 1; i <= 3; i += 2) { if (s[i] <= 0) s[i] = 0.01; if (w[i] <= 0) w[i] = 0.01; if (c[i] <= 0) c[i] = 0.01 }
	printf "trace: %.0f MB of Fast Models style AArch64 text, %d lines (generated in %.1f s)\n", bytes / 1e6, lines, gen
	printf "                          wall s    MB/s   | CPU s    MB/s per CPU-second\n"
	printf "baseline wc -l:          %6.2f  %7.0f   | %6.2f  %7.0f\n", w[1], bytes / 1e6 / w[1], w[3], bytes / 1e6 / w[3]
	printf "baseline cat >/dev/null: %6.2f  %7.0f   | %6.2f  %7.0f\n", c[1], bytes / 1e6 / c[1], c[3], bytes / 1e6 / c[3]
	printf "trawl stats:             %6.2f  %7.0f   | %6.2f  %7.0f   %.2f M lines/s (wall), %.2f M lines per CPU-second\n", s[1], bytes / 1e6 / s[1], s[3], bytes / 1e6 / s[3], lines / 1e6 / s[1], lines / 1e6 / s[3]
	printf "peak RSS: %d KiB for %d MB, %d KiB for %d MB (%.2fx for 4x the text)\n", s[2], mb, q[2], mb / 4, s[2] / (q[2] ? q[2] : 1)
	printf "ratios: trawl stats takes %.1fx the wall time of wc -l, %.1fx of cat\n", s[1] / w[1], s[1] / c[1]
	printf "target >= 400 MB/s on one core: %.0f MB/s wall, %.0f MB/s per CPU-second: %s\n", bytes / 1e6 / s[1], bytes / 1e6 / s[3], (bytes / 1e6 / s[3] >= 400) ? "met (per CPU-second)" : "NOT met"
	printf "load average during the run: %s\n", load
}'
