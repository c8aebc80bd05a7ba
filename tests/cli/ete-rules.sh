#!/bin/sh
# ETE / ETMv4 decode rules from the architecture, one hand-built snapshot
# each (docs/ete.md, "Rules checked one by one"): the elements the rule says
# the stream must give are written out below, trawl must give exactly
# those, and the reference decoder (Debian's trc_pkt_lister, OpenCSD 1.3.3)
# must give them too, or, where it differs on purpose, what it is known to
# give instead (the reason beside it).
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/ete-snap-lib.sh"

# Cancel format 2 (0x34: no atoms) cancels the newest P0 element and
# mispredicts the newest one left: N (b.ne), E (ret), cancel -> the b.ne
# was taken; Commit 1.
want="$ctx
10 RANGE 0x1000 0x1004 1 E"
rule cancel-f2 "${asy}${tinfo}${start}f6f7342d01" "$prog" 0x4

# Cancel format 2 with an E atom (0x35): cancel the ret, mispredict the
# b.ne (taken, to 0x100c), then the packet's E is the ret there. OpenCSD
# applies the packet's atom before the cancel, so it cancels the atom it
# was just given and flips the ret's E: an unconditional ret not taken.
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 RANGE 0x100c 0x1010 1 E"
ref_want="$ctx
10 RANGE 0x1000 0x1004 1 N
10 RANGE 0x1004 0x1010 3 N"
rule cancel-f2-atom "${asy}${tinfo}${start}f6f7352d02" "$prog" 0x4

# Cancel format 3 (0x38: cancel 2, no atom) also implies a mispredict:
# N N N, cancel two -> the first b.ne was taken.
want="$ctx
10 RANGE 0x1000 0x1004 1 E"
rule cancel-f3 "${asy}${tinfo}${start}f6f6f6382d01" "$prog" 0x4

# A periodic A-Sync + Trace Info in the middle changes nothing the decoder
# knows: the atom after it continues from the last address (0x1004).
want="$ctx
10 RANGE 0x1000 0x1004 1 N
10 RANGE 0x1004 0x1010 3 E"
rule tinfo-mid "${asy}${tinfo}${start}f6${asy}${tinfo}f7" "$prog" 0x0

# ETMv4: an eret is followed by an Exception Return packet; the two are
# one return. 0x1000: eret; 0x1004: nop; 0x1008: b.ne 0x1008.
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 EXC_RET
10 RANGE 0x1004 0x100c 2 N"
etm4=1 rule etm4-eret "${asy}${tinfo}${start}f7079a01080000f6" e0039fd61f2003d501000054 0x0

# ETMv4 conditional and data-trace packets are walked over by their
# lengths (cond. instruction F1 6C + 2-byte key, result F3 55 + 1 byte,
# result F1 68 with two fields, data sync marker 20) and reported with
# their offsets; the E atom after them is still a packet, the exit status
# is 1 and the warning does not claim a resync. OpenCSD reports the same
# headers but reads their payload as packets (a context, a cycle count, a
# Trace Info).
d="$t/etm4-cond"
etm4=1 mksnap "$d" "${asy}${tinfo}${start}f66c810155126880010020f7" e0039fd6 0x0
etm4=
"$TRAWL" ete packets "$d" >"$t/p" 2>"$t/err"
[ $? = 1 ] || fail "etm4-cond: exit status $?, expected 1"
grep -q 'offset 26: unsupported packet (header 0x6c, length 3' "$t/err" || fail "etm4-cond: warning: $(cat "$t/err")"
grep -q 'resyncing' "$t/err" && fail "etm4-cond: claims a resync: $(cat "$t/err")"
awk -v mode=ourpkt -v ignore_id=1 -f "$norm" "$t/p" >"$t/ours"
want="- 0 ASYNC
- 12 TRACE_INFO
- 14 TRACE_ON
- 15 ADDR_CTXT_L_64IS0 0x1000
- 25 ATOM_F1 N
- 26 RESERVED_CFG
- 29 RESERVED_CFG
- 31 RESERVED_CFG
- 35 RESERVED_CFG
- 36 ATOM_F1 E"
printf '%s\n' "$want" | diff - "$t/ours" >"$t/d" || fail "etm4-cond: packets: $(cat "$t/d")"
if [ -n "$lister" ]; then
	"$lister" -ss_dir "$d" -pkt_mon -no_time_print 2>&1 | sed 's/\(.\)Idx:/\1\nIdx:/g' |
		awk -v mode=refpkt -v ignore_id=1 -f "$norm" >"$t/ref"
	printf '%s\n' "$want" | awk '{ print } $2 == 26 { print "- 27 CTXT" } $2 == 29 { print "- 30 CCNT_F3" }
		$2 == 31 { print "- 32 CTXT"; print "- 33 TRACE_INFO" }' | diff - "$t/ref" >"$t/d" ||
		fail "etm4-cond: OpenCSD packets: $(cat "$t/d")"
