"""trawl serve on software-event traces (docs/serve.md, "Software events")
against independent truths:
  - the hand-made Barrelfish dump tests/data/rec/act-dump.txt (activities
    worked out by hand in tests/cli/events-activities.sh): a timeline
    whose items are worked out by hand below;
  - a rec-demo trace: at three zooms (and under filters) the timeline
    equals an aggregation computed here, one record at a time, from
    `trawl events activities --json` and `trawl events list --abs`; the
    list equals `events list`; stats equal `events summary --json`.
Usage: serve-events.py TRAWL TMPDIR HAND_TRACE HAND_DEFS [DEMO_TRACE DEMO_DEFS]
"""
import json
import os
import shutil
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from sw_truth import bars_of, dots_of, read_list  # noqa: E402

trawl, tmp, hand, hand_defs = sys.argv[1:5]
demo = sys.argv[5:7] if len(sys.argv) >= 7 else None
fails = []
check = cdp.checker(fails)
cli = cdp.cli_runner(trawl)


def q(params):
    return "&".join("%s=%s" % (k, urllib.parse.quote(str(v), safe="")) for k, v in params.items())


def cli_filter(params):
    args = []
    for k, opt in (("cpus", "--cpu"), ("threads", "--thread"), ("subsys", "--subsys"),
                   ("events", "--event"), ("where", "--where")):
        if k in params:
            args += [opt, params[k]]
    return args


srv = cdp.Server(trawl, ["--defs", hand_defs, hand])
try:
    info = srv.wait_ready(0)
    check(info["kind"] == "events" and info["events"] == 15 and info["cpus"] == [0, 1],
          "hand trace info %s" % info)
    names = [a["name"] for a in info["activities"]]
    check(names == ["pkt", "hold", "msg", "app"], "activities %s" % names)
    # By hand, times 1000..2000 in 10 columns of 100.1 ns (col = (t-1000)*10//1001):
    # cpu 0: pkt 7 1100-1400 and pkt 8 1200-1300 (inside it) -> one group of 2,
    # columns 0-3; pkt 5 1700-2000 (open) -> 6-9; hold 1150-1250 -> 1-2;
    # app state 5 1000-2000 and state 0 at 2000 -> a group of 2, 0-9;
    # cpu 1: msg 3 1320-1450 to cpu 0 -> 3-4, msg 4 1800-2000 (open, to cpu 1) -> 7-9;
    # app 0 1000-1500 and 9 1500-2000 -> 0-9 (2).
    tl = srv.api("/api/timeline?trace=0&from=1000&to=2001&cols=10")
    want = [[0, 0, 0, 3, 2, None, 1100, 1400, None], [0, 0, 6, 9, 1, "pkt", 1700, 2000, None],
            [0, 1, 1, 2, 1, "hold", 1150, 1250, None], [0, 3, 0, 9, 2, None, 1000, 2000, None],
            [1, 2, 3, 4, 1, "msg", 1320, 1450, 0], [1, 2, 7, 9, 1, "msg", 1800, 2000, 1],
            [1, 3, 0, 9, 2, None, 1000, 2000, None]]
    check(tl["bars"] == want, "hand timeline bars %s" % tl["bars"])
    # 1400..1600 in 2 columns of 100 ns: pkt 7 ends at 1400 (reaches from);
    # the state 0 of cpu 1 ends at 1500 (col 1), 9 begins at 1500 (col 1);
    # pkt 8 (1200-1300) comes after pkt 7 in begin order and joins its group
    # though it ends before `from` (the rule counts from the first record
    # that reaches `from`)
    tl = srv.api("/api/timeline?trace=0&from=1400&to=1600&cols=2")
    want = [[0, 0, 0, 0, 2, None, 1100, 1400, None], [0, 3, 0, 1, 1, "5", 1000, 2000, None],
            [1, 2, 0, 0, 1, "msg", 1320, 1450, 0], [1, 3, 0, 1, 2, None, 1000, 2000, None]]
    check(tl["bars"] == want, "hand timeline 1400-1600 bars %s" % tl["bars"])
    acts = json.loads(cli("events", "activities", "--json", hand, "--defs", hand_defs))
    evs = read_list(cli("events", "list", "--abs", hand))
    for frm, to, cols in ((1000, 2001, 10), (1000, 2001, 1000), (1250, 1460, 3)):
        tl = srv.api("/api/timeline?trace=0&from=%d&to=%d&cols=%d" % (frm, to, cols))
        check(tl["bars"] == bars_of(acts, names, frm, to, cols), "hand bars at %d-%d/%d" % (frm, to, cols))
        check(tl["dots"] == dots_of(evs, frm, to, cols), "hand dots at %d-%d/%d" % (frm, to, cols))
    st, body = srv.get("/api/timeline?trace=0&from=1000&to=2001&cols=10&where=bogus")
    check(st == 400 and b"--where, column 1: no field or name 'bogus'" in body, "bad where: %d %s" % (st, body))
    st, body = srv.get("/api/timeline?trace=0&from=1000&to=2001&cols=10&acts=nope")
    check(st == 400, "unknown activity: HTTP %d" % st)
    for path in ("/api/lines?trace=0&from=1&count=2", "/api/regs?trace=0&line=1"):
        check(srv.get(path)[0] == 404, path + " on an event trace: not 404")
