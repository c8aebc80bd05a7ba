#!/bin/sh
# events summary --time: the per-core time in each state is the part of
# each state inside the window, and its fractions are of the window (as
# much of it as the trace covers). It was each overlapping state's whole
# time as a fraction of the whole trace: cpu 0 of the dump below, busy for
# the whole of 1200..1500, showed fractions 0.4 and 0.2 (0.2 busy for
# a window it spent 2/3 of in app 1). Worked out by hand:
#   cpu 0: app 1 1000..1400, app 0 (idle) 1400..1600, app 2 1600..2000
#   cpu 1: app 3 1000..2000
#   --time 200ns..500ns = 1200..1500 (300 ns): cpu 0 app 1 200 ns (0.6667),
#   app 0 100 ns (0.3333), busy 200 ns; cpu 1 app 3 300 ns (1.0);
#   app 2 does not meet the window. The states' durations stay whole:
#   three finished (400, 200, 1000 ns), as activities lists them.
. "$TRAWL_SRC/tests/cli-lib.sh"
cat >"$_tmp/s.tdef" <<'EOD'
subsystem sched { event SWITCH (u32 app) };
activity app state { set sched:SWITCH; value app; idle 0; };
EOD
printf '0 1000 0000000000000001\n1 1000 0000000000000003\n0 1400 0000000000000000\n0 1600 0000000000000002\n0 2000 0000000000000000\n1 2000 0000000000000000\n' >"$_tmp/d.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/s.tdef" -o "$_tmp/tr"
"$TRAWL" events summary "$_tmp/tr" --defs "$_tmp/s.tdef" --time 200ns..500ns --json >"$_tmp/s.json" || fail "summary failed"
python3 - "$_tmp/s.json" <<'EOP' || fail "summary --time differs from the hand-computed figures: $(cat "$_tmp/s.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["span_ns"] == 1000 and s["window_ns"] == 300, s
st = {(x["cpu"], x["state"]): x for x in s["states"]}
assert set(st) == {(0, "0"), (0, "1"), (1, "3")}, st
assert st[(0, "1")]["ns"] == 200 and abs(st[(0, "1")]["fraction"] - 2 / 3) < 1e-6, st
assert st[(0, "0")]["ns"] == 100 and abs(st[(0, "0")]["fraction"] - 1 / 3) < 1e-6, st
assert abs(st[(0, "1")]["busy_fraction"] - 2 / 3) < 1e-6, st
assert st[(1, "3")]["ns"] == 300 and st[(1, "3")]["fraction"] == 1.0 and st[(1, "3")]["busy_fraction"] == 1.0, st
a = s["activities"][0]
assert (a["count"], a["total_ns"], a["min_ns"], a["max_ns"]) == (3, 1600, 200, 1000), a
EOP
"$TRAWL" events summary "$_tmp/tr" --defs "$_tmp/s.tdef" --time 200ns..500ns >"$_tmp/s.txt" || fail "text summary failed"
grep -q "per core (fractions of the 300 ns of --time 200ns..500ns)" "$_tmp/s.txt" || fail "text header: $(cat "$_tmp/s.txt")"
grep -Eq '^app +0 1 +200 +0.6667$' "$_tmp/s.txt" || fail "text row of cpu 0 app 1: $(cat "$_tmp/s.txt")"
# a window reaching past the trace counts only what the trace covers:
# 800ns.. = 1800..2000, cpu 0 app 2 200 ns of 200, cpu 1 app 3 200 ns
"$TRAWL" events summary "$_tmp/tr" --defs "$_tmp/s.tdef" --time 800ns.. --csv >"$_tmp/s.csv" || fail "csv summary failed"
grep -qx "app,0,2,200,1.000000,0" "$_tmp/s.csv" || fail "csv, open-ended window: $(cat "$_tmp/s.csv")"
grep -qx "app,1,3,200,1.000000,0" "$_tmp/s.csv" || fail "csv, open-ended window: $(cat "$_tmp/s.csv")"
# without --time: the whole trace, as before
"$TRAWL" events summary "$_tmp/tr" --defs "$_tmp/s.tdef" --csv >"$_tmp/w.csv" || fail "csv summary failed"
grep -qx "app,0,1,400,0.400000,0" "$_tmp/w.csv" || fail "csv without --time: $(cat "$_tmp/w.csv")"
finish
