#!/bin/sh
# trawl ete / trawl info on perf.data files made by perf-mkdata.py from the
# documented layouts: ETE with raw (TRBE) AUX data and version-2 trace IDs
# on two CPUs, ETMv4 with frame-formatted data, header versions 0 and 1,
# AUX flags, damaged files. The trace is ete-basic.sh's, whose decode is
# worked out by hand there. When Debian's perf is installed, `perf report
# -D` must list the same records at the same offsets, and its OpenCSD
# packet dump of formatted data the same packets as trawl ete packets.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"

# ETE, raw AUX data, version 2: trace IDs 0x20/0x22 from AUX_OUTPUT_HW_ID
$mk "$t/ete.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2
check_decode "ete raw v2" "$t/ete.data" 20 22
expect_stdout_has "cpu 1   ETE       trace ID 0x22, 9 params: TRCCONFIGR=0x1" "$TRAWL" info "$t/ete.data"
expect_stdout_has "AUX     @1120     cpu 1, offset 0, 40 bytes, raw" "$TRAWL" info "$t/ete.data"
expect_stdout_has "0x1000-0x2000 pgoff 0x0 /no/such/dir/prog.bin build id 0102030405060708090a0b0c0d0e0f10" \
	"$TRAWL" info "$t/ete.data"
# --id keeps one stream
"$TRAWL" ete decode --id 0x22 --symfs "$t" "$t/ete.data" | grep -c INSTR_RANGE >"$t/n"
[ "$(cat "$t/n")" = 4 ] || fail "--id 0x22: want 4 ranges, got $(cat "$t/n")"
# ETMv4, frame-formatted, version 1 (IDs from TRCTRACEIDR: 0x10, 0x12)
$mk "$t/etm.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --unit etmv4 --version 1 --formatted
check_decode "etmv4 formatted v1" "$t/etm.data" 10 12
# version 0 headers have no parameter count
$mk "$t/v0.data" "$t/trace.bin" /no/such/dir/prog.bin --unit etmv4 --version 0 --formatted
check_decode "etmv4 v0" "$t/v0.data" 10
expect_stdout_has "cs_etm header:       version 0, PMU type 8, full mode, 1 cpus" "$TRAWL" info "$t/v0.data"

# perf record -z: records in COMPRESSED records (zstd), straddling them
$mk "$t/zete.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --compress
check_decode "ete raw v2 compressed" "$t/zete.data" 20 22
$mk "$t/z.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --unit etmv4 --version 1 --formatted --compress
check_decode "etmv4 formatted compressed" "$t/z.data" 10 12
# a record inside names the COMPRESSED record that completed it
"$TRAWL" info --records "$t/z.data" | grep -c COMPRESSED >"$t/n"
[ "$(cat "$t/n")" -gt 10 ] || fail "want many COMPRESSED records, got $(cat "$t/n")"

# offsets by hand: header 104 + attr 144 + ids 8 = data at 256; AUXTRACE_INFO
# 136 (one ETE block of 9), COMM 56, MMAP2 128, MMAP 96, ITRACE_START 48,
# HW_ID 48 -> AUX at 768 (64), AUXTRACE 88, FINISHED_ROUND 8 -> 928
# lost trace: AUX marked truncated and collided; decoded still, exit 1
$mk "$t/trunc.data" "$t/trace.bin" /no/such/dir/prog.bin --aux-flags 9
expect_exit 1 "$TRAWL" ete decode --symfs "$t" "$t/trunc.data"
expect_stderr_has "offset 768: AUX record (cpu 0, 40 bytes) marked truncated collision" \
	"$TRAWL" ete decode --symfs "$t" "$t/trunc.data"
expect_stdout_has "INSTR_RANGE	0x100c" "$TRAWL" ete decode --symfs "$t" "$t/trunc.data"
expect_stdout_has "40 bytes, raw,truncated,collision" "$TRAWL" info "$t/trunc.data"
# info says the loss too, as trawl ete does (it exited 0 without a word)
expect_exit 1 "$TRAWL" info "$t/trunc.data"
expect_stderr_has "trunc.data: offset 768: AUX record (cpu 0, 40 bytes) marked truncated collision" \
	"$TRAWL" info "$t/trunc.data"
# and AUX data no AUXTRACE record holds (the CPU 0 AUX record at 768 of a
# two-CPU file, same layout up to there)
$mk "$t/drop.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --drop-auxtrace 1
expect_exit 1 "$TRAWL" info "$t/drop.data"
expect_stderr_has "AUX record (cpu 0, AUX offset 0, 40 bytes): its trace is not in the file" \
	"$TRAWL" info "$t/drop.data"
