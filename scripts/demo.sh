#!/bin/sh
# make demo: trawl's main job on real traces, step by step. Everything it
# makes goes to demo-out/ (git-ignored). Steps whose command is not in this
# build are skipped with a note.
set -eu
build=${1:-build}
T="$PWD/$build/trawl"
EX="$PWD/$build/examples"
OUT="$PWD/demo-out"
CORPUS="$PWD/../shared/corpus"
mkdir -p "$OUT"
export TRAWL_NO_PROGRESS=1

has() { "$T" help "$1" >/dev/null 2>&1; }
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*" | sed "s#$PWD/##g"; "$@"; }
# the first N lines of a command's output; the "$" line is printed before
# the pipe, so head does not count it (or print it after the command's warnings)
runh() { n=$1; shift; printf '$ %s | head -n %s\n' "$*" "$n" | sed "s#$PWD/##g"; "$@" | head -n "$n"; }

step "trawl $("$T" --version | cut -d' ' -f2): the commands"
"$T" --help

if [ ! -x "$EX/recurse" ]; then
	echo "demo programs were not built (is gcc-aarch64-linux-gnu installed?)" >&2
	exit 1
fi

step "1. Make a real trace: emulate a static AArch64 program (recursion + a tree walk)"
run "$T" emulate "$EX/recurse" -o "$OUT/recurse.tarmac" --stats
run head -n 3 "$OUT/recurse.tarmac"
run grep -m 4 -w IT "$OUT/recurse.tarmac"

step "2. What is in it"
run "$T" stats "$OUT/recurse.tarmac"

if has index; then
	step "3. Index it once: every register and memory byte at every line"
	run "$T" index "$OUT/recurse.tarmac"
	run "$T" info "$OUT/recurse.tarmac"
	line=$(grep -n ' IT ' "$OUT/recurse.tarmac" | sed -n '1000000p' | cut -d: -f1)
	[ -n "$line" ] || line=$(grep -n ' IT ' "$OUT/recurse.tarmac" | tail -1 | cut -d: -f1)
	step "4. Travel in time: the machine as it was at line $line"
	runh 36 "$T" regs "$OUT/recurse.tarmac" --at "$line"
	sp=$("$T" regs "$OUT/recurse.tarmac" --at "$line" | awk '$1 == "sp" { print "0x" $2 }')
	if [ -n "$sp" ]; then
		run "$T" mem "$OUT/recurse.tarmac" --at "$line" "$sp" 64
		run "$T" last-write "$OUT/recurse.tarmac" --at "$line" "$sp:8"
	fi
	run "$T" last-write "$OUT/recurse.tarmac" --at "$line" x0
fi

if has calltree; then
	step "5. Who called whom, and where the time went"
	runh 15 "$T" profile "$OUT/recurse.tarmac" --image "$EX/recurse"
	runh 25 "$T" calltree "$OUT/recurse.tarmac" --image "$EX/recurse"
	run "$T" flamegraph "$OUT/recurse.tarmac" --image "$EX/recurse" --svg "$OUT/recurse.svg" >/dev/null
	echo "flame graph: $OUT/recurse.svg"
fi

if has ete && [ -d "$CORPUS/ete/ete/q_elem" ]; then
	step "6. Hardware trace: decode an ETE trace buffer (OpenCSD test snapshot)"
	run "$T" ete stats "$CORPUS/ete/ete/q_elem"
	runh 15 "$T" ete decode "$CORPUS/ete/ete/q_elem"
fi

PERF="$CORPUS/perf/perf_etm.data"
if has ete && [ -f "$PERF" ] && [ -f "$CORPUS/perf/etm_test_loop" ]; then
	step "6b. A Linux perf recording (simpleperf, cs-etm) as a trace: calls and an AutoFDO profile"
	# the program as the recording names it, under a --symfs root (a link, not a copy)
	mkdir -p "$OUT/perf-root/data/local/tmp"
	ln -sf "$CORPUS/perf/etm_test_loop" "$OUT/perf-root/data/local/tmp/etm_test_loop"
	echo "(the libraries it maps are not in the corpus: trawl says so, and their code is not decoded)"
	runh 3 "$T" info "$PERF"
	run "$T" calltree --symfs "$OUT/perf-root" "$PERF"
	runh 6 "$T" autofdo --symfs "$OUT/perf-root" --binary etm_test_loop "$PERF"
fi

if has events && [ -x "$PWD/$build/rec/rec-demo/rec-demo" ]; then
	step "7. Software events: a program instrumented with the trawl recorder (examples/rec-demo)"
	rm -rf "$OUT/rec-demo.ctf"
	run env TRAWL_REC_OUT="$OUT/rec-demo.ctf" "$PWD/$build/rec/rec-demo/rec-demo" --threads 2 --packets 1000 --no-start
	run "$T" events stats "$OUT/rec-demo.ctf"
	run "$T" events list "$OUT/rec-demo.ctf" --limit 6
	if command -v babeltrace2 >/dev/null 2>&1; then
		printf '$ babeltrace2 demo-out/rec-demo.ctf | head -n 3\n'
		babeltrace2 "$OUT/rec-demo.ctf" | head -n 3
	fi
	echo "(live streaming: sh scripts/demo-rec.sh $build)"
	step "8. Activities: packets RX to TX, lock hold times, a script activity (docs/analysis.md)"
	RD="$PWD/examples/rec-demo"
	run "$T" events summary "$OUT/rec-demo.ctf" --defs "$RD/analysis.tdef" --script "$RD/analysis.lua"
	run "$T" events activities "$OUT/rec-demo.ctf" --defs "$RD/analysis.tdef" --limit 5
	run "$T" export --perfetto "$OUT/rec-demo.ctf" --defs "$RD/analysis.tdef" --script "$RD/analysis.lua" \
		-o "$OUT/rec-demo.perfetto.json"
	echo "Perfetto file: $OUT/rec-demo.perfetto.json (open it in ui.perfetto.dev)"
fi

step "Done. Explore interactively:"
if has browse; then
	echo "  $build/trawl browse demo-out/recurse.tarmac --image $build/examples/recurse"
fi
echo "  $build/trawl help        (every command)"
