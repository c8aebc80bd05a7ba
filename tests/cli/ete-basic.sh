#!/bin/sh
# trawl ete on hand-made trace (no corpus needed): a four-instruction A64
# program and a trace whose decode is worked out by hand below; the same
# trace as a wrapped TRBE buffer; bad input of every kind.
. "$TRAWL_SRC/tests/cli-lib.sh"
t=$_tmp
. "$TRAWL_SRC/tests/ete-basic-data.sh"
img="--image 0x1000=$t/prog.bin"

expect_exit 0 "$TRAWL" ete packets "$t/trace.bin"
"$TRAWL" ete packets "$t/trace.bin" >"$t/p" 2>&1
cat >"$t/want" <<'W'
0	00	ASYNC
12	00	TRACE_INFO	info=0x0 key=0 spec=0 cyct=0
14	00	TRACE_ON
15	00	ADDR_CTXT_L_64IS0	addr=0x0000000000001000 is=0	ctx=EL1 S 64
25	00	ATOM_F1	N
26	00	ATOM_F1	E
27	00	ADDR_L_32IS0	addr=0x0000000000001004 is=0
32	00	ATOM_F1	E
33	00	ATOM_F1	E
W
diff -u "$t/want" "$t/p" >"$t/d" || fail "packets: $(cat "$t/d")"

# by hand: N on b.ne -> [0x1000,0x1008) 2 insns; E on ret -> [0x1008,0x1010)
# 2 insns, target from the address packet 0x1004; E on b.ne -> [0x1004,
# 0x1008) 1 insn, to 0x100c; E on ret -> [0x100c,0x1010) 1 insn.
"$TRAWL" ete decode $img "$t/trace.bin" | grep -v '^-' | cut -f3- >"$t/e"
cat >"$t/want" <<'W'
TRACE_ON
PE_CONTEXT	EL1	S	64
INSTR_RANGE	0x1000	0x1008	2	A64	N	BR
INSTR_RANGE	0x1008	0x1010	2	A64	E	iBR-ret
INSTR_RANGE	0x1004	0x1008	1	A64	E	BR
INSTR_RANGE	0x100c	0x1010	1	A64	E	iBR-ret
W
diff -u "$t/want" "$t/e" >"$t/d" || fail "decode: $(cat "$t/d")"

# the same in chunks of every small size
for c in 1 2 3 5 7; do
	"$TRAWL" ete decode --chunk $c $img "$t/trace.bin" | grep -v '^-' | cut -f3- >"$t/e2"
	cmp -s "$t/e" "$t/e2" || fail "decode with --chunk $c differs"
done

# Tarmac: six instructions with disassembly, in order
expect_exit 0 "$TRAWL" ete tarmac $img "$t/trace.bin" -o "$t/out.tarmac"
[ "$(grep -c ' IT ' "$t/out.tarmac")" = 6 ] || fail "tarmac: want 6 IT lines: $(cat "$t/out.tarmac")"
# PCs as Fast Models and trawl's emulator print them: 8 digits below 4 GiB
awk '{print $5}' "$t/out.tarmac" | tr '\n' ' ' >"$t/pcs"
[ "$(cat "$t/pcs")" = "00001000 00001004 00001008 0000100c 00001004 0000100c " ] ||
	fail "tarmac PCs: $(cat "$t/pcs")"
grep -q ': ret' "$t/out.tarmac" || fail "tarmac lacks disassembly: $(head -3 "$t/out.tarmac")"
# trawl's own Tarmac reader takes it: six A64 instructions at EL1, secure
if "$TRAWL" help cat >/dev/null 2>&1; then
	"$TRAWL" cat "$t/out.tarmac" >"$t/cat" 2>&1 || fail "trawl cat cannot read the Tarmac: $(head -3 "$t/cat")"
	[ "$(grep -c 'insn A64 pc=.* el=1 mode=EL1h_s' "$t/cat")" = 6 ] || fail "trawl cat: $(cat "$t/cat")"
fi

