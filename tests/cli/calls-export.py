#!/usr/bin/env python3
"""Independent checks of trawl's exports, used by calls-export.sh.

  vcd FILE [T:SIGNAL=HEX ...]   parse an IEEE 1364 VCD: declarations before
                                $enddefinitions, every change names a
                                declared id, times never decrease, values fit
                                their width; then check SIGNAL's value at T.
  vcd-history FILE SIGNAL...    the same checks, then print every change of
                                each SIGNAL as "SIGNAL TIME HEX" (x bits
                                kept as x), in file order.
  perfetto FILE N               Chrome Trace Event JSON: N complete slices,
                                properly nested on every track.
"""
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check_vcd(path, wants, quiet=False):
    toks = open(path).read().split()
    i, ids, names, in_defs = 0, {}, {}, True
    while in_defs:
        if i >= len(toks):
            fail("no $enddefinitions")
        t = toks[i]
        if t == "$var":
            kind, width, ident, name = toks[i + 1:i + 5]
            if toks[i + 5] != "$end":
                fail("bad $var at token %d" % i)
            if kind not in ("wire", "reg", "integer"):
                fail("unexpected var type " + kind)
            ids[ident] = int(width)
            names[name] = ident
            i += 6
        elif t == "$enddefinitions":
            if toks[i + 1] != "$end":
                fail("bad $enddefinitions")
            in_defs = False
            i += 2
        elif t.startswith("$"):
            j = i + 1
            while toks[j] != "$end":
                j += 1
            i = j + 1
        else:
            fail("junk in header: " + t)
    time, values, history = -1, {}, []
    while i < len(toks):
        t = toks[i]
        if t.startswith("#"):
            nt = int(t[1:])
            if nt < time:
                fail("time goes backwards: %d after %d" % (nt, time))
            time = nt
            i += 1
            continue
        if t in ("$dumpvars", "$end"):
            i += 1
            continue
        if t[0] in "bB":
            val, ident = t[1:], toks[i + 1]
            i += 2
            if set(val) - set("01xz"):
                fail("bad vector " + t)
        elif t[0] in "01xz":
            val, ident = t[0], t[1:]
            i += 1
        else:
            fail("bad change " + t)
        if ident not in ids:
            fail("undeclared id " + ident)
        if len(val) > ids[ident]:
            fail("value wider than %d bits for %s" % (ids[ident], ident))
        if time < 0:
            fail("change before any time")
        values[ident] = val
        history.append((time, ident, val))
    for w in wants:
        t, rest = w.split(":", 1)
        sig, hexval = rest.split("=")
        ident = names.get(sig)
        if ident is None:
            fail("signal %s not declared" % sig)
        cur = None
        for (tt, idd, val) in history:
            if tt > int(t):
                break
            if idd == ident:
                cur = val
        if cur is None or int(cur, 2) != int(hexval, 16):
            fail("%s at %s is %s, expected %s" % (sig, t, cur and hex(int(cur, 2)), hexval))
    if not quiet:
        print("vcd ok: %d signals, %d changes" % (len(ids), len(history)))
    return names, history


def vcd_history(path, sigs):
    names, history = check_vcd(path, [], quiet=True)
    for sig in sigs:
        ident = names.get(sig)
        if ident is None:
            fail("signal %s not declared" % sig)
        for (t, idd, val) in history:
            if idd == ident:
                shown = "%x" % int(val, 2) if "x" not in val and "z" not in val else val
                print(sig, t, shown)


def check_perfetto(path, n):
    doc = json.load(open(path))
    ev = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    if len(ev) != n:
        fail("%d slices, expected %d" % (len(ev), n))
    tracks = {}
    for e in ev:
        if e["dur"] < 0:
            fail("negative duration")
        tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], -e["dur"], e["name"]))
    for key, sl in tracks.items():
        sl.sort()
        stack = []
        for ts, negdur, name in sl:
            end = ts - negdur
            while stack and stack[-1] <= ts:
                stack.pop()
            if stack and end > stack[-1] + 1e-9:
                fail("slice %s [%f,%f) overlaps its parent's end %f" % (name, ts, end, stack[-1]))
            stack.append(end)
    print("perfetto ok: %d slices on %d tracks" % (len(ev), len(tracks)))


if __name__ == "__main__":
    if sys.argv[1] == "vcd":
        check_vcd(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "vcd-history":
        vcd_history(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "perfetto":
        check_perfetto(sys.argv[2], int(sys.argv[3]))
    else:
        fail("unknown check")
