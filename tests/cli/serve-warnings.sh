#!/bin/sh
# trawl serve reads a perf.data twice (for its index, then for its call
# tree): each of the recording's warnings is printed once, on the
# terminal and on the page. Inputs: a record shrunk by hand (perf-shrink.py;
# the message is perf-handmade.sh's) and a mapped file that is not found.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
export XDG_CACHE_HOME="$t/cache"
$mk "$t/one.data" "$t/trace.bin" /no/such/dir/prog.bin
python3 "$TRAWL_SRC/tests/cli/perf-shrink.py" "$t/one.data" "$t/short.data" 12 40 >/dev/null
timeout 120 python3 - "$TRAWL" "$t/short.data" "$TRAWL_SRC/tests/cli" <<'PY' || fail "serve-warnings"
import sys
sys.path.insert(0, sys.argv[3])
import cdp  # noqa: E402
srv = cdp.Server(sys.argv[1], [sys.argv[2]])
try:
    info = srv.wait_ready(0)
finally:
    srv.stop()
err = srv.proc.stderr.read().decode()
fails = []
for msg in ("ITRACE_START record of size 40 is too short for its type",
            "1 mapped file not found (first: /no/such/dir/prog.bin)"):
    n = err.count(msg)
    if n != 1:
        fails.append("'%s' printed %d times: %s" % (msg, n, err))
    m = info.get("message") or ""
    if m.count(msg) != 1:
        fails.append("'%s' %d times on the page: %s" % (msg, m.count(msg), m))
if fails:
    print("\n".join(fails))
    sys.exit(1)
PY
finish
