#!/bin/sh
# Start-up cost of a one-shot query: `trawl regs --at LINE` on the bench's
# largest indexed trace (index checksums checked as every query does),
# beside `trawl --version` and a trivial C program (main returns 0), all
# started as fresh processes in turn in the same run (bench-start-time).
# Target (#13): the query within 2x the trivial program's start.
set -u
build=${TRAWL_BUILD:-build}
out=${TRAWL_BENCH_OUT:-bench/out}
trawl=${TRAWL:-$build/trawl}
mkdir -p "$out"
trace=$(ls -S "$out"/index-*.tarmac 2>/dev/null | head -1)
if [ -z "$trace" ]; then
	echo "start: no bench trace under $out (run bench-index first); skipped"
	exit 0
fi
"$trawl" index "$trace" >/dev/null || exit 1
lines=$(wc -l <"$trace")
printf 'int main(void) { return 0; }\n' >"$out/trivial.c"
${CC:-cc} -O2 -o "$out/trivial" "$out/trivial.c" || exit 1
at=$((lines / 2))
"$build/bench-start-time" 200 "$out/trivial" -- "$trawl" --version -- \
	"$trawl" regs "$trace" --at "$at" >"$out/start.txt" || exit 1
awk -v mb="$(($(wc -c <"$trace") / 1000000))" -v ix="$(($(wc -c <"$trace.trawlidx") / 1000000))" '
	{ med[$1] = $2; lo[$1] = $3; hi[$1] = $4 }
	END {
		printf "trivial C program start: median %.2f ms (p10 %.2f, p90 %.2f)\n", med[0], lo[0], hi[0]
		printf "trawl --version: median %.2f ms (p10 %.2f, p90 %.2f) = %.2fx the trivial program\n", med[1], lo[1], hi[1], med[1] / med[0]
		printf "trawl regs --at (trace %d MB, index %d MB): median %.2f ms (p10 %.2f, p90 %.2f) = %.2fx the trivial program   target <= 2x\n", mb, ix, med[2], lo[2], hi[2], med[2] / med[0]
	}' "$out/start.txt"
