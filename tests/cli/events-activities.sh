#!/bin/sh
# Activities, filters and statistics (docs/analysis.md): a hand-made
# Barrelfish dump (tests/data/rec/act-dump.txt) whose activities are worked
# out by hand below, and the rec-demo program's trace against an
# independent replay over `trawl events list` (events-replay.py).
. "$TRAWL_SRC/tests/cli-lib.sh"
d="$TRAWL_SRC/tests/data/rec"
ex="$TRAWL_SRC/examples/rec-demo"
A="$d/act.tdef"

# old files compile byte for byte as before when activities are added
cat "$ex/demo.tdef" "$ex/analysis.tdef" >"$_tmp/demo.tdef"
expect_exit 0 "$TRAWL" defs "$_tmp/demo.tdef" -o "$_tmp/g"
for f in h json ctf; do
	cmp -s "$ex/demo.$f" "$_tmp/g/demo.$f" || fail "demo.$f changes when activities are declared"
done

expect_exit 0 "$TRAWL" events import-bf "$d/act-dump.txt" --defs "$A" -o "$_tmp/tr"
T="$_tmp/tr"
# By hand (times in ns, bf events have thread 0): pkt 8 nests in pkt 7 on
# thread 0 (depth 1); TX 99 at 1600 has no begin; RX 5 and SEND 4 are open
# at the end (2000); the state of cpu 1 is 0 (idle) until 1500, then 9.
cat >"$_tmp/want" <<'EOW'
app  state  0  0  0  0  2000  2000  0  0  open
app  state  0  1  1  0  1000  1500  500  0  closed
app  state  5  0  0  0  1000  2000  1000  0  closed
app  state  9  1  1  0  1500  2000  500  0  open
hold  span  0  0  0  0  1150  1250  100  0  closed
msg  message  3  1  0  0  1320  1450  130  0  closed
msg  message  4  1  1  0  1800  2000  200  0  open
pkt  span  5  0  0  0  1700  2000  300  0  open
pkt  span  7  0  0  0  1100  1400  300  0  closed
pkt  span  8  0  0  0  1200  1300  100  1  closed
EOW
"$TRAWL" events activities "$T" --defs "$A" --abs 2>"$_tmp/err" | tail -n +2 | sort >"$_tmp/got" ||
	fail "activities failed"
diff -u "$_tmp/want" "$_tmp/got" || fail "activities differ from the hand-computed ones"
grep -q "activity 'pkt': 1 still open at the end" "$_tmp/err" || fail "open at end not reported"
grep -q "activity 'pkt': 1 ends with no begin (the first at 1600 ns)" "$_tmp/err" || fail "unmatched end not reported"
grep -q "activity 'msg': 1 still open" "$_tmp/err" || fail "open message not reported"

# summary: pkt closed 100 and 300; app closed 500 (cpu 1, idle) and 1000
# (cpu 0, app 5); the trace spans 1000 ns: cpu 0 busy 1.0, cpu 1 0.5
"$TRAWL" events summary "$T" --defs "$A" --json >"$_tmp/s.json" 2>/dev/null || fail "summary failed"
python3 - "$_tmp/s.json" <<'EOP' || fail "summary differs from the hand-computed figures"
import json, sys
s = json.load(open(sys.argv[1]))
a = {x["name"]: x for x in s["activities"]}
def near(got, want):
    assert abs(got - want) <= 0.01 * want, (got, want)
