"""What both web-view benches need: the server's memory, one timed request
and a percentile (bench-serve.py for instruction traces,
bench-serve-events.py for software events)."""
import time


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
