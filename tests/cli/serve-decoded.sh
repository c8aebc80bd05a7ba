#!/bin/sh
# trawl serve of a source without text (a perf.data, decoded by the ETE
# reader backend): /api/lines lists each event as one line, as trawl
# browse shows it ("TIME IT PC ENCODING ISET ELn"; it answered 400 and the
# page's list stayed empty). The truth: the hand-worked PCs per line of
# perf-reader.sh's two-CPU recording, and each encoding read from the
# program's bytes by tests/cli/serve-decoded.py.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
export XDG_CACHE_HOME="$t/cache"
# CPU 1's trace of perf-reader.sh: PCs 1008 100c 1004 100c
{
	printf '\000\000\000\000\000\000\000\000\000\000\000\200'
	printf '\001\000\004'
	printf '\205\002\010\000\000\000\000\000\000\021'
	printf '\367'
	printf '\232\001\010\000\000'
	printf '\367\367'
} >"$t/trace1.bin"
$mk "$t/two.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --trace1 "$t/trace1.bin"
timeout 120 python3 "$TRAWL_SRC/tests/cli/serve-decoded.py" "$TRAWL" "$t/prog.bin" \
	--symfs "$t" "$t/two.data" || fail "serve-decoded.py"
finish
