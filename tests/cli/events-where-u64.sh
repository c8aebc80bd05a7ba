#!/bin/sh
# --where compares the integers fields hold: a u64 field of 2^63 or more
# is that number, above every signed one (it read as negative, so
# `addr > 5` dropped a kernel address and `addr < 0` kept it, exit 0); an
# s64 field's -1 is -1, not 2^64 - 1. The events are hand-made (python),
# the answers worked out by hand; the fused terms (the per-class plan of
# a batch) and the general stack machine (!!(...)) must agree.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
python3 - "$TRAWL_SRC/tests/cli" "$_tmp/tr" <<'EOP' || fail "cannot write the trace"
import os, sys
sys.path.insert(0, sys.argv[1])
import ctf_trace
out = sys.argv[2]
ctf_trace.write_metadata(out, [("mm:MAP", 0, [("addr", "uint64_t")]), ("io:SEEK", 1, [("addr", "int64_t")])])
evs = [(0, 1000, 0x10), (0, 1001, 0xffff800008000000), (0, 1002, 0xffffffffffffffff),
       (1, 1003, 5), (1, 1004, -1), (1, 1005, -(1 << 63))]
evs = [ctf_trace.event(i, t, "<q" if i else "<Q", v) for i, t, v in evs]
open(os.path.join(out, "stream-0"), "wb").write(ctf_trace.packet_of(evs, cpu=0, tid=7))
EOP
check() { # condition, the times of the events it keeps (by hand)
	for c in "$1" "!!($1)"; do
		"$TRAWL" events list --abs --where "$c" "$_tmp/tr" >"$_tmp/out" 2>"$_tmp/err" ||
			fail "--where '$c': $(cat "$_tmp/err")"
		got=$(awk '{printf "%s ", $1}' "$_tmp/out")
		[ "$got" = "$2" ] || fail "--where '$c' kept '$got', not '$2'"
	done
}
check 'addr > 5' '1000 1001 1002 '
check 'addr < 0' '1004 1005 '
check 'addr >= 0xffff800008000000' '1001 1002 '
check 'addr == 0xffffffffffffffff' '1002 '
check 'addr == -1' '1004 '
check 'addr <= -9223372036854775808' '1005 '
check 'addr > 9223372036854775807' '1001 1002 '
check 'addr > 5 && addr < 0xffffffffffffffff' '1000 1001 '
check 'addr / 2 > 0x7000000000000000' '1001 1002 '
check 'addr >> 1 == -1' '1004 '
finish
