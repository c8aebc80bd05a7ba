#!/bin/sh
# A trace whose writer crashed can hold a block of NUL bytes where text was
# (a zero-filled tail or hole). When the block starts inside an
# instruction's disassembly it swallows the newlines of the lines after it:
# those lines must not vanish into one instruction's text with exit 0. The
# truth is the text itself: which lines the NULs overwrote.
. "$TRAWL_SRC/tests/cli-lib.sh"

awk 'BEGIN { for (i = 1; i <= 6; i++)
	printf "%d clk IT (%d) %08x d2800000 O EL1h_s : MOV      x0,#%d\n%d clk R X0 %016x\n", i, i, 4096 + 4 * i, i, i, i }' >"$_tmp/t.tarmac"
# 64 NULs from the 50th byte of line 5 (insn 3's text): lines 5-6 and part
# of line 7 become one line
python3 - "$_tmp/t.tarmac" "$_tmp/nul.tarmac" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
lines = d.split(b'\n')
off = sum(len(l) + 1 for l in lines[:4]) + 49
d[off:off + 64] = b'\0' * 64
open(sys.argv[2], 'wb').write(d)
PY
[ "$(tr -d '\000' <"$_tmp/nul.tarmac" | wc -l)" = 10 ] || fail "the damaged trace should have 10 newlines"

# the line with the NULs is an error naming its line and the column of the
# first NUL; the two instructions before it are printed
expect_exit 1 "$TRAWL" cat "$_tmp/nul.tarmac"
expect_stderr_has "nul.tarmac:5:50: a NUL byte" "$TRAWL" cat "$_tmp/nul.tarmac"
[ "$(grep -c ' insn ' "$_tmp/out")" = 2 ] || fail "cat should print the 2 instructions before the NULs: $(cat "$_tmp/out")"
expect_exit 1 "$TRAWL" stats --no-timing "$_tmp/nul.tarmac"

# --lenient skips that one line and says so; the lines after it are read
expect_exit 1 "$TRAWL" cat --lenient "$_tmp/nul.tarmac"
grep -q "skipped 1 malformed line" "$_tmp/err" || fail "lenient cat: $(head -c 300 "$_tmp/err")"
grep -q 'pc=100c ' "$_tmp/out" && fail "lenient cat kept the instruction with the NULs"
for pc in 1004 1008 1014 1018; do
	grep -q "pc=$pc " "$_tmp/out" || fail "lenient cat lost pc $pc: $(cat "$_tmp/out")"
done
"$TRAWL" stats --lenient --no-timing "$_tmp/nul.tarmac" >"$_tmp/out" 2>/dev/null
grep -q '^lines: 10$' "$_tmp/out" || fail "lenient stats counts the text's 10 lines: $(cat "$_tmp/out")"

# the call commands' line loop (partial parsing) and the index see it too
expect_exit 1 "$TRAWL" profile "$_tmp/nul.tarmac"
expect_stderr_has "nul.tarmac:5:50: a NUL byte" "$TRAWL" profile "$_tmp/nul.tarmac"
expect_exit 1 "$TRAWL" regs --memory-index "$_tmp/nul.tarmac" --at 3

# a NUL in the last 64 bytes of the input, in a text line of an unknown type
printf "1 clk FOO x\n2 clk FOO a\000b\n" >"$_tmp/tail.tarmac"
expect_exit 1 "$TRAWL" cat "$_tmp/tail.tarmac"
expect_stderr_has "tail.tarmac:2:12: a NUL byte" "$TRAWL" cat "$_tmp/tail.tarmac"

# the newline scan also stops at 0x02 and 0x08 (one compare finds all
# four): they are damage too, named by value
printf '1 clk FOO x\n2 clk IT (2) 00001000 d2800000 O EL1h_s : MOV\010 x0,#0\n' >"$_tmp/bs.tarmac"
expect_exit 1 "$TRAWL" cat "$_tmp/bs.tarmac"
expect_stderr_has "bs.tarmac:2:46: a control byte (0x08) in the line" "$TRAWL" cat "$_tmp/bs.tarmac"

finish
