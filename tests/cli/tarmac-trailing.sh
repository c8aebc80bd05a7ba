#!/bin/sh
# What the Tarmac reader must not lose without saying so: text after a
# register or memory value (a lost newline puts two records on one line;
# an extra digit group has nowhere to go), a file whose lines end in CR
# alone (one long line), a last line the input cut off, and malformed
# effect lines the call commands' partial parsing reads with the fast path.
# Expected values and columns are worked out by hand from the lines below.
. "$TRAWL_SRC/tests/cli-lib.sh"

t=$_tmp
# three instructions, one register or memory effect each (a fast-path shape)
cat >"$t/base.tarmac" <<'EOF'
1 clk IT (1) 00001000 d2800020 O EL1h_s : MOV      x0,#1
1 clk R X0 0000000000000001
2 clk IT (2) 00001004 b9000020 O EL1h_s : STR      w0,[x1]
2 clk MW4 00002000 00000001
3 clk IT (3) 00001008 d2800041 O EL1h_s : MOV      x1,#2
3 clk R X1 0000000000000002
EOF
# replace line N of base.tarmac with TEXT: with_line N TEXT OUT
with_line() {
	awk -v n="$1" -v s="$2" 'NR == n { print s; next } { print }' "$t/base.tarmac" >"$3"
}

# --- 1. text after a value ---

# two records on one line: the second starts at column 29 ("1 clk R X0 " is
# 11 characters, the value 16, then a blank)
with_line 2 '1 clk R X0 0000000000000001 1 clk R X1 0000000000000002' "$t/two-reg.tarmac"
expect_exit 1 "$TRAWL" cat "$t/two-reg.tarmac"
expect_stderr_has "two-reg.tarmac:2:29: unexpected text after the register value" "$TRAWL" cat "$t/two-reg.tarmac"
expect_exit 1 "$TRAWL" index --index "$t/two-reg.idx" "$t/two-reg.tarmac"
with_line 4 '2 clk MW4 00002000 00000001 2 clk MW4 00002004 00000002' "$t/two-mem.tarmac"
expect_exit 1 "$TRAWL" cat "$t/two-mem.tarmac"
expect_stderr_has "two-mem.tarmac:4:29: unexpected text after the memory value" "$TRAWL" cat "$t/two-mem.tarmac"
# lenient: that line is skipped and counted, the others kept
expect_exit 1 "$TRAWL" cat --lenient "$t/two-mem.tarmac"
grep -q "skipped 1 malformed line" "$_tmp/err" || fail "lenient cat: $(head -c 300 "$_tmp/err")"
[ "$(grep -c ' insn ' "$_tmp/out")" = 3 ] || fail "lenient cat keeps the 3 instructions: $(cat "$_tmp/out")"
grep -q 'MW 2000' "$_tmp/out" && fail "lenient cat kept the bad memory line"

# a digit group more than the register or access holds: x0 is 16 digits, so
# the third group (column 30) is left over; so is "99" after a 4-byte value
with_line 2 '1 clk R X0 00000000 00000001 ffffffff' "$t/split-reg.tarmac"
expect_exit 1 "$TRAWL" cat "$t/split-reg.tarmac"
expect_stderr_has "split-reg.tarmac:2:30: unexpected text after the register value" "$TRAWL" cat "$t/split-reg.tarmac"
with_line 4 '2 clk MW4 00002000 00000001 99' "$t/split-mem.tarmac"
expect_exit 1 "$TRAWL" cat "$t/split-mem.tarmac"
expect_stderr_has "split-mem.tarmac:4:29: unexpected text after the memory value" "$TRAWL" cat "$t/split-mem.tarmac"
# a PSR's flags annotation is one word; anything after it is still text
with_line 2 '1 clk R cpsr 20000000 __C_ 1' "$t/annot-more.tarmac"
expect_stderr_has "annot-more.tarmac:2:28: unexpected text after the register value" "$TRAWL" cat "$t/annot-more.tarmac"
with_line 2 '1 clk R cpsr 20000000 NZCVX' "$t/annot-bad.tarmac"
expect_stderr_has "annot-bad.tarmac:2:23: unexpected text after the register value" "$TRAWL" cat "$t/annot-bad.tarmac"