# the same program as an ELF file (built here when the cross compiler is
# installed): --elf gives the same decode; with a bias, the code moves
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
	printf '.text\n.global _start\n_start:\n nop\n b.ne 1f\n nop\n1: ret\n' >"$t/p.s"
	if aarch64-linux-gnu-gcc -nostdlib -static -Wl,-Ttext=0x1000 -Wl,--build-id=none \
		-o "$t/p.elf" "$t/p.s" 2>"$t/cc.err"; then
		"$TRAWL" ete decode --elf "$t/p.elf" "$t/trace.bin" | grep -v '^-' | cut -f3- >"$t/e2"
		"$TRAWL" ete decode $img "$t/trace.bin" | grep -v '^-' | cut -f3- >"$t/e"
		cmp -s "$t/e" "$t/e2" || fail "--elf decode differs: $(diff "$t/e" "$t/e2")"
		"$TRAWL" ete decode --elf "$t/p.elf@0x100000" "$t/trace.bin" | grep -q 'no image at 0x1000' ||
			fail "--elf with a bias still maps 0x1000"
	else
		fail "cannot build the ELF fixture: $(cat "$t/cc.err")"
	fi
fi
expect_exit 1 "$TRAWL" ete decode --elf "$t/prog.bin" "$t/trace.bin"
expect_stderr_has "is not an ELF file" "$TRAWL" ete decode --elf "$t/prog.bin" "$t/trace.bin"

# stats
expect_stdout_has "atoms E / N      3 / 1" "$TRAWL" ete stats $img "$t/trace.bin"
expect_stdout_has "instructions     6" "$TRAWL" ete stats $img "$t/trace.bin"

# missing image: a no-image element, then the next address resumes
"$TRAWL" ete decode "$t/trace.bin" | cut -f3- >"$t/e"
grep -q 'ADDR_NACC	no image at 0x1000' "$t/e" || fail "no NACC element: $(cat "$t/e")"

# wrapped TRBE buffer: 64 bytes of memory at 0x80000000, write pointer at
# 0x80000030: the oldest 16 bytes are [0x30,0x40), then [0,0x30) (padding
# with Ignore packets, as Linux does)
head -c 16 "$t/trace.bin" >"$t/head"
tail -c +17 "$t/trace.bin" >"$t/tail"
{ cat "$t/tail"; n=$((48 - $(wc -c <"$t/tail"))); i=0; while [ $i -lt $n ]; do printf '\160'; i=$((i + 1)); done; cat "$t/head"; } >"$t/trbe.bin"
[ "$(wc -c <"$t/trbe.bin")" = 64 ] || fail "bad TRBE fixture size"
trbe="--trbe-base 0x80000000 --trbe-limit 0x80000040 --trbe-write 0x80000030"
"$TRAWL" ete decode $img $trbe "$t/trbe.bin" | grep -v '^-' | cut -f3- >"$t/e2"
"$TRAWL" ete decode $img "$t/trace.bin" | grep -v '^-' | cut -f3- >"$t/e"
cmp -s "$t/e" "$t/e2" || fail "wrapped TRBE decode differs: $(diff "$t/e" "$t/e2")"
# offsets are file offsets: the A-Sync starts at 0x30
"$TRAWL" ete packets $trbe "$t/trbe.bin" | head -1 | grep -q '^48	00	ASYNC' ||
	fail "TRBE offsets: $("$TRAWL" ete packets $trbe "$t/trbe.bin" | head -2)"
printf 'base=0x80000000\nlimit=0x80000040\nwrite=0x80000030\nwrapped=1\n' >"$t/trbe.ini"
"$TRAWL" ete decode $img --trbe-file "$t/trbe.ini" "$t/trbe.bin" | grep -v '^-' | cut -f3- >"$t/e3"
cmp -s "$t/e" "$t/e3" || fail "--trbe-file decode differs"
# a bad value in it is a usage error that quotes the value (the message
# once quoted freed memory: 'V' for -1)
printf 'base=-1\nlimit=0x80000040\nwrite=0x80000030\n' >"$t/trbe-bad.ini"
expect_exit 2 "$TRAWL" ete packets --trbe-file "$t/trbe-bad.ini" "$t/trbe.bin"
expect_stderr_has "trbe-bad.ini: bad base value '-1'" "$TRAWL" ete packets --trbe-file "$t/trbe-bad.ini" "$t/trbe.bin"
printf '[pointers]\nBase=0x80000000\nlimit=0x80000040\nwrite=0x80000030\nwrite=0x8000003g\n' >"$t/trbe-bad.ini"
expect_stderr_has "trbe-bad.ini: bad write value '0x8000003g'" "$TRAWL" ete packets --trbe-file "$t/trbe-bad.ini" "$t/trbe.bin"

