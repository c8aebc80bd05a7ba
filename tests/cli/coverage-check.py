#!/usr/bin/env python3
"""Checks for tests/cli/coverage.sh. Prints what disagrees; exit 1 if any.

  coverage-check.py gcov GCOV_TEXT LCOV SOURCE_NAME
      every line gcov counts as executed is hit in the lcov file, and no
      line gcov says never ran is (lines gcov leaves out go either way)
  coverage-check.py drcov DRCOV LCOV ELF ADDR2LINE NM
      the lines of every instruction in the drcov blocks (addr2line) plus
      the declaration lines of the functions whose entry a block holds are
      exactly the lines the lcov file reports hit
"""
import os
import re
import struct
import subprocess
import sys

def lcov(path):
    hit, seen, fn = set(), set(), {}
    sf = None
    for line in open(path):
        line = line.strip()
        if line.startswith('SF:'):
            sf = os.path.basename(line[3:])
        elif line.startswith('DA:'):
            no, count = line[3:].split(',')[:2]
            seen.add((sf, int(no)))
            if int(count) > 0:
                hit.add((sf, int(no)))
        elif line.startswith('FN:'):
            no, name = line[3:].split(',', 1)
            fn[name] = (sf, int(no))
    return hit, seen, fn

def check_gcov(gcov_text, lcov_path, source):
    hit, _, _ = lcov(lcov_path)
    bad = 0
    ran = never = 0
    for line in open(gcov_text):
        m = re.match(r'\s*([^:]+):\s*(\d+):', line)
        if not m or m.group(2) == '0':
            continue
        count, no = m.group(1).strip(), int(m.group(2))
        key = (source, no)
        if count == '-':
            continue
        if count == '#####' or count == '=====':
            never += 1
            if key in hit:
                print('line %d: gcov says never executed, trawl says hit' % no)
                bad += 1
        else:
            ran += 1
            if key not in hit:
                print('line %d: gcov says executed (%s), trawl does not' % (no, count))
                bad += 1
    if ran == 0 or never == 0:
        print('gcov output has %d executed and %d never-executed lines: not a test' % (ran, never))
        bad += 1
    return bad

def drcov_blocks(path):
    data = open(path, 'rb').read()
    head, _, rest = data.partition(b'BB Table: ')
    count_text, _, blob = rest.partition(b'\n')
    n = int(count_text.split()[0])
    lines = head.decode().splitlines()
    assert lines[0] == 'DRCOV VERSION: 2', lines[0]
    mods = [l for l in lines if re.match(r'\s*\d+, 0x', l)]
    bases = [int(m.split(',')[1], 16) for m in mods]
    assert len(blob) == 8 * n, 'BB table holds %d bytes for %d blocks' % (len(blob), n)
    out = []
    for i in range(n):
        start, size, mod = struct.unpack_from('<IHH', blob, 8 * i)
        out.append((bases[mod] + start, size))
    return out

def check_drcov(drcov, lcov_path, elf, addr2line, nm):
    hit, _, fn = lcov(lcov_path)
    blocks = drcov_blocks(drcov)
    addrs = sorted({a + k for a, size in blocks for k in range(0, size, 4)})
    out = subprocess.run([addr2line, '-e', elf], input='\n'.join('%x' % a for a in addrs),
                         capture_output=True, text=True, check=True).stdout.split('\n')
    got = set()
    for text in out:
        m = re.match(r'(.*):(\d+)', text)
        if m and m.group(1) != '??' and m.group(2) != '0':
            got.add((os.path.basename(m.group(1)), int(m.group(2))))
    syms = {}
    for line in subprocess.run([nm, elf], capture_output=True, text=True, check=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'tT':
            syms[f[2]] = int(f[0], 16)
    addr_set = set(addrs)
    for name, where in fn.items():
        if syms.get(name) in addr_set:
            got.add(where)
    bad = 0
    for key in sorted(got - hit):
        print('%s:%d: in a drcov block, not hit in lcov' % key)
        bad += 1
    for key in sorted(hit - got):
        print('%s:%d: hit in lcov, in no drcov block' % key)
        bad += 1
    if not hit:
        print('lcov reports no line hit: not a test')
        bad += 1
    return bad

if sys.argv[1] == 'gcov':
    sys.exit(1 if check_gcov(*sys.argv[2:5]) else 0)
sys.exit(1 if check_drcov(*sys.argv[2:7]) else 0)
