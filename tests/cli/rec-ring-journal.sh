#!/bin/sh
# The journal of a buffer file (.ring-N) is checked against the
# sub-buffer headers: a journal entry that disagrees with them (or counts
# that cannot be) is damage, named with the file and byte offset, exit 1;
# stream-N is kept whole and `recover` keeps the file as .ring-N.damaged
# instead of deleting events it could not account for.
. "$TRAWL_SRC/tests/cli-lib.sh"
prog="$TRAWL_BUILD/rec-crash-prog"
[ -x "$prog" ] || skip "rec-crash-prog not built"
command -v python3 >/dev/null 2>&1 || skip "no python3"
# 3000 events, flushed after 1000, then SIGKILL: stream-0 holds part, the
# ring the rest, and the journal points into the middle of a sub-buffer
d="$_tmp/t"
# where the kill lands decides which journal entry holds: the cases below
# damage the committed one, so the trace is made again (up to 20 times)
# until the kill fell outside a commit (both generations equal, as in
# about 39 kills of 40); one that fell inside reads as well (the pending
# entry holds), but each case would need its own answer there
settled() {
	python3 - "$d/.ring-0" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
sys.exit(0 if struct.unpack_from('<Q', b, 128)[0] == struct.unpack_from('<Q', b, 192)[0] else 1)
PY
}
for try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	rm -rf "$d"
	TRAWL_REC_BUFFER=64k TRAWL_REC_FLUSH_MS=0 "$prog" "$d" 3000 kill 1000 >/dev/null 2>&1
	[ -f "$d/.ring-0" ] || skip "no buffer file left"
	settled && break
	[ "$try" = 20 ] && skip "every kill fell inside a journal commit"
done
cp -r "$d" "$_tmp/orig"
"$TRAWL" events list "$d" >"$_tmp/want" 2>/dev/null || fail "undamaged: list exit $?"
[ "$(wc -l <"$_tmp/want")" -gt 3000 ] || fail "undamaged: $(wc -l <"$_tmp/want") events"
flushed=$("$TRAWL" events list "$d" 2>&1 >/dev/null | sed -n 's/.*: \([0-9]*\) events read from.*/\1/p')
flushed=$(($(wc -l <"$_tmp/want") - flushed))

# poke OFF OP VALUE: the u64 at OFF of .ring-0 becomes old OP VALUE
poke() {
	python3 - "$d/.ring-0" "$1" "$2" "$3" <<'PY'
import struct, sys
p, off, op, v = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
b = bytearray(open(p, 'rb').read())
o = struct.unpack_from('<Q', b, off)[0]
struct.pack_into('<Q', b, off, o + v if op == '+' else o - v if op == '-' else v)
open(p, 'wb').write(b)
PY
}

# case NAME OFF OP VALUE AT: the u64 at OFF damaged, offset AT named (a
# position or count that disagrees with a sub-buffer header is named at
# the entry's consumed: which of them is wrong cannot be told)
case_() {
	name=$1 at=$5
	rm -rf "$d"; cp -r "$_tmp/orig" "$d"
	poke "$2" "$3" "$4"
	expect_exit 1 "$TRAWL" events list "$d"
	expect_stderr_has ".ring-0:offset $at: ring journal" "$TRAWL" events list "$d"
	expect_exit 1 "$TRAWL" events stats "$d"
	expect_exit 1 "$TRAWL" events recover "$d"
	[ -f "$d/.ring-0.damaged" ] || fail "$name: recover did not keep the buffer file"
	# what stream-0 had is kept
	n=$("$TRAWL" events list "$d" 2>/dev/null | wc -l)
	[ "$n" -ge "$flushed" ] || fail "$name: $n events after recover, stream-0 had $flushed"
}
# committed entry at 128, pending at 192, each: gen, consumed, coff,
# expected, gaps, packet_seq, reported, file_size
case_ "consumed + 1" 136 + 1 136
case_ "consumed - 1" 136 - 1 136
case_ "consumed far ahead" 136 + 1000000 136
case_ "coff + 16" 144 + 16 136
case_ "coff off a record" 144 + 8 144
case_ "expected + 1" 152 + 1 136
case_ "expected - 1" 152 - 1 136
case_ "gaps beyond expected" 160 = 99999999 160
case_ "reported beyond losses" 176 + 5 176
case_ "pending gen ahead" 192 + 5 192
case_ "committed gen ahead" 128 + 1 192

# sub-buffers made smaller in the header (sub_size, a u32 at 16, halved):
# the file is longer than its header makes it, which the recorder never
# leaves (it sizes the file to data_off + nsub * sub_size)
rm -rf "$d"; cp -r "$_tmp/orig" "$d"
python3 - "$d/.ring-0" <<'PY' || fail "cannot damage sub_size"
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
struct.pack_into('<I', b, 16, struct.unpack_from('<I', b, 16)[0] // 2)
open(p, 'wb').write(b)
PY
expect_exit 1 "$TRAWL" events list "$d"
expect_stderr_has ".ring-0:offset 12: ring file longer than its header's sub-buffers (count, size) make it" "$TRAWL" events list "$d"
expect_exit 1 "$TRAWL" events recover "$d"
[ -f "$d/.ring-0.damaged" ] || fail "sub_size halved: recover did not keep the buffer file"

# undamaged, it still reads whole and recovers (the file then goes)
rm -rf "$d"; cp -r "$_tmp/orig" "$d"
"$TRAWL" events list "$d" 2>/dev/null | cmp -s - "$_tmp/want" || fail "undamaged: events differ"
expect_exit 0 "$TRAWL" events recover "$d"
ls -a "$d" | grep -q '^\.ring-' && fail "undamaged: recover left the buffer file"
finish