assert (s["events_read"], s["events_kept"], s["span_ns"]) == (15, 15, 1000), s
p = a["pkt"]
assert (p["count"], p["total_ns"], p["min_ns"], p["mean_ns"], p["max_ns"]) == (2, 400, 100, 200, 300), p
assert (p["open"], p["unmatched"], p["overflow"]) == (1, 1, 0), p
near(p["p50_ns"], 100); near(p["p90_ns"], 300); near(p["p99_ns"], 300)
assert [(h["low_ns"], h["count"]) for h in p["histogram"]] == [(64, 1), (256, 1)], p["histogram"]
assert (a["hold"]["count"], a["hold"]["total_ns"]) == (1, 100)
m = a["msg"]
assert (m["count"], m["total_ns"], m["open"]) == (1, 130, 1), m
ap = a["app"]
assert (ap["count"], ap["total_ns"], ap["min_ns"], ap["max_ns"], ap["open"]) == (2, 1500, 500, 1000, 2), ap
near(ap["p50_ns"], 500)
st = {(x["cpu"], x["state"]): x for x in s["states"]}
assert st[(0, "5")]["ns"] == 1000 and st[(0, "5")]["fraction"] == 1.0
assert st[(0, "0")]["ns"] == 0 and st[(0, "0")]["idle"]
assert st[(1, "0")]["ns"] == 500 and st[(1, "0")]["idle"] and st[(1, "9")]["ns"] == 500
assert st[(0, "5")]["busy_fraction"] == 1.0 and st[(1, "9")]["busy_fraction"] == 0.5
assert sum(s["rate"]) == 15
EOP
"$TRAWL" events summary "$T" --defs "$A" --csv 2>/dev/null | grep -qx "pkt,span,2,400,100,200,100,300,300,300,1,1,0" ||
	fail "csv row of pkt"

# filters on activities: --cpu 1 keeps what began on cpu 1
"$TRAWL" events activities "$T" --defs "$A" --abs --cpu 1 2>/dev/null | tail -n +2 | sort >"$_tmp/got"
grep -E '  1  [01]  0  ' "$_tmp/want" >"$_tmp/want1"
diff -u "$_tmp/want1" "$_tmp/got" || fail "--cpu 1 activities"
# --time 0.25us..0.31us (250..310 ns after 1000) meets pkt 7 and 8, hold, the
# two first states and msg 3 (1320 > 1310: no)
"$TRAWL" events activities "$T" --defs "$A" --time 250ns..310ns 2>/dev/null | tail -n +2 | awk '{print $1, $3}' |
	sort | tr '\n' ' ' >"$_tmp/got"
[ "$(cat "$_tmp/got")" = "app 0 app 5 hold 0 pkt 7 pkt 8 " ] || fail "--time on activities: $(cat "$_tmp/got")"
# --event on activities: those whose begin event matches
[ "$("$TRAWL" events activities "$T" --defs "$A" --event 'ipc:*' 2>/dev/null | tail -n +2 | wc -l)" = 2 ] ||
	fail "--event ipc:* activities"
# summary with a filter counts only what passes
"$TRAWL" events summary "$T" --defs "$A" --json --subsys net 2>/dev/null |
	python3 -c 'import json,sys; s=json.load(sys.stdin); a={x["name"]:x for x in s["activities"]}; assert s["events_kept"]==6 and a["pkt"]["count"]==2 and a["hold"]["count"]==0, s' ||
	fail "summary --subsys net"

# filters on events, same options for list and stats
"$TRAWL" events list "$T" --abs --where 'num == 7 || seq > 3' >"$_tmp/l"
[ "$(awk '{print $1}' "$_tmp/l" | tr '\n' ' ')" = "1100 1400 1800 " ] || fail "--where: $(cat "$_tmp/l")"
[ "$("$TRAWL" events list "$T" --cpu 1 | wc -l)" = 4 ] || fail "--cpu 1 list"
[ "$("$TRAWL" events list "$T" --event 'net:*,sched:SWITCH' | wc -l)" = 10 ] || fail "--event list"
[ "$("$TRAWL" events list "$T" --time 0.5us.. | wc -l)" = 5 ] || fail "--time 0.5us.. list"
[ "$("$TRAWL" events list "$T" --time ..100ns --thread 0 | wc -l)" = 3 ] || fail "--time ..100ns list"
[ "$("$TRAWL" events list "$T" --where 'time >= 500 && cpu == 0 && (num & 1) == 1' | wc -l)" = 2 ] ||
	fail "--where on time and bits"
