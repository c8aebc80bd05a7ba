#!/bin/sh
# trawl cat: the normalized form and JSON Lines of hand-made traces in each
# producer style, read from a file, stdin, .gz and .zst alike.
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data/tarmac"

expect_golden cat-mixed "$TRAWL" cat "$D/mixed.tarmac"
expect_golden cat-es-style "$TRAWL" cat "$D/es-style.tarmac"
expect_golden cat-cortex-m "$TRAWL" cat --implicit-thumb "$D/cortex-m.tarmac"
expect_golden cat-cortex-m-be "$TRAWL" cat --implicit-thumb --big-endian "$D/cortex-m.tarmac"
expect_golden cat-mixed-json "$TRAWL" cat --json "$D/mixed.tarmac"
expect_golden cat-es-style-json "$TRAWL" cat --json "$D/es-style.tarmac"

# registers are named as the instruction's state names them, the naming
# regs and the browser use: r0 and lr on AArch32, x0 on AArch64 (cat
# printed x0 and x14 for AArch32 writes)
printf '1 clk IT (1) 00008000 e3a00001 A svc_s : MOV r0,#1\n1 clk R r0 00000001\n2 clk IT (2) 00008004 eb000000 A svc_s : BL {pc}+8\n2 clk R r14_svc 00008008\n3 clk IT (3) 00001000 d2800020 O EL1h_n : MOV x0,#1\n3 clk R X0 0000000000000001\n' >"$_tmp/a32.tarmac"
"$TRAWL" cat "$_tmp/a32.tarmac" | sed 's/.* ; //' | tr '\n' ' ' >"$_tmp/names"
[ "$(cat "$_tmp/names")" = "r0=00000001 lr=00008008 x0=0000000000000001 " ] || fail "cat register names: $(cat "$_tmp/names")"
"$TRAWL" cat --json "$_tmp/a32.tarmac" | grep -o '"reg":"[a-z0-9]*"' | tr '\n' ' ' >"$_tmp/names"
[ "$(cat "$_tmp/names")" = '"reg":"r0" "reg":"lr" "reg":"x0" ' ] || fail "cat --json register names: $(cat "$_tmp/names")"
"$TRAWL" regs "$_tmp/a32.tarmac" --at 4 >"$_tmp/regs"
grep -q "^  lr  *00008008$" "$_tmp/regs" || fail "regs names r14 lr on AArch32: $(cat "$_tmp/regs")"
# changes names and sizes registers as at its --to line, as regs does there
# (it printed "x14 ???????????????? -> ????????00008008" on AArch32)
"$TRAWL" changes "$_tmp/a32.tarmac" --from 1 --to 3 >"$_tmp/ch"
[ "$(cat "$_tmp/ch")" = "cpu 0 lr       ???????? -> 00008008" ] || fail "changes on AArch32: $(cat "$_tmp/ch")"
"$TRAWL" changes "$_tmp/a32.tarmac" --from 1 --to 6 >"$_tmp/ch"
grep -q "^cpu 0 x14      ???????????????? -> ????????00008008$" "$_tmp/ch" || fail "changes to an AArch64 line: $(cat "$_tmp/ch")"

# a fractional time with many digits (12 after the point, in ms): worked
# by hand, 1.123456789012 ms = 1123456789.012 ps (frac x 10^9 overflowed)
printf '1.123456789012 ms IT (1) 00001000 d2800020 O EL1h_n : MOV x0,#1\n' >"$_tmp/ms.tarmac"
expect_stdout_has "t=1123456789ps" "$TRAWL" cat "$_tmp/ms.tarmac"

# every JSON line is a JSON object
if command -v python3 >/dev/null 2>&1; then
	"$TRAWL" cat --json "$D/es-style.tarmac" >"$_tmp/j" 2>/dev/null
	python3 -c 'import json,sys
for l in open(sys.argv[1]): json.loads(l)' "$_tmp/j" || fail "cat --json is not JSON Lines"
fi

# stdin, gzip and zstd give the same events as the file
"$TRAWL" cat "$D/mixed.tarmac" >"$_tmp/plain" 2>&1
"$TRAWL" cat - <"$D/mixed.tarmac" >"$_tmp/stdin" 2>&1
cmp -s "$_tmp/plain" "$_tmp/stdin" || fail "cat - differs from cat FILE"
gzip -c "$D/mixed.tarmac" >"$_tmp/m.tarmac.gz"
"$TRAWL" cat "$_tmp/m.tarmac.gz" >"$_tmp/gz" 2>&1
cmp -s "$_tmp/plain" "$_tmp/gz" || fail "cat of a .gz differs"
gzip -c "$D/mixed.tarmac" | "$TRAWL" cat - >"$_tmp/gzpipe" 2>&1
cmp -s "$_tmp/plain" "$_tmp/gzpipe" || fail "cat of gzip on stdin differs"
if command -v zstd >/dev/null 2>&1; then
	zstd -q -c "$D/mixed.tarmac" >"$_tmp/m.tarmac.zst"
	"$TRAWL" cat "$_tmp/m.tarmac.zst" >"$_tmp/zst" 2>&1
	cmp -s "$_tmp/plain" "$_tmp/zst" || fail "cat of a .zst differs"
fi

# the corpus traces (when present) read without a warning
if [ -d "${TRAWL_CORPUS:-}/tarmac" ]; then
	for f in quicksort.tarmac calltests/calltest64.tarmac calculator-aarch64-es-ld-st-style.tarmac; do
		expect_exit 0 "$TRAWL" cat "$TRAWL_CORPUS/tarmac/$f"
		[ -s "$_tmp/err" ] && fail "cat $f warned: $(head -3 "$_tmp/err")"
		# one line out per event: as many as stats counts
		n=$(wc -l <"$_tmp/out")
		e=$("$TRAWL" stats --no-timing "$TRAWL_CORPUS/tarmac/$f" | sed -n 's/^events: //p')
		[ "$n" = "$e" ] || fail "cat $f printed $n lines for $e events"
	done
else
	echo "corpus not found: corpus part skipped"
fi
finish
