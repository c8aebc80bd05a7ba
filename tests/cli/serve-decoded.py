"""trawl serve of a perf.data and an ETE snapshot (no text): /api/lines
against the hand-worked PCs (perf.data: CPU 0 then CPU 1, the chunks'
order) and the encodings read here from the programs' bytes (at 0x1000),
at several places and counts; both ready with the perf.data's --symfs.
/api/mem: the program's bytes (prog.bin, the snapshot's dump) at 0x1000,
unknown around them (the trace records no data accesses).
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
# (as trawl cat writes an event: "L1 cpu0 t=0clk insn A64 pc=1000 enc=... el=1";
# CPU 0's six instructions, then CPU 1's four)
want = ["L%d cpu%d t=0clk insn A64 pc=%x enc=%08x el=1"
        % (i + 1, 0 if i < 6 else 1, pc, struct.unpack_from("<I", prog, pc - 0x1000)[0])
        for i, pc in enumerate(pcs)]
# the snapshot (trace 1): b.ne 0x100c (not taken), nop, nop, ret; EL1
snap = bytes.fromhex("610000541f2003d51f2003d5c0035fd6")
want1 = ["L%d cpu0 t=0clk insn A64 pc=%x enc=%08x el=1" % (i + 1, pc, struct.unpack_from("<I", snap, pc - 0x1000)[0])
         for i, pc in enumerate((0x1000, 0x1004, 0x1008, 0x100c, 0x1000))]
srv = cdp.Server(trawl, args)
try:
    for t, lines in ((0, want), (1, want1)):
        info = srv.wait_ready(t)
        check(info.get("state") == "ready" and info.get("lines") == len(lines)
              and info.get("text") is False, "/api/trace %d: %s" % (t, info))
        if info.get("state") != "ready":
            continue
        n = len(lines)
        for first, count in ((1, n), (1, 2000), (3, 2), (n, 1), (n - 1, 5)):
            got = srv.api("/api/lines?trace=%d&from=%d&count=%d" % (t, first, count))
            check(got.get("from") == first and got["lines"] == lines[first - 1:first - 1 + count],
                  "trace %d lines from %d count %d: %s, expected %s"
                  % (t, first, count, got, lines[first - 1:first - 1 + count]))
        code_bytes = prog[:16] if t == 0 else snap
        want_mem = "??" * 4 + code_bytes.hex() + "??" * 4
        got = srv.api("/api/mem?trace=%d&line=1&addr=0xffc&len=24" % t)
        check(got.get("bytes") == want_mem and got.get("from_image") == 16,
              "trace %d mem at 0xffc: %s, expected %s" % (t, got, want_mem))
        st, body = srv.get("/api/lines?trace=%d&from=%d&count=1" % (t, n + 1))
        check(st == 400 and b"past the end" in body,
              "trace %d line %d: HTTP %d %s" % (t, n + 1, st, body[:200]))
finally:
    code = srv.stop()
check(code == 0, "the server exited %s (every input was used)" % code)
if fails:
    print("\n".join(fails))
    sys.exit(1)