fi

# RME: the NSE bit with NS gives Realm (NSE 1, NS 1) and Root (NSE 1,
# NS 0) instead of Non-secure and Secure: address + context EL1 Realm,
# then a context packet EL3 Root.
want="10 CONTEXT EL1 Realm 64
10 RANGE 0x1000 0x1004 1 N
10 CONTEXT EL3 Root 64
10 RANGE 0x1004 0x1010 3 N"
rule rme-realm-root "${asy}${tinfo}04850008000000000000""39""f6811bf6" "$prog" 0x0

# Speculation depth: with TRCIDR8.MaxSpec 2 the third uncommitted atom
# commits the oldest, so a Discard after three atoms still leaves one
# range (already so; kept as a rule).
want="$ctx
10 RANGE 0x1000 0x1004 1 N"
rule maxspec-discard "${asy}${tinfo}${start}f6f6f60003" "$prog" 0x2

# Event packets give event elements (71: event 0, 7F: events 0-3) and a
# cycle count format 1 with its U bit (0F: count unknown) gives a count
# element, which OpenCSD gives as 0 and trawl prints as "unknown".
want="$ctx
10 EVENT 1
10 RANGE 0x1000 0x1004 1 N
10 CC 0
10 CC 5
10 EVENT 15
10 RANGE 0x1004 0x1010 3 N"
cci=1 rule events-cc "${asy}${tinfo}${start}71f60f0e057ff6" "$prog" 0x0

# Newer A64 branches: 0x1000 cbgt w5, w3, 0x1008 (FEAT_CMPBR, a
# conditional direct branch); 0x1008 retaasppc (FEAT_PAuth_LR, a return).
# E, E: taken to 0x1008, then the return. OpenCSD 1.3.3 knows neither and
# walks off the image.
want="$ctx
10 RANGE 0x1000 0x1004 1 E
10 RANGE 0x1008 0x100c 1 E"
ref_want="$ctx
10 RANGE 0x1000 0x1010 4 E
10 NACC 0x1010"
rule cmpbr-pauthlr "${asy}${tinfo}${start}f7f7" 450003741f2003d51f0000551f2003d5 0x0

# Armv8.1-M low-overhead loop (T32; encodings as GNU objdump lists them):
# 0x1000 wls lr, r0, 0x100c; 0x1004 adds r1, #1; 0x1006 le lr, 0x1004;
# 0x100a nop; 0x100c b . -- N (loop entered), E (loop again), N (loop
# left), E. OpenCSD 1.3.3 does not know these (it walks through WLS and LE
# as plain instructions and runs off the image).
want="10 CONTEXT EL1 S 32
10 RANGE 0x1000 0x1004 1 N
10 RANGE 0x1004 0x100a 2 E
10 RANGE 0x1004 0x100a 2 N
10 RANGE 0x100a 0x100e 2 E"
ref_want="10 CONTEXT EL1 S 32
10 RANGE 0x1000 0x100c 4 E
10 NACC 0x100c"
etm4=1 rule v81m-lob "${asy}${tinfo}048300100000""01""f6f7f6f7" 40f005c001310ff003c800bffee7 0x0

