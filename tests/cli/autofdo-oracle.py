#!/usr/bin/env python3
"""Independent AutoFDO counts from Tarmac text, for tests/cli/autofdo.sh.

Reads the Tarmac lines itself (not through trawl): instruction lines
(IT/IS), exception lines (E) end the core's range. Prints the profile
layout trawl autofdo writes without images (absolute addresses):
ranges, 0 sampled addresses, branches. usage: autofdo-oracle.py TRACE
"""
import re
import sys
from collections import Counter

INSN = re.compile(r'^\S+(?: \S+)? (?:cpu(\d+) )?I[TS] \(\d+\) (?:\S+:)?([0-9a-fA-F_]+)(?::\S+)? ([0-9a-fA-F_]+) ([AOTX])\b')
EXC = re.compile(r'^\S+(?: \S+)? (?:cpu(\d+) )?E ')

def main():
    ranges, branches = Counter(), Counter()
    open_ = {}  # cpu -> [begin, last, width]
    for line in open(sys.argv[1], errors='replace'):
        m = INSN.match(line)
        if m:
            cpu = int(m.group(1) or 0)
            pc = int(m.group(2).replace('_', ''), 16)
            width = len(m.group(3).replace('_', '')) // 2
            cur = open_.get(cpu)
            if cur and pc == cur[1] + cur[2]:
                cur[1], cur[2] = pc, width
                continue
            if cur:
                ranges[(cur[0], cur[1])] += 1
                branches[(cur[1], pc)] += 1
            open_[cpu] = [pc, pc, width]
            continue
        m = EXC.match(line)
        if m:
            cur = open_.pop(int(m.group(1) or 0), None)
            if cur:
                ranges[(cur[0], cur[1])] += 1
    for cur in open_.values():
        ranges[(cur[0], cur[1])] += 1
    print(len(ranges))
    for (a, b), n in sorted(ranges.items()):
        print('%x-%x:%d' % (a, b, n))
    print(0)
    print(len(branches))
    for (a, b), n in sorted(branches.items()):
        print('%x->%x:%d' % (a, b, n))

main()
