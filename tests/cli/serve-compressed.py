"""trawl serve on compressed traces: /api/lines of each compressed copy, at
random positions (seeded), equals the plain trace's lines as this script
reads them from the file (byte for byte, cut at 4096, without "\\r\\n"),
and /api/search finds the line this script finds with str.find, forward
and backward, on every copy alike.
Usage: serve-compressed.py TRAWL PLAIN COPY...
"""
import os
import random
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

trawl, plain, copies = sys.argv[1], sys.argv[2], sys.argv[3:]
fails = []
check = cdp.checker(fails)
with open(plain, "rb") as f:
    data = f.read()
lines = [ln.decode("utf-8", "replace") for ln in data.split(b"\n")]
if lines and lines[-1] == "":
    lines.pop()
traces = [plain] + copies
srv = cdp.Server(trawl, traces)
rnd = random.Random(15)


def first_line_with(text, after):
    """Line number (from 1) of the first line after `after` holding text, else None."""
    for i in range(after, len(lines)):
        if text in lines[i]:
            return i + 1
    return None


def last_line_with(text, before):
    for i in range(before - 2, -1, -1):
        if text in lines[i]:
            return i + 1
    return None


try:
    for t in range(len(traces)):
        info = srv.wait_ready(t, timeout=240)
        check(info["text"] is True and info["lines"] == len(lines),
              "%s: text %s, %s lines, expected %d" % (traces[t], info["text"], info["lines"], len(lines)))
    starts = [1, len(lines) - 3] + [rnd.randrange(1, len(lines) + 1) for _ in range(40)]
    for frm in starts:
        want = [ln[:4096] for ln in lines[frm - 1:frm - 1 + 50]]
        for t in range(len(traces)):
            got = srv.api("/api/lines?trace=%d&from=%d&count=50" % (t, frm))["lines"]
            check(got == want, "%s lines %d..: %s, expected %s" % (traces[t], frm, got[:2], want[:2]))
    # needles: the start of a random instruction line's text, searched from
    # a random line either way
    for _ in range(8):
        at = rnd.randrange(1, len(lines) + 1)
        n = next(i for i in range(at - 1, len(lines)) if " IT " in lines[i])
        needle = lines[n][lines[n].index(" IT "):][:30]
        frm = rnd.randrange(1, len(lines) + 1)
        q = urllib.parse.quote(needle)
        for d, want in (("next", first_line_with(needle, frm)), ("last", last_line_with(needle, frm))):
            for t in range(len(traces)):
                got = srv.api("/api/search?trace=%d&line=%d&text=%s&dir=%s" % (t, frm, q, d))
                check(got["line"] == want, "%s search %r %s from %d: %s, expected %s"
                      % (traces[t], needle, d, frm, got, want))
finally:
    check(srv.stop() == 0, "trawl serve did not exit 0")
sys.exit(1 if fails else 0)