# Exit status: instructions that ran where the snapshot has no image were
# not decoded, so the run is lossy (1) and says what and where. The trace
# starts at 0x2000, outside the program.
d="$t/no-image"
mksnap "$d" "${asy}${tinfo}04850010000000000000""11""f7" "$prog" 0x0
"$TRAWL" ete decode "$d" >/dev/null 2>"$t/err"
[ $? = 1 ] || fail "no-image: exit status is not 1"
grep -q 'no program image (first: trace ID 0x10, offset 25, address 0x2000)' "$t/err" ||
	fail "no-image: warning: $(cat "$t/err")"

# More than 32 memory dumps (a real snapshot has 125): 41 dumps of one
# instruction each, 40 nops then a ret; one E atom walks all of them.
want="$ctx
10 RANGE 0x1000 0x10a4 41 E"
code=
i=0
while [ $i -lt 40 ]; do code="${code}1f2003d5"; i=$((i + 1)); done
d="$t/dumps41"
mksnap "$d" "${asy}${tinfo}${start}f7" "${code}c0035fd6" 0x0
{
	printf '[device]\nname=cpu_0\nclass=core\ntype=ARM-AA64\n\n[regs]\nPC(size:64)=0x0\n'
	i=0
	while [ $i -le 40 ]; do
		dd if="$d/code.bin" of="$d/d$i.bin" bs=4 skip=$i count=1 2>/dev/null
		printf '\n[dump%d]\nfile=d%d.bin\naddress=0x%x\nlength=0x4\n' $((i + 1)) $i $((0x1000 + 4 * i))
		i=$((i + 1))
	done
} >"$d/cpu_0.ini"
"$TRAWL" ete decode "$d" 2>"$t/err" | awk -v mode=ourel -f "$norm" | grep -v SYNC_LOST >"$t/ours"
printf '%s\n' "$want" | diff - "$t/ours" >"$t/d" || fail "dumps41: $(cat "$t/d") $(cat "$t/err")"
if [ -n "$lister" ]; then
	"$lister" -ss_dir "$d" -decode -no_time_print 2>&1 | sed 's/\(.\)Idx:/\1\nIdx:/g' |
		awk -v mode=refel -f "$norm" | grep -v SYNC_LOST >"$t/ref"
	printf '%s\n' "$want" | diff - "$t/ref" >"$t/d" || fail "dumps41: OpenCSD: $(cat "$t/d")"
fi

# Two memory dumps that overlap with other bytes: the first dump in the
# core's file keeps its bytes, as OpenCSD does (its memory map refuses the
# second: OCSD_ERR_MEM_ACC_OVERLAP), and trawl says so. [dump2] puts a ret
# over the nop at 0x1004 (inside dump1), then nops over the b.ne at 0x1000 from
# below (starting at 0xffc): either way the b.ne, nop, nop, ret of dump1
# are decoded, N then E.
over_dump() { # the snapshot's folder; $over_at $over_hex: [dump2]
	printf '%s' "$over_hex" | xxd -r -p >"$1/over.bin"
	printf '\n[dump2]\nfile=over.bin\naddress=%s\nlength=0x%x\n' "$over_at" \
		$((${#over_hex} / 2)) >>"$1/cpu_0.ini"
}
want="$ctx
10 RANGE 0x1000 0x1004 1 N
10 RANGE 0x1004 0x1010 3 E"
for over in 0x1004:c0035fd6 0xffc:1f2003d51f2003d5; do
	over_at=${over%:*} over_hex=${over#*:} after_mksnap=over_dump
	rule "overlap-$over_at" "${asy}${tinfo}${start}f6f7" "$prog" 0x0
	after_mksnap=
	grep -q "\[dump2\]: 'over.bin' .* holds other bytes than 'code.bin', added before it" "$t/err" ||
		fail "overlap-$over_at: no warning of the dumps' conflict: $(cat "$t/err")"
done

finish
