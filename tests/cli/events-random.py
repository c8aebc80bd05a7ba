#!/usr/bin/env python3
"""Write a random CTF trace in the layout trawl's recorder writes (the
rec-demo program's event classes) for events-random.sh: S streams, one
thread each, whose packets move between cpus; packets, lock holds (keyed
by a waiter field that crosses threads), nesting, ends with no begin and
begins never ended, so the activity engine's paths all run and
events-replay.py can check them.

usage: events-random.py OUTDIR SEED EVENTS [WAITERS]
(WAITERS: how many distinct waiter values, 4 unless given; many make the
engine's table of field keys fill with emptied entries and sweep them)"""
import os
import random
import sys

import ctf_trace

# name, id, fields (struct format of each)
CLASSES = [
    ("net:RX", 0, [("len", "I")]),
    ("net:TX", 1, [("len", "I"), ("port", "H"), ("latency_ns", "q")]),
    ("net:DROP", 2, [("arg", "I")]),
    ("lock:ACQUIRE", 65536, [("waiter", "I")]),
    ("lock:RELEASE", 65537, [("waiter", "I")]),
    ("app:START", 131072, [("threads", "I")]),
    ("app:STOP", 131073, [("packets", "I")]),
]
TYPES = {"I": "uint32_t", "H": "uint16_t", "q": "int64_t"}


def packet(cpu, tid, seq, evs):
    return ctf_trace.packet_of(evs, cpu, tid, seq)


def main():
    out, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    waiters = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    rnd = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    ctf_trace.write_metadata(out, [(name, cid, [(f, TYPES[t]) for f, t in fields]) for name, cid, fields in CLASSES])
    nthreads, ncpus = rnd.randint(1, 5), rnd.randint(2, 4)
    # per thread: its cpu, the events of its open packet
    threads = [{"tid": 100 + i, "cpu": rnd.randrange(ncpus), "evs": [], "packets": []} for i in range(nthreads)]
    weights = [6, 4, 1, 5, 5, 1, 1]
    held = []
    t = 1000
    for _ in range(n):
        th = rnd.choice(threads)
        if th["evs"] and rnd.random() < 0.1:  # migrate: the packet ends, the next is on another cpu
            th["packets"].append(packet(th["cpu"], th["tid"], len(th["packets"]), th["evs"]))
            th["evs"] = []
            th["cpu"] = rnd.randrange(ncpus)
        t += rnd.randint(1, 50)
        name, cid, fields = rnd.choices(CLASSES, weights)[0]
        vals = []
        for f, ty in fields:
            v = rnd.randrange(waiters) if f == "waiter" else rnd.randint(-5000, 5000) if ty == "q" else rnd.randrange(2000)
            if f == "waiter" and waiters > 4:  # mostly a held waiter is released: many keys open and close
                if name == "lock:ACQUIRE":
                    held.append(v)
                elif held and rnd.random() < 0.8:
                    v = held.pop(rnd.randrange(len(held)))
            vals.append(v)
        th["evs"].append(ctf_trace.event(cid, t, "<" + "".join(ty for f, ty in fields), *vals))
    for i, th in enumerate(threads):
        if th["evs"]:
            th["packets"].append(packet(th["cpu"], th["tid"], len(th["packets"]), th["evs"]))
        open(os.path.join(out, "stream-%d" % i), "wb").write(b"".join(th["packets"]))


main()
