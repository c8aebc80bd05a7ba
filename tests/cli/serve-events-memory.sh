#!/bin/sh
# trawl serve keeps a software-event trace's records and views on disk
# (docs/serve.md, "Memory"). Truth: the kernel's accounting of peak
# resident memory (VmHWM). On a rec-demo trace of ~1.8 x 10^6 events,
# after loading it and answering timeline requests at three zooms and list
# requests, the server's peak is within 24 MB of what `trawl events
# summary` (the same reader and activity engine, streaming) peaks at on
# that trace; the arrays in memory the server had before grew ~100 bytes
# an event (~175 MB more here). Plain build only: ASan's shadow memory is
# not the server's.
. "$TRAWL_SRC/tests/cli-lib.sh"
[ -n "${TRAWL_ASAN:-}" ] && skip "memory figures are the plain build's"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
demo="${TRAWL_BUILD:-}/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
defs="$TRAWL_SRC/examples/rec-demo/analysis.tdef"
TRAWL_REC_BUFFER=64M "$demo" --threads 4 --packets 110000 --out "$_tmp/ev" >/dev/null 2>&1 ||
	fail "rec-demo failed"
timeout 300 python3 - "$TRAWL" "$defs" "$_tmp/ev" <<'PY' || fail "serve's memory grows with the trace"
import os, subprocess, sys
sys.path.insert(0, os.path.join(os.environ["TRAWL_SRC"], "tests", "cli"))
import cdp  # noqa: E402
trawl, defs, path = sys.argv[1:4]


def hwm(pid):
    with open("/proc/%d/status" % pid) as f:
        return next(int(x.split()[1]) for x in f if x.startswith("VmHWM:")) / 1024


srv = cdp.Server(trawl, ["--defs", defs, path])
try:
    info = srv.wait_ready(0, timeout=240)
    first, last = info["first"], info["last"] + 1
    for zoom in (1, 30, 1000):
        span = max(16, (last - first) // zoom)
        for k in range(10):
            frm = first + k * (last - first - span) // 10
            srv.api("/api/timeline?trace=0&from=%d&to=%d&cols=1400" % (frm, frm + span))
    for k in range(10):
        srv.api("/api/events?trace=0&from=%d&count=60" % (k * info["events"] // 10))
    served = hwm(srv.proc.pid)
finally:
    srv.stop()
p = subprocess.Popen([trawl, "events", "summary", "--defs", defs, path], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
# the CLI's peak, read by wait4 (ru_maxrss, KiB)
_, _, ru = os.wait4(p.pid, 0)
cli = ru.ru_maxrss / 1024
print("VmHWM: serve %.1f MB, events summary %.1f MB, %d events" % (served, cli, info["events"]))
if info["events"] < 1500000:
    sys.exit("too few events (%d) to tell" % info["events"])
if served - cli >= 24:
    sys.exit("serve's peak is %.1f MB above the streaming CLI's" % (served - cli))
PY
finish
