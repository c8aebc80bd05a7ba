"""trawl serve on a source without text (an ETE snapshot made by trawl
emulate --ete): the list (/api/lines) shows each event as `trawl cat`
writes it (read by the reader, not the index), without what the index does not keep
(the mode, the disassembly, an exception's number, target and name) (docs/serve.md, "Sources").
Usage: serve-notext.py TRAWL TMPDIR SNAPSHOT
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

trawl, tmp, snap = sys.argv[1:4]
fails = []
check = cdp.checker(fails)
cat = subprocess.run([trawl, "cat", snap], capture_output=True, text=True, check=True).stdout.splitlines()
# cat: 'L5 cpu0 t=0clk insn A64 pc=400650 enc=f94003e1 el=0 mode=EL0t_n ""'
# (an exception's number, target and name are not in the index either)
want = [re.sub(r' (mode|num|target)=\S+', '', re.sub(r' "(?:[^"\\]|\\.)*"$', '', x)) for x in cat]
srv = cdp.Server(trawl, [snap])
try:
    info = srv.wait_ready(0)
    check(info["lines"] == len(cat), "lines %s, trawl cat %d" % (info["lines"], len(cat)))
    for frm in (1, 2, len(cat) // 2, len(cat) - 3):
        got = srv.api("/api/lines?trace=0&from=%d&count=40" % frm)
        check(got["from"] == frm, "from %s" % got["from"])
        check(got["lines"] == want[frm - 1:frm - 1 + 40],
              "lines at %d: %s against %s" % (frm, got["lines"][:2], want[frm - 1:frm + 1]))
    st, body = srv.get("/api/lines?trace=0&from=%d&count=5" % (len(cat) + 1))
    check(st == 400 and b"past the end" in body, "past the end: %d %s" % (st, body[:100]))
finally:
    rc = srv.stop()
check(rc == 0, "serve exited %s" % rc)
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
