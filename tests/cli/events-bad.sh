#!/bin/sh
# Damaged traces are read up to the damage, which is reported with the file
# and byte offset; exit status 1.
. "$TRAWL_SRC/tests/cli-lib.sh"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
TRAWL_REC_SUBBUF=64 "$demo" --threads 1 --packets 2000 --out "$_tmp/tr" >/dev/null || fail "rec-demo failed"
s=$(ls "$_tmp/tr" | grep '^stream-' | while read f; do echo "$(wc -c <"$_tmp/tr/$f") $f"; done | sort -n | tail -1 | cut -d' ' -f2)
"$TRAWL" events list --abs "$_tmp/tr" >"$_tmp/full"
full=$(wc -l <"$_tmp/full")
size=$(wc -c <"$_tmp/tr/$s")
cp "$_tmp/tr/$s" "$_tmp/whole"
# where the last packet begins (the preamble's packet_size, bits, at 32)
last=$(python3 - "$_tmp/whole" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off = last = 0
while off + 64 <= len(b):
    last = off
    off += struct.unpack_from('<Q', b, off + 32)[0] // 8
print(last)
PY
)
for back in 100 97; do
	# cut the biggest stream in the middle of its last packet: on an
	# event boundary or inside an event
	cut=$((size - back))
	head -c $cut "$_tmp/whole" >"$_tmp/tr/$s"
	"$TRAWL" events list --abs "$_tmp/tr" >"$_tmp/out" 2>"$_tmp/err"
	[ $? = 1 ] || fail "cut $back bytes early: exit status not 1"
	n=$(wc -l <"$_tmp/out")
	[ "$n" -gt 0 ] && [ "$n" -lt "$full" ] || fail "cut $back bytes early: $n of $full events listed"
	grep -q "$s:offset [0-9]*: truncated packet: the file ends [0-9]* bytes into the packet at offset $last" "$_tmp/err" ||
		fail "cut $back bytes early: damage not reported with offsets: $(cat "$_tmp/err")"
	# the damage is named where the reading stopped: inside the last packet, at or before the cut
	off=$(sed -n 's/.*:offset \([0-9]*\):.*/\1/p' "$_tmp/err")
	[ "$off" -gt "$last" ] && [ "$off" -le "$cut" ] || fail "cut $back bytes early: offset $off outside $last..$cut"
	# every event listed is one of the whole trace's, and the cut
	# packet's whole events are among them: more than without that packet
	sort "$_tmp/full" >"$_tmp/full.s"
	sort "$_tmp/out" | comm -23 - "$_tmp/full.s" | grep -q . && fail "cut $back bytes early: events not in the whole trace"
	head -c $last "$_tmp/whole" >"$_tmp/tr/$s"
	without=$("$TRAWL" events list "$_tmp/tr" 2>/dev/null | wc -l)
	[ "$n" -gt "$without" ] || fail "cut $back bytes early: the cut packet's events were dropped ($n listed, $without without it)"
done
head -c $((size - 100)) "$_tmp/whole" >"$_tmp/tr/$s"
"$TRAWL" events stats "$_tmp/tr" >/dev/null 2>&1
[ $? = 1 ] || fail "stats of a damaged trace: exit status not 1"
# garbage in place of a stream
head -c 100 /dev/urandom >"$_tmp/tr/$s"
"$TRAWL" events list "$_tmp/tr" >/dev/null 2>"$_tmp/err2"
grep -q "$s:offset 0: bad packet magic" "$_tmp/err2" || fail "garbage stream not reported: $(cat "$_tmp/err2")"
# broken metadata: line and column
printf '/* CTF 1.8 */\ntrace {\n\tmajor = 1;\n\tminor 8;\n};\n' >"$_tmp/tr/metadata"
expect_exit 1 "$TRAWL" events stats "$_tmp/tr"
expect_stderr_has "metadata:4:8: metadata: expected '='" "$TRAWL" events stats "$_tmp/tr"
printf 'not ctf\n' >"$_tmp/tr/metadata"
expect_stderr_has "does not start with '/* CTF 1.8'" "$TRAWL" events list "$_tmp/tr"
expect_exit 1 "$TRAWL" events list "$_tmp/nonexistent"
expect_exit 2 "$TRAWL" events frobnicate "$_tmp/tr"
# a plain file is not a trace directory, and the message says so
printf 'hello\n' >"$_tmp/plain"
expect_exit 1 "$TRAWL" events stats "$_tmp/plain"
expect_stderr_has "plain: not a CTF trace directory" "$TRAWL" events stats "$_tmp/plain"
finish