expect_exit 0 "$TRAWL" info "$t/ete.data"
# an unknown record type is skipped by its size: named, exit 1
$mk "$t/unk.data" "$t/trace.bin" /no/such/dir/prog.bin --unknown
expect_exit 1 "$TRAWL" ete decode --symfs "$t" "$t/unk.data"
expect_stderr_has "offset 928: unknown record type 200 (size 16) skipped" "$TRAWL" ete decode --symfs "$t" "$t/unk.data"
expect_exit 1 "$TRAWL" info "$t/unk.data"
# a record whose size field is impossible ends the walk there
$mk "$t/bad.data" "$t/trace.bin" /no/such/dir/prog.bin --bad-size
expect_stderr_has "offset 928: COMM record of size 4 is impossible" "$TRAWL" ete decode --symfs "$t" "$t/bad.data"
expect_stdout_has "INSTR_RANGE	0x100c" "$TRAWL" ete decode --symfs "$t" "$t/bad.data"
# a record too short for its type (the kernel's records with their
# sample-id trailer: TID, TIME, CPU and IDENTIFIER, 32 bytes here): named
# with its offset, skipped, exit 1; before, a short ITRACE_START or AUX
# gave its CPU from the wrong bytes and exit 0. The minimum sizes are
# perf_event.h's: MMAP2 72, COMM 16, AUX 32, ITRACE_START 16,
# AUX_OUTPUT_HW_ID 16 (header included), AUXTRACE 48 (no trailer).
$mk "$t/one.data" "$t/trace.bin" /no/such/dir/prog.bin
for c in 10:64:MMAP2:104 3:40:COMM:48 11:56:AUX:64 12:40:ITRACE_START:48 \
	21:40:AUX_OUTPUT_HW_ID:48 71:40:AUXTRACE:48; do
	IFS=: read -r type size name need <<EOT
$c
EOT
	off=$(python3 "$TRAWL_SRC/tests/cli/perf-shrink.py" "$t/one.data" "$t/short-$name.data" "$type" "$size")
	trailer=" with its sample-id trailer"
	[ "$type" = 71 ] && trailer=
	msg="short-$name.data: offset $off: $name record of size $size is too short for its type ($need bytes$trailer at least): skipped"
	for cmd in "ete decode" info stats; do
		expect_exit 1 "$TRAWL" $cmd --symfs "$t" "$t/short-$name.data"
		grep -qF -- "$msg" "$_tmp/err" || fail "$cmd $name: no '$msg': $(head -c 300 "$_tmp/err")"
	done
done

# header cut short, attribute section cut short: named as a cut
# recording (a file of 8 bytes was "not a perf.data file"), exit 1, by
# trawl ete and by the reader backend alike
printf 'PERFILE2' >"$t/short.data"
head -c 150 "$t/etm.data" >"$t/attrcut.data"
for c in "ete decode" stats; do
	expect_exit 1 "$TRAWL" $c "$t/short.data"
	expect_stderr_has "short.data:offset 8: perf.data file cut short: 8 bytes, less than its header" \
		"$TRAWL" $c "$t/short.data"
	expect_exit 1 "$TRAWL" $c "$t/attrcut.data"
	expect_stderr_has "attrcut.data:offset 0: perf.data header: the attribute section [104, +" \
		"$TRAWL" $c "$t/attrcut.data"
	expect_stderr_has ") goes past the end of the file (150 bytes): file cut short" \
		"$TRAWL" $c "$t/attrcut.data"
done

# retag SRC DST ID: DST is SRC with the first AUX frame that starts with
# ID 0x10 starting with ID instead, as one damaged ID byte makes it
retag() {
	python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', d, 40)
pos, done = data_off, False
while pos < data_off + data_size and not done:
    rtype, misc, size = struct.unpack_from('<IHH', d, pos)
    if rtype == 71:  # AUXTRACE: a 48-byte header, then the payload
        n = struct.unpack_from('<Q', d, pos + 8)[0]
        for f in range(pos + 48, pos + 48 + n, 16):
            if d[f] == 0x10 << 1 | 1:  # a frame that starts with ID 0x10
                d[f] = int(sys.argv[3], 0) << 1 | 1
                done = True
                break
        pos += n
    pos += size
assert done
open(sys.argv[2], 'wb').write(d)
PY
}

