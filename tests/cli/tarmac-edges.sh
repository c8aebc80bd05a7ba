#!/bin/sh
# Tarmac values at the edges of what the reader tracks, which gave wrong
# answers with exit 0: AArch32 d/s views on cores numbered 256 and up, x
# digits or '_' splits in the LO word of a 16-byte "HI LO" access, a bit
# range past a W register's 32 bits, and accesses that end at 2^64 (fine)
# or run past it (an error at the memory line in every command). Expected
# values and columns are worked out by hand from the lines below.
. "$TRAWL_SRC/tests/cli-lib.sh"

t=$_tmp

# --- 1. per-core instruction state on any core ---

# cpu300 runs A32, cpu299 A64; the d1/s1 lines come after cpu299's
# instruction, so each core's own last instruction must decide. A32: d1 is
# bytes 8-15 of V0, s1 bytes 4-7; A64: d1 is V1's bottom 8 bytes, the rest
# zeroed (/z16).
for c in 3 300 65535; do
	d=$((c - 1))
	cat >"$t/cpu$c.tarmac" <<EOF
1 clk cpu$c IT (1) 00008000 e1a00000 A svc_s : MOV r0,r0
1 clk cpu$d IT (1) 00009000 d503201f O EL1h_s : NOP
2 clk cpu$c R d1 1111111111111111
2 clk cpu$c R s1 22222222
2 clk cpu$d R d1 3333333333333333
EOF
	expect_exit 0 "$TRAWL" cat "$t/cpu$c.tarmac"
	want="L3-4 cpu$c t=2clk state ; v0[8..15]=1111111111111111 ; v0[4..7]=22222222"
	[ "$(sed -n 3p "$_tmp/out")" = "$want" ] || fail "cpu$c A32 views: $(cat "$_tmp/out")"
	want="L5 cpu$d t=2clk state ; v1=3333333333333333/z16"
	[ "$(sed -n 4p "$_tmp/out")" = "$want" ] || fail "cpu$d A64 view: $(cat "$_tmp/out")"
done
# the index (cores up to 4095) answers the same: V0's bytes 15..0, 0-3 never
# written; V1 on the A64 core
for c in 3 300; do
	expect_exit 0 "$TRAWL" regs --json --cpu $c --index "$t/cpu$c.idx" "$t/cpu$c.tarmac" --at 5
	grep -qF '"v0":"111111111111111122222222????????"' "$_tmp/out" || fail "regs cpu$c: $(cat "$_tmp/out")"
	grep -qF '"v1"' "$_tmp/out" && fail "regs cpu$c wrote v1: $(cat "$_tmp/out")"
	expect_exit 0 "$TRAWL" regs --json --cpu $((c - 1)) --index "$t/cpu$c.idx" "$t/cpu$c.tarmac" --at 5
	grep -qF '"v1":"00000000000000003333333333333333"' "$_tmp/out" || fail "regs cpu$((c - 1)): $(cat "$_tmp/out")"
done

# --- 2. 16-byte "HI LO" values read like the unsplit value ---

# LO is the 8 bytes at the address (little-endian): byte 0 is LO's last
# pair. Lines 2-4 are the same value spelled three ways with an x pair in
# LO; line 6 has it in HI (byte 8 at 0x1030); then a really short value.
cat >"$t/m16.tarmac" <<'EOF'
1 clk IT (1) 00008000 ad400020 O EL1h_s : LDP q0,q0,[x1]
1 clk MR16 00001000 0011223344556677 8899aabbccddeexx
1 clk MR16 00001010 00112233445566778899aabbccddeexx
1 clk MR16 00001020 00112233_44556677 8899aabb_ccddeexx
2 clk IT (2) 00008004 ad000020 O EL1h_s : STP q0,q0,[x1]
2 clk MW16 00001030 00112233445566xx 8899aabbccddeeff
EOF
expect_exit 0 "$TRAWL" cat "$t/m16.tarmac"
b='xxeeddccbbaa99887766554433221100'
want="L1-4 cpu0 t=1clk insn A64 pc=8000 enc=ad400020 el=1 mode=EL1h_s \"LDP q0,q0,[x1]\" ; MR 1000:16=$b ; MR 1010:16=$b ; MR 1020:16=$b
L5-6 cpu0 t=2clk insn A64 pc=8004 enc=ad000020 el=1 mode=EL1h_s \"STP q0,q0,[x1]\" ; MW 1030:16=ffeeddccbbaa9988xx66554433221100"
[ "$(cat "$_tmp/out")" = "$want" ] || fail "MR16 HI LO: $(cat "$_tmp/out")"
[ -s "$_tmp/err" ] && fail "MR16 HI LO warns: $(head -c 300 "$_tmp/err")"
# the index keeps the x byte unknown: ?? at 0x1000 and at 0x1038
expect_exit 0 "$TRAWL" mem --json --index "$t/m16.idx" "$t/m16.tarmac" --at 1 0x1000 16
grep -qF '"bytes":"??eeddccbbaa99887766554433221100"' "$_tmp/out" || fail "mem m16: $(cat "$_tmp/out")"
expect_exit 0 "$TRAWL" mem --json --index "$t/m16.idx" "$t/m16.tarmac" --at 5 0x1030 16
grep -qF '"bytes":"ffeeddccbbaa9988??66554433221100"' "$_tmp/out" || fail "mem m16 hi: $(cat "$_tmp/out")"
# 16 + 8 digits is still short; the value starts at column 21
printf '1 clk MR16 00001000 0011223344556677 8899aabb\n' >"$t/m16-short.tarmac"
expect_exit 1 "$TRAWL" cat "$t/m16-short.tarmac"
expect_stderr_has "m16-short.tarmac:1:21: memory value too short: 24 hex digits for a 16-byte access" \
	"$TRAWL" cat "$t/m16-short.tarmac"

