"""What both web-view benches need: the server's memory, one timed request,
a percentile and the first timeline drawn in Chromium (bench-serve.py for
instruction traces, bench-serve-events.py for software events)."""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
import cdp  # noqa: E402


def rss(pid):
    """Peak and current RSS, anonymous and file-backed parts, in MB."""
    fig = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                fig[k] = int(v.split()[0]) / 1024
    return fig


def timed(srv, path):
    """One GET: (milliseconds, bytes of the answer); anything but 200 raises."""
    t0 = time.perf_counter()
    st, body = srv.get(path)
    dt = (time.perf_counter() - t0) * 1000
    if st != 200:
        raise RuntimeError("%s: HTTP %d %s" % (path, st, body[:200]))
    return dt, len(body)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def first_timeline_ms(srv, loads=3):
    """Median over page loads of the time from navigation to the first
    timeline drawn (the page's trawlView.firstTimeline), or None without
    Chromium."""
    chromium = cdp.find_chromium()
    if not chromium:
        return None
    firsts = []
    b = cdp.Browser(chromium)
    try:
        b.open("about:blank")
        for _ in range(loads):
            b.send("Page.navigate", {"url": srv.url})
            b.wait_for("typeof trawlView !== 'undefined' && trawlView.firstTimeline !== undefined",
                       timeout=60)
            firsts.append(b.eval("trawlView.firstTimeline"))
    finally:
        b.close()
    return statistics.median(firsts)
