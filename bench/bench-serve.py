"""Figures for trawl serve (bench/bench-serve.sh says which and why).

usage: bench-serve.py TRAWL IMAGE SMALL_TRACE BIG_TRACE
For each trace: build the index with `trawl index` (not counted: the
figures are the server's with the index built), start the server, time
its reading of the call timeline, then API latencies per endpoint and zoom
level, the first timeline after a page load in Chromium (3 loads, the
median), peak and current RSS (anonymous memory and mapped file pages).
"""
import subprocess
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
import cdp  # noqa: E402

trawl, image, small, big = sys.argv[1:5]
REQS = int(os.environ.get("SERVE_BENCH_REQS", "60"))


from serve_bench import first_timeline_ms, pct, rss, timed  # noqa: E402


def ms(srv, path):
    return timed(srv, path)[0]


def measure(path):
    size = os.path.getsize(path)
    subprocess.run([trawl, "index", path], check=True, stdout=subprocess.DEVNULL)
    t0 = time.time()
    srv = cdp.Server(trawl, ["--image", image, path])
    fig = {"size_mb": size / 1e6}
    try:
        info = srv.wait_ready(0, timeout=3000)
        fig["build_s"] = time.time() - t0
        lines = info["lines"]
        rnd = random.Random(1)
        lat = {}
        # zoom levels: the whole trace, then spans 8x narrower down to ~1000 lines
        span = lines
        z = 0
        while True:
            key = "timeline zoom 1/%d" % (8 ** z)
            xs = []
            for _ in range(REQS):
                frm = rnd.randint(1, max(1, lines + 1 - span))
                xs.append(ms(srv, "/api/timeline?trace=0&from=%d&to=%d&cols=1400" % (frm, frm + span)))
            lat[key] = xs
            if span <= 1000:
                break
            span = max(1000, span // 8)
            z += 1
        picks = [rnd.randint(1, lines) for _ in range(REQS)]
        lat["lines (60)"] = [ms(srv, "/api/lines?trace=0&from=%d&count=60" % p) for p in picks]
        lat["regs"] = [ms(srv, "/api/regs?trace=0&line=%d" % p) for p in picks]
        lat["mem (128 B)"] = [ms(srv, "/api/mem?trace=0&line=%d&addr=0xfffffffff000&len=128" % p)
                              for p in picks]
        lat["write (last x0)"] = [ms(srv, "/api/write?trace=0&line=%d&reg=x0&dir=last" % p) for p in picks]
        lat["step over"] = [ms(srv, "/api/step?trace=0&line=%d&op=over" % p) for p in picks]
        fig["lat"] = {k: (statistics.median(v), pct(v, 99)) for k, v in lat.items()}
        first = first_timeline_ms(srv)
        if first is not None:
            fig["first_timeline_ms"] = first
        fig.update(rss(srv.proc.pid))
    finally:
        srv.stop()
    return fig


print("(shared, noisy machine: medians; the small trace is the baseline)")
a = measure(small)
b = measure(big)
print("trace sizes: %.0f MB and %.0f MB (x%.1f)" % (a["size_mb"], b["size_mb"], b["size_mb"] / a["size_mb"]))
print("server start to ready (index checked, call timeline read): %.1f s and %.1f s"
      % (a["build_s"], b["build_s"]))
if "first_timeline_ms" in a:
    print("first timeline drawn after page load (Chromium, median of 3): %.0f ms and %.0f ms (target <= 1000)"
          % (a["first_timeline_ms"], b["first_timeline_ms"]))
print("server peak RSS: %.0f MB and %.0f MB (target <= 200, flat); RSS after the requests: %.0f MB"
      " and %.0f MB, of which mapped trace/index pages %.0f MB and %.0f MB"
      % (a["VmHWM"], b["VmHWM"], a["VmRSS"], b["VmRSS"], a["RssFile"], b["RssFile"]))
print("%-34s %18s %18s %8s" % ("request (%d each)" % REQS, "small p50/p99 ms", "big p50/p99 ms", "p99 x"))
worst = 0
for k in b["lat"]:
    ka = k if k in a["lat"] else None
    pb = b["lat"][k]
    pa = a["lat"][ka] if ka else None
    worst = max(worst, pb[1], pa[1] if pa else 0)
    print("%-34s %18s %18s %8s" % (k, "%.2f / %.2f" % pa if pa else "-", "%.2f / %.2f" % pb,
                                   "%.2f" % (pb[1] / pa[1]) if pa and pa[1] else "-"))
for k in a["lat"]:
    if k not in b["lat"]:
        worst = max(worst, a["lat"][k][1])
        print("%-34s %18s %18s %8s" % (k, "%.2f / %.2f" % a["lat"][k], "-", "-"))
print("worst p99: %.2f ms (target <= 50)" % worst)