# the splits and annotations producers write are read whole: cpsr in two
# words (8 bytes), cpsr with flags, r13 with its bank, Q0 in four words,
# Q1 with its top half not written, a 16-byte access as HI LO (LO at the
# address, little-endian), an 8-byte one in two words
cat >"$t/ok.tarmac" <<'EOF'
1 clk R cpsr 00000001 00000002
1 clk R cpsr 20000000 __C_
1 clk R r13 20001fff (MSP)
1 clk R Q0 93c467e3 7db0c7a4 d1be3f81 0152cb56
1 clk R Q1 -------- -------- 3ff6a09e 667f3bcd
1 clk MR16 00003000 0011223344556677 8899aabbccddeeff
1 clk MR8 00004000 00000000 0000ca68
EOF
expect_exit 0 "$TRAWL" cat "$t/ok.tarmac"
want='L1-7 cpu0 t=1clk state ; psr=0000000100000002 ; psr=20000000 ; sp=20001fff ; v0=93c467e37db0c7a4d1be3f810152cb56 ; v1=3ff6a09e667f3bcd ; MR 3000:16=ffeeddccbbaa99887766554433221100 ; MR 4000:8=68ca000000000000'
[ "$(cat "$_tmp/out")" = "$want" ] || fail "split values: $(cat "$_tmp/out")"

# --- CR line ends ---

# CR alone is no line end: the file is one line, refused at the first CR
# (column 28: after "1 clk R X0 " and 16 digits; 57 after line 1 of base),
# with or without a final LF
printf '1 clk R X0 0000000000000001\r1 clk R X1 0000000000000002\r' >"$t/cr.tarmac"
expect_exit 1 "$TRAWL" cat "$t/cr.tarmac"
expect_stderr_has "cr.tarmac:1:28: a carriage return inside the line" "$TRAWL" cat "$t/cr.tarmac"
expect_exit 1 "$TRAWL" stats --lenient --no-timing "$t/cr.tarmac"
grep -q "skipped 1 malformed line" "$_tmp/err" || fail "lenient stats of CR-only: $(head -c 300 "$_tmp/err")"
tr '\n' '\r' <"$t/base.tarmac" >"$t/cr2.tarmac"
printf '\n' >>"$t/cr2.tarmac"
expect_exit 1 "$TRAWL" cat "$t/cr2.tarmac"
expect_stderr_has "cr2.tarmac:1:57: a carriage return inside the line" "$TRAWL" cat "$t/cr2.tarmac"
expect_exit 1 "$TRAWL" calltree "$t/cr2.tarmac"
# CRLF is read as LF
sed 's/$/\r/' "$t/base.tarmac" >"$t/crlf.tarmac"
"$TRAWL" cat "$t/base.tarmac" >"$t/lf.cat"
expect_exit 0 "$TRAWL" cat "$t/crlf.tarmac"
diff "$t/lf.cat" "$_tmp/out" >/dev/null || fail "CRLF reads differently: $(cat "$_tmp/out")"

# --- 2, 3. a last line without a newline ---

# cut in a value whose width comes from the value (cpsr): any digit count
# may be the start of a longer value, so the line is dropped (column 14)
cp "$t/base.tarmac" "$t/cut-psr.tarmac"
printf '4 clk R cpsr 6000' >>"$t/cut-psr.tarmac"
expect_exit 1 "$TRAWL" cat "$t/cut-psr.tarmac"
expect_stderr_has "cut-psr.tarmac:7:14: the trace ends inside this line (no newline): line dropped (register value cut off" "$TRAWL" cat "$t/cut-psr.tarmac"
grep -q 'psr' "$_tmp/out" && fail "the cut cpsr value was kept: $(cat "$_tmp/out")"
expect_exit 1 "$TRAWL" index --index "$t/cut-psr.idx" "$t/cut-psr.tarmac"
"$TRAWL" regs --index "$t/cut-psr.idx" "$t/cut-psr.tarmac" --at 6 >"$t/regs" 2>/dev/null
grep -q psr "$t/regs" && fail "regs shows the cut psr: $(cat "$t/regs")"
# eight digits are no proof either (cpsr may have 16), in any command
cp "$t/base.tarmac" "$t/cut-psr8.tarmac"
printf '4 clk R cpsr 60000000' >>"$t/cut-psr8.tarmac"
expect_exit 1 "$TRAWL" cat "$t/cut-psr8.tarmac"
expect_exit 1 "$TRAWL" calltree "$t/cut-psr8.tarmac"
expect_exit 1 "$TRAWL" profile "$t/cut-psr8.tarmac"
# an annotation after it shows the value ended
cp "$t/base.tarmac" "$t/psr-annot.tarmac"
printf '4 clk R cpsr 60000000 NZ__' >>"$t/psr-annot.tarmac"
expect_exit 0 "$TRAWL" cat "$t/psr-annot.tarmac"
grep -q 'L7 cpu0 t=4clk state ; psr=60000000$' "$_tmp/out" || fail "cpsr with flags at the end: $(cat "$_tmp/out")"

