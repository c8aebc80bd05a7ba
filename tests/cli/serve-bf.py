"""trawl serve on a Barrelfish dump given directly (docs/serve.md, "Sources"):
every answer equals the one for the CTF trace `trawl events import-bf` makes
of the same dump, which tests/cli/serve-events.py checks against hand-worked
and independently computed truths; the temporary trace goes at the end. A
damaged dump is served up to its damage, which the page names.
Usage: serve-bf.py TRAWL TMPDIR DUMP DEFS IMPORTED_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

trawl, tmp, dump, defs, imported = sys.argv[1:6]
fails = []
check = cdp.checker(fails)
os.environ["TMPDIR"] = tmp
direct = cdp.Server(trawl, ["--defs", defs, dump])
ref = cdp.Server(trawl, ["--defs", defs, imported])
try:
    a, b = direct.wait_ready(0), ref.wait_ready(0)
    check(a["kind"] == "events", "the dump is served as software events: %s" % a)
    for k in ("events", "cpus", "activities"):
        check(a.get(k) == b.get(k), "trace %s: %s against %s" % (k, a.get(k), b.get(k)))
    check(any(n.startswith("trawl-serve-bf-") for n in os.listdir(tmp)), "no temporary trace in TMPDIR")
    for path in ("/api/timeline?trace=0&from=1000&to=2001&cols=10",
                 "/api/timeline?trace=0&from=1400&to=1600&cols=2",
                 "/api/timeline?trace=0&from=0&to=5000&cols=1400",
                 "/api/timeline?trace=0&from=1000&to=2001&cols=10&where=cpu%20%3D%3D%201",
                 "/api/events?trace=0&from=0&count=50",
                 "/api/events?trace=0&from=5&count=3",
                 "/api/goto?trace=0&q=@1500",
                 "/api/stats?trace=0"):
        check(direct.api(path) == ref.api(path), "%s differs from the imported trace's" % path)
finally:
    rc = direct.stop()
    ref.stop()
check(rc == 0, "serve of a whole dump exited %s" % rc)
check(not any(n.startswith("trawl-serve-bf-") for n in os.listdir(tmp)), "the temporary trace was left behind")

# a damaged dump: served up to the damage (here its last line, so every
# event of the whole dump), the page says where, the terminal too, and
# serve exits 1 (something was not read)
bad = os.path.join(tmp, "bad-dump.txt")
with open(dump) as f, open(bad, "w") as g:
    g.write(f.read() + "0 3000 zz-not-hex\n")
srv = cdp.Server(trawl, ["--defs", defs, bad])
try:
    c = srv.wait_ready(0)
    check(c.get("events") == a.get("events"), "damaged dump: %s events, not %s" % (c.get("events"), a.get("events")))
    check("bad-dump.txt:" in str(c.get("message")), "damaged dump: the page does not say where: %s" % c)
finally:
    rc = srv.stop()
check(rc == 1, "serve of a damaged dump exited %s" % rc)
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
