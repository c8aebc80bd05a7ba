"""trawl serve of traces cut off at their end. The truth is the cut data
as this script reads it: the plain file, or the .gz/.zst decompressed as far
as it goes (zlib/zstd stop at the cut), split at newlines; the text after
the last newline is the fragment a cut trace ends with.
Usage: serve-cut.py TRAWL BROWSER(0|1) TRACE...
"""
import os
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

trawl, use_browser, traces = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
fails = []
check = cdp.checker(fails)


def cut_text(path):
    raw = open(path, "rb").read()
    if path.endswith(".gz"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw)
    if path.endswith(".zst"):
        # zstd -dc of a cut frame writes what it could before failing
        p = subprocess.run(["zstd", "-q", "-dc"], input=raw, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        return p.stdout
    return raw


srv = cdp.Server(trawl, traces)
browser = None
try:
    for t, path in enumerate(traces):
        data = cut_text(path)
        check(not data.endswith(b"\n"), "%s: the test's cut fell on a newline" % path)
        whole = [ln.decode("utf-8", "replace") for ln in data.split(b"\n")[:-1]]
        info = srv.wait_ready(t, timeout=240)
        msg = info.get("message", "")
        check("cut off at its end" in msg, "%s: /api/trace message %r" % (path, msg))
        n = info["lines"]
        # the index keeps whole lines only; its last event ends at or before
        # the last newline (an event's later lines may be cut with it)
        check(0 < n <= len(whole) and len(whole) - n < 10,
              "%s: %d lines, the cut text has %d whole ones" % (path, n, len(whole)))
        got = srv.api("/api/lines?trace=%d&from=%d&count=50" % (t, n - 2))["lines"]
        check(got == [ln[:4096] for ln in whole[n - 3:n]],
              "%s: the last lines: %s, expected %s" % (path, got, whole[n - 3:n]))
        st, body = srv.get("/api/lines?trace=%d&from=%d&count=5" % (t, n + 1))
        check(st == 400 and b"past the end" in body,
              "%s: lines past the end: HTTP %d %s" % (path, st, body[:200]))
    if use_browser:
        browser = cdp.Browser(cdp.find_chromium())
        browser.open(srv.url + "#t=1&l=1")
        browser.wait_for("typeof trawlView !== 'undefined' && trawlView.ready", timeout=60)
        shown = browser.eval("document.getElementById('warning').hidden ? '' : "
                             "document.getElementById('warning').textContent")
        check("cut off at its end" in shown, "the page shows no warning: %r" % shown)
finally:
    if browser:
        browser.close()
    rc = srv.stop()
err = srv.proc.stderr.read().decode("utf-8", "replace")
check(rc == 1, "trawl serve of cut traces exited %s, not 1" % rc)
check(err.count("the trace was cut off at its end") >= len(traces),
      "the terminal did not warn of every cut trace: %s" % err[-600:])
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
