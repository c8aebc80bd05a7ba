#!/usr/bin/env python3
"""Compare `trawl ete decode` output on a perf.data with the recording
tool's own AutoFDO text profile (simpleperf inject output).

usage: perf-inject-oracle.py INFO.json DECODE.txt INJECT.txt

INFO.json is `trawl info --json` on the recording (for the mappings that
turn run-time addresses into addresses in the binary), DECODE.txt the
tab-separated `trawl ete decode`. The profile lists, per binary, ranges
"start-end:count" (end = address of the last instruction) and taken
branches "from->to:count" (to = 0 when simpleperf did not know where it
went). Ranges must agree exactly; so must every branch with a known
target, and the set of branch sources."""
import json
import sys


def load_profile(path):
    lines = [l.strip() for l in open(path) if l.strip()]
    i = 0
    nr = int(lines[i]); i += 1
    ranges = {}
    for _ in range(nr):
        rng, cnt = lines[i].rsplit(':', 1); i += 1
        a, b = rng.split('-')
        ranges[(int(a, 16), int(b, 16))] = int(cnt)
    i += 1  # address count section (simpleperf writes 0)
    nb = int(lines[i]); i += 1
    branches = {}
    for _ in range(nb):
        br, cnt = lines[i].rsplit(':', 1); i += 1
        a, b = br.split('->')
        branches[(int(a, 16), int(b, 16))] = int(cnt)
    names = [l for l in lines[i:] if l.startswith('//') and 'build_id' not in l]
    return ranges, branches, names[0][2:].strip() if names else ''


def main():
    info = json.load(open(sys.argv[1]))
    want_r, want_b, binary = load_profile(sys.argv[3])
    maps = [m for m in info['mmaps'] if m['file'] == binary]
    if not maps:
        print('FAIL: %s has no mapping of %s' % (sys.argv[1], binary))
        return 1

    def rel(addr):
        for m in maps:
            if m['start'] <= addr < m['start'] + m['len']:
                return addr - m['start'] + m['pgoff']
        return None

    got_r, got_b = {}, {}
    prev = None  # last range of the current trace-on segment: (id, last insn, taken)
    for line in open(sys.argv[2]):
        f = line.rstrip('\n').split('\t')
        if len(f) < 3:
            continue
        if f[2] != 'INSTR_RANGE':
            if f[2] in ('TRACE_ON', 'NO_SYNC', 'EO_TRACE', 'OVERFLOW', 'DISCARD'):
                if prev and prev[2]:
                    got_b[(prev[1], 0)] = got_b.get((prev[1], 0), 0) + 1
                prev = None
            continue
        start, end, n = int(f[3], 16), int(f[4], 16), int(f[5])
        last = end - 4 if f[6] == 'A64' else None
        s, e = rel(start), rel(last) if last is not None else None
        if s is None or e is None:
            continue
        got_r[(s, e)] = got_r.get((s, e), 0) + 1
        if prev and prev[2]:
            key = (prev[1], s)
            got_b[key] = got_b.get(key, 0) + 1
        prev = (f[1], e, f[7] == 'E')
    bad = 0
    if got_r != want_r:
        bad += 1
        for k in sorted(set(got_r) | set(want_r)):
            if got_r.get(k) != want_r.get(k):
                print('FAIL: range %x-%x: trawl %s, profile %s' % (k[0], k[1], got_r.get(k), want_r.get(k)))
    known = {k: v for k, v in want_b.items() if k[1] != 0}
    for k, v in known.items():
        if got_b.get(k) != v:
            bad += 1
            print('FAIL: branch %x->%x: trawl %s, profile %d' % (k[0], k[1], got_b.get(k), v))
    if {k[0] for k in got_b} != {k[0] for k in want_b}:
        bad += 1
        print('FAIL: branch sources differ: trawl %s, profile %s' % (
            sorted('%x' % k[0] for k in got_b), sorted('%x' % k[0] for k in want_b)))
    print('%d ranges (%d executions), %d branches compared' % (
        len(want_r), sum(want_r.values()), len(known)))
    return 1 if bad else 0


sys.exit(main())
