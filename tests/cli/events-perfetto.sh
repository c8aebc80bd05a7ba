#!/bin/sh
# trawl export --perfetto on software-event traces, read back with python's
# json: the hand-made dump's slices, flows and instants worked out by hand;
# on the rec-demo trace, every slice equals an activity of 'events
# activities' and slices on a thread's track nest.
. "$TRAWL_SRC/tests/cli-lib.sh"
d="$TRAWL_SRC/tests/data/rec"
ex="$TRAWL_SRC/examples/rec-demo"
expect_exit 0 "$TRAWL" events import-bf "$d/act-dump.txt" --defs "$d/act.tdef" -o "$_tmp/tr"
expect_exit 0 "$TRAWL" export --perfetto "$_tmp/tr" --defs "$d/act.tdef" -o "$_tmp/p.json"
python3 - "$_tmp/p.json" <<'EOP' || fail "perfetto file differs from the hand-computed one"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
inst = sorted(e["ts"] for e in ev if e["ph"] == "i")
# 15 events, us since the first (1000 ns)
assert inst == [0.0, 0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.32, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 1.0], inst
S = 262144  # state track of activity 3 (app): 65536 * 4 + cpu
want = sorted([
    # states: complete slices on one track per core
    ("X", 1, S + 1, "0", 0.0, 0.5), ("X", 1, S, "5", 0.0, 1.0),
    ("X", 1, S, "0", 1.0, 0.0), ("X", 1, S + 1, "9", 0.5, 0.5),
    # the message: a slice at each end, an arrow from cpu 1 to cpu 0; msg 4 never received
    ("X", 1, 1, "msg", 0.32, 0.001), ("X", 1, 0, "msg", 0.45, 0.001), ("X", 1, 1, "msg", 0.8, 0.001),
    ("s", 1, 1, "msg", 0.32, None), ("f", 1, 0, "msg", 0.45, None),
    # field- and cpu-keyed spans: async begin/end pairs
    ("b", 1, 0, "hold", 0.15, None), ("e", 1, 0, "hold", 0.25, None),
    ("b", 2, 0, "pkt", 0.1, None), ("e", 2, 0, "pkt", 0.4, None),
    ("b", 2, 0, "pkt", 0.2, None), ("e", 2, 0, "pkt", 0.3, None),
    ("b", 2, 0, "pkt", 0.7, None), ("e", 2, 0, "pkt", 1.0, None),
], key=str)
got = sorted([(e["ph"], e["pid"], e["tid"], e["name"], e["ts"], e.get("dur")) for e in ev if e["ph"] not in "iM"], key=str)
assert got == want, "\n".join(map(str, got))
# a begin and its end share an id; the flow's two ends share one
ids = {}
for e in ev:
    if e["ph"] in "besf":
        ids.setdefault(e["id"], []).append(e["ph"])
assert sorted(map(sorted, ids.values())) == sorted([["b", "e"]] * 4 + [["f", "s"]]), ids
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert names[(1, S)] == "cpu 0 app" and names[(1, 0)] == "cpu 0" and names[(2, 0)] == "thread 0", names
EOP
# filters apply: --cpu 1 keeps the 4 events of cpu 1 and what began there
"$TRAWL" export --perfetto "$_tmp/tr" --defs "$d/act.tdef" --cpu 1 2>/dev/null |
	python3 -c 'import json,sys; ev=json.load(sys.stdin)["traceEvents"]; assert sum(e["ph"]=="i" for e in ev)==4 and not [e for e in ev if e["ph"]=="b"], ev' ||
	fail "--cpu 1 export"

demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
if [ -x "$demo" ]; then
	"$demo" --threads 2 --packets 500 --out "$_tmp/rd" >/dev/null || fail "rec-demo failed"
	"$TRAWL" export --perfetto "$_tmp/rd" --defs "$ex/analysis.tdef" -o "$_tmp/rd.json" || fail "export rec-demo"
	"$TRAWL" events activities --json "$_tmp/rd" --defs "$ex/analysis.tdef" >"$_tmp/rd.act" || fail "activities rec-demo"
	python3 - "$_tmp/rd.json" "$_tmp/rd.act" <<'EOP' || fail "rec-demo perfetto slices differ from its activities"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
acts = json.load(open(sys.argv[2]))
t0 = min(a["begin_ns"] for a in acts)
# thread-keyed spans (packet) are complete slices on their thread's track
want = sorted((a["tid"], a["begin_ns"], a["end_ns"]) for a in acts if a["activity"] == "packet")
got = sorted((e["tid"], e["args"]["begin_ns"], e["args"]["end_ns"]) for e in ev if e["ph"] == "X" and e["name"] == "packet")
assert want == got, (len(want), len(got))
for e in ev:
    if e["ph"] == "X" and e["pid"] == 2:
        a = e["args"]
        assert abs(e["ts"] - (a["begin_ns"] - t0) / 1000) < 1e-6 and abs(e["dur"] - (a["end_ns"] - a["begin_ns"]) / 1000) < 1e-6, e
# slices on one thread's track nest (Perfetto needs it)
by = {}
for e in ev:
    if e["ph"] == "X" and e["pid"] == 2:
        by.setdefault(e["tid"], []).append((e["args"]["begin_ns"], e["args"]["end_ns"]))
for tid, sl in by.items():
    sl.sort(key=lambda x: (x[0], -x[1]))
    stack = []
    for b, en in sl:
        while stack and stack[-1] <= b:
            stack.pop()
        assert not stack or en <= stack[-1], (tid, b, en, stack[-1])
        stack.append(en)
n_inst = sum(e["ph"] == "i" for e in ev)
assert n_inst == 4002, n_inst
EOP
fi
finish
