#!/bin/sh
# TME transactions in ETE (docs/ete.md, "Transactions"), one hand-built
# snapshot each. The elements must be what the ETE rules say and what
# Debian's trc_pkt_lister (OpenCSD 1.3.3, which decodes transaction
# elements) gives; the `trawl ete transactions` lines are worked out by
# hand from the program and the stream, written beside each case. Also
# here: TEXIT, one no-image element per gap, several trace buffers in one
# snapshot, and the exit status of a trace with an overflow.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/ete-snap-lib.sh"

# tx NAME: after rule NAME ..., the transactions listing must be $tx
tx() {
	"$TRAWL" ete transactions "$t/$1" >"$t/tx" 2>"$t/err" || fail "$1: transactions exit status $?: $(cat "$t/err")"
	printf '%s\n' "$tx" | diff - "$t/tx" >"$t/d" || fail "$1: transactions differ:
$(cat "$t/d")"
}

# A: 0x1000 tstart x0; 0x1004 cbnz x0, 0x1024; 0x1008 tstart x1 (nested);
# 0x100c nop; 0x1010 tcommit (inner); 0x1014 tcommit (outer); 0x1018 ret
A=603023d5""000100b5""613023d5""1f2003d5""7f3003d5""7f3003d5""c0035fd6
# B: 0x1000 tstart x0; 0x1004 cbnz x0, 0x1010; 0x1008 nop;
# 0x100c tcancel #0x8005 (retry, code 5); 0x1010 ret
B=603023d5""600000b5""1f2003d5""a00070d4""c0035fd6

# Nesting: E (the outer tstart), Transaction Start (offset 26), N (cbnz),
# E (the nested tstart), Transaction Commit, E (nop, tcommit, tcommit,
# ret). The transaction runs from the tstart at 0x1000 to the outer
# tcommit at 0x1014: cbnz, tstart, nop, tcommit, tcommit = 5 instructions,
# depth 2; the trace shows one transaction (TME flattens nesting).
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 MEMTRANS start
10 RANGE 0x1004 0x1008 1 N
10 RANGE 0x1008 0x100c 1 E
10 MEMTRANS commit
10 RANGE 0x100c 0x101c 4 E"
rule nest "${asy}${tinfo}${start}f70af6f70bf7" "$A" 0x0
tx="26	10	0x1000	0x1014	5	2	commit"
tx nest

# A failure inside, with a TCANCEL in the image: E, Transaction Start, N
# (cbnz not taken), Transaction Failure (exception 0x18, E1:E0 = 01), the
# address 0x1004 where execution resumes (after the outer tstart), then E
# (cbnz taken: x0 holds the failure code) and E (ret). From 0x1008 the image
# holds nop, tcancel #0x8005 before any P0 instruction: that TCANCEL failed
# it. Instructions: cbnz, nop, tcancel = 3.
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 MEMTRANS start
10 RANGE 0x1004 0x1008 1 N
10 MEMTRANS fail
10 RANGE 0x1004 0x1008 1 E
10 RANGE 0x1010 0x1014 1 E"
rule fail-tcancel "${asy}${tinfo}${start}f70af6""063170""9d0108000000000000""f7f7" "$B" 0x0
tx="26	10	0x1000	0x100c	3	1	fail	E1:E0=01 resume=0x1004 reason=TCANCEL #32773 (retry 1, code 5)"
tx fail-tcancel

# A failure the trace does not explain: it comes right after the
# Transaction Start, and the next instruction (cbnz) is a P0 instruction
# with no atom, so no TCANCEL ran: "not traced", no end PC, 0 instructions.
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 MEMTRANS start
10 MEMTRANS fail
10 RANGE 0x1004 0x1008 1 E
10 RANGE 0x1010 0x1014 1 E"
rule fail-untraced "${asy}${tinfo}${start}f70a""063170""9d0108000000000000""f7f7" "$B" 0x0
tx="26	10	0x1000	-	0	1	fail	E1:E0=01 resume=0x1004 reason=not traced"
tx fail-untraced

# The trace ends inside a transaction: E, Transaction Start, N, end. Open,
# one instruction (cbnz) so far, no end PC; not a loss (exit status 0).
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 MEMTRANS start
10 RANGE 0x1004 0x1008 1 N"
rule open-at-end "${asy}${tinfo}${start}f70af6" "$A" 0x0
tx="26	10	0x1000	-	1	1	open	trace ended inside"
tx open-at-end

# Tracing starts inside a transaction: Trace Info with TSTATE (INFO bit 6,
# 01 01 40) gives an "init" element; then address 0x100c, Transaction
# Commit, E (nop, tcommit, tcommit, ret): the commit ends at the last
# tcommit of that range (0x1014), 3 instructions; the start was not traced.
want="10 MEMTRANS init
$ctx
10 MEMTRANS commit
10 RANGE 0x100c 0x101c 4 E"
rule tstate-init "${asy}010140""04850308000000000000""11""0bf7" "$A" 0x0
tx="12	10	-	0x1014	3	1	commit	began before the trace"
tx tstate-init

