"""trawl serve's overview of a software-event timeline (docs/serve.md,
"Overview") on a rec-demo trace. The overview is forced on
(TRAWL_SERVE_OVERVIEW_MIN=0) in one server and off in another; at the
widest zoom and other wide ones, under no filter and a --where filter:
  - the answer says the overview made it, and its range holds the asked
    one (from moved down by less than a column, columns less than 1/8
    wider);
  - its bars and dots equal the aggregation computed here from `trawl
    events activities --json` and `events list --abs` over that range
    (tests/cli/sw_truth.py), and the detailed path's answer for that range;
  - at a fine zoom the detailed path answers the asked range itself.
Then, with TRAWL_SERVE_READ_FAULT naming a file that exists, every read of
the temporary files fails: timeline and list requests are 500 with the
reason, not zeros, and the terminal says so; with the file removed the
answers are whole again; the server exits 1 (answers were lost).
Usage: serve-events-overview.py TRAWL TMPDIR TRACE DEFS
"""
import json
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from sw_truth import bars_of, dots_of, read_list  # noqa: E402

trawl, tmp, trace, defs = sys.argv[1:5]
fails = []
check = cdp.checker(fails)
cli = cdp.cli_runner(trawl)
fault = os.path.join(tmp, "read-fault")


def server(minimum):
    os.environ["TRAWL_SERVE_OVERVIEW_MIN"] = str(minimum)
    os.environ["TRAWL_SERVE_READ_FAULT"] = fault
    return cdp.Server(trawl, ["--defs", defs, trace])


ov, det = server(0), server(1 << 62)
try:
    info = ov.wait_ready(0)
    check(isinstance(info["overview_ms"], int), "overview_ms %r with the overview forced" % info["overview_ms"])
    check(det.wait_ready(0)["overview_ms"] is None, "the detailed server built an overview")
    names = [a["name"] for a in info["activities"]]
    first, last = info["first"], info["last"] + 1
    width = last - first
    mid = first + width // 2
    wide = ((first, last, 800), (first, last, 1400), (first, last, 7), (first + 12345, last, 333),
            (mid - width // 20, mid + width // 20, 1000))
    for filt in ({}, {"where": "len > 1000"}):
        extra = []
        if "where" in filt:
            extra = ["--where", filt["where"]]
        acts = json.loads(cli("events", "activities", "--json", trace, "--defs", defs, *extra))
        evs = read_list(cli("events", "list", "--abs", trace, *extra))
        fq = "".join("&%s=%s" % (k, urllib.parse.quote(v, safe="")) for k, v in filt.items())
        for frm, to, cols in wide:
            what = "%s at %d-%d/%d" % (filt, frm - first, to - first, cols)
            tl = ov.api("/api/timeline?trace=0&from=%d&to=%d&cols=%d&max=20000%s" % (frm, to, cols, fq))
            check(tl["overview"], what + ": not answered by the overview")
            f, t = tl["from"], tl["to"]
            col = (t - f) // cols
            check(f <= frm and t >= to and frm - f < col and (t - f) * 8 <= (to - frm) * 9 + 8 * col,
                  what + ": grid range %d-%d" % (f - first, t - first))
            check((t - f) % cols == 0, what + ": columns of unequal width")
            check(not tl["truncated"], what + ": truncated")
            check(frm != first or (tl["bars"] and tl["dots"]), what + ": nothing to compare")
            check(tl["bars"] == bars_of(acts, names, f, t, cols), what + ": bars differ from the aggregation")
            check(tl["dots"] == dots_of(evs, f, t, cols), what + ": dots differ from the aggregation")
            d = det.api("/api/timeline?trace=0&from=%d&to=%d&cols=%d&max=20000%s" % (f, t, cols, fq))
            check(not d["overview"] and (d["from"], d["to"]) == (f, t), what + ": detailed range")
            check((d["bars"], d["dots"]) == (tl["bars"], tl["dots"]), what + ": overview and detailed differ")
        # a fine zoom: the detailed path, on the asked range
        frm, to = mid, mid + width // 5000 + 1
        tl = ov.api("/api/timeline?trace=0&from=%d&to=%d&cols=500%s" % (frm, to, fq))
        check(not tl["overview"] and (tl["from"], tl["to"]) == (frm, to), "fine zoom: %s" % tl["overview"])
        check(tl["bars"] == bars_of(acts, names, frm, to, 500), "fine zoom bars %s" % filt)
    # a read error of the temporary files is a 500 naming it, not zeros
    good = ov.get("/api/timeline?trace=0&from=%d&to=%d&cols=900" % (first, last))
    check(good[0] == 200, "timeline before the fault: HTTP %d" % good[0])
    open(fault, "w").close()
    # the overview's entries, the detailed path's blocks (a fine zoom at a
    # place not asked before) and the list's
    fine = first + width // 3 + 12345
    for path in ("/api/timeline?trace=0&from=%d&to=%d&cols=900" % (first, last),
                 "/api/timeline?trace=0&from=%d&to=%d&cols=300" % (fine, fine + width // 5000 + 1),
                 "/api/events?trace=0&from=%d&count=20" % (len(evs) // 2 + 777)):
        st, body = ov.get(path)
        check(st == 500 and b"temporary files" in body and b"Input/output error" in body,
              "%s with failing reads: HTTP %d %s" % (path, st, body[:120]))
    os.unlink(fault)
    again = ov.get("/api/timeline?trace=0&from=%d&to=%d&cols=900" % (first, last))
    check(again == good, "timeline after the fault differs")
finally:
    if os.path.exists(fault):
        os.unlink(fault)
    # answers were lost to the fault: said, and exit status 1
    check(ov.stop() == 1, "serve exit status after failed reads")
    err = ov.proc.stderr.read().decode()
    check("/api/timeline: reading the server's temporary files (TMPDIR) failed: Input/output error" in err,
          "the terminal does not say the failed reads: %r" % err[-300:])
    det.stop()
sys.exit(1 if fails else 0)