"$TRAWL" events stats "$T" --subsys lock | grep -q "^events: 2$" || fail "stats --subsys"
expect_exit 2 "$TRAWL" events list "$T" --where 'nme > 3'
expect_stderr_has "--where, column 1: no field or name 'nme'" "$TRAWL" events list "$T" --where 'nme > 3'
expect_stderr_has "--where, column 6: expression ends too soon" "$TRAWL" events list "$T" --where 'num >'
expect_stderr_has "--event: the trace has no 'nt:*'" "$TRAWL" events list "$T" --event 'nt:*'
expect_stderr_has "--cpu: a range ends before it begins" "$TRAWL" events list "$T" --cpu 3-1
expect_stderr_has "--time: expected a time such as" "$TRAWL" events list "$T" --time 1parsec..

# messages match first in, first out per key (two sends of seq 5 before
# either receive: 100..300 and 200..400, not 100..400 and 200..300)
printf '1 100 0002000000000005\n1 200 0002000000000005\n0 300 0002000100000005\n0 400 0002000100000005\n' >"$_tmp/fifo.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/fifo.txt" --defs "$A" -o "$_tmp/fifo"
[ "$("$TRAWL" events activities "$_tmp/fifo" --defs "$A" --abs | tail -n +2 | awk '{print $7 ".." $8}' | tr '\n' ' ')" = \
  "100..300 200..400 " ] || fail "messages are not first in, first out"

# bounded open activities: past --max-open, counted and reported, exit 1
expect_exit 1 "$TRAWL" events activities "$T" --defs "$A" --max-open 1
expect_stderr_has "activity 'pkt': 1 not kept: more than 1 activities were open (--max-open)" \
	"$TRAWL" events activities "$T" --defs "$A" --max-open 1

# definitions with errors: file, line, column, what was expected
printf 'subsystem n { event A (u32 v) };\nactivity x span { begin n:A; end n:B; };\n' >"$_tmp/e1.tdef"
expect_stderr_has "e1.tdef:2:34: activity 'x': no event 'n:B' is defined" "$TRAWL" defs "$_tmp/e1.tdef" --check
printf 'activity x span {\n  begin n:A; ending n:A; };\n' >"$_tmp/e2.tdef"
expect_stderr_has "e2.tdef:2:14: expected a clause of a span (begin, end, key) or '}'" "$TRAWL" defs "$_tmp/e2.tdef" --check
printf 'activity x state { set n:A; idle 3; };\n' >"$_tmp/e3.tdef"
expect_stderr_has "e3.tdef:1:1: activity 'x': 'idle NUMBER' needs 'value FIELD'" "$TRAWL" defs "$_tmp/e3.tdef" --check
# an activities-only file is checked against the trace: the event it lacks
printf '\nactivity y span { begin net:RX; end net:GONE; key num; };\n' >"$_tmp/e4.tdef"
expect_exit 2 "$TRAWL" events summary "$T" --defs "$_tmp/e4.tdef"
expect_stderr_has "e4.tdef:2:37: activity 'y': the trace has no event 'net:GONE'" "$TRAWL" events summary "$T" --defs "$_tmp/e4.tdef"
printf 'activity y span { begin net:RX; end net:TX; key port; };\n' >"$_tmp/e5.tdef"
expect_stderr_has "e5.tdef:1:37: activity 'y': the trace's event 'net:TX' has no field 'port'" "$TRAWL" events summary "$T" --defs "$_tmp/e5.tdef"
expect_exit 2 "$TRAWL" events activities "$T"