# a frame whose ID byte names no trace unit (0x15; the CPUs' are 0x10 and
# 0x12), as one flipped byte makes it: the bytes it carries are not
# decoded, which is said with the offset, exit 1 (they were dropped with
# exit 0 before); the library's reader (trawl stats) says it too
retag "$t/etm.data" "$t/badid.data" 0x15
expect_exit 1 "$TRAWL" ete decode --symfs "$t" "$t/badid.data"
expect_stderr_has "trace ID 0x15: no ETE or ETMv4 trace unit has this ID: its bytes are not decoded" \
	"$TRAWL" ete decode --symfs "$t" "$t/badid.data"
expect_exit 1 "$TRAWL" stats "$t/badid.data"
expect_stderr_has "trace ID 0x15: no ETE or ETMv4 trace unit has this ID" "$TRAWL" stats "$t/badid.data"
# --id leaves the other IDs out on purpose: nothing said of them
expect_exit 0 "$TRAWL" ete decode --symfs "$t" --id 0x12 "$t/badid.data"

# the same ID byte damaged to the null ID 0 (padding) or a reserved one
# (0x70): the trace after it went nowhere, with exit 0 before; now its
# bytes (not zeros, as padding is) are said from that frame on, exit 1
for id in 0 0x70; do
	retag "$t/etm.data" "$t/pad.data" "$id"
	expect_exit 1 "$TRAWL" ete decode --symfs "$t" "$t/pad.data"
	expect_stderr_has "under the null trace ID 0 (not zero) or a reserved ID, from this frame on" \
		"$TRAWL" ete decode --symfs "$t" "$t/pad.data"
	expect_exit 1 "$TRAWL" stats "$t/pad.data"
	expect_stderr_has "under the null trace ID 0 (not zero) or a reserved ID" "$TRAWL" stats "$t/pad.data"
done

# formatted AUX data that ends inside a frame (8 of its 16 bytes): those
# bytes are lost to the decode, which is said with the file offset, exit 1
# (they were dropped with exit 0), by trawl ete and by the library's reader
$mk "$t/cutf.data" "$t/trace.bin" /no/such/dir/prog.bin --unit etmv4 --version 1 --formatted --cut-frame 8
expect_exit 1 "$TRAWL" ete decode --symfs "$t" "$t/cutf.data"
expect_stderr_has "8 formatted bytes were not in a whole 16-byte frame" "$TRAWL" ete decode --symfs "$t" "$t/cutf.data"
expect_exit 1 "$TRAWL" stats "$t/cutf.data"
expect_stderr_has "8 formatted bytes were not in a whole 16-byte frame" "$TRAWL" stats "$t/cutf.data"
# a raw formatted buffer: cut inside its last frame, said with the offset
# of the frame; zeros after the last whole frame are padding (a DSTREAM
# file's last block), nothing lost
python3 - "$t/trace.bin" "$t/f.bin" <<'PY'
import os, sys
src = open(os.path.join(os.environ['TRAWL_SRC'], 'tests/cli/perf-mkdata.py')).read()
ns = {}  # its frame formatter, without running its main()
exec(compile(src.replace('\nmain()\n', '\n'), 'perf-mkdata.py', 'exec'), ns)
open(sys.argv[2], 'wb').write(ns['frames']([(0x10, open(sys.argv[1], 'rb').read())]))
PY
raw="--formatted --reg TRCTRACEIDR=0x10 --image 0x1000=$t/prog.bin"
expect_exit 0 "$TRAWL" ete decode $raw "$t/f.bin"
head -c 43 "$t/f.bin" >"$t/fcut.bin"
expect_exit 1 "$TRAWL" ete decode $raw "$t/fcut.bin"
expect_stderr_has "fcut.bin: offset 32: 11 formatted bytes were not in a whole 16-byte frame" \
	"$TRAWL" ete decode $raw "$t/fcut.bin"
{ cat "$t/f.bin"; printf '\0\0\0\0\0\0\0\0\0\0\0\0'; } >"$t/fpad.bin"
expect_exit 0 "$TRAWL" ete decode $raw "$t/fpad.bin"

# the same records as Linux perf reads them (perf 6.1 knows header <= 1)
if command -v perf >/dev/null 2>&1; then
	for f in etm v0 z; do
		perf_cross_check "$f" "$t/$f.data"
	done
else
	echo "note: no perf (linux-perf): cross-check with perf report -D skipped"
fi
finish
