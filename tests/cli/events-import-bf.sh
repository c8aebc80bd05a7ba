#!/bin/sh
# Barrelfish dumps: hand-made dump and definitions, expected listing worked
# out by hand (core 1 timestamps move by its offset 25; raw word
# subsys<<48 | event<<32 | arg; 0xea is not defined, so it gets a made-up name).
. "$TRAWL_SRC/tests/cli-lib.sh"
d="$TRAWL_SRC/tests/data/rec"
"$TRAWL" defs "$d/bf.tdef" -o "$_tmp/defs" || fail "defs failed"
expect_exit 0 "$TRAWL" events import-bf "$d/bf-dump.txt" --defs "$_tmp/defs/bf.json" -o "$_tmp/tr"
"$TRAWL" events list --abs "$_tmp/tr" >"$_tmp/out" || fail "list of the imported trace failed"
# the listing worked out by hand (tests/data/rec/bf-dump.list)
cp "$d/bf-dump.list" "$_tmp/want"
diff -u "$_tmp/want" "$_tmp/out" || fail "imported events differ"
# ticks of a 1 kHz clock: times become ms
"$TRAWL" events import-bf "$d/bf-dump.txt" --defs "$d/bf.tdef" --freq 1000 -o "$_tmp/tr2" || fail "import with .tdef failed"
"$TRAWL" events list --abs "$_tmp/tr2" | head -1 | grep -q "^ *1000000000  cpu 0 .*kernel:CSWITCH" || fail "--freq not applied"
if command -v babeltrace2 >/dev/null 2>&1; then
	[ "$(babeltrace2 "$_tmp/tr" 2>/dev/null | wc -l)" = 5 ] || fail "babeltrace2 does not read the imported trace"
fi
# bad dump: line and column
printf '0 1000 0000000000000005\n1 12x0 00\n' >"$_tmp/bad.txt"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/bad.txt" -o "$_tmp/tr3"
expect_stderr_has "bad.txt:2:5: expected the raw event word" "$TRAWL" events import-bf "$_tmp/bad.txt" -o "$_tmp/tr3"
expect_exit 2 "$TRAWL" events import-bf "$d/bf-dump.txt"
# into a folder that already holds a trace: refused, nothing mixed in (the
# old trace's streams stayed and showed up among the new events)
expect_exit 1 "$TRAWL" events import-bf "$d/bf-dump.txt" --defs "$_tmp/defs/bf.json" -o "$_tmp/tr"
expect_stderr_has "exists and is not an empty folder" "$TRAWL" events import-bf "$d/bf-dump.txt" -o "$_tmp/tr"
mkdir "$_tmp/empty"
expect_exit 0 "$TRAWL" events import-bf "$d/bf-dump.txt" --defs "$_tmp/defs/bf.json" -o "$_tmp/empty"
# a core offset that would wrap a timestamp past 2^64 is an error at its line
printf '# core 0 offset 10\n0 5 0000000000000005\n0 18446744073709551615 0000000000000005\n' >"$_tmp/wrap.txt"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/wrap.txt" -o "$_tmp/tr4"
expect_stderr_has "wrap.txt:3:" "$TRAWL" events import-bf "$_tmp/wrap.txt" -o "$_tmp/tr5"
# ... and so is one that would put it before time 0: it was moved to 0,
# out of its order, with exit 0
printf '# core 1 offset -2000\n0 500 0000000000000005\n1 3000 0000000000000006\n1 1000 0000000000000007\n' >"$_tmp/under.txt"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/under.txt" -o "$_tmp/tr5u"
expect_stderr_has "under.txt:4:3: the timestamp plus the core's offset is below 0" "$TRAWL" events import-bf "$_tmp/under.txt" -o "$_tmp/tr5v"
expect_exit 1 "$TRAWL" cat "$_tmp/under.txt"
# JSON definitions refuse what .tdef refuses: keywords and duplicate fields
# (both were written into the trace's metadata)
printf '{"subsystems":[{"name":"s","id":0,"events":[{"name":"e","id":0,"fields":[{"name":"int","type":"u32"}]}]}]}' >"$_tmp/kw.json"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/wrap.txt" --defs "$_tmp/kw.json" -o "$_tmp/tr6"
expect_stderr_has "keyword" "$TRAWL" events import-bf "$_tmp/wrap.txt" --defs "$_tmp/kw.json" -o "$_tmp/tr6"
printf '{"subsystems":[{"name":"s","id":0,"events":[{"name":"e","id":0,"fields":[{"name":"a","type":"u32"},{"name":"a","type":"u32"}]}]}]}' >"$_tmp/dupf.json"
expect_stderr_has "duplicate field name" "$TRAWL" events import-bf "$_tmp/wrap.txt" --defs "$_tmp/dupf.json" -o "$_tmp/tr7"
finish
