#!/bin/sh
# Software events through the shared reader (trawl cat / stats): a CTF
# trace of the recorder checked event by event against babeltrace2 (the
# CTF reference reader), a Barrelfish dump against the listing worked out
# by hand (tests/cli/events-import-bf.sh has the same values), a damaged
# stream read up to the damage.
. "$TRAWL_SRC/tests/cli-lib.sh"
d="$TRAWL_SRC/tests/data/rec"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"

# Barrelfish dump, named by the .tdef: merged by time across cores (core 1
# moved by its offset 25), line numbers of the dump, ticks as the unit
cat >"$_tmp/want" <<'EOW'
L5 cpu0 t=1000cyc sw kernel:CSWITCH tid=0 to_domain=5
L6 cpu1 t=1035cyc sw kernel:IRQ tid=0 vector=17
L7 cpu0 t=1100cyc sw net:RX tid=0 arg=0
L8 cpu1 t=1225cyc sw kernel:SYSCALL tid=0 number=7
L9 cpu0 t=1300cyc sw subsys234:event3 tid=0 arg=1
EOW
"$TRAWL" cat --defs "$d/bf.tdef" "$d/bf-dump.txt" >"$_tmp/out" || fail "cat of a Barrelfish dump failed"
diff -u "$_tmp/want" "$_tmp/out" || fail "Barrelfish dump events differ"
# without definitions every id gets the made-up name import-bf gives it
"$TRAWL" cat "$d/bf-dump.txt" | sed -n 1p | grep -qx "L5 cpu0 t=1000cyc sw subsys0:event0 tid=0 arg=5" ||
	fail "undefined Barrelfish event not named subsysS:eventE"
"$TRAWL" stats --no-timing --defs "$d/bf.tdef" "$d/bf-dump.txt" >"$_tmp/st" || fail "stats of a dump failed"
grep -qx "  sw          5" "$_tmp/st" || fail "stats: 5 software events"
grep -qx "time: 1000 .. 1300 cyc" "$_tmp/st" || fail "stats: dump time range"
grep -Eqx "  kernel:IRQ +1" "$_tmp/st" || fail "stats: per-name count"
# a bad dump line: file, line and column, exit 1
printf '0 1000 0000000000000005\n1 1010 00000000000000zz\n' >"$_tmp/bad.txt"
expect_exit 1 "$TRAWL" cat "$_tmp/bad.txt"
expect_stderr_has "bad.txt:2:" "$TRAWL" cat "$_tmp/bad.txt"
# a missing definitions file is named
expect_stderr_has "nonexistent.tdef" "$TRAWL" cat --defs "$_tmp/nonexistent.tdef" "$d/bf-dump.txt"

[ -x "$demo" ] || skip "rec-demo not built"
"$demo" --threads 3 --packets 200 --out "$_tmp/tr" >/dev/null || fail "rec-demo failed"
"$TRAWL" cat --json "$_tmp/tr" >"$_tmp/cat.json" || fail "cat of a CTF trace failed"
# the metadata file names the same trace
"$TRAWL" cat --json "$_tmp/tr/metadata" | cmp -s - "$_tmp/cat.json" || fail "cat TRACE/metadata differs from cat TRACE"
if command -v babeltrace2 >/dev/null 2>&1; then
	babeltrace2 --clock-cycles "$_tmp/tr" >"$_tmp/bt" || fail "babeltrace2 failed"
	python3 - "$_tmp/cat.json" "$_tmp/bt" <<'EOP' || fail "trawl cat and babeltrace2 disagree"
import json, re, sys
mine = []
prev = -1
for l in open(sys.argv[1]):
    e = json.loads(l)
    assert e["kind"] == "sw" and e["unit"] == "ns", l
    assert e["time"] >= prev, "not merged by time: " + l
    prev = e["time"]
    mine.append((e["time"], e["cpu"], e["tid"], e["name"], tuple(sorted(e["fields"].items()))))
ref = []
pat = re.compile(r"^\[(\d+)\] \(\S+\) \S+ (\S+): \{ cpu_id = (\d+), thread_id = (\d+) \}(?:, \{ (.*) \})?$")
for l in open(sys.argv[2]):
    m = pat.match(l.rstrip("\n"))
    assert m, "unparsed babeltrace2 line: " + l
    f = {}
    if m.group(5):
        for kv in m.group(5).split(", "):
            k, v = kv.split(" = ")
            f[k] = int(v)
    ref.append((int(m.group(1)), int(m.group(3)), int(m.group(4)), m.group(2), tuple(sorted(f.items()))))
assert len(mine) == len(ref) > 1000, (len(mine), len(ref))
assert sorted(mine) == sorted(ref), [x for x in zip(sorted(mine), sorted(ref)) if x[0] != x[1]][:3]
EOP
fi
"$TRAWL" events stats "$_tmp/tr" >"$_tmp/es" || fail "events stats failed"
"$TRAWL" stats --no-timing "$_tmp/tr" >"$_tmp/st" || fail "stats of a CTF trace failed"
total=$(sed -n 's/^events: //p' "$_tmp/es")
grep -qx "  sw          $total" "$_tmp/st" || fail "stats: $total software events expected"
tx=$(awk '$4 == "net:TX" { print $3 }' "$_tmp/es")
grep -Eqx "  net:TX +$tx" "$_tmp/st" || fail "stats: net:TX count $tx expected"

# damage: a stream cut inside an event; the events before it are printed,
# the file and offset named, exit 1
s=$(ls "$_tmp/tr" | grep '^stream-' | tail -1)
size=$(wc -c <"$_tmp/tr/$s")
head -c $((size - 3)) "$_tmp/tr/$s" >"$_tmp/cut" && cat "$_tmp/cut" >"$_tmp/tr/$s"
expect_exit 1 "$TRAWL" cat "$_tmp/tr"
expect_stderr_has "$s" "$TRAWL" cat "$_tmp/tr"
n=$("$TRAWL" cat "$_tmp/tr" 2>/dev/null | wc -l)
[ "$n" -gt $((total / 2)) ] && [ "$n" -lt "$total" ] || fail "damaged trace: $n of $total events printed"
finish