# bad input: reported with offsets, exit 1, never a crash
head -c 30 "$t/trace.bin" >"$t/cut.bin"
expect_exit 1 "$TRAWL" ete packets "$t/cut.bin"
expect_stderr_has "offset 27: truncated packet (header 0x9a)" "$TRAWL" ete packets "$t/cut.bin"
printf '\377\377\377\377' >"$t/noasync.bin"
expect_exit 1 "$TRAWL" ete decode "$t/noasync.bin"
expect_stderr_has "no A-Sync in 4 bytes" "$TRAWL" ete decode "$t/noasync.bin"
# a reserved header mid-stream: reported, then resync at the next A-Sync
{ head -c 26 "$t/trace.bin"; printf '\010\366\367'; cat "$t/trace.bin"; } >"$t/bad.bin"
expect_exit 1 "$TRAWL" ete packets "$t/bad.bin"
expect_stderr_has "offset 26: bad packet (header 0x08)" "$TRAWL" ete packets "$t/bad.bin"
"$TRAWL" ete packets "$t/bad.bin" 2>/dev/null | cut -f3 | tr '\n' ' ' >"$t/types"
case "$(cat "$t/types")" in
*"ATOM_F1 BAD NOTSYNC ASYNC TRACE_INFO"*) ;;
*) fail "no resync after bad header: $(cat "$t/types")";;
esac
# wrong configuration registers
expect_exit 1 "$TRAWL" ete packets --reg TRCIDR2=0x20 "$t/trace.bin"
expect_stderr_has "reserved context ID size" "$TRAWL" ete packets --reg TRCIDR2=0x20 "$t/trace.bin"
expect_exit 2 "$TRAWL" ete packets --reg TRCBOGUS=1 "$t/trace.bin"
printf '[regs]\nTRCIDR2(id:0x7A)=0x00000020\n' >"$t/regs.ini"
expect_stderr_has "reserved context ID size" "$TRAWL" ete packets --config "$t/regs.ini" "$t/trace.bin"
# an ETMv4 configuration from a config file: 0x07 is an exception return
printf '[device]\nname=etm\n[regs]\nTRCIDR0=0x08000CA1\nTRCIDR1=0x4200F410\nTRCIDR2=0x20001088\nTRCDEVARCH=0\n' >"$t/etm.ini"
{ head -c 15 "$t/trace.bin"; printf '\007'; } >"$t/etm.bin"
expect_stdout_has "15	00	EXCEPT_RTN" "$TRAWL" ete packets --config "$t/etm.ini" "$t/etm.bin"
# a wrapped buffer described wrongly
expect_exit 2 "$TRAWL" ete packets --trbe-base 0x1000 "$t/trbe.bin"
expect_exit 2 "$TRAWL" ete packets --trbe-base 0x1000 --trbe-limit 0x2000 --trbe-write 0x1010 "$t/trbe.bin"
expect_stderr_has "TRBE buffer is 64 bytes but limit - base = 4096" "$TRAWL" ete packets --trbe-base 0x1000 --trbe-limit 0x2000 --trbe-write 0x1010 "$t/trbe.bin"
expect_exit 2 "$TRAWL" ete packets --trbe-base 0x1000 --trbe-limit 0x1040 --trbe-write 0x2000 "$t/trbe.bin"
# wrong write pointer: garbage at the seam is reported, decoding goes on
"$TRAWL" ete decode $img --trbe-base 0x80000000 --trbe-limit 0x80000040 --trbe-write 0x80000010 "$t/trbe.bin" >/dev/null 2>"$t/err"
[ $? -le 1 ] || fail "wrong write pointer crashed"
# usage
expect_exit 2 "$TRAWL" ete
expect_exit 2 "$TRAWL" ete frobnicate "$t/trace.bin"
# without -o (or with -o -) the Tarmac goes to standard output, the same bytes
"$TRAWL" ete tarmac $img "$t/trace.bin" >"$t/stdout.tarmac" || fail "ete tarmac to stdout failed"
cmp -s "$t/out.tarmac" "$t/stdout.tarmac" || fail "ete tarmac on stdout differs from -o FILE"
"$TRAWL" ete tarmac $img "$t/trace.bin" -o - >"$t/dash.tarmac" || fail "ete tarmac -o - failed"
cmp -s "$t/out.tarmac" "$t/dash.tarmac" || fail "ete tarmac -o - differs from -o FILE"
expect_exit 1 "$TRAWL" ete packets "$t/no-such-file"
expect_stdout_has "usage: trawl ete" "$TRAWL" ete --help
finish
