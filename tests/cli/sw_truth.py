"""The timeline of a software-event trace as trawl serve should send it
(docs/serve.md, "Software events"), computed here one record at a time
from `trawl events activities --json` and `trawl events list --abs`: the
truth tests/cli/serve-events.py and serve-events-overview.py compare the
server's answers with."""


def col_of(t, frm, to, cols):
    if t <= frm:
        return 0
    if t >= to:
        return cols - 1
    return (t - frm) * cols // (to - frm)


def bars_of(acts, names, frm, to, cols, shown=None):
    """Lanes (cpu, activity), records by (begin, end); from the first that
    reaches `from`, a record whose begin column is at most the group's last
    column joins it; records from `to` on are left out."""
    lanes = {}
    for a in acts:
        lanes.setdefault((a["cpu"], names.index(a["activity"])), []).append(a)
    out = []
    for (cpu, act) in sorted(lanes):
        if shown is not None and act not in shown:
            continue
        recs = sorted(lanes[(cpu, act)], key=lambda a: (a["begin_ns"], a["end_ns"]))
        runmax, i = 0, 0
        while i < len(recs) and max(runmax, recs[i]["end_ns"]) < frm:
            runmax = max(runmax, recs[i]["end_ns"])
            i += 1
        group = None
        for a in recs[i:]:
            if a["begin_ns"] >= to:
                break
            c0, c1 = col_of(a["begin_ns"], frm, to, cols), col_of(a["end_ns"], frm, to, cols)
            if group and c0 <= group[3]:
                group[3] = max(group[3], c1)
                group[4] += 1
                group[5] = None
                group[7] = max(group[7], a["end_ns"])
                continue
            if group:
                out.append(group)
            name = a["key"] if a["kind"] == "state" else a["activity"]
            group = [cpu, act, c0, c1, 1, name, a["begin_ns"], a["end_ns"],
                     a["cpu_end"] if a["kind"] == "message" else None]
        if group:
            out.append(group)
    return out


def read_list(text):
    evs = []
    for line in text.splitlines():
        w = line.split()
        fields = {}
        for f in w[6:]:
            k, v = f.split("=", 1)
            fields[k] = int(v)
        evs.append({"time": int(w[0]), "cpu": int(w[2]), "tid": int(w[4]), "name": w[5],
                    "fields": fields})
    return evs


def dots_of(evs, frm, to, cols):
    out = []
    for cpu in sorted({e["cpu"] for e in evs}):
        cur = None
        for pos, e in enumerate(evs):
            if e["cpu"] != cpu or not frm <= e["time"] < to:
                continue
            c = col_of(e["time"], frm, to, cols)
            if cur and cur[1] == c:
                cur[2] += 1
                continue
            if cur:
                out.append(cur)
            cur = [cpu, c, 1, pos]
        if cur:
            out.append(cur)
    return out
