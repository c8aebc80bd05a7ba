#!/bin/sh
# --where compares the integers fields hold: a u64 field of 2^63 or more
# is that number, above every signed one (it read as negative, so
# `addr > 5` dropped a kernel address and `addr < 0` kept it, exit 0); an
# s64 field's -1 is -1, not 2^64 - 1. The events are hand-made (python),
# the answers worked out by hand; the fused terms (the per-class plan of
# a batch) and the general stack machine (!!(...)) must agree.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
python3 - "$_tmp/tr" <<'EOP' || fail "cannot write the trace"
import os, struct, sys
out = sys.argv[1]
os.makedirs(out)
open(os.path.join(out, "metadata"), "w").write("""/* CTF 1.8 */
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
clock { name = trawl; freq = 1000000000; offset_s = 0; offset = 0; absolute = false; };
typealias integer { size = 64; align = 8; signed = false; map = clock.trawl.value; } := trawl_clock_t;
stream { id = 0;
	packet.context := struct { trawl_clock_t timestamp_begin; trawl_clock_t timestamp_end;
		uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;
		uint64_t events_discarded; uint32_t cpu_id; uint32_t thread_id; };
	event.header := struct { uint32_t id; trawl_clock_t timestamp; }; };
event { name = "mm:MAP"; id = 0; stream_id = 0; fields := struct { uint64_t addr; }; };
event { name = "io:SEEK"; id = 1; stream_id = 0; fields := struct { int64_t addr; }; };
""")
evs = [(0, 1000, 0x10), (0, 1001, 0xffff800008000000), (0, 1002, 0xffffffffffffffff),
       (1, 1003, 5), (1, 1004, -1), (1, 1005, -(1 << 63))]
body = b"".join(struct.pack("<IQq" if i else "<IQQ", i, t, v) for i, t, v in evs)
size = 64 + len(body)
head = struct.pack("<IIQQQQQQII", 0xC1FC1FC1, 0, 1000, 1005, size * 8, size * 8, 0, 0, 0, 7)
open(os.path.join(out, "stream-0"), "wb").write(head + body)
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
