#!/bin/sh
# gem5 logs an MW line for some loads with a value that is not memory. A
# memory write on an instruction whose encoding cannot store (decoded:
# A64, A32, T32 loads and other non-store classes) is kept as the trace
# gives it and counted: one warning per trace with the count and the first
# line. Stores, and every instruction of the corpus and emulated traces,
# give no warning (no false alarms). Encodings: llvm-mc's, as in
# tests/unit/test-tarmac-store.c.
. "$TRAWL_SRC/tests/cli-lib.sh"

cat >"$_tmp/g5.tarmac" <<'TR'
1 clk IT (1) 00001000 f9400021 O EL1h_n : LDR x1,[x1]
1 clk MR8 00010000 0000000000000005
1 clk MW8 00010000 0000000000000005
1 clk R X1 0000000000000005
2 clk IT (2) 00001004 f9000022 O EL1h_n : STR x2,[x1]
2 clk MW8 00000005 0000000000000000
3 clk IT (3) 00001008 f9400021 O EL1h_n : LDR x1,[x1]
3 clk MW8 00000005 0000000000000007
4 clk IT (4) 00008000 e5910000 A svc_s : LDR r0,[r1]
4 clk MW4 00000100 00000009
5 clk IT (5) 00008004 6808 T svc_s : LDR r0,[r1]
5 clk MW4 00000104 0000000a
6 clk IT (6) 00008006 6008 T svc_s : STR r0,[r1]
6 clk MW4 00000108 0000000b
TR
expect_exit 0 "$TRAWL" cat "$_tmp/g5.tarmac"
[ "$(grep -c "cannot store" "$_tmp/err")" = 1 ] || fail "expected one warning: $(cat "$_tmp/err")"
grep -q "g5.tarmac:3: 4 memory writes logged on instructions that cannot store (loads and other non-store encodings; first at line 3): kept as the trace gives them" "$_tmp/err" ||
	fail "warning text: $(cat "$_tmp/err")"
# the writes are kept: cat shows them, the index answers with them
grep -q 'MW 5:8=0700000000000000' "$_tmp/out" || fail "the LDR's write was dropped: $(cat "$_tmp/out")"
expect_stderr_has "4 memory writes logged on instructions that cannot store" "$TRAWL" index --force "$_tmp/g5.tarmac"
"$TRAWL" mem "$_tmp/g5.tarmac" --at 8 0x5 1 | grep -q ' 07 ' || fail "trawl mem does not show the kept write"
# stores only: quiet
grep -v -e '^1 clk MW8' -e '^3 clk MW8' -e '^4 clk MW4' -e '^5 clk MW4' "$_tmp/g5.tarmac" >"$_tmp/st.tarmac"
expect_exit 0 "$TRAWL" cat "$_tmp/st.tarmac"
[ -s "$_tmp/err" ] && fail "stores warned: $(cat "$_tmp/err")"

# no false alarms on real traces (A64, A32, both Tarmac styles)
C="${TRAWL_CORPUS:-}/tarmac"
if [ -d "$C" ]; then
	for f in "$C"/*.tarmac "$C"/calltests/*.tarmac; do
		"$TRAWL" cat "$f" >/dev/null 2>"$_tmp/err"
		grep -q "cannot store" "$_tmp/err" && fail "$(basename "$f"): false alarm: $(cat "$_tmp/err")"
	done
else
	echo "SKIP (part): corpus not found under ${TRAWL_CORPUS:-<unset>}"
fi
finish
