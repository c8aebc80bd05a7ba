#!/bin/sh
# The software-event index (the sw sections, either kind): time lookups per trace, per cpu and
# per thread ('trawl events seek') against a linear scan — of
# 'trawl events list' for a recorder trace, and of the dump itself, parsed
# and merged here in python, for a generated Barrelfish dump with four
# cores, ties and core offsets. Then the identity of a trace directory: a
# stream removed makes the index stale, and it is rebuilt.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"

cat >"$_tmp/oracle.py" <<'EOP'
# usage: oracle.py EVENTS TRAWL TRACE [trawl options...]
# EVENTS: one "time cpu tid" line per event, in event order
import json, random, subprocess, sys
evs = [tuple(int(x) for x in l.split()) for l in open(sys.argv[1])]
trawl, trace, extra = sys.argv[2], sys.argv[3], sys.argv[4:]
times = sorted(set(e[0] for e in evs))
random.seed(7)
probe = [times[0] - 1, times[0], times[-1], times[-1] + 1000]
for t in random.sample(times, min(25, len(times))):
    probe += [t - 1, t, t + 1]
def want(t, col, key):
    best = None
    for i, e in enumerate(evs):
        if e[0] <= t and (col is None or e[col] == key):
            best = i
    return best
scopes = [(None, None, [])]
scopes += [(1, c, ["--cpu", str(c)]) for c in sorted(set(e[1] for e in evs))]
scopes += [(2, k, ["--thread", str(k)]) for k in sorted(set(e[2] for e in evs))]
n = 0
for col, key, opt in scopes:
    for t in probe:
        out = subprocess.run([trawl, "events", "seek", trace, str(t), "--json"] + opt + extra,
                             capture_output=True, text=True, check=True).stdout
        got = json.loads(out)
        w = want(t, col, key)
        g = None if got is None else got["event"]
        assert g == w, (opt, t, g, w)
        if got is not None:
            assert got["time"] == evs[w][0] and got["cpu"] == evs[w][1] and got["tid"] == evs[w][2], (got, evs[w])
        n += 1
print(n, "lookups agree")
EOP

# a recorder trace: the scan is 'trawl events list --abs'
"$demo" --threads 3 --packets 300 --out "$_tmp/tr" >/dev/null || fail "rec-demo failed"
# a complete index of a trace with no text (a directory) exits 0 and warns
# of nothing: there is no text to show, nothing is lost
"$TRAWL" index "$_tmp/tr" >/dev/null 2>"$_tmp/ierr" || fail "trawl index of a CTF trace failed: $(cat "$_tmp/ierr")"
[ ! -s "$_tmp/ierr" ] || fail "trawl index of a CTF trace warned: $(cat "$_tmp/ierr")"
"$TRAWL" info "$_tmp/tr" >"$_tmp/info" 2>"$_tmp/ierr" || fail "trawl info failed"
[ ! -s "$_tmp/ierr" ] || fail "trawl info of a CTF trace warned: $(cat "$_tmp/ierr")"
grep -q "^kind: .*with software events" "$_tmp/info" || fail "not a software-event index: $(grep kind "$_tmp/info")"
total=$("$TRAWL" events list "$_tmp/tr" | wc -l)
grep -Eq "^software events: +$total on [0-9]+ distinct cpus, 4 threads$" "$_tmp/info" ||
	fail "info: $(grep 'software events' "$_tmp/info"), want $total events of 4 threads"
"$TRAWL" info --verify "$_tmp/tr" >/dev/null || fail "info --verify failed"
"$TRAWL" events list --abs "$_tmp/tr" |
	awk '{ for (i = 1; i < NF; i++) { if ($i == "cpu") c = $(i + 1); if ($i == "tid") t = $(i + 1) } print $1, c, t }' \
	>"$_tmp/ev.txt"
python3 "$_tmp/oracle.py" "$_tmp/ev.txt" "$TRAWL" "$_tmp/tr" >"$_tmp/o1" || fail "CTF lookups disagree with the scan"

# a Barrelfish dump of 4 cores; the truth is computed from the dump text
python3 - "$_tmp/bf.txt" "$_tmp/bf-ev.txt" <<'EOP'
import random, sys
random.seed(3)
off = {0: 0, 1: 25, 2: 1000, 3: 7}
lines, evs = ["# generated", "# core 1 offset 25", "# core 2 offset 1000", "# core 3 offset 7"], []
t = {c: 100 for c in off}
for i in range(3000):
    c = random.randrange(4)
    t[c] += random.choice([0, 0, 1, 3, 50])          # ties within and across cores
    lines.append("%d %d %016x" % (c, t[c], (c << 48) | (i & 0xffffffff)))
    evs.append((t[c] + off[c], len(lines), c))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
evs.sort()                                             # by time, then dump line
open(sys.argv[2], "w").write("".join("%d %d 0\n" % (e[0], e[2]) for e in evs))
EOP
python3 "$_tmp/oracle.py" "$_tmp/bf-ev.txt" "$TRAWL" "$_tmp/bf.txt" >"$_tmp/o2" || fail "dump lookups disagree with the scan"
"$TRAWL" info "$_tmp/bf.txt" | grep -Eq "^software events: +3000 on 4 distinct cpus, 1 threads$" || fail "dump index counts"

# identity of a directory: a stream removed is a changed trace
tid=$(awk 'NR == 100 { print $3 }' "$_tmp/ev.txt")
"$TRAWL" events seek "$_tmp/tr" 99999999999999999 --thread "$tid" --json | grep -q '"event"' || fail "thread $tid has events"
for s in "$_tmp/tr"/stream-*; do
	if "$TRAWL" cat "$_tmp/tr" 2>/dev/null | grep -q "tid=$tid " && [ "$(head -c 64 "$s" | od -An -tu4 -j60 -N4 | tr -d ' ')" = "$tid" ]; then
		rm "$s"
	fi
done
[ "$("$TRAWL" events seek "$_tmp/tr" 99999999999999999 --thread "$tid" --json)" = null ] ||
	fail "index not rebuilt after a stream of thread $tid was removed"
finish
