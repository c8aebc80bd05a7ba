#!/bin/sh
# perf-mkdata.py --regs/--map (what bench-ete-perf.sh times): an emulated
# program's ETE snapshot, written into a perf.data with the snapshot's
# registers and its memory dumps as the mapped files, decodes to the same
# elements as the snapshot (bar the trace ID column and the helper's one
# IGNORE byte of padding), and to every instruction the emulator ran.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
ex=$TRAWL_BUILD/examples
[ -x "$ex/exceptions" ] || skip "examples not built"
"$TRAWL" emulate -n 200000 --ete "$t/s" --timestamps --cycle-counts "$ex/exceptions" -- 1000 \
	>/dev/null 2>"$t/gen.log" </dev/null || fail "emulate: $(cat "$t/gen.log")"
maps=$(awk -F= -v d="$t/s" '/^file=/{f=$2} /^address=/{printf " --map %s=%s/%s", $2, d, f}' "$t/s/cpu_0.ini")
# shellcheck disable=SC2086 # $maps is a list of options
$mk "$t/p.data" "$t/s/trace.bin" /none --regs "$t/s/ETE_0.ini" $maps
expect_stdout_has "TRCCONFIGR=0x811 " "$TRAWL" info "$t/p.data"
# each dump mapped where cpu_0.ini puts it, as long as it says
for m in $(awk -F= '/^file=/{f=$2} /^address=/{a=$2} /^length=/{printf "%s,%s,%s\n", a, $2, f}' "$t/s/cpu_0.ini"); do
	IFS=, read -r a l f <<M
$m
M
	expect_stdout_has "$(printf '0x%x-0x%x pgoff 0x0 %s' "$a" $((a + l)) "$t/s/$f")" "$TRAWL" info "$t/p.data"
done
expect_exit 0 "$TRAWL" ete decode "$t/s"
cut -f1,3- "$t/out" >"$t/snap.el"
expect_exit 0 "$TRAWL" ete decode "$t/p.data"
cut -f1,3- "$t/out" | grep -v '	IGNORE$' >"$t/perf.el"
diff -u "$t/snap.el" "$t/perf.el" >"$t/diff" || fail "perf.data and snapshot decode differently: $(head -c 2000 "$t/diff")"
n=$(awk -F'\t' '$2 == "INSTR_RANGE" { n += $5 } END { print n + 0 }' "$t/perf.el")
[ "$n" = 200000 ] || fail "perf.data decodes to $n instructions, the emulator ran 200000"
finish
