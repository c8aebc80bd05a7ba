#!/usr/bin/env python3
"""Independent replay of the rec-demo activities (examples/rec-demo/
analysis.tdef) over `trawl events list --abs` text, compared with what
`trawl events activities --json` and `trawl events summary --json` say.

usage: events-replay.py LIST.txt ACTIVITIES.json SUMMARY.json
Exit 1 with a message on the first difference."""
import json
import math
import sys


def parse_list(path):
    evs = []
    for line in open(path):
        p = line.split()
        # TIME cpu N tid N NAME k=v...
        fields = dict(kv.split("=", 1) for kv in p[6:])
        evs.append((int(p[0]), int(p[2]), int(p[4]), p[5], {k: int(v) for k, v in fields.items()}))
    return evs


def replay(evs):
    out = []  # (activity, key, cpu, tid, begin, end, depth, open)
    stacks = {}  # (act, key) -> [(begin, cpu, tid, depth, lane)]
    lanes = {}  # thread or cpu lane -> open spans
    state = {}  # cpu -> (since, value, tid)
    spans = {
        "packet": (["net:RX"], ["net:TX", "net:DROP"], lambda e: e[2], "tid"),
        "lock_hold": (["lock:ACQUIRE"], ["lock:RELEASE"], lambda e: e[4]["waiter"], "tid"),
        "run": (["app:START"], ["app:STOP"], lambda e: e[1], "cpu"),
    }
    for e in evs:
        t, cpu, tid, name, f = e
        for act, (begins, ends, key, lane_kind) in spans.items():
            if name in ends:
                st = stacks.get((act, key(e)))
                if st:
                    b, bc, bt, d, lane = st.pop()
                    lanes[lane] -= 1
                    out.append((act, key(e), bc, bt, b, t, d, False))
            if name in begins:
                lane = (lane_kind, cpu if lane_kind == "cpu" else tid)
                d = lanes.get(lane, 0)
                lanes[lane] = d + 1
                stacks.setdefault((act, key(e)), []).append((t, cpu, tid, d, lane))
        if name in ("lock:ACQUIRE", "lock:RELEASE"):
            v = 0 if name == "lock:ACQUIRE" else 1
            if cpu in state:
                s, sv, st_tid = state[cpu]
                out.append(("phase", sv, cpu, st_tid, s, t, 0, False))
            state[cpu] = (t, v, tid)
    last = evs[-1][0]
    for (act, key), st in stacks.items():
        for b, bc, bt, d, lane in st:
            out.append((act, key, bc, bt, b, last, d, True))
    for cpu, (s, sv, st_tid) in state.items():
        out.append(("phase", sv, cpu, st_tid, s, last, 0, True))
    return out


def nearest_rank(vals, q):
    return vals[max(1, math.ceil(q * len(vals))) - 1]


def main():
    evs = parse_list(sys.argv[1])
    want = sorted(replay(evs))
    names = {"lock:ACQUIRE": 0, "lock:RELEASE": 1}
    got = []
    for a in json.load(open(sys.argv[2])):
        key = names[a["key"]] if a["activity"] == "phase" else int(a["key"])
        got.append((a["activity"], key, a["cpu"], a["tid"], a["begin_ns"], a["end_ns"], a["depth"], a["open"]))
    got.sort()
    if got != want:
        for w, g in zip(want, got):
            if w != g:
                sys.exit("activities differ: replay %s, trawl %s" % (w, g))
        sys.exit("activities differ in number: replay %d, trawl %d" % (len(want), len(got)))
    summ = json.load(open(sys.argv[3]))
    for a in summ["activities"]:
        durs = sorted(r[5] - r[4] for r in want if r[0] == a["name"] and not r[7])
        if not durs:  # e.g. 'run' (key cpu) when app:START and app:STOP ran on different cpus
            if a["count"] != 0:
                sys.exit("%s count: trawl %d, replay 0" % (a["name"], a["count"]))
            continue
        exact = {"count": len(durs), "total_ns": sum(durs), "min_ns": durs[0], "max_ns": durs[-1]}
        for k, v in exact.items():
            if a[k] != v:
                sys.exit("%s %s: trawl %d, replay %d" % (a["name"], k, a[k], v))
        for q, k in ((0.5, "p50_ns"), (0.9, "p90_ns"), (0.99, "p99_ns")):
            v = nearest_rank(durs, q)
            if abs(a[k] - v) > 0.01 * v:
                sys.exit("%s %s: trawl %d, replay %d (more than 1%% apart)" % (a["name"], k, a[k], v))
    print("replay agrees: %d activities" % len(want))


main()