# a complete fixed-width value shows it is whole: kept, no warning, exit 0
cp "$t/base.tarmac" "$t/last-reg.tarmac"
printf '4 clk R X5 0000000000000012' >>"$t/last-reg.tarmac"
expect_exit 0 "$TRAWL" cat "$t/last-reg.tarmac"
[ -s "$_tmp/err" ] && fail "a whole last register line warns: $(cat "$_tmp/err")"
grep -q 'L7 cpu0 t=4clk state ; x5=0000000000000012$' "$_tmp/out" || fail "last register line: $(cat "$_tmp/out")"
expect_exit 0 "$TRAWL" calltree "$t/last-reg.tarmac"
cp "$t/base.tarmac" "$t/last-mem.tarmac"
printf '4 clk MW4 00002000 00000005' >>"$t/last-mem.tarmac"
expect_exit 0 "$TRAWL" cat "$t/last-mem.tarmac"
[ -s "$_tmp/err" ] && fail "a whole last memory line warns: $(cat "$_tmp/err")"
# and a short one is cut (x5 has 16 digits)
cp "$t/base.tarmac" "$t/cut-reg.tarmac"
printf '4 clk R X5 00000000000000' >>"$t/cut-reg.tarmac"
expect_exit 1 "$TRAWL" cat "$t/cut-reg.tarmac"
expect_stderr_has "cut-reg.tarmac:7:12: the trace ends inside this line (no newline): line dropped" "$TRAWL" cat "$t/cut-reg.tarmac"

# an exception's or text line's words may be cut anywhere, like an
# instruction's disassembly: kept, marked truncated, exit 1
cp "$t/base.tarmac" "$t/cut-exc.tarmac"
printf '4 clk E 00000000 00000001 CoreEvent_IR' >>"$t/cut-exc.tarmac"
for cmd in cat calltree profile "stats --no-timing"; do
	expect_exit 1 "$TRAWL" $cmd "$t/cut-exc.tarmac"
done
expect_stderr_has "cut-exc.tarmac:7:39: the trace ends inside this line (no newline): its text may be cut off" "$TRAWL" cat "$t/cut-exc.tarmac"
grep -q 'L7 cpu0 t=4clk exception num=1 "CoreEvent_IR"' "$_tmp/out" || fail "the cut exception is kept: $(cat "$_tmp/out")"
expect_exit 1 "$TRAWL" index --index "$t/cut-exc.idx" "$t/cut-exc.tarmac"
cp "$t/base.tarmac" "$t/cut-text.tarmac"
printf '4 clk CADI stop' >>"$t/cut-text.tarmac"
expect_exit 1 "$TRAWL" cat "$t/cut-text.tarmac"
expect_stderr_has "cut-text.tarmac:7:16: the trace ends inside this line (no newline): its text may be cut off" "$TRAWL" cat "$t/cut-text.tarmac"
# an LD/ST physical address at the end of a cut line may be cut too; with
# the attributes after it, it is whole
printf 'LD 000000007ff80fe0 ........ ........ ........ ......11    S:007ff8' >"$t/cut-ld.tarmac"
expect_exit 1 "$TRAWL" cat "$t/cut-ld.tarmac"
expect_stderr_has "physical address cut off" "$TRAWL" cat "$t/cut-ld.tarmac"
printf 'LD 000000007ff80fe0 ........ ........ ........ ......11    S:007ff80fe0    nGnRnE OSH' >"$t/ld.tarmac"
expect_exit 0 "$TRAWL" cat "$t/ld.tarmac"
grep -q 'MR 7ff80fe0:1=11 pa=7ff80fe0' "$_tmp/out" || fail "LD at the end: $(cat "$_tmp/out")"

# --- 4. the call commands' fast path reads effect lines at another time ---

# a memory or register line with a time other than its instruction's is not
# skipped unread: calltree and profile (partial parsing) judge it as cat does
for case in '1 clk MR4 zz:11:expected a memory address' \
	    '9 clk MR4 00001000 12:20:memory value too short' \
	    '9 clk R X5 zz:12:expected a register value' \
	    '9 clk R W5 0000000z:12:expected a register value'; do
	line=${case%%:*}; rest=${case#*:}; col=${rest%%:*}; msg=${rest#*:}
	awk -v s="$line" '{ print } NR == 4 { print s }' "$t/base.tarmac" >"$t/other.tarmac"
	for cmd in calltree "calltree --parse-all" profile cat; do
		expect_exit 1 "$TRAWL" $cmd "$t/other.tarmac"
		expect_stderr_has "other.tarmac:5:$col: $msg" "$TRAWL" $cmd "$t/other.tarmac"
	done
done
# well-formed ones are read as before
awk '{ print } NR == 4 { print "9 clk MR4 00001000 12345678"; print "9 clk R W5 00000007" }' \
	"$t/base.tarmac" >"$t/other-ok.tarmac"
for cmd in calltree profile cat; do
	expect_exit 0 "$TRAWL" $cmd "$t/other-ok.tarmac"
done

finish
