#!/bin/sh
# Files as Android simpleperf writes them (its record_file_format.h): the
# id section before the attributes, ETE blocks of 8 parameters (its ETEInfo
# ends at TRCDEVARCH), its own feature sections 128 and up, and in newer
# versions the mappings of processes already running in the init_map
# feature (134) instead of the data section. Made by perf-mkdata.py; the
# trace is ete-basic.sh's, decoded by hand there. (A real simpleperf
# recording is checked in perf-corpus.sh.)
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"

$mk "$t/sp.data" "$t/trace.bin" /no/such/dir/prog.bin --simpleperf --version 1 --cpus 2
# the program's MMAP2 is only in init_map: found there, the decode is whole
check_decode "simpleperf" "$t/sp.data" 10 12
expect_stdout_has "cpu 1   ETE       trace ID 0x12, 8 params: TRCCONFIGR=0x1" "$TRAWL" info "$t/sp.data"
expect_stdout_has "mmap    pid 100: 0x1000-0x2000 pgoff 0x0 /no/such/dir/prog.bin build id 0102030405060708090a0b0c0d0e0f10" \
	"$TRAWL" info "$t/sp.data"
expect_stdout_has "comm    pid 100 tid 100: prog" "$TRAWL" info "$t/sp.data"
expect_stdout_has "meta    simpleperf_version = 1.build.trawl-test" "$TRAWL" info "$t/sp.data"
"$TRAWL" info --json "$t/sp.data" >"$t/info.json" || fail "info --json"
python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["meta"]; assert m["event_type_info"] == "cs-etm,8,0", m' \
	"$t/info.json" || fail "info --json: meta"
# by hand: header 104, ids 8, attribute 144 -> data at 256: AUXTRACE_INFO
# 16+24+2*11*8 = 216, MMAP 96, then per cpu ITRACE_START 48, AUX 64,
# AUXTRACE 48+40, FINISHED_ROUND 8 -> 984; the feature table (4 entries)
# 64 -> build id 60 at 1048, meta_info 94, file2 15 -> init_map at 1217:
# COMM 56, MMAP2 128
expect_stdout_has "1217	3	COMM	56" "$TRAWL" info --records "$t/sp.data"
expect_stdout_has "1273	10	MMAP2	128" "$TRAWL" info --records "$t/sp.data"
# init_map cut inside its MMAP2: named (at its feature table entry, the
# fourth at 984 + 48), its COMM is still read, the trace decodes without
# the program (no image: exit 1)
$mk "$t/cut.data" "$t/trace.bin" /no/such/dir/prog.bin --simpleperf --version 1 --cpus 2 --cut 20
expect_exit 1 "$TRAWL" ete decode --symfs "$t" "$t/cut.data"
expect_stderr_has "offset 1032: feature 134 section [1217, +184) is past the end: what is there is read" \
	"$TRAWL" ete decode --symfs "$t" "$t/cut.data"
expect_stdout_has "comm    pid 100 tid 100: prog" "$TRAWL" info "$t/cut.data"
expect_stdout_has "ADDR_NACC	no image at 0x1000" "$TRAWL" ete decode --symfs "$t" "$t/cut.data"
finish