# Transaction Start is a P0 element (TRCIDR0.COMMTRANS = 0): with MaxSpec
# 4, E, Transaction Start, N, Commit 2 commits the E and the start; the N
# stays speculative and is dropped at the end.
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 MEMTRANS start"
rule commtrans-p0 "${asy}${tinfo}${start}f70af62d02" "$A" 0x4

# Commit rate in stats: the nest snapshot committed its one transaction,
# fail-tcancel failed its one.
"$TRAWL" ete stats "$t/nest" >"$t/s" 2>"$t/err"
grep -q '^  commit rate      100.0% (1 of 1)$' "$t/s" || fail "nest stats: $(grep -A1 transactions "$t/s")"
"$TRAWL" ete stats "$t/fail-tcancel" >"$t/s" 2>"$t/err"
grep -q '^  transactions     1 (0 committed, 1 failed, 0 open at the end, 0 lost)$' "$t/s" &&
	grep -q '^  commit rate      0.0% (0 of 1)$' "$t/s" || fail "fail stats: $(grep -A1 transactions "$t/s")"

# FEAT_TEV TEXIT (0xd6ff03e0, as LLVM's MC tests encode it) is an exception
# return: 0x1000 texit; 0x1004 nop; 0x1008 b.ne 0x1008. E (the texit),
# address 0x1008, N. OpenCSD 1.3.3 predates TEXIT and walks through it.
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 EXC_RET
10 RANGE 0x1008 0x100c 1 N"
ref_want="$ctx
10 RANGE 0x1000 0x100c 3 E
10 RANGE 0x1008 0x100c 1 N"
rule texit "${asy}${tinfo}${start}f7""9d0208000000000000""f6" e003ffd61f2003d501000054 0x0

# One no-image element per gap: the trace starts at 0x2000, outside the
# image (E: no image there), then an IRQ with return address 0x2010 in the
# same gap. OpenCSD (1.3.3 and 1.8) repeats the no-image element before
# the exception; the gap is one.
want="$ctx
10 NACC 0x2000
10 EXCEPTION 0x2010 0xe"
ref_want="$ctx
10 NACC 0x2000
10 NACC 0x2000
10 EXCEPTION 0x2010 0xe"
rule nacc-once "${asy}${tinfo}04850010000000000000""11""f7""061d""9d0410000000000000" "$A" 0x0
"$TRAWL" ete decode "$t/nacc-once" >/dev/null 2>"$t/err"
grep -q ': 1 place with no program image' "$t/err" || fail "nacc-once: warning: $(cat "$t/err")"

# Several trace buffers: ETB_0 holds source ETE_0 (trace ID 0x10), ETB_1
# source ETE_1 (trace ID 0x11, [source_buffers] says so). Every buffer is
# decoded, each after a "# buffer NAME" line, with its own source's ID;
# each must agree with OpenCSD listing that buffer alone (-src_name).
d="$t/two-buffers"
mksnap "$d" "${asy}${tinfo}${start}f7" "$prog" 0x0
mksnap_second "$d" "${asy}${tinfo}${start}f6f7" cpu_0
"$TRAWL" ete decode "$d" >"$t/dec" 2>"$t/err" || fail "two-buffers: exit status $?: $(cat "$t/err")"
grep -c '^# buffer ETB_[01]$' "$t/dec" | grep -qx 2 || fail "two-buffers: buffer lines: $(grep '^#' "$t/dec")"
want0="$ctx
10 RANGE 0x1000 0x1004 1 E"
want1="11 CONTEXT EL1 S 64
11 RANGE 0x1000 0x1004 1 N
11 RANGE 0x1004 0x1010 3 E"
for b in 0 1; do
	awk -v b="# buffer ETB_$b" '/^# buffer/ { on = ($0 == b); next } on' "$t/dec" |
		awk -v mode=ourel -f "$norm" | grep -v SYNC_LOST >"$t/ours$b"
	eval "w=\$want$b"
	printf '%s\n' "$w" | diff - "$t/ours$b" >"$t/d" || fail "two-buffers: ETB_$b: $(cat "$t/d")"
	[ -n "$lister" ] || continue
	"$lister" -ss_dir "$d" -src_name "ETB_$b" -decode -no_time_print 2>&1 | sed 's/\(.\)Idx:/\1\nIdx:/g' |
		awk -v mode=refel -f "$norm" | grep -v SYNC_LOST >"$t/ref$b"
	printf '%s\n' "$w" | diff - "$t/ref$b" >"$t/d" || fail "two-buffers: OpenCSD ETB_$b: $(cat "$t/d")"
done
"$TRAWL" ete decode --buffer ETB_1 "$d" 2>/dev/null | grep -q '^# buffer' && fail "two-buffers: --buffer still prints buffer lines"

# Exit status: an Overflow packet means the trace unit lost trace, so the
# run is lossy (1) and says where.
mksnap "$t/overflow" "${asy}${tinfo}${start}f60005f7" "$prog" 0x0
"$TRAWL" ete decode "$t/overflow" >/dev/null 2>"$t/err"
[ $? = 1 ] || fail "overflow: exit status is not 1"
grep -q 'offset 26: overflow: the trace unit lost trace here' "$t/err" || fail "overflow: warning: $(cat "$t/err")"

finish
