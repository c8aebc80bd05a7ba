"""trawl serve of a perf.data (no text): /api/lines against the hand-worked
PCs (CPU 0 then CPU 1, the chunks' order) and the encodings read here from
the program's bytes (loaded at 0x1000), at several places and counts.
Usage: serve-decoded.py TRAWL PROG.BIN SERVE-ARGS...
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

trawl, prog, args = sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3:]
fails = []
check = cdp.checker(fails)
pcs = [0x1000, 0x1004, 0x1008, 0x100c, 0x1004, 0x100c, 0x1008, 0x100c, 0x1004, 0x100c]
# no timestamps in the trace (time 0); EL1 from its context packets
want = ["0 IT %08x %08x A64 EL1" % (pc, struct.unpack_from("<I", prog, pc - 0x1000)[0])
        for pc in pcs]
srv = cdp.Server(trawl, args)
try:
    info = srv.wait_ready(0)
    check(info["lines"] == len(want) and info["text"] is False,
          "/api/trace: %d lines, text %r" % (info["lines"], info["text"]))
    for first, count in ((1, 10), (1, 2000), (3, 4), (7, 1), (10, 5)):
        got = srv.api("/api/lines?trace=0&from=%d&count=%d" % (first, count))
        check(got.get("from") == first and got["lines"] == want[first - 1:first - 1 + count],
              "lines from %d count %d: %s, expected %s"
              % (first, count, got, want[first - 1:first - 1 + count]))
    st, body = srv.get("/api/lines?trace=0&from=11&count=1")
    check(st == 400 and b"past the end" in body, "line 11: HTTP %d %s" % (st, body[:200]))
finally:
    code = srv.stop()
check(code == 0, "the server exited %s (every input was used)" % code)
if fails:
    print("\n".join(fails))
    sys.exit(1)