# --- 3. bit ranges stay inside the named register ---

# W0 is 32 bits and A64 D1 64: ranges past them are refused at the '<'
# (column 11 after "1 clk R W0"), as X0<127:64> is; inside them they select
# bytes of the view (W0<31:16>: x0 bytes 2-3; A32 d1<63:32>: V0 bytes 12-15)
cat >"$t/rng.tarmac" <<'EOF'
1 clk IT (1) 00008000 d503201f O EL1h_s : NOP
1 clk R W0<31:16> 1111
1 clk R X0<63:32> 22222222
1 clk R V1<127:64> 3333333333333333
1 clk cpu1 IT (1) 00008000 e1a00000 A svc_s : MOV r0,r0
1 clk cpu1 R d1<63:32> 44444444
EOF
expect_exit 0 "$TRAWL" cat "$t/rng.tarmac"
want='L1-4 cpu0 t=1clk insn A64 pc=8000 enc=d503201f el=1 mode=EL1h_s "NOP" ; x0[2..3]=1111 ; x0[4..7]=22222222 ; v1[8..15]=3333333333333333
L5-6 cpu1 t=1clk insn A32 pc=8000 enc=e1a00000 el=1 mode=svc_s "MOV r0,r0" ; v0[12..15]=44444444'
[ "$(cat "$_tmp/out")" = "$want" ] || fail "bit ranges: $(cat "$_tmp/out")"
for r in 'W0<63:32> 11111111:11' 'X0<127:64> 1111111111111111:11' 'D1<127:64> 1111111111111111:11' \
	'WSP<63:32> 11111111:12' 'w30<39:32> 11:12'; do
	col=${r##*:}
	printf '1 clk IT (1) 00008000 d503201f O EL1h_s : NOP\n1 clk R %s\n' "${r%:*}" >"$t/rng-bad.tarmac"
	expect_exit 1 "$TRAWL" cat "$t/rng-bad.tarmac"
	expect_stderr_has "rng-bad.tarmac:2:$col: register bit range is outside the register" \
		"$TRAWL" cat "$t/rng-bad.tarmac"
	expect_exit 1 "$TRAWL" index --index "$t/rng-bad.idx" "$t/rng-bad.tarmac"
done
# AArch32 r0 is 32 bits too
printf '1 clk IT (1) 00008000 e1a00000 A svc_s : MOV r0,r0\n1 clk R r0<63:32> 11111111\n' >"$t/rng-r0.tarmac"
expect_stderr_has "rng-r0.tarmac:2:11: register bit range is outside the register" "$TRAWL" cat "$t/rng-r0.tarmac"

# --- 4. the top of the address space ---

# accesses ending exactly at 2^64: an 8-byte read (fast-path shape), a
# 1-byte write at 2^64-1, an LD diagram whose highest byte (drawn first)
# is 2^64-1, a 16-byte write (general grammar)
cat >"$t/top.tarmac" <<'EOF'
1 clk IT (1) 00008000 f9400020 O EL1h_s : LDR x0,[x1]
1 clk MR8 fffffffffffffff8 0807060504030201
2 clk IT (2) 00008004 39000020 O EL1h_s : STRB w0,[x1]
2 clk MW1 ffffffffffffffff aa
3 clk LD fffffffffffffff0 bb...... ........ ........ ........ S:0 NM
4 clk MW16 fffffffffffffff0 00112233445566778899aabbccddeeff
EOF
expect_exit 0 "$TRAWL" cat "$t/top.tarmac"
want='L1-2 cpu0 t=1clk insn A64 pc=8000 enc=f9400020 el=1 mode=EL1h_s "LDR x0,[x1]" ; MR fffffffffffffff8:8=0102030405060708
L3-4 cpu0 t=2clk insn A64 pc=8004 enc=39000020 el=1 mode=EL1h_s "STRB w0,[x1]" ; MW ffffffffffffffff:1=aa
L5 cpu0 t=3clk state ; MR ffffffffffffffff:1=bb pa=f
L6 cpu0 t=4clk state ; MW fffffffffffffff0:16=ffeeddccbbaa99887766554433221100'
[ "$(cat "$_tmp/out")" = "$want" ] || fail "top of memory: $(cat "$_tmp/out")"
ix="$t/top.idx"
expect_exit 0 "$TRAWL" index --index "$ix" "$t/top.tarmac"
# after line 3 the read's bytes with the write on top; the last byte alone
expect_exit 0 "$TRAWL" mem --json --index "$ix" "$t/top.tarmac" --at 3 0xfffffffffffffff8 8
grep -qF '"bytes":"01020304050607aa"' "$_tmp/out" || fail "mem top 8: $(cat "$_tmp/out")"
expect_exit 0 "$TRAWL" mem --json --index "$ix" "$t/top.tarmac" --at 3 0xffffffffffffffff 1
grep -qF '"bytes":"aa"' "$_tmp/out" || fail "mem top 1: $(cat "$_tmp/out")"
expect_exit 0 "$TRAWL" mem --index "$ix" "$t/top.tarmac" --at 6 0xfffffffffffffff8 8
grep -qF 'fffffffffffffff0:                          77 66 55 44 33 22 11 00  |        wfUD3"..|' "$_tmp/out" ||
	fail "mem top hexdump: $(cat "$_tmp/out")"
expect_exit 2 "$TRAWL" mem --index "$ix" "$t/top.tarmac" --at 3 0xffffffffffffffff 2
expect_stdout_has "line 3 (event 1)" "$TRAWL" last-write --index "$ix" "$t/top.tarmac" --at 5 0xfffffffffffffff8:8
expect_stdout_has "mem 0xfffffffffffffff0+16 ????????????????01020304050607aa -> ffeeddccbbaa99887766554433221100" \
	"$TRAWL" changes --index "$ix" "$t/top.tarmac" --from 4 --to 6

# past 2^64: 8 bytes at ...f9 (the fast path's shape), 16 at ...f1, an LD
# diagram with a byte at offset 8 of ...f8; each is an error at its address
# (column 11, 12 and 10), in every command, and --lenient skips the line
printf '1 clk IT (1) 00008000 f9400020 O EL1h_s : LDR x0,[x1]\n1 clk MR8 fffffffffffffff9 0807060504030201\n2 clk IT (2) 00008004 39000020 O EL1h_s : STRB w0,[x1]\n2 clk MW1 ffffffffffffffff aa\n' >"$t/wrap8.tarmac"
printf '1 clk IT (1) 00008000 ad000020 O EL1h_s : STP q0,q0,[x1]\n1 clk MW16 fffffffffffffff1 00112233445566778899aabbccddeeff\n2 clk IT (2) 00008004 39000020 O EL1h_s : STRB w0,[x1]\n2 clk MW1 ffffffffffffffff aa\n' >"$t/wrap16.tarmac"
printf '1 clk IT (1) 00008000 f9400020 O EL1h_s : LDR x0,[x1]\n1 clk LD fffffffffffffff8 ........ ......bb ........ ........ S:0 NM\n2 clk IT (2) 00008004 39000020 O EL1h_s : STRB w0,[x1]\n2 clk MW1 ffffffffffffffff aa\n' >"$t/wrapld.tarmac"
for w in wrap8:11 wrap16:12 wrapld:10; do
	f="$t/${w%:*}.tarmac"
	at="${w%:*}.tarmac:2:${w#*:}: memory access wraps around the address space"
	for cmd in cat stats calltree; do
		expect_exit 1 "$TRAWL" $cmd "$f"
		expect_stderr_has "$at" "$TRAWL" $cmd "$f"
	done
	expect_exit 1 "$TRAWL" index --index "$t/w.idx" "$f"
	grep -qF "$at" "$_tmp/err" || fail "index $w: $(head -c 300 "$_tmp/err")"
	expect_exit 1 "$TRAWL" cat --lenient "$f"
	grep -q "skipped 1 malformed line" "$_tmp/err" || fail "lenient cat $w: $(head -c 300 "$_tmp/err")"
	[ "$(grep -c ' insn ' "$_tmp/out")" = 2 ] || fail "lenient cat $w keeps both instructions: $(cat "$_tmp/out")"
	grep -q 'fffffffffffffff[189]:' "$_tmp/out" && fail "lenient cat $w kept the wrapping access"
	# a lenient index skips the line and answers for the rest
	rm -f "$t/w.idx"
	expect_exit 1 "$TRAWL" index --lenient --index "$t/w.idx" "$f"
	expect_exit 1 "$TRAWL" mem --lenient --json --index "$t/w.idx" "$f" --at 4 0xffffffffffffffff 1
	grep -qF '"bytes":"aa"' "$_tmp/out" || fail "mem after lenient index $w: $(cat "$_tmp/out")"
	rm -f "$t/w.idx"
done

finish