finally:
    rc = srv.stop()
    check(rc == 0, "serve exit status %s on an undamaged trace" % rc)

# A dense dump: app states switched every 10 ns on core 0 (one long group
# of contiguous states at any zoom) and a lock held 300 ns every 10 us,
# so a column of a zoomed-out view holds thousands of records and the
# server decides most columns from the keys it keeps in memory; the bars
# and dots equal the aggregation of `events activities`/`list`.
words = [(1000 + 10 * i, "00030000%08x" % (5 + i % 2)) for i in range(30000)]
words += [(t + 3, "0001000000000001") for t in range(1000, 301000, 10000)]
words += [(t + 303, "0001000100000001") for t in range(1000, 301000, 10000)]
dense = os.path.join(tmp, "dense")
shutil.rmtree(dense, ignore_errors=True)     # the test runs twice in one folder
with open(dense + ".txt", "w") as f:
    f.writelines("0 %d %s\n" % w for w in sorted(words))
cli("events", "import-bf", dense + ".txt", "--defs", hand_defs, "-o", dense)
srv = cdp.Server(trawl, ["--defs", hand_defs, dense])
try:
    info = srv.wait_ready(0)
    names = [a["name"] for a in info["activities"]]
    acts = json.loads(cli("events", "activities", "--json", dense, "--defs", hand_defs))
    evs = read_list(cli("events", "list", "--abs", dense))
    first, last = info["first"], info["last"] + 1
    for frm, to, cols in ((first, last, 7), (first, last, 300), (first + 12345, first + 98765, 11)):
        tl = srv.api("/api/timeline?trace=0&from=%d&to=%d&cols=%d&max=20000" % (frm, to, cols))
        check(tl["bars"] == bars_of(acts, names, frm, to, cols), "dense bars at %d-%d/%d" % (frm, to, cols))
        check(tl["dots"] == dots_of(evs, frm, to, cols), "dense dots at %d-%d/%d" % (frm, to, cols))
        check(any(b[4] > 1000 for b in tl["bars"]), "dense %d-%d/%d: no big group" % (frm, to, cols))
finally:
    srv.stop()

if not demo:
    sys.exit(1 if fails else 0)

