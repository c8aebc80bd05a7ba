"""Figures for trawl serve on software-event traces (bench/bench-serve.sh).

usage: bench-serve-events.py TRAWL DEFS SMALL_TRACE BIG_TRACE
For each trace: the time from the first /api/trace to "ready" (the trace
read into the server's arrays, the unfiltered view and its overview made;
the overview's build time also on its own), the server's RSS
then, timeline request latencies (p50/p99) at five zoom levels, list and
stats requests, the first timeline drawn after a page load in Chromium
(median of 3 loads) and the first request under a new filter (one pass
over the events). The small trace is the baseline: the big one's figures are
also printed as ratios to it.
"""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
import cdp  # noqa: E402

trawl, defs, small, big = sys.argv[1:5]
REQS = int(os.environ.get("SERVE_BENCH_REQS", "60"))


from serve_bench import first_timeline_ms, pct, rss, timed  # noqa: E402


def measure(path):
    srv = cdp.Server(trawl, ["--defs", defs, path])
    fig = {}
    try:
        t0 = time.perf_counter()
        info = srv.wait_ready(0, timeout=1800)
        fig["load_s"] = time.perf_counter() - t0
        fig["events"] = info["events"]
        fig["overview_ms"] = info.get("overview_ms") or 0   # in load_s; 0: none built
        fig.update(rss(srv.proc.pid))
        first, last = info["first"], info["last"] + 1
        rnd = random.Random(1)
        worst = 0
        for zoom in (1, 10, 100, 1000, 10000):
            span = max(16, (last - first) // zoom)
            lat, size = [], 0
            for _ in range(REQS):
                frm = first + rnd.randrange(max(1, last - first - span + 1))
                dt, n = timed(srv, "/api/timeline?trace=0&from=%d&to=%d&cols=1400" % (frm, frm + span))
                lat.append(dt)
                size = max(size, n)
            fig["tl_p50_z%d" % zoom], fig["tl_p99_z%d" % zoom] = pct(lat, 50), pct(lat, 99)
            fig["tl_bytes_z%d" % zoom] = size
            worst = max(worst, pct(lat, 99))
        fig["tl_p99_worst"] = worst
        lat = [timed(srv, "/api/events?trace=0&from=%d&count=60" % rnd.randrange(info["events"]))[0]
               for _ in range(REQS)]
        fig["list_p99"] = pct(lat, 99)
        fig["stats_ms"] = timed(srv, "/api/stats?trace=0")[0]
        first = first_timeline_ms(srv)      # before the new filter: the page asks with none
        if first is not None:
            fig["first_timeline_ms"] = first
        fig["refilter_ms"] = timed(srv, "/api/timeline?trace=0&from=%d&to=%d&cols=1400&where=len%%20%%3E%%201000"
                                   % (first, last))[0]
        fig.update({k + "_after": v for k, v in rss(srv.proc.pid).items()})
    finally:
        srv.stop()
    return fig


a = measure(small)
b = measure(big)
print("trawl serve, software events (shared, noisy machine: medians of one run each; "
      "latencies in ms over loopback, %d requests per zoom, 1400 columns)" % REQS)
print("%-18s %14s %14s %8s" % ("figure", os.path.basename(small), os.path.basename(big), "big/small"))
for k in a:
    x, y = a[k], b[k]
    r = (y / x) if x else float("nan")
    print("%-18s %14.2f %14.2f %8.2f" % (k, x, y, r))
ok = b["tl_p99_worst"] <= 50
print("timeline p99 <= 50 ms at every zoom: %s; RSS <= 200 MB: %s (VmHWM %.0f MB on %d events)"
      % ("yes" if ok else "NO", "yes" if b["VmHWM_after"] <= 200 else "NO", b["VmHWM_after"], b["events"]))
if "first_timeline_ms" in b:
    print("first timeline drawn after page load (Chromium, median of 3): %.0f ms and %.0f ms (target <= 1000)"
          % (a["first_timeline_ms"], b["first_timeline_ms"]))
