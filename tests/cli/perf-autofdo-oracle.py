#!/usr/bin/env python3
"""Compare `trawl autofdo` on a perf.data with the recording tool's own
AutoFDO text profile (simpleperf inject output).

usage: perf-autofdo-oracle.py TRAWL.txt INJECT.txt SHIFT ELF

SHIFT is added to trawl's addresses (0 when both are relative to the
binary's first load segment, docs/autofdo.md). simpleperf splits a run at
every not-taken branch (its ranges are ETM's waypoint ranges) and trawl
only at taken ones, so ranges are compared as the count of every
instruction they cover. Branches with a known target must agree exactly.
A branch simpleperf wrote with target 0 (it did not say where it went)
must be absent from trawl's (the trace ended or was off there) or, when
trawl names a target, be a RET (read from ELF) whose target follows a BL
or BLR: a return to its caller. Anything else is a fake transition (a
join across a gap in the trace)."""
import struct
import sys


def load(path, shift=0):
    lines = [l.strip() for l in open(path) if l.strip() and not l.startswith('//')]
    i = 0
    nr = int(lines[i]); i += 1
    insns = {}
    for _ in range(nr):
        rng, cnt = lines[i].rsplit(':', 1); i += 1
        a, b = (int(x, 16) + shift for x in rng.split('-'))
        for pc in range(a, b + 4, 4):  # A64: 4-byte instructions
            insns[pc] = insns.get(pc, 0) + int(cnt)
    i += 1 + int(lines[i])  # address count section
    nb = int(lines[i]); i += 1
    branches = {}
    for _ in range(nb):
        br, cnt = lines[i].rsplit(':', 1); i += 1
        a, b = (int(x, 16) for x in br.split('->'))
        branches[(a + shift, b + shift if b else 0)] = int(cnt)
    return insns, branches


def insn_at(elf, vaddr):
    """The A64 instruction word at link address vaddr, from the PT_LOAD
    segment that holds it (ELF64 little-endian), or None."""
    phoff, = struct.unpack_from('<Q', elf, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', elf, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            '<IIQQQQ', elf, phoff + i * phentsize)
        if p_type == 1 and p_vaddr <= vaddr and vaddr + 4 <= p_vaddr + p_filesz:
            return struct.unpack_from('<I', elf, p_offset + vaddr - p_vaddr)[0]
    return None


def is_ret(w):
    return w is not None and w & 0xfffffc1f == 0xd65f0000


def is_call(w):
    # BL imm26, or BLR Xn
    return w is not None and (w & 0xfc000000 == 0x94000000 or w & 0xfffffc1f == 0xd63f0000)


def main():
    shift = int(sys.argv[3], 0)
    elf = open(sys.argv[4], 'rb').read()
    got_i, got_b = load(sys.argv[1], shift)
    want_i, want_b = load(sys.argv[2])
    bad = 0
    for pc in sorted(set(got_i) | set(want_i)):
        if got_i.get(pc) != want_i.get(pc):
            bad += 1
            print('FAIL: insn %x: trawl %s, profile %s' % (pc, got_i.get(pc), want_i.get(pc)))
    unknown = {a for a, b in want_b if b == 0}
    for k, v in want_b.items():
        if k[1] and got_b.get(k) != v:
            bad += 1
            print('FAIL: branch %x->%x: trawl %s, profile %d' % (k[0], k[1], got_b.get(k), v))
    for k, v in got_b.items():
        if k in want_b:
            continue
        if k[0] in unknown and is_ret(insn_at(elf, k[0])) and is_call(insn_at(elf, k[1] - 4)):
            continue
        bad += 1
        why = ('simpleperf does not know its target and it is no return to a caller'
               if k[0] in unknown else 'not in the profile')
        print('FAIL: branch %x->%x: trawl %d, %s' % (k[0], k[1], v, why))
    print('%d instructions (%d executions), %d branches compared' % (
        len(want_i), sum(want_i.values()), len(want_b)))
    return 1 if bad else 0


sys.exit(main())