srv = cdp.Server(trawl, ["--defs", demo[1], demo[0]])
try:
    info = srv.wait_ready(0)
    names = [a["name"] for a in info["activities"]]
    all_evs = read_list(cli("events", "list", "--abs", demo[0]))
    check(info["events"] == len(all_evs), "demo events %d, list %d" % (info["events"], len(all_evs)))
    first, last = info["first"], info["last"] + 1
    mid = (first + last) // 2
    zooms = ((first, last, 800), (mid - (last - first) // 20, mid + (last - first) // 20, 1000),
             (mid - (last - first) // 2000, mid + (last - first) // 2000 + 1, 500),
             (first, last, 7))     # thousands of activities a column: decided by the keys in memory
    lock_cpu = next(e["cpu"] for e in all_evs if e["name"].startswith("lock:"))
    for filt in ({}, {"where": "len > 1000"}, {"subsys": "lock", "cpus": str(lock_cpu)}):
        extra = cli_filter(filt)
        acts = json.loads(cli("events", "activities", "--json", demo[0], "--defs", demo[1], *extra))
        evs = read_list(cli("events", "list", "--abs", demo[0], *extra))
        fq = ("&" + q(filt)) if filt else ""
        for frm, to, cols in zooms:
            tl = srv.api("/api/timeline?trace=0&from=%d&to=%d&cols=%d&max=20000%s" % (frm, to, cols, fq))
            what = "demo %s at %d-%d/%d" % (filt, frm - first, to - first, cols)
            check(not tl["truncated"], what + ": truncated")
            check(frm != first or (tl["bars"] and tl["dots"]), what + ": nothing to compare")
            check(tl["bars"] == bars_of(acts, names, frm, to, cols), what + ": bars differ")
            check(tl["dots"] == dots_of(evs, frm, to, cols), what + ": dots differ")
            check(len(tl["bars"]) + len(tl["dots"]) <= cols * (len(names) + 1) * len(info["cpus"]),
                  what + ": more items than lanes x columns")
        # the list: windows of it equal events list (under the same filter)
        for pos in (0, len(evs) // 3, max(len(evs) - 7, 0)):
            got = srv.api("/api/events?trace=0&from=%d&count=50%s" % (pos, fq))
            check(got["total"] == len(evs), "list total %s: %d, events list %d" % (filt, got["total"], len(evs)))
            rows = [{k: e[k] for k in ("time", "cpu", "tid", "name", "fields")} for e in got["events"]]
            check(rows == evs[pos:pos + 50], "list at %d %s differs from events list" % (pos, filt))
        # go to a time: the first event at or after it
        t = evs[len(evs) // 2]["time"] if evs else first
        g = srv.api("/api/goto?trace=0&q=@%d%s" % (t, fq))
        check(g["pos"] == next(i for i, e in enumerate(evs) if e["time"] >= t), "goto @%d %s: %s" % (t, filt, g))
        # statistics: exactly events summary --json
        want = json.loads(cli("events", "summary", "--json", demo[0], "--defs", demo[1], *extra))
        check(srv.api("/api/stats?trace=0%s" % fq) == want, "stats %s differ from events summary" % filt)
    # acts= hides the other activities' bars
    tl = srv.api("/api/timeline?trace=0&from=%d&to=%d&cols=300&acts=lock_hold" % (first, last))
    check(tl["bars"] and {b[1] for b in tl["bars"]} == {names.index("lock_hold")}, "acts=lock_hold shows %s"
          % sorted({b[1] for b in tl["bars"]}))
    # at most max items; the rest is said to be left out
    tl = srv.api("/api/timeline?trace=0&from=%d&to=%d&cols=300&max=5" % (first, last))
    check(len(tl["bars"]) + len(tl["dots"]) == 5 and tl["truncated"], "max=5: %d items, truncated %s"
          % (len(tl["bars"]) + len(tl["dots"]), tl["truncated"]))
finally:
    srv.stop()

# no room for the server's temporary files: the trace fails with a message
# naming why, the server stays up and exits 1 (an input was not used)
os.environ["TMPDIR"] = os.path.join(tmp, "no-such-dir")
srv = cdp.Server(trawl, [hand, "--defs", hand_defs])
try:
    deadline = time.time() + 60
    while srv.api("/api/trace?trace=0")["state"] not in ("failed", "ready") and time.time() < deadline:
        time.sleep(0.05)
    t = srv.api("/api/trace?trace=0")
    check(t["state"] == "failed" and "temporary space" in t.get("message", ""),
          "no TMPDIR: %s" % t)
finally:
    check(srv.stop() == 1, "no TMPDIR: trawl serve did not exit 1")
sys.exit(1 if fails else 0)
