#!/bin/sh
# trawl browse on AArch32 events: the register pane names the core
# registers r0-r30 and draws them, sp and pc as 32 bits (8 hex digits, an
# unknown one as ????????), as trawl regs prints them; on AArch64 events of
# the same trace it goes back to x0-x30 at 64 bits. Values come from a
# hand-made A64 -> A32 -> T32 trace (worked out by hand below) and, for the
# corpus trace calltest32, from trawl regs / last-write / next-write.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/browse-lib.sh"

# The register pane is the right-hand 23 columns at 160 wide (one column
# of registers, 22 cells, plus the border): cut it out so the trace text
# (which has X0, r0 ... in it) is not read as the pane.
pane() { screen | cut -c 138-; }

# check_pane TRACE LINE a32|a64: every core register in the pane equals
# what trawl regs prints for LINE, under the names and at the width of
# that state; a register trawl regs leaves out shows as all ??.
check_pane() {
	_trace=$1 _line=$2 _mode=$3
	"$TRAWL" regs "$_trace" --at "$_line" >"$_tmp/regs" || { fail "trawl regs failed"; return; }
	pane >"$_tmp/scr"
	grep -q "cpu 0" "$_tmp/scr" || { fail "layout changed: no register pane title in columns 138-; screen:
$(screen)"; return; }
	if [ "$_mode" = a32 ]; then
		p=r unk="????????" other='x[0-9]+' wrong='[?]{16}'
	else
		p=x unk="????????????????" other='r[0-9]+' wrong='[ *][?]{8}( |$)'
	fi
	i=0 names=
	while [ $i -le 30 ]; do names="$names $p$i"; i=$((i + 1)); done
	for r in $names sp pc psr; do
		v=$(awk -v r="$r" '$1 == r { print $2 }' "$_tmp/regs")
		[ -n "$v" ] || v=$unk
		[ "$r" != psr ] && [ ${#v} -ne ${#unk} ] &&
			fail "line $_line: trawl regs prints $r as $v, not ${#unk} digits"
		grep -qE "(^| )$r +[ *]$(printf '%s' "$v" | sed 's/?/[?]/g')( |\$)" "$_tmp/scr" ||
			fail "line $_line: register $r should show $v; pane:
$(cat "$_tmp/scr")"
	done
	grep -qE "(^| )$other +[ *]" "$_tmp/scr" && fail "line $_line ($_mode): pane has $other names:
$(cat "$_tmp/scr")"
	grep -qE -- "$wrong" "$_tmp/scr" && fail "line $_line ($_mode): pane has registers of the wrong width:
$(cat "$_tmp/scr")"
}
# pane_has TEXT: the pane shows TEXT (a name, the change mark, a value).
pane_has() {
	pane | grep -qF -- "$1" || fail "pane should show '$1'; pane:
$(pane)"
}

H="$_tmp/h.tarmac"
# Two A64 instructions, then A32 (svc mode), then a BX into T32. An A32
# write of r0-r14 writes the low 32 bits, so r14 reads 22222222 (the low
# half of x14) until the BL writes it, and sp 00080000 until MOV sp,r0.
cat >"$H" <<'TR'
1 clk IT (1) 00001000 d29fffe0 O EL1h_s : MOV x0,#0xffff
1 clk R X0 fedcba9876543210
1 clk R cpsr 000003c5
2 clk IT (2) 00001004 d280002e O EL1h_s : MOV x14,#1
2 clk R X14 1111111122222222
2 clk R SP_EL1 0000000000080000
3 clk IT (3) 00008000 e3a00a01 A svc_s : MOV r0,#0x1000
3 clk R r0 00001000
3 clk R cpsr 000001d3
4 clk IT (4) 00008004 e1a0d000 A svc_s : MOV sp,r0
4 clk R r13_svc 00001000
5 clk IT (5) 00008008 eb000000 A svc_s : BL {pc}+8 ; 0x8010
5 clk R r14_svc 0000800c
6 clk IT (6) 00008010 e28f0005 A svc_s : ADD r0,pc,#5
6 clk R r0 0000801d
7 clk IT (7) 00008014 e12fff10 A svc_s : BX r0
7 clk R cpsr 000001f3
8 clk IT (8) 0000801c 2007 T svc_s : MOVS r0,#7
8 clk R r0 00000007
9 clk IT (9) 0000801e 4770 T svc_s : BX lr
TR
"$TRAWL" index "$H" >/dev/null || fail "index failed"

start_browse 160 40 "$H"
wait_status "line 1  ev 0/9"
# A64: 64-bit x registers
wait_for "x0  *fedcba9876543210"
pane_has "x14  ????????????????"
pane_has "psr *000003c5"
check_pane "$H" 1 a64
keys j
wait_status "line 4  ev 1/9"
wait_for "x14 *1111111122222222"
pane_has "sp  *0000000000080000"
check_pane "$H" 4 a64
# A32: r names, 32 bits; r14 and sp are the low halves of the A64 values
keys j
wait_status "line 7  ev 2/9"
wait_for "r0  *00001000"
pane_has "r14  22222222"
pane_has "sp   00080000"
pane_has "psr *000001d3"
pane_has "r2   ????????"
pane_has "pc   ????????"
check_pane "$H" 7 a32
keys j
wait_status "line 10  ev 3/9"
wait_for "sp  *00001000"
check_pane "$H" 10 a32
keys j
wait_status "line 12  ev 4/9"
wait_for "r14 *0000800c"
check_pane "$H" 12 a32
# T32 counts as AArch32 too
keys l; type_line 18
wait_status "line 18  ev 7/9"
wait_for "r0  *00000007"
pane_has "psr  000001f3"
check_pane "$H" 18 a32
# last write of r14 (register 14 in the list, after Tab selects r0): the
# BL at line 12, named r14 as trawl regs names it
keys Tab
keys Down Down Down Down Down Down Down Down Down Down Down Down Down Down
keys w
wait_status "line 12  ev 4/9"
wait_for "last write of r14"
lw=$("$TRAWL" last-write "$H" --at 18 r14 | sed -n 's/^line \([0-9]*\) .*/\1/p')
[ "$lw" = 12 ] || fail "trawl last-write r14 says line '$lw', want 12"
# back to the A64 start: x names and 16 digits again
keys g
wait_status "line 1  ev 0/9"
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
# next write of r14 from here, as trawl next-write finds it
keys Tab
keys Down Down Down Down Down Down Down Down Down Down Down Down Down Down
keys W
nw=$("$TRAWL" next-write "$C" --at 82 r14 | sed -n 's/^line \([0-9]*\) .*/\1/p')
[ -n "$nw" ] || fail "trawl next-write printed no line"
wait_status "line $nw  ev"
wait_for "next write of r14"
check_pane "$C" "$nw" a32
keys q
wait_for "browse exited 0"
finish
