#!/bin/sh
# Damaged traces are read up to the damage, which is reported with the file
# and byte offset; exit status 1.
. "$TRAWL_SRC/tests/cli-lib.sh"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
TRAWL_REC_SUBBUF=64 "$demo" --threads 1 --packets 2000 --out "$_tmp/tr" >/dev/null || fail "rec-demo failed"
s=$(ls "$_tmp/tr" | grep '^stream-' | while read f; do echo "$(wc -c <"$_tmp/tr/$f") $f"; done | sort -n | tail -1 | cut -d' ' -f2)
full=$("$TRAWL" events list "$_tmp/tr" | wc -l)
size=$(wc -c <"$_tmp/tr/$s")
# cut the biggest stream in the middle of a packet
cut=$((size - 100))
head -c $cut "$_tmp/tr/$s" >"$_tmp/cut" && mv "$_tmp/cut" "$_tmp/tr/$s"
"$TRAWL" events list "$_tmp/tr" >"$_tmp/out" 2>"$_tmp/err"
[ $? = 1 ] || fail "damaged trace: exit status not 1"
n=$(wc -l <"$_tmp/out")
[ "$n" -gt 0 ] && [ "$n" -lt "$full" ] || fail "damaged trace: $n of $full events listed"
grep -q "$s:offset [0-9]*: truncated packet" "$_tmp/err" || fail "damage not reported with offset: $(cat "$_tmp/err")"
# the offset is where the last (cut) packet begins: at or before the cut
off=$(sed -n 's/.*:offset \([0-9]*\):.*/\1/p' "$_tmp/err")
[ "$off" -lt "$cut" ] || fail "offset $off beyond the cut $cut"
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
