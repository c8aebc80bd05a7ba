#!/bin/sh
# A real perf.data (simpleperf, ETMv4 on cpu 7, frame-formatted AUX data):
# the instruction ranges trawl decodes, per range and count, equal the
# recording tool's own AutoFDO profile of it (perf_inject.data), and
# trawl info reads its records as they are in the file.
. "$TRAWL_SRC/tests/cli-lib.sh"
corpus=${TRAWL_CORPUS:-}
p="$corpus/perf"
[ -n "$corpus" ] && [ -f "$p/perf_etm.data" ] || skip "no perf corpus at '${corpus}/perf'"
command -v python3 >/dev/null || skip "no python3"

"$TRAWL" info --json "$p/perf_etm.data" >"$_tmp/info.json" || fail "info --json failed"
"$TRAWL" ete decode --symfs "$p" "$p/perf_etm.data" >"$_tmp/decode.txt" 2>"$_tmp/err"
rc=$?
[ "$rc" = 0 ] || fail "ete decode exited $rc: $(cat "$_tmp/err")"
python3 "$TRAWL_SRC/tests/cli/perf-inject-oracle.py" "$_tmp/info.json" "$_tmp/decode.txt" \
	"$p/perf_inject.data" || fail "decoded ranges differ from perf_inject.data"

# the same image found by build id (DIR/<hex id>) instead of by name
mkdir -p "$_tmp/ids"
ln -s "$(cd "$p" && pwd)/etm_test_loop" "$_tmp/ids/0c9a20bf9c009d0e4e8bbf9fad0300ae"
"$TRAWL" ete decode --binary-dir "$_tmp/ids" "$p/perf_etm.data" >"$_tmp/decode2.txt" 2>/dev/null
cmp -s "$_tmp/decode.txt" "$_tmp/decode2.txt" || fail "--binary-dir decode differs from --symfs"

# without the program, the ranges are lost: said, and exit 1
expect_exit 1 "$TRAWL" ete decode "$p/perf_etm.data"
expect_stderr_has "no program image" "$TRAWL" ete decode "$p/perf_etm.data"

# header facts checked by hand against the hex dump of the file
expect_stdout_has "cs_etm header:       version 1, PMU type 8, full mode, 8 cpus" "$TRAWL" info "$p/perf_etm.data"
expect_stdout_has "cpu 7   ETMv4     trace ID 0x1e, 7 params: TRCCONFIGR=0x40 TRCIDR0=0x28000ea1" "$TRAWL" info "$p/perf_etm.data"
expect_stdout_has "AUXTRACE @9896    cpu 7, tid 0, idx 7, offset 0, 384 bytes" "$TRAWL" info "$p/perf_etm.data"
expect_stdout_has "0x582b2b1000-0x582b2b2000 pgoff 0x1000 /data/local/tmp/etm_test_loop build id 0c9a20bf9c009d0e4e8bbf9fad0300ae" "$TRAWL" info "$p/perf_etm.data"

# simpleperf's meta_info feature (129), read by hand from the file's bytes
expect_stdout_has "meta    simpleperf_version = 1.build.7820434" "$TRAWL" info "$p/perf_etm.data"
expect_stdout_has "meta    event_type_info = cs-etm,8,0" "$TRAWL" info "$p/perf_etm.data"

# cut short inside the AUXTRACE data: what is there decodes, exit 1, the record named
head -c 10250 "$p/perf_etm.data" >"$_tmp/cut.data"
expect_exit 1 "$TRAWL" ete decode --symfs "$p" "$_tmp/cut.data"
expect_stderr_has "data section [312, +10016) goes past the end of the file (10250 bytes)" "$TRAWL" ete decode --symfs "$p" "$_tmp/cut.data"
expect_stdout_has "299	1e	INSTR_RANGE	0x582b2b1054	0x582b2b1070	7" "$TRAWL" ete decode --symfs "$p" "$_tmp/cut.data"
finish
