#!/bin/sh
# trawl regs shows a register at the width the trace writes it: a 32-bit
# cpsr/FPCR and a 64-bit system register are not padded with ?? up to their
# storage width, while a byte inside the written width that the trace never
# showed still prints as ??. trawl changes prints the same widths. Values
# worked out by hand from the trace below.
. "$TRAWL_SRC/tests/cli-lib.sh"
T="$_tmp/w.tarmac"
cat >"$T" <<'TR'
0 clk IT (0) 00000ffc d503201f O EL1h_s : NOP
1 clk IT (1) 00001000 d2800020 O EL1h_s : MOV x0,#1
1 clk R X0 0000000000000001
1 clk R cpsr 20000000
1 clk R FPCR 03000000
1 clk R TPIDR_EL0 0000000000498740
2 clk IT (2) 00001004 d2800041 O EL1h_s : MOV x1,#2
2 clk R X1 0000000000000002
TR
expect_exit 0 "$TRAWL" index "$T"
"$TRAWL" regs "$T" --at 8 >"$_tmp/out" || fail "trawl regs failed"
for want in "psr        20000000" "fpcr       03000000" \
	"TPIDR_EL0  0000000000498740" "x1         0000000000000002"; do
	grep -qx "  $want" "$_tmp/out" || fail "want '$want'; got:
$(cat "$_tmp/out")"
done
grep -q '?' "$_tmp/out" && fail "no unknown byte expected; got:
$(cat "$_tmp/out")"
expect_stdout_has '"psr":"20000000"' "$TRAWL" regs "$T" --at 8 --json
expect_stdout_has '"TPIDR_EL0":"0000000000498740"' "$TRAWL" regs "$T" --at 8 --json
# trawl changes uses the same widths, on both sides
"$TRAWL" changes "$T" --from 1 --to 8 >"$_tmp/ch" || fail "trawl changes failed"
for want in "cpu 0 psr      ???????? -> 20000000" "cpu 0 fpcr     ???????? -> 03000000" \
	"cpu 0 TPIDR_EL0 ???????????????? -> 0000000000498740"; do
	grep -qxF "$want" "$_tmp/ch" || fail "want '$want'; got:
$(cat "$_tmp/ch")"
done
finish
