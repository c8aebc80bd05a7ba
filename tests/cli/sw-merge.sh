#!/bin/sh
# A set of traces (a directory of trace directories, one per program or
# host): 'trawl cat' merges them by wall-clock time, each trace's clock
# moved by its own metadata offset. Checked event by event against a merge
# done here from each member's 'trawl events list --abs' and the offset
# its metadata declares; two programs recording at the same time must
# interleave. The index of a set covers every member's files.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
mkdir "$_tmp/set"
"$demo" --threads 2 --packets 300 --pace 20 --out "$_tmp/set/a" >/dev/null &
p1=$!
"$demo" --threads 1 --packets 300 --pace 20 --out "$_tmp/set/b" >/dev/null || fail "rec-demo b failed"
wait $p1 || fail "rec-demo a failed"
for m in a b; do
	"$TRAWL" events list --abs "$_tmp/set/$m" >"$_tmp/$m.list" || fail "list of $m failed"
done
"$TRAWL" cat --json "$_tmp/set" >"$_tmp/cat.json" || fail "cat of the set failed"
python3 - "$_tmp" <<'EOP' || fail "the merged set differs from the merge done here"
import json, re, sys
d = sys.argv[1]
evs = []
for k, m in enumerate("ab"):
    meta = open("%s/set/%s/metadata" % (d, m)).read()
    clock = meta[meta.index("clock {"):]
    off = int(re.search(r"\boffset_s = (-?\d+);", clock).group(1)) * 10**9 + int(re.search(r"\boffset = (\d+);", clock).group(1))
    for i, l in enumerate(open("%s/%s.list" % (d, m))):
        f = l.split()
        evs.append((int(f[0]) + off, k, i, int(f[4]), f[5]))
evs.sort()                       # by wall-clock time; ties: member a first, then its order
got = [json.loads(l) for l in open(d + "/cat.json")]
assert len(got) == len(evs) > 1000, (len(got), len(evs))
for g, w in zip(got, evs):
    assert (g["time"], g["tid"], g["name"]) == (w[0], w[3], w[4]), (g, w)
# the two programs ran at the same time: their events interleave
members = [w[1] for w in evs]
switches = sum(1 for x, y in zip(members, members[1:]) if x != y)
assert switches >= 3, switches   # one program after the other would give 1
EOP
n=$(wc -l <"$_tmp/cat.json")
"$TRAWL" info "$_tmp/set" | grep -Eq "^software events: +$n on" || fail "index of the set: $n events expected"
# a member added makes the set's index stale
"$demo" --threads 1 --packets 5 --out "$_tmp/set/c" >/dev/null || fail "rec-demo c failed"
m=$(( n + $("$TRAWL" events list "$_tmp/set/c" | wc -l) ))
"$TRAWL" info "$_tmp/set" | grep -Eq "^software events: +$m on" || fail "index not rebuilt for the added member ($m events)"
# a directory holding neither a trace nor traces is refused plainly
mkdir "$_tmp/empty"
expect_exit 1 "$TRAWL" cat "$_tmp/empty"
finish
