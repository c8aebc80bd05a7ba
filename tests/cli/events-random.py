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
import struct
import sys

META = """/* CTF 1.8 */
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
clock { name = trawl; freq = 1000000000; offset_s = 0; offset = 0; absolute = false; };
typealias integer { size = 64; align = 8; signed = false; map = clock.trawl.value; } := trawl_clock_t;
stream { id = 0;
	packet.context := struct { trawl_clock_t timestamp_begin; trawl_clock_t timestamp_end;
		uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;
		uint64_t events_discarded; uint32_t cpu_id; uint32_t thread_id; };
	event.header := struct { uint32_t id; trawl_clock_t timestamp; }; };
"""
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


def metadata():
    out = [META]
    for name, cid, fields in CLASSES:
        fs = " ".join("%s %s;" % (TYPES[t], f) for f, t in fields)
        out.append('event { name = "%s"; id = %d; stream_id = 0; fields := struct { %s }; };\n' % (name, cid, fs))
    return "".join(out)


def packet(cpu, tid, seq, evs):
    body = b"".join(evs)
    size = 64 + len(body)
    t0 = struct.unpack_from("<Q", evs[0], 4)[0]
    t1 = struct.unpack_from("<Q", evs[-1], 4)[0]
    head = struct.pack("<IIQQQQQQII", 0xC1FC1FC1, 0, t0, t1, size * 8, size * 8, seq, 0, cpu, tid)
    return head + body


def main():
    out, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    waiters = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    rnd = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    open(os.path.join(out, "metadata"), "w").write(metadata())
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
        th["evs"].append(struct.pack("<IQ", cid, t) + b"".join(struct.pack("<" + ty, v) for (f, ty), v in zip(fields, vals)))
    for i, th in enumerate(threads):
        if th["evs"]:
            th["packets"].append(packet(th["cpu"], th["tid"], len(th["packets"]), th["evs"]))
        open(os.path.join(out, "stream-%d" % i), "wb").write(b"".join(th["packets"]))


main()
