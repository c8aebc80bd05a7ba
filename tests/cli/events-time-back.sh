#!/bin/sh
# A CTF stream whose clock goes back (an event earlier than the one before
# it in the same stream: the recorder never writes one, the stream is
# damaged or was written by something else) is damage at that event, as
# babeltrace2 refuses it too: the events before it are read, the other
# streams to their end, the file and byte offset are named, exit status 1.
# trawl read on: the merge was out of order, and a packet from RX at 2000
# to TX at 1500 lasted 18446744073709551116 ns, exit status 0.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
python3 - "$TRAWL_SRC/tests/cli" "$_tmp/tr" <<'EOP' || fail "cannot write the trace"
import os, sys
sys.path.insert(0, sys.argv[1])
import ctf_trace
out = sys.argv[2]
ctf_trace.write_metadata(out, [("net:RX", 0, [("num", "uint32_t")]), ("net:TX", 1, [("num", "uint32_t")])])
def stream(name, cpu, tid, evs):
    evs = [ctf_trace.event(i, t, "<I", v) for i, t, v in evs]
    open(os.path.join(out, name), "wb").write(ctf_trace.packet_of(evs, cpu, tid))
# the third event of stream-0 (byte 64 + 2 * 16 = 96) goes back to 1500
stream("stream-0", 0, 7, [(0, 1000, 1), (0, 2000, 2), (1, 1500, 2), (1, 2500, 1)])
stream("stream-1", 1, 8, [(0, 1100, 3), (1, 1600, 3)])
EOP
printf 'subsystem net { event RX (u32 num), event TX (u32 num) };\nactivity pkt span { begin net:RX; end net:TX; key num; };\n' >"$_tmp/a.tdef"
expect_exit 1 "$TRAWL" events list --abs "$_tmp/tr"
awk '{print $1, $6}' "$_tmp/out" | tr '\n' ' ' >"$_tmp/got"
[ "$(cat "$_tmp/got")" = "1000 net:RX 1100 net:RX 1600 net:TX 2000 net:RX " ] || fail "events before the damage: $(cat "$_tmp/got")"
grep -q "stream-0:offset 96: time goes back" "$_tmp/err" || fail "damage not named: $(cat "$_tmp/err")"
# no activity is given a wrapped-around duration
"$TRAWL" events activities --abs "$_tmp/tr" --defs "$_tmp/a.tdef" >"$_tmp/act" 2>"$_tmp/act.err"
[ $? = 1 ] || fail "activities: exit status not 1"
awk 'NR > 1 && $9 > 1000000 {print "wrapped:", $0}' "$_tmp/act" | grep . && fail "a duration wrapped around"
grep -q "^pkt  span  3  1  1  8  1100  1600  500  0  closed" "$_tmp/act" || fail "activities: $(cat "$_tmp/act")"
"$TRAWL" events summary "$_tmp/tr" --defs "$_tmp/a.tdef" --json >"$_tmp/s.json" 2>/dev/null
[ $? = 1 ] || fail "summary: exit status not 1"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["activities"][0]; assert a["max_ns"] == 500 and a["count"] == 1, a' "$_tmp/s.json" ||
	fail "summary: $(cat "$_tmp/s.json")"
expect_exit 1 "$TRAWL" cat "$_tmp/tr"
expect_exit 1 "$TRAWL" events stats "$_tmp/tr"
# equal times are not going back
python3 - "$_tmp/tr" <<'EOP'
import struct, sys
p = sys.argv[1] + "/stream-0"
b = bytearray(open(p, "rb").read())
struct.pack_into("<Q", b, 96 + 4, 2000)
open(p, "wb").write(bytes(b))
EOP
expect_exit 0 "$TRAWL" events list "$_tmp/tr"
[ "$(wc -l <"$_tmp/out")" = 6 ] || fail "equal times: $(cat "$_tmp/out")"
finish
