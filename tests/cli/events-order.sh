#!/bin/sh
# `trawl events activities` lists activities in the order they begin, ties
# by cpu then kind (span, state, message), through a reorder buffer bounded
# by --max-open (docs/analysis.md). Every order below is worked out by hand.
. "$TRAWL_SRC/tests/cli-lib.sh"
d="$TRAWL_SRC/tests/data/rec"
A="$d/act.tdef"
expect_exit 0 "$TRAWL" events import-bf "$d/act-dump.txt" --defs "$A" -o "$_tmp/tr"
# begins: app cpu 0 and cpu 1 at 1000 (cpu 0 first), pkt 7 1100, hold 1150,
# pkt 8 1200, msg 3 1320, app 9 1500, pkt 5 1700, msg 4 1800, app 0 2000
cat >"$_tmp/want" <<'EOW'
app 5 1000
app 0 1000
pkt 7 1100
hold 0 1150
pkt 8 1200
msg 3 1320
app 9 1500
pkt 5 1700
msg 4 1800
app 0 2000
EOW
"$TRAWL" events activities "$_tmp/tr" --defs "$A" --abs 2>"$_tmp/err" | awk 'NR > 1 { print $1, $3, $7 }' >"$_tmp/got"
diff -u "$_tmp/want" "$_tmp/got" || fail "activities not in the order they begin"
grep -q "out of begin order" "$_tmp/err" && fail "out of order reported within the bound"
# --json: the same order
"$TRAWL" events activities "$_tmp/tr" --defs "$A" --json 2>/dev/null |
	python3 -c 'import json,sys; print("\n".join("%s %s %d" % (a["activity"], a["key"], a["begin_ns"]) for a in json.load(sys.stdin)))' \
	>"$_tmp/got" || fail "activities --json"
diff -u "$_tmp/want" "$_tmp/got" || fail "--json activities not in the order they begin"
# --limit takes the first by begin
"$TRAWL" events activities "$_tmp/tr" --defs "$A" --abs --limit 3 2>/dev/null | awk 'NR > 1 { print $1, $3, $7 }' >"$_tmp/got"
head -3 "$_tmp/want" | diff -u - "$_tmp/got" || fail "--limit 3"

# the bound: with --max-open 3 at most 3 ended records are held. By hand:
# after hold (1250), pkt 8 (1300), pkt 7 (1400) are held, msg 3 ends at
# 1450 (4 held: pkt 7 goes though the states of 1000 are still open); app
# cpu 1 ends at 1500 (app cpu 1 goes: late), app cpu 0 at 2000 (it goes:
# late); then nothing open begins before 1500, so hold, pkt 8 and msg 3 go;
# the end of the trace releases the rest in order.
cat >"$_tmp/want3" <<'EOW'
pkt 7 1100
app 0 1000
app 5 1000
hold 0 1150
pkt 8 1200
msg 3 1320
app 9 1500
pkt 5 1700
msg 4 1800
app 0 2000
EOW
"$TRAWL" events activities "$_tmp/tr" --defs "$A" --abs --max-open 3 2>"$_tmp/err" | awk 'NR > 1 { print $1, $3, $7 }' >"$_tmp/got"
diff -u "$_tmp/want3" "$_tmp/got" || fail "the order at the bound"
grep -q "2 activities listed out of begin order: more than 3 ended while an earlier one was still open" "$_tmp/err" ||
	fail "late activities not reported"

# ties: at 100 on cpu 0 a state, a message and a span begin (in that event
# order), on cpu 1 a span; they come out span, state, message on cpu 0,
# then cpu 1, then the last state (300, open at the end)
cat >"$_tmp/tie.txt" <<'EOT'
0 100 0003000000000003
0 100 0002000000000001
0 100 0001000000000001
1 100 0001000000000001
1 150 0002000100000001
0 200 0001000100000001
1 250 0001000100000001
0 300 0003000000000000
EOT
expect_exit 0 "$TRAWL" events import-bf "$_tmp/tie.txt" --defs "$A" -o "$_tmp/tie"
cat >"$_tmp/want" <<'EOW'
hold span 0 0 100 200
app state 3 0 100 300
msg message 1 0 100 150
hold span 1 1 100 250
app state 0 0 300 300
EOW
"$TRAWL" events activities "$_tmp/tie" --defs "$A" --abs 2>/dev/null | awk 'NR > 1 { print $1, $2, $3, $4, $7, $8 }' >"$_tmp/got"
diff -u "$_tmp/want" "$_tmp/got" || fail "ties not by cpu then kind"
finish
