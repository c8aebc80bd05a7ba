#!/usr/bin/env python3
"""Write a small perf.data holding CoreSight trace, from the documented
layouts (Linux tools/perf/Documentation/perf.data-file-format.txt,
include/uapi/linux/perf_event.h, tools/perf/util/cs-etm.h), for tests.

usage: perf-mkdata.py OUT TRACE PROG_PATH [options]
  TRACE      trace bytes (unformatted ETE/ETMv4 packets) put in each CPU's AUX data
  PROG_PATH  the file name the MMAP2 record gives for the program at 0x1000
options:
  --cpus N          CPUs traced (default 1), each with the same trace
  --trace1 FILE     CPU 1's trace bytes are FILE's instead of TRACE
  --unit ete|etmv4  trace unit (default ete)
  --version V       cs_etm header version 0-2 (default 2: trace IDs by
                    AUX_OUTPUT_HW_ID, 0x20 + 2*cpu; else TRCTRACEIDR 0x10 + 2*cpu)
  --formatted       wrap each CPU's trace in CoreSight 16-byte frames
  --cut-frame N     drop the last N bytes of each CPU's formatted data (it
                    ends inside a frame)
  --aux-flags F     extra AUX record flags (number)
  --split K         each CPU's AUX data in AUXTRACE chunks of K bytes (one AUX
                    record each), back to back
  --gap G           each CPU's trace twice, G bytes of AUX data apart: the AUX
                    record of those G bytes has no AUXTRACE record
  --drop-auxtrace C CPU C-1's AUX record has no AUXTRACE record
  --snapshot R      snapshot mode (perf record -S) with an AUX ring of R bytes:
                    two snapshots per CPU, of the ring after 3 copies of the
                    trace and after 2 more (both wrapped), AUX records with the
                    overwrite flag; the cs_etm header says snapshot mode
  --kernel-text A   the kernel MMAP ([kernel.kallsyms]_text) starts at A, with
                    pgoff A, as perf writes the run-time _text (default: start
                    0xffff800008000000, pgoff 0)
  --unknown         add a record of unknown type 200
  --cut N           drop the last N bytes of the file
  --bad-size        make one record's size field 4 (impossible)
  --pipe            pipe mode (perf record -o -): a 16-byte header, then the
                    attribute as HEADER_ATTR, features as HEADER_FEATURE
                    records (hostname, arch), the build id as HEADER_BUILD_ID
                    at the end
  --simpleperf      simpleperf's layout: the id section before the attributes,
                    ETE blocks of 8 parameters (no TS_SOURCE), the COMM and
                    MMAP2 in its init_map feature (134) instead of the data
                    section, its meta_info (129) and file2 (132) features
  --regs INI        the ETE registers of a snapshot's ETE_n.ini (TRCCONFIGR,
                    TRCIDR0/1/2/8, TRCDEVARCH) instead of the defaults
  --map ADDR=FILE   an MMAP2 of FILE (all of it) at ADDR instead of PROG_PATH
                    at 0x1000; repeatable (a snapshot's dumps, for bench/)
  --compress        perf record -z: every record but AUXTRACE in COMPRESSED
                    records (the records cut every 50 bytes, so they straddle
                    pieces; a zstd frame each), with the HEADER_COMPRESSED feature
"""
import os
import struct
import subprocess
import sys

S_TID, S_TIME, S_CPU, S_IDENT = 0x2, 0x4, 0x80, 0x10000
SAMPLE_TYPE = S_TID | S_TIME | S_CPU | S_IDENT
ETE_DEFAULT = dict(configr=0x1, idr0=0x28000ea1, idr1=0x4100fff0, idr2=0x488, idr8=0,
                   devarch=0x47705a13)


def rec(rtype, body, misc=0):
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def trailer(pid, cpu, time=0):
    # sample_id_all trailer for TID|TIME|CPU|IDENTIFIER, in that order
    return struct.pack('<IIQIIQ', pid, pid, time, cpu, 0, 1)


