#!/bin/sh
# What a CTF trace's packet headers promise is checked, as babeltrace2
# checks it; each of these was read silently with exit status 0:
# - an event outside its packet's timestamp_begin .. timestamp_end, or a
#   packet whose begin is after its end: damage there (a flipped high bit
#   in one event's time gave a time span of 281475 s);
# - packet_seq_num jumping (1 then 3): a packet lost, said, read on;
# - events_discarded going down (it is cumulative): damage;
# - a stream id the metadata does not declare: damage;
# - a FIFO in the trace directory hung the read; a directory or a device
#   named stream-N failed the whole trace naming the metadata.
# Damage keeps the events before it and the other streams, names the file
# and byte offset, and gives exit status 1. Events are 16 bytes (id, time,
# u32 num) after a 64-byte packet header.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"

# mk CASE DIR: a trace of net:RX (id 0) and net:TX (id 1) for the case
mk() {
	python3 - "$TRAWL_SRC/tests/cli" "$1" "$2" <<'EOP' || fail "cannot write trace $1"
import os, struct, sys
sys.path.insert(0, sys.argv[1])
import ctf_trace
case, out = sys.argv[2], sys.argv[3]
ctf_trace.write_metadata(out, [("net:RX", 0, [("num", "uint32_t")]), ("net:TX", 1, [("num", "uint32_t")])])
def evs(ts, cid=0):
    return [ctf_trace.event(cid, t, "<I", t % 100000 // 100) for t in ts]
def pk(ts, t0=None, t1=None, seq=0, disc=0, cpu=0, tid=7, sid=0):
    e = evs(ts)
    b = bytearray(ctf_trace.packet(b"".join(e), ts[0] if t0 is None else t0, ts[-1] if t1 is None else t1,
                                   cpu, tid, seq, disc))
    struct.pack_into("<I", b, 4, sid)
    return bytes(b)
def put(name, *pks):
    open(os.path.join(out, name), "wb").write(b"".join(pks))
other = pk([1500], tid=8)
if case == "after-end":
    # the third event (byte 64 + 2 * 16 = 96) is after the packet's end
    put("stream-0", pk([1000, 2000, 3000], t1=2500))
    put("stream-1", pk([1500, 3500], tid=8))
elif case == "flip":
    # one stream only, so the reader's run loop meets it: event 5 (byte
    # 64 + 5 * 16 = 144) has bit 48 flipped
    ts = [1000 + 100 * i for i in range(10)]
    ts[5] |= 1 << 48
    put("stream-0", pk(ts, t1=1900))
elif case == "before-begin":
    put("stream-0", pk([1000, 2000], t0=1200))
    put("stream-1", other)
elif case == "begin-after-end":
    # the second packet's header (byte 96) runs from 3000 back to 2500
    put("stream-0", pk([1000, 2000]), pk([3000], t0=3000, t1=2500, seq=1))
    put("stream-1", other)
elif case == "seq-gap":
    # packet 2 is missing: the one at byte 2 * 96 = 192 is packet 3
    put("stream-0", pk([1000, 1100]), pk([2000, 2100], seq=1), pk([3000, 3100], seq=3))
    put("stream-1", other)
elif case == "seq-ok":
    # a stream may start past 0 (the recorder's file after a broken
    # connection to trawl listen), and start again at 0 (a second
    # recording appended to the file): neither is a loss; lost counts
    # each recording's events_discarded
    put("stream-0", pk([1000], seq=5), pk([2000], seq=6, disc=2), pk([3000], seq=0), pk([4000], seq=1, disc=1))
    put("stream-1", other)
elif case == "disc-down":
    # the second packet (byte 96) says fewer events were discarded
    put("stream-0", pk([1000, 1100], disc=5), pk([2000, 2100], seq=1, disc=3))
    put("stream-1", other)
elif case == "sid":
    put("stream-0", pk([1000, 1100]), pk([2000, 2100], seq=1, sid=1))
    put("stream-1", other)
elif case == "entries":
    put("stream-0", pk([1000, 2000]))
    put("stream-1", other)
EOP
}

# list CASE: `events list --abs` of the case's trace, "TIME NAME " each
list() {
	expect_exit "$2" "$TRAWL" events list --abs "$_tmp/$1"
	awk '{printf "%s %s ", $1, $6}' "$_tmp/out" >"$_tmp/got"
}

# check CASE STATUS "EVENTS" MESSAGE: the listing, the exit status and the
# message (grep -F) of events list, and the exit status of stats and cat
check() {
	mk "$1" "$_tmp/$1"
	list "$1" "$2"
	[ "$(cat "$_tmp/got")" = "$3" ] || fail "$1: listed $(cat "$_tmp/got"), expected $3"
	[ -z "$4" ] || grep -qF -- "$4" "$_tmp/err" || fail "$1: message $(cat "$_tmp/err"), expected $4"
	[ -n "$4" ] || [ ! -s "$_tmp/err" ] || fail "$1: message $(cat "$_tmp/err")"
	expect_exit "$2" "$TRAWL" events stats "$_tmp/$1"
	cp "$_tmp/out" "$_tmp/$1.stats"
	expect_exit "$2" "$TRAWL" cat "$_tmp/$1"
}

check after-end 1 "1000 net:RX 1500 net:RX 2000 net:RX 3500 net:RX " \
	"after-end/stream-0:offset 96: event time 3000 is after its packet's timestamp_end 2500"
check flip 1 "1000 net:RX 1100 net:RX 1200 net:RX 1300 net:RX 1400 net:RX " \
	"flip/stream-0:offset 144: event time 281474976712156 is after its packet's timestamp_end 1900"
grep -q "^time span: 0.000000400 s (1000 .. 1400 ns)" "$_tmp/flip.stats" || fail "flip: stats $(cat "$_tmp/flip.stats")"
check before-begin 1 "1500 net:RX " \
	"before-begin/stream-0:offset 64: event time 1000 is before its packet's timestamp_begin 1200"
check begin-after-end 1 "1000 net:RX 1500 net:RX 2000 net:RX " \
	"begin-after-end/stream-0:offset 96: packet timestamp_begin 3000 is after its timestamp_end 2500"
# nothing read is dropped for a missing packet
check seq-gap 1 "1000 net:RX 1100 net:RX 1500 net:RX 2000 net:RX 2100 net:RX 3000 net:RX 3100 net:RX " \
	"seq-gap/stream-0:offset 192: packet_seq_num jumps from 1 to 3: 1 packet(s) missing"
check seq-ok 0 "1000 net:RX 1500 net:RX 2000 net:RX 3000 net:RX 4000 net:RX " ""
grep -q "^lost: 3$" "$_tmp/seq-ok.stats" || fail "seq-ok: stats $(cat "$_tmp/seq-ok.stats")"
check disc-down 1 "1000 net:RX 1100 net:RX 1500 net:RX " \
	"disc-down/stream-0:offset 96: events_discarded goes down from 5 to 3"
grep -q "^lost: 5$" "$_tmp/disc-down.stats" || fail "disc-down: stats $(cat "$_tmp/disc-down.stats")"
check sid 1 "1000 net:RX 1100 net:RX 1500 net:RX " \
	"sid/stream-0:offset 96: packet of stream id 1, which the metadata does not declare"

# entries that are no regular files: never opened blocking (a FIFO waited
# for a writer forever), named, the regular streams read; a symlink to a
# stream file is one
command -v timeout >/dev/null || skip "timeout not installed"
d="$_tmp/entries"
mk entries "$d"
cp "$d/stream-1" "$_tmp/real-1" && rm "$d/stream-1" && ln -s "$_tmp/real-1" "$d/stream-1"
mkfifo "$d/stream-5" || fail "mkfifo"
expect_exit 1 timeout 10 "$TRAWL" events list --abs "$d"
[ "$(awk '{printf "%s ", $1}' "$_tmp/out")" = "1000 1500 2000 " ] || fail "fifo: listed $(cat "$_tmp/out")"
grep -qF "entries/stream-5: a FIFO, not a stream file: not read" "$_tmp/err" || fail "fifo: $(cat "$_tmp/err")"
expect_exit 1 timeout 10 "$TRAWL" cat "$d"
grep -qF "entries/stream-5: a FIFO" "$_tmp/err" || fail "fifo, cat: $(cat "$_tmp/err")"
mkdir "$d/stream-6"
ln -s /dev/zero "$d/stream-7"
expect_exit 1 timeout 10 "$TRAWL" events stats "$d"
grep -q "^events: 3$" "$_tmp/out" || fail "entries: stats $(cat "$_tmp/out")"
grep -qF "entries/stream-5: a FIFO, not a stream file: not read; nor stream-6 (a directory), stream-7 (a character device)" \
	"$_tmp/err" || fail "entries: $(cat "$_tmp/err")"
rm "$d/stream-5"
expect_exit 1 timeout 10 "$TRAWL" events list "$d"
[ "$(wc -l <"$_tmp/out")" = 3 ] || fail "dir: listed $(cat "$_tmp/out")"
grep -qF "entries/stream-6: a directory, not a stream file: not read; nor stream-7 (a character device)" "$_tmp/err" ||
	fail "dir: $(cat "$_tmp/err")"
rmdir "$d/stream-6"
rm "$d/stream-7"
ln -s "$_tmp/nothing" "$d/stream-8"
expect_exit 1 "$TRAWL" events list "$d"
[ "$(wc -l <"$_tmp/out")" = 3 ] || fail "dangling: listed $(cat "$_tmp/out")"
grep -qF "entries/stream-8: a symlink to nothing, not a stream file: not read" "$_tmp/err" || fail "dangling: $(cat "$_tmp/err")"
rm "$d/stream-8"
expect_exit 0 "$TRAWL" events list "$d"
[ "$(wc -l <"$_tmp/out")" = 3 ] || fail "symlink: listed $(cat "$_tmp/out")"
# a FIFO named as a crash buffer: not waited on either, named, left there
mkfifo "$d/.ring-3" || fail "mkfifo"
expect_exit 1 timeout 10 "$TRAWL" events list "$d"
[ "$(wc -l <"$_tmp/out")" = 3 ] || fail "ring fifo: listed $(cat "$_tmp/out")"
grep -qF "entries/.ring-3:offset 0: not a regular file, so not a buffer file: not read" "$_tmp/err" ||
	fail "ring fifo: $(cat "$_tmp/err")"
expect_exit 1 timeout 10 "$TRAWL" events recover "$d"
[ -p "$d/.ring-3" ] || fail "ring fifo: recover removed it"
rm "$d/.ring-3"
# the metadata as a FIFO: refused, not waited on
rm "$d/metadata" && mkfifo "$d/metadata"
expect_exit 1 timeout 10 "$TRAWL" events list "$d"
grep -qF "not a regular file" "$_tmp/err" || fail "metadata fifo: $(cat "$_tmp/err")"
finish
