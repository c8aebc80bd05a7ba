#!/bin/sh
# trawl serve of a source without text (a perf.data, decoded by the ETE
# reader backend): /api/lines lists each event as one line, as trawl
# browse shows it ("TIME IT PC ENCODING ISET ELn"; it answered 400 and the
# page's list stayed empty). The truth: the hand-worked PCs per line of
# perf-reader.sh's two-CPU recording and of browse-ete.sh's snapshot, and
# each encoding read from the programs' bytes by tests/cli/serve-decoded.py.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
export XDG_CACHE_HOME="$t/cache"
# CPU 1's trace of perf-reader.sh: PCs 1008 100c 1004 100c
perf_trace1 "$t/trace1.bin"
$mk "$t/two.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --trace1 "$t/trace1.bin"
# beside it an ETE snapshot of browse-ete.sh's hand-worked trace (b.ne, nop,
# nop, ret at 0x1000; N E N: PCs 1000 1004 1008 100c 1000): the perf.data's
# --symfs is not the snapshot's (it failed the snapshot: "--symfs is for a
# perf.data")
. "$TRAWL_SRC/tests/ete-snap.sh"
mksnap "$t/snap" 000000000000000000000080""0100""04850008000000000000""11""f6f79a00080000f6 \
	61000054""1f2003d5""1f2003d5""c0035fd6 0x0
timeout 120 python3 "$TRAWL_SRC/tests/cli/serve-decoded.py" "$TRAWL" "$t/prog.bin" \
	--symfs "$t" "$t/two.data" "$t/snap" || fail "serve-decoded.py"
finish
