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
EOP
# members whose events interleave whatever the scheduling: two Barrelfish
# dumps imported as traces, times chosen so that they alternate, with
# ties (the member that sorts first comes first) and a core offset
mkdir "$_tmp/bfset"
printf '0 100 0000000000000001\n0 300 0000000000000002\n1 300 0000000000000003\n0 500 0000000000000004\n' >"$_tmp/x.txt"
printf '# core 0 offset 50\n0 150 0000000000000005\n0 250 0000000000000006\n0 500 0000000000000007\n' >"$_tmp/y.txt"
"$TRAWL" events import-bf "$_tmp/x.txt" -o "$_tmp/bfset/x" || fail "import x"
"$TRAWL" events import-bf "$_tmp/y.txt" -o "$_tmp/bfset/y" || fail "import y"
# worked out by hand: y's times move by 50 (its core 0 offset); the traces'
# clock offsets are equal (import-bf declares 0), so the merge is by these
"$TRAWL" cat "$_tmp/bfset" | sed 's/^L0 \(cpu[0-9]*\) t=\([0-9]*\)ns sw [^ ]* tid=0 arg=\([0-9]*\)$/\1 \2 \3/' >"$_tmp/bfset.out"
printf 'cpu0 100 1\ncpu0 200 5\ncpu0 300 2\ncpu1 300 3\ncpu0 300 6\ncpu0 500 4\ncpu0 550 7\n' >"$_tmp/bfset.want"
diff -u "$_tmp/bfset.want" "$_tmp/bfset.out" || fail "set of imported dumps not merged by time"
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