# the rec-demo program against an independent replay
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
if [ -x "$demo" ]; then
	"$demo" --threads 3 --packets 2000 --out "$_tmp/rd" >/dev/null || fail "rec-demo failed"
	"$TRAWL" events list --abs "$_tmp/rd" >"$_tmp/rd.list" || fail "list rec-demo"
	"$TRAWL" events activities --json "$_tmp/rd" --defs "$ex/analysis.tdef" >"$_tmp/rd.act" || fail "activities rec-demo"
	"$TRAWL" events summary --json "$_tmp/rd" --defs "$ex/analysis.tdef" >"$_tmp/rd.sum" || fail "summary rec-demo"
	python3 "$TRAWL_SRC/tests/cli/events-replay.py" "$_tmp/rd.list" "$_tmp/rd.act" "$_tmp/rd.sum" >/dev/null ||
		fail "rec-demo activities differ from the replay"
	# --where against the same condition applied by the replay's reader
	"$TRAWL" events list --abs "$_tmp/rd" --where 'len > 1000 && port == 8001' >"$_tmp/w1"
	awk '/net:TX/ { split($7, a, "="); split($8, b, "="); if (a[2] > 1000 && b[2] == 8001) print }' \
		"$_tmp/rd.list" >"$_tmp/w2"
	[ -s "$_tmp/w1" ] || fail "--where kept nothing on rec-demo"
	cmp -s "$_tmp/w1" "$_tmp/w2" || fail "--where on rec-demo differs from awk"
fi
# stream files of 8 MiB and more are mapped and read in windows (memory
# stays flat): the same events as babeltrace2 counts
if [ -x "$demo" ] && command -v babeltrace2 >/dev/null 2>&1; then
	TRAWL_REC_BUFFER=64M "$demo" --threads 1 --packets 700000 --out "$_tmp/big" >/dev/null || fail "rec-demo big failed"
	sz=$(wc -c <"$_tmp/big/stream-1")
	[ "$sz" -gt 8388608 ] || fail "the big stream is only $sz bytes"
	n=$("$TRAWL" events stats "$_tmp/big" | sed -n 's/^events: //p')
	bt=$(babeltrace2 -c sink.utils.counter "$_tmp/big" | sed -n 's/^ *\([0-9]*\) Event messages$/\1/p' | tail -1)
	[ -n "$n" ] && [ "$n" = "$bt" ] || fail "mapped stream: trawl counts $n events, babeltrace2 $bt"
	lost=$("$TRAWL" events stats "$_tmp/big" | sed -n 's/^lost: //p')
	[ "$lost" = 0 ] && "$TRAWL" events summary "$_tmp/big" --defs "$ex/analysis.tdef" --json 2>/dev/null |
		python3 -c 'import json,sys; a={x["name"]:x for x in json.load(sys.stdin)["activities"]}; assert a["packet"]["count"]+a["packet"]["open"]==700000, a["packet"]' ||
		[ "$lost" != 0 ] || fail "mapped stream: packets"
fi
# a chain: one event ends a span and begins the next (begin X; end X), by
# hand: cpu 0 ticks at 1000 1300 1600, cpu 1 at 1100 1700; three spans
# closed, one open per cpu at the end (1700), and no end without a begin
# (the first tick of each cpu ends nothing, it only begins)
cat >"$_tmp/chain.tdef" <<'EOD'
subsystem sched { event TICK (u32 n) };
activity tick span { begin sched:TICK; end sched:TICK; key cpu; };
EOD
printf '# ticks\n0 1000 0000000000000001\n1 1100 0000000000000001\n0 1300 0000000000000002\n0 1600 0000000000000003\n1 1700 0000000000000002\n' >"$_tmp/chain.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/chain.txt" --defs "$_tmp/chain.tdef" -o "$_tmp/chain"
cat >"$_tmp/want" <<'EOW'
tick  span  0  0  0  0  1000  1300  300  0  closed
tick  span  0  0  0  0  1300  1600  300  0  closed
tick  span  0  0  0  0  1600  1700  100  0  open
tick  span  1  1  1  0  1100  1700  600  0  closed
tick  span  1  1  1  0  1700  1700  0  0  open
EOW
"$TRAWL" events activities "$_tmp/chain" --defs "$_tmp/chain.tdef" --abs 2>"$_tmp/err" | tail -n +2 | sort >"$_tmp/got" ||
	fail "activities of a chain failed"
diff -u "$_tmp/want" "$_tmp/got" || fail "chain activities differ from the hand-computed ones"
grep -q "no begin" "$_tmp/err" && fail "the first event of a chain is called an end with no begin: $(cat "$_tmp/err")"
grep -q "activity 'tick': 2 still open at the end" "$_tmp/err" || fail "chain: open at end not reported: $(cat "$_tmp/err")"
finish