def cstr(s, align=8):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % align)


def frames(chunks):
    """CoreSight frame formatter: each frame starts with an ID change
    (applies from the next byte), then 14 data bytes; the LSBs of data in
    even positions go in byte 15. Short frames are padded with ID 0."""
    out = b''
    for tid, data in chunks:
        for i in range(0, len(data), 14):
            part = list(data[i:i + 14])
            f = [0] * 16
            f[0] = (tid << 1) | 1
            flags = 0
            pos = 1
            for d in part:
                if pos % 2 == 0:
                    f[pos] = d & 0xfe
                    flags |= (d & 1) << (pos // 2)
                else:
                    f[pos] = d
                pos += 1
            if pos < 15 and pos % 2:
                # odd positions always hold data: move the last byte there and
                # put the switch to ID 0 before it, flagged "next byte is old ID"
                f[pos] = part[-1]
                f[pos - 1] = 1
                flags |= 1 << ((pos - 1) // 2)
            elif pos < 15:
                f[pos] = 1  # switch to ID 0: the zeros after are its (dropped) data
            f[15] = flags
            out += bytes(f)
    return out


def pieces(payload, opt, cpu):
    """A CPU's AUX data as (AUX offset, AUXTRACE bytes or None, AUX records
    [(offset, size, flags)]), in file order."""
    n = len(payload)
    if opt.get('split'):
        k = opt['split']
        return [(i, payload[i:i + k], [(i, len(payload[i:i + k]), 0)]) for i in range(0, n, k)]
    if opt.get('gap'):
        g = opt['gap']
        return [(0, payload, [(0, n, 0)]), (n, None, [(n, g, 0)]),
                (n + g, payload, [(n + g, n, 0)])]
    if opt.get('snapshot'):
        # the ring (R bytes) after 3 copies, then after 2 more: each
        # snapshot holds its last R bytes, oldest first, as perf writes them
        r, ow = opt['snapshot'], 0x2
        s1, s2 = payload * 3, payload * 5
        return [(len(s1) - r, s1[-r:], [(len(s1) % r, r, ow)]),
                (len(s2) - r, s2[-r:], [(len(s2) % r, r, ow)])]
    if opt.get('drop-auxtrace') == cpu + 1:
        return [(0, None, [(0, n, 0)])]
    return [(0, payload, [(0, n, 0)])]


def ini_regs(path):
    """ETE_DEFAULT's registers as a snapshot's ETE_n.ini gives them."""
    names = dict(TRCCONFIGR='configr', TRCIDR0='idr0', TRCIDR1='idr1', TRCIDR2='idr2',
                 TRCIDR8='idr8', TRCDEVARCH='devarch')
    v = dict(ETE_DEFAULT)
    for line in open(path):
        k, _, x = line.strip().partition('=')
        if k in names:
            v[names[k]] = int(x, 0)
    return v


def etm_info(version, cpus, unit, snapshot=0, simpleperf=False, regs=None):
    priv = [version, (8 << 32) | cpus, 1 if snapshot else 0]
    for c in range(cpus):
        tid = 0x10 + 2 * c
        v = regs or ETE_DEFAULT
        if unit == 'ete':
            params = [v['configr'], tid, v['idr0'], v['idr1'], v['idr2'], v['idr8'], 0x8c,
                      v['devarch'], 1]
            magic = 0x5050505050505050
            if simpleperf:  # its ETEInfo ends at TRCDEVARCH
                params = params[:8]
        else:  # ETMv4.? with the same ID registers, no TRCDEVARCH, no TS_SOURCE
            params = [v['configr'], tid, v['idr0'], 0x4100f423, v['idr2'], v['idr8'], 0x8c]
            magic = 0x4040404040404040
        priv += [magic, c] + ([len(params)] if version else []) + params
    body = struct.pack('<II', 3, 0) + b''.join(struct.pack('<Q', x) for x in priv)
    return rec(70, body)


class Records:
    """The data section: records in order; AUXTRACE (with its bytes) kept
    apart because perf never compresses it."""

    def __init__(self):
        self.parts = []

    def __iadd__(self, b):
        self.parts.append((False, b))
        return self

    def aux(self, b):
        self.parts.append((True, b))

    def bytes(self, compress):
        if not compress:
            return b''.join(b for _, b in self.parts)
        out, group = b'', b''
        for is_aux, b in self.parts + [(True, b'')]:
            if not is_aux:
                group += b
                continue
            # cut the records every 50 bytes (records straddle pieces),
            # each piece its own zstd frame, as perf flushes per piece
            for i in range(0, len(group), 50):
                z = subprocess.run(['zstd', '-q', '-c', '-1'], input=group[i:i + 50],
                                   stdout=subprocess.PIPE, check=True).stdout
                out += rec(81, z)  # perf does not pad these
            group = b''
            out += b
        return out


def main():
    a = sys.argv[1:]
    out, trace, prog = a[0], open(a[1], 'rb').read(), a[2]
    opt = {'cpus': 1, 'unit': 'ete', 'version': 2, 'aux-flags': 0}
    i = 3
    flags = set()
    maps = []
    while i < len(a):
        k = a[i][2:]
        if k == 'map':
            addr, _, path = a[i + 1].partition('=')
            maps.append((int(addr, 0), path))
            i += 2
        elif k in ('formatted', 'unknown', 'bad-size', 'compress', 'pipe', 'simpleperf'):
            flags.add(k)
            i += 1
        else:
            opt[k] = a[i + 1] if k in ('unit', 'regs', 'trace1') else int(a[i + 1], 0)
            i += 2
    cpus, version = opt['cpus'], opt['version']
    pid = 100
    data = Records()
    regs = ini_regs(opt['regs']) if opt.get('regs') else None
    data += etm_info(version, cpus, opt['unit'], opt.get('snapshot'), 'simpleperf' in flags, regs)
    comm = rec(3, struct.pack('<II', pid, pid) + cstr('prog') + trailer(pid, 0), misc=0)
    mm = b''
    sized = [(x, p, os.path.getsize(p)) for x, p in maps] or [(0x1000, prog, 0x1000)]
    for addr, path, size in sized:
        m = struct.pack('<IIQQQIIQQII', pid, pid, addr, size, 0, 8, 1, 1234, 0, 5, 2)
        mm += rec(10, m + cstr(path) + trailer(pid, 0), misc=2)
    init_map = b''
    if 'simpleperf' in flags:
        init_map = comm + mm  # the mappings of processes already running
    else:
        data += comm
        data += mm
    # perf's kernel map: the run-time _text as start and as pgoff
    ktext = opt.get('kernel-text')
    kmm = struct.pack('<IIQQQ', 0xffffffff, 0, ktext or 0xffff800008000000, 0x1000000, ktext or 0)
    data += rec(1, kmm + cstr('[kernel.kallsyms]_text') + trailer(0xffffffff, 0), misc=1)
    raw = 0 if 'formatted' in flags else 0x100
    for c in range(cpus):
        tid = (0x20 if version == 2 else 0x10) + 2 * c
        mine = open(opt['trace1'], 'rb').read() if c == 1 and opt.get('trace1') else trace
        payload = frames([(tid, mine)]) if 'formatted' in flags else mine
        if opt.get('cut-frame'):  # the AUX data ends inside its last frame
            payload = payload[:-opt['cut-frame']]
        payload += b'\x70' * (-len(payload) % 8)  # padded with IGNORE packets
        data += rec(12, struct.pack('<II', pid, pid) + trailer(pid, c))
        if version == 2:
            data += rec(21, struct.pack('<Q', tid) + trailer(pid, c))
        for off, part, auxes in pieces(payload, opt, c):
            for aoff, asize, afl in auxes:
                data += rec(11, struct.pack('<QQQ', aoff, asize, raw | afl | opt['aux-flags']) +
                            trailer(pid, c))
            if part is not None:
                data.aux(rec(71, struct.pack('<QQQIIII', len(part), off, 0x1234 + c, c, pid, c, 0))
                         + part)
            data += rec(68, b'')
    if 'unknown' in flags:
        data += rec(200, b'\0' * 8)
    if 'bad-size' in flags:
        data += struct.pack('<IHH', 3, 0, 4)
    data = data.bytes('compress' in flags)
    attr = struct.pack('<IIQQQQQ', 8, 128, 0, 1, SAMPLE_TYPE, 0, (1 << 18) | (1 << 8) | (1 << 9))
    attr += b'\0' * (128 - len(attr))
    hdr_size, attr_size = 104, 128 + 16
    attr_off = hdr_size
    ids_off = attr_off + attr_size
    data_off = ids_off + 8
    attrs = attr + struct.pack('<QQ', ids_off, 8)
    # features: build id (bit 2) and one simpleperf-style number (bit 130)
    bid = bytes(range(1, 17)) + b'\0' * 8
    fent = struct.pack('<i', pid) + bid + cstr(prog)
    feat_build = rec(0, fent, misc=2)
    feat_other = b'simpleperf-ish feature\0\0'
    # HEADER_COMPRESSED: version, type (1 = zstd), level, ratio, mmap_len
    feat_z = struct.pack('<IIIII', 1, 1, 1, 1, 528384) + b'\0' * 4
    feats = [feat_build] + ([feat_z] if 'compress' in flags else []) + [feat_other]
    bits = [2] + ([27] if 'compress' in flags else []) + [130]
    if 'simpleperf' in flags:
        # meta_info (129): "key\0value\0" pairs; file2 (132): protobuf
        # messages (here junk: skipped by size); init_map (134): records
        meta = b''.join(x.encode() + b'\0' for x in (
            'simpleperf_version', '1.build.trawl-test', 'event_type_info', 'cs-etm,8,0',
            'system_wide_collection', 'false'))
        feats = [feat_build, meta, b'\x0a\x03abc' * 3, init_map]
        bits = [2, 129, 132, 134]
    if 'pipe' in flags:
        blob = b'PERFILE2' + struct.pack('<Q', 16) + rec(64, attr + struct.pack('<Q', 1))
        blob += pipe_string_feature(3, 'trawl-test') + pipe_string_feature(6, 'aarch64')
        if 'compress' in flags:
            blob += rec(80, struct.pack('<Q', 27) + feat_z)
        blob += data + rec(67, fent, misc=2)
        write(out, blob, opt.get('cut'))
        return
    tab_off = data_off + len(data)
    table, at = b'', tab_off + 16 * len(feats)
    for ft in feats:
        table += struct.pack('<QQ', at, len(ft))
        at += len(ft)
    features = [0, 0, 0, 0]
    for b in bits:
        features[b // 64] |= 1 << (b % 64)
    if 'simpleperf' in flags:
        # simpleperf puts the id section before the attributes
        ids_off, attr_off = hdr_size, hdr_size + 8
        attrs = struct.pack('<Q', 1) + attr + struct.pack('<QQ', ids_off, 8)
    else:
        attrs = attrs + struct.pack('<Q', 1)
    hdr = b'PERFILE2' + struct.pack('<QQQQQQQQ', hdr_size, attr_size, attr_off, attr_size,
                                    data_off, len(data), 0, 0)
    hdr += b''.join(struct.pack('<Q', x) for x in features)
    blob = hdr + attrs + data + table + b''.join(feats)
    write(out, blob, opt.get('cut'))


def write(out, blob, cut):
    if cut:
        blob = blob[:-cut]
    open(out, 'wb').write(blob)


def pipe_string_feature(feat, text):
    # HEADER_FEATURE {header, u64 feature id, data}; a string feature is
    # {u32 len, the string padded with zeros to len, a multiple of 64}
    b = text.encode() + b'\0'
    b += b'\0' * (-len(b) % 64)
    return rec(80, struct.pack('<QI', feat, len(b)) + b)


main()
