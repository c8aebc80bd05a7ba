#!/bin/sh
# last-write/next-write read a register name as the instruction at --at
# means it: on an AArch32 line lr is r14 and sp is r13 (32 bits), on an
# AArch64 line lr is x30. The answers are worked out by hand from the trace
# below (line numbers are the file's).
. "$TRAWL_SRC/tests/cli-lib.sh"
T="$_tmp/a32.tarmac"
cat >"$T" <<'TR'
1 clk IT (1) 00001000 d2800020 O EL1h_s : MOV x0,#1
1 clk R X30 0000000000001234
2 clk IT (2) 00001004 d61f0200 O EL1h_s : BR x16
3 clk IT (3) 00008000 e3a0e010 A svc_s : MOV r14,#0x10
3 clk R r14_svc 00000010
4 clk IT (4) 00008004 e1a0d00e A svc_s : MOV sp,r14
4 clk R r13_svc 00000010
5 clk IT (5) 00008008 e320f000 A svc_s : NOP
6 clk IT (6) 0000800c e3a0e020 A svc_s : MOV r14,#0x20
6 clk R r14_svc 00000020
TR
expect_exit 0 "$TRAWL" index "$T"
# line 8 is AArch32: lr means r14, last written at line 4 (MOV r14 at time 3)
"$TRAWL" last-write "$T" --at 8 lr >"$_tmp/lr" || fail "last-write lr failed"
"$TRAWL" last-write "$T" --at 8 r14 >"$_tmp/r14" || fail "last-write r14 failed"
grep -q "^line 4 " "$_tmp/lr" || fail "lr on an AArch32 line should be r14, written at line 4; got: $(cat "$_tmp/lr")"
cmp -s "$_tmp/lr" "$_tmp/r14" || fail "lr and r14 differ on an AArch32 line"
"$TRAWL" next-write "$T" --at 8 lr >"$_tmp/nlr" || fail "next-write lr failed"
grep -q "^line 9 " "$_tmp/nlr" || fail "next write of r14 after line 8 is line 9; got: $(cat "$_tmp/nlr")"
"$TRAWL" last-write "$T" --at 8 sp >"$_tmp/sp" || fail "last-write sp failed"
grep -q "^line 6 " "$_tmp/sp" || fail "sp on an AArch32 line was written at line 6; got: $(cat "$_tmp/sp")"
# line 3 is AArch64: lr means x30, written at line 1
"$TRAWL" last-write "$T" --at 3 lr >"$_tmp/x30" || fail "last-write lr (A64) failed"
grep -q "^line 1 " "$_tmp/x30" || fail "lr on an AArch64 line is x30, written at line 1; got: $(cat "$_tmp/x30")"
finish
