#!/bin/sh
# AUX data that does not run on: snapshot mode (perf record -S), where each
# AUXTRACE chunk is a capture of a ring that may have wrapped, and full-mode
# recordings with AUX data missing or starting mid-packet. Files from perf-mkdata.py; the trace is
# ete-basic.sh's (its decode worked out by hand there), 40 bytes with its
# padding (34 bytes in 3 frames, 48, when formatted).
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
# Record offsets by hand: the data section at 256, AUXTRACE_INFO 232 (two
# ETE blocks of 9), COMM 56, MMAP2 128, MMAP 96, then per CPU ITRACE_START
# 48, AUX_OUTPUT_HW_ID 48, and per piece its AUX records (64 each), its
# AUXTRACE (48 + its bytes) and FINISHED_ROUND 8: cpu 0's first AUX at 864.
lost() { # file text: the message is there
	grep -qF "$2" "$t/d.err" || fail "$1: stderr lacks '$2': $(cat "$t/d.err")"
}

# snapshot mode, ring of 64 bytes: the first snapshot holds the last 64 of
# 3 copies (the last 24 bytes of copy 2, then copy 3), the second the last
# 64 of 2 copies more (the last 24 of copy 4, then copy 5). Each decodes
# from its own first A-Sync: copy 3, then copy 5, the hand-worked ranges
# once each; the 24 bytes before are named as lost (exit 1). Fed on as one
# stream, the tail of copy 4 was read as packets (a bad packet).
# AUX 864, AUXTRACE 928 (112), 1040 FINISHED_ROUND, AUX 1048, AUXTRACE 1112,
# 1224, cpu 1: 1232, 1280, AUX 1328, AUXTRACE 1392, 1504, AUX 1512, 1576
$mk "$t/s.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --snapshot 64
want_rc=1 check_decode "snapshot raw" "$t/s.data" 20 20 22 22
lost snapshot "offset 928: AUXTRACE (cpu 0): its first 24 bytes, before a sync point, are not decoded (a snapshot of an AUX ring that had wrapped"
lost snapshot "offset 1112: AUXTRACE (cpu 0): its first 24 bytes"
lost snapshot "offset 1576: AUXTRACE (cpu 1): its first 24 bytes"
# offsets go on across the snapshots: TRACE_ON is byte 14 of a copy
grep -q '^38	20	TRACE_ON$' "$t/d.out" && grep -q '^102	20	TRACE_ON$' "$t/d.out" ||
	fail "snapshot offsets: want TRACE_ON at 24+14 and 64+24+14: $(cat "$t/d.out")"
expect_stdout_has "cs_etm header:       version 2, PMU type 8, snapshot mode, 2 cpus" "$TRAWL" info "$t/s.data"
expect_stdout_has "AUX     @1048     cpu 0, offset 8, 64 bytes, raw,overwrite" "$TRAWL" info "$t/s.data"
# formatted (ETMv4): the snapshots start at a frame: the last frame of
# copy 2 (its last 6 trace bytes) before copy 3
$mk "$t/sf.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --snapshot 64 --unit etmv4 --version 1 --formatted
want_rc=1 check_decode "snapshot formatted" "$t/sf.data" 10 10 12 12
lost "snapshot formatted" "AUXTRACE (cpu 1): its first 6 bytes, before a sync point, are not decoded"

