#!/bin/sh
# Pipe-mode perf.data (perf record -o -): a 16-byte header, then records to
# the end of the file, the attribute as HEADER_ATTR, features as
# HEADER_FEATURE and the build id as HEADER_BUILD_ID records among them
# (perf.data-file-format.txt, "Pipe-mode data"). Files from perf-mkdata.py
# decode to the hand-worked ranges of ete-basic.sh; with Debian's perf
# installed, `perf report -D` reading the file from a pipe lists the same
# records at the same offsets, and the same packets.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"

# ETE, raw AUX data, two CPUs, version-2 trace IDs
$mk "$t/ete.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --pipe
check_decode "pipe ete raw v2" "$t/ete.data" 20 22
expect_stdout_has "(pipe mode, 1412 bytes, 18 records, 1 attribute)" "$TRAWL" info "$t/ete.data"
# the build id comes from the HEADER_BUILD_ID record at the end
expect_stdout_has "0x1000-0x2000 pgoff 0x0 /no/such/dir/prog.bin build id 0102030405060708090a0b0c0d0e0f10" \
	"$TRAWL" info "$t/ete.data"
# by hand: header 16, HEADER_ATTR 8+128+8, two HEADER_FEATURE of 8+8+4+64
# -> AUXTRACE_INFO at 328, 232 bytes (two ETE blocks of 9), COMM 56, MMAP2
# 128, MMAP 96, ITRACE_START 48, HW_ID 48 -> cpu 0's AUX at 936 (64),
# AUXTRACE 88, FINISHED_ROUND 8, ITRACE_START, HW_ID -> cpu 1's AUX at 1192,
# its AUXTRACE at 1256 with 40 bytes, FINISHED_ROUND 8, HEADER_BUILD_ID 60
expect_stdout_has "160	80	HEADER_FEATURE	84" "$TRAWL" info --records "$t/ete.data"
# the sample-id trailer (from HEADER_ATTR) gives the AUX record its cpu
expect_stdout_has "AUX     @1192     cpu 1, offset 0, 40 bytes, raw" "$TRAWL" info "$t/ete.data"
expect_stdout_has "1352	67	HEADER_BUILD_ID	60" "$TRAWL" info --records "$t/ete.data"
mkdir -p "$t/ids/.build-id/01"
cp "$t/prog.bin" "$t/ids/.build-id/01/02030405060708090a0b0c0d0e0f10"
"$TRAWL" ete decode --binary-dir "$t/ids" "$t/ete.data" >"$t/bid.out" 2>"$t/bid.err" ||
	fail "--binary-dir on a pipe file: $(cat "$t/bid.err")"
grep -c INSTR_RANGE "$t/bid.out" | grep -qx 8 || fail "--binary-dir: want 8 ranges: $(cat "$t/bid.out")"

# ETMv4, frame-formatted, version 1; and compressed records in a pipe
$mk "$t/etm.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --unit etmv4 --version 1 --formatted --pipe
check_decode "pipe etmv4 formatted v1" "$t/etm.data" 10 12
$mk "$t/z.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --unit etmv4 --version 1 --formatted --pipe --compress
check_decode "pipe etmv4 compressed" "$t/z.data" 10 12

# cut short inside the second AUXTRACE's bytes: what is there decodes, the
# record is named, exit 1
$mk "$t/cut.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --pipe --cut 70
expect_exit 1 "$TRAWL" ete decode --symfs "$t" "$t/cut.data"
expect_stderr_has "offset 1256: AUXTRACE record announces 40 bytes, only 38 are in the file" \
	"$TRAWL" ete decode --symfs "$t" "$t/cut.data"
"$TRAWL" ete decode --symfs "$t" "$t/cut.data" 2>/dev/null | grep -c '	20	INSTR_RANGE' | grep -qx 4 ||
	fail "cut pipe file: cpu 0's 4 ranges should decode"

if command -v perf >/dev/null 2>&1; then
	perf_cross_check "pipe etm" "$t/etm.data" pipe
	perf_cross_check "pipe z" "$t/z.data" pipe
else
	echo "note: no perf (linux-perf): cross-check with perf report -D skipped"
fi
finish
