#!/bin/sh
# trawl browse on AArch32 events: the register pane lists the AArch32
# register file, r0-r12, sp, lr, pc, psr, each 32 bits (8 hex digits, an
# unknown one as ????????), and no rows r15-r30 nor x names; on AArch64
# events of the same trace it goes back to x0-x30, sp, pc, psr at 64 bits.
# The truth for every row is what trawl regs prints for that line (its r14
# is the pane's lr); w/W land where trawl last-write / next-write say for
# the register named on the selected row. Traces: a hand-made
# A64 -> A32 -> T32 -> A64 trace and the corpus trace calltest32.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/browse-lib.sh"

# The register pane is the right-hand 23 columns at 160 wide (one column
# of registers, 22 cells, plus the border): cut it out so the trace text
# (which has X0, r0 ... in it) is not read as the pane.
pane() { screen | cut -c 138-; }
# The pane's rows, in order, as "name value" (the change mark dropped).
pane_rows() { pane | sed -nE 's/^ *([a-z][a-z0-9]*) +[*]?([0-9a-f?]{8,}) *$/\1 \2/p'; }

# check_pane TRACE LINE a32|a64: the pane has exactly the rows of that
# state, in order, each showing what trawl regs prints for LINE (a
# register trawl regs leaves out as all ??, 8 digits in AArch32, 16 in
# AArch64).
check_pane() {
	_trace=$1 _line=$2 _mode=$3
	"$TRAWL" regs "$_trace" --at "$_line" >"$_tmp/regs" || { fail "trawl regs failed"; return; }
	pane >"$_tmp/scr"
	grep -q "cpu 0" "$_tmp/scr" || { fail "layout changed: no register pane title in columns 138-; screen:
$(screen)"; return; }
	if [ "$_mode" = a32 ]; then
		unk="????????"
		names="r0 r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 r12 sp lr pc psr"
		# trawl regs itself names only AArch32 registers on this line,
		# as the pane does (lr, not r14)
		grep -qE '^  (x[0-9]+|r1[3-9]|r2[0-9]|r30) ' "$_tmp/regs" &&
			fail "line $_line: trawl regs prints non-AArch32 core names:
$(cat "$_tmp/regs")"
	else
		unk="????????????????"
		names="x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 x14 x15 x16 x17 x18 x19 \
x20 x21 x22 x23 x24 x25 x26 x27 x28 x29 x30 sp pc psr"
	fi
	: >"$_tmp/want"
	for r in $names; do
		src=$r
		v=$(awk -v r="$src" '$1 == r { print $2 }' "$_tmp/regs")
		[ "$r" = pc ] && v=$(event_pc "$_tmp/regs" ${#unk})
		[ -n "$v" ] || v=$unk
		[ "$r" != psr ] && [ ${#v} -ne ${#unk} ] &&
			fail "line $_line: trawl regs prints $src as $v, not ${#unk} digits"
		echo "$r $v" >>"$_tmp/want"
	done
	pane_rows >"$_tmp/got"
	cmp -s "$_tmp/want" "$_tmp/got" || fail "line $_line ($_mode): pane rows differ from trawl regs:
$(diff "$_tmp/want" "$_tmp/got")
pane:
$(cat "$_tmp/scr")"
}
# pane_has TEXT: the pane shows TEXT (a name, the change mark, a value).
pane_has() {
	pane | grep -qF -- "$1" || fail "pane should show '$1'; pane:
$(pane)"
}
# cli_line CMD TRACE LINE REG: the line trawl last-write/next-write names.
cli_line() {
	"$TRAWL" "$1" "$2" --at "$3" "$4" | sed -n 's/^line \([0-9]*\) .*/\1/p'
}

H="$_tmp/h.tarmac"
# Three A64 instructions, then A32 (svc mode), a BX into T32, and back to
# A64. An A32 write of r0-r14 writes the low 32 bits, so lr reads 22222222
# (the low half of x14) until the BL writes it, and sp 00080000 until
# MOV sp,r0. x20, written by A64, has no AArch32 name: no row r20.
cat >"$H" <<'TR'
1 clk IT (1) 00001000 d29fffe0 O EL1h_s : MOV x0,#0xffff
1 clk R X0 fedcba9876543210
1 clk R cpsr 000003c5
2 clk IT (2) 00001004 d280002e O EL1h_s : MOV x14,#1
2 clk R X14 1111111122222222
2 clk R SP_EL1 0000000000080000
3 clk IT (3) 00001008 d2800414 O EL1h_s : MOV x20,#0x20
3 clk R X20 0000000000000020
4 clk IT (4) 00008000 e3a00a01 A svc_s : MOV r0,#0x1000
4 clk R r0 00001000
4 clk R cpsr 000001d3
5 clk IT (5) 00008004 e1a0d000 A svc_s : MOV sp,r0
5 clk R r13_svc 00001000
6 clk IT (6) 00008008 eb000000 A svc_s : BL {pc}+8 ; 0x8010
6 clk R r14_svc 0000800c
7 clk IT (7) 00008010 e28f0005 A svc_s : ADD r0,pc,#5
7 clk R r0 0000801d
8 clk IT (8) 00008014 e12fff10 A svc_s : BX r0
8 clk R cpsr 000001f3
9 clk IT (9) 0000801c 2007 T svc_s : MOVS r0,#7
9 clk R r0 00000007
10 clk IT (10) 0000801e 4770 T svc_s : BX lr
11 clk IT (11) 0000100c d2800035 O EL1h_s : MOV x21,#1
11 clk R X21 0000000000000001
11 clk R cpsr 000003c5
TR
"$TRAWL" index "$H" >/dev/null || fail "index failed"
# hand-worked facts the CLI truth must agree with
[ "$(cli_line last-write "$H" 12 lr)" = 4 ] || fail "trawl last-write --at 12 lr is not line 4"
[ "$(cli_line last-write "$H" 20 sp)" = 12 ] || fail "trawl last-write --at 20 sp is not line 12"
[ "$(cli_line last-write "$H" 23 x20)" = 7 ] || fail "trawl last-write --at 23 x20 is not line 7"

start_browse 160 40 "$H"
wait_status "line 1  ev 0/11"
# A64: 64-bit x registers
wait_for "x0  *fedcba9876543210"
pane_has "x14  ????????????????"
pane_has "psr *000003c5"
check_pane "$H" 1 a64
keys j j
wait_status "line 7  ev 2/11"
wait_for "x20 *0000000000000020"
check_pane "$H" 7 a64
# A32: r0-r12, sp, lr, pc, psr at 32 bits; lr and sp are the low halves
# of the A64 x14 and sp; x20 is not shown at all
keys j
wait_status "line 9  ev 3/11"
wait_for "r0  *00001000"
pane_has "lr   22222222"
pane_has "sp   00080000"
pane_has "psr *000001d3"
pane_has "r2   ????????"
# pc is the instruction's address (the trace line's 00008000)
pane_has "pc   00008000"
check_pane "$H" 9 a32
keys j
wait_status "line 12  ev 4/11"
wait_for "sp  *00001000"
check_pane "$H" 12 a32
keys j
wait_status "line 14  ev 5/11"
wait_for "lr  *0000800c"
check_pane "$H" 14 a32
# T32 counts as AArch32 too
keys l; type_line 20
wait_status "line 20  ev 8/11"
wait_for "r0  *00000007"
pane_has "psr  000001f3"
check_pane "$H" 20 a32
# stepping across the T32 -> A64 boundary restores x0-x30
keys j
wait_status "line 22  ev 9/11"
check_pane "$H" 22 a32
keys j
wait_status "line 23  ev 10/11"
wait_for "x21 *0000000000000001"
check_pane "$H" 23 a64

# The selection is a storage register. Select x20 (Tab selects x0), step
# into T32 and back: w still acts on x20, as trawl last-write x20 says.
keys Tab
keys Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down
keys k
wait_status "line 22  ev 9/11"
keys j
wait_status "line 23  ev 10/11"
keys w
wait_status "line 7  ev 2/11"
wait_for "last write of x20"
# AArch32 has no x20: the selection shows on the nearest row below it, lr
# (r14), and w follows lr as trawl last-write lr reads it on an A32 line:
# the low half of x14, written by the A64 MOV at line 4
keys j j
wait_status "line 12  ev 4/11"
check_pane "$H" 12 a32
keys w
wait_status "line $(cli_line last-write "$H" 12 lr)  ev"
wait_for "last write of lr"
check_pane "$H" 4 a64
# ... and w made lr the selection: on this A64 line it is x14 (no earlier
# write), not x20
keys w
wait_for "no earlier write of x14"
# in AArch32, Up from lr is sp (r13), not the x13 of the A64 list
keys l; type_line 20
wait_status "line 20  ev 8/11"
keys Up
keys w
wait_status "line $(cli_line last-write "$H" 20 sp)  ev"
wait_for "last write of sp"
check_pane "$H" 12 a32
# back to the A64 start
keys g
wait_status "line 1  ev 0/11"
wait_for "x0  *fedcba9876543210"
check_pane "$H" 1 a64
keys q
wait_for "browse exited 0"

# A real AArch32 trace (Fast Models, banked r13_svc/r14_svc)
C32="${TRAWL_CORPUS:-}/tarmac/calltests/calltest32.tarmac"
if [ ! -f "$C32" ]; then
	echo "SKIP (part): corpus not found under ${TRAWL_CORPUS:-<unset>}"
	finish
fi
C="$_tmp/calltest32.tarmac"
cp "$C32" "$C"
"$TRAWL" index "$C" >/dev/null || fail "index failed"
start_browse 160 40 "$C"
wait_status "line 1  ev 0/"
keys l; type_line 76
wait_status "line 76  ev"
check_pane "$C" 76 a32
# stepping updates the pane: the MUL at line 78 writes r1
keys j
wait_status "line 78  ev"
wait_for "r1  *0002b459"
check_pane "$C" 78 a32
keys j j
cur=$(status_line | sed -n 's/^line \([0-9]*\) .*/\1/p')
[ "$cur" = 82 ] || wait_status "line 82  ev"
check_pane "$C" 82 a32
# next and last write of lr (row 14: r0-r12, sp, lr) from here, as trawl
# next-write / last-write find them
keys Tab
keys Down Down Down Down Down Down Down Down Down Down Down Down Down Down
keys W
nw=$(cli_line next-write "$C" 82 lr)
[ -n "$nw" ] || fail "trawl next-write printed no line"
wait_status "line $nw  ev"
wait_for "next write of lr"
check_pane "$C" "$nw" a32
keys w
lw=$(cli_line last-write "$C" "$nw" lr)
[ "$lw" = "$nw" ] && lw=$("$TRAWL" last-write "$C" --at "$(($(event_line "$C" "$nw") - 1))" lr |
	sed -n 's/^line \([0-9]*\) .*/\1/p')
[ -n "$lw" ] || fail "trawl last-write printed no line"
wait_status "line $lw  ev"
wait_for "last write of lr"
check_pane "$C" "$lw" a32
keys q
wait_for "browse exited 0"
finish