# full mode, the trace twice with 64 bytes of AUX data between them that
# no AUXTRACE record holds: both copies decode, the gap is named, exit 1
# (AUX 864, AUXTRACE 928 (88), 1016, the gap's AUX 1024, 1088, AUX 1096,
# AUXTRACE 1160 at AUX offset 40 + 64)
$mk "$t/g.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --gap 64
want_rc=1 check_decode "gap" "$t/g.data" 20 20 22 22
lost gap "offset 1160: AUXTRACE (cpu 0) at AUX offset 104: the 64 bytes of AUX data before it are not in the file"
lost gap "offset 1024: AUX record (cpu 0, AUX offset 40, 64 bytes): its trace is not in the file (no AUXTRACE record holds it; 2 AUX records, 128 bytes missing in all)"
# the two copies of each CPU are not one flow: a gap between them (the
# Trace On that starts the second), so the last ret of the first (whose
# target the trace does not give) is no branch to 0x1000. By hand, per copy:
# 1000-100c, 1004-1004 (b.ne taken), 100c-100c, branches 1004->100c and
# 100c->1004 (the ret's address packet); four copies. It counted
# 100c->1000:2 as well.
"$TRAWL" autofdo --symfs "$t" "$t/g.data" >"$t/g.afdo" 2>/dev/null
printf '3\n1000-100c:4\n1004-1004:4\n100c-100c:4\n0\n2\n1004->100c:4\n100c->1004:4\n' | cmp -s - "$t/g.afdo" ||
	fail "gap: autofdo joins the copies: $(cat "$t/g.afdo")"
"$TRAWL" cat --symfs "$t" "$t/g.data" 2>/dev/null | awk '$4 == "gap" { print $2 }' | tr '\n' ' ' >"$t/g.gaps"
[ "$(cat "$t/g.gaps")" = "cpu0 cpu1 " ] || fail "gap: want one gap event per CPU, got '$(cat "$t/g.gaps")'"
# cpu 1's AUX record has no AUXTRACE record at all: cpu 0 decodes (cpu
# 0's records end at 1024, cpu 1's ITRACE_START, HW_ID, AUX at 1120)
$mk "$t/dr.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --drop-auxtrace 2
want_rc=1 check_decode "missing AUX data" "$t/dr.data" 20
lost "missing AUX data" "offset 1120: AUX record (cpu 1, AUX offset 0, 40 bytes): its trace is not in the file"
# chunks back to back (8 bytes each, packets cut between them) are one
# stream: nothing lost, exit 0
$mk "$t/sp.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --split 8
check_decode "split" "$t/sp.data" 20 22
$mk "$t/spf.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --split 16 --unit etmv4 --version 1 --formatted
check_decode "split formatted" "$t/spf.data" 10 12

# a CPU's first chunk that starts mid-packet (3 bytes before the A-Sync:
# two atoms and the tail of an address): decoded from the A-Sync, the 3
# bytes named as lost, exit 1, by trawl ete and by the reader (trawl cat).
# cpu 1's chunk (not the file's first) with cpu 0 whole: cpu 0's AUXTRACE
# at 928 (88), 1016, cpu 1's ITRACE_START 1024, HW_ID 1072, AUX 1120,
# AUXTRACE 1184. It was decoded without a word, exit 0.
{ printf '\366\367\001'; cat "$t/trace.bin"; } >"$t/mid.bin"
$mk "$t/mid.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --trace1 "$t/mid.bin"
want_rc=1 check_decode "mid-packet start" "$t/mid.data" 20 22
lost "mid-packet start" "mid.data: offset 1184: AUXTRACE (cpu 1): its first 3 bytes, before a sync point, are not decoded (the start of the CPU's trace)"
[ "$(grep -c 'before a sync point' "$t/d.err")" = 1 ] || fail "mid-packet start: cpu 0 lost nothing: $(cat "$t/d.err")"
expect_exit 1 "$TRAWL" cat --symfs "$t" "$t/mid.data"
expect_stderr_has "mid.data:offset 1184: AUXTRACE (cpu 1): its first 3 bytes, before a sync point" \
	"$TRAWL" cat --symfs "$t" "$t/mid.data"
# one CPU, formatted (the 3 bytes in the first frame): AUXTRACE_INFO 120
# (one ETMv4 block), COMM, MMAP2, MMAP, ITRACE_START, AUX: AUXTRACE at 768
$mk "$t/midf.data" "$t/mid.bin" /no/such/dir/prog.bin --unit etmv4 --version 1 --formatted
want_rc=1 check_decode "mid-packet start formatted" "$t/midf.data" 10
lost "mid-packet start formatted" "offset 768: AUXTRACE (cpu 0): its first 3 bytes, before a sync point, are not decoded"
expect_exit 1 "$TRAWL" cat --symfs "$t" "$t/midf.data"
finish
