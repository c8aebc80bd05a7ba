#!/bin/sh
# The activity engine and the filters on random traces (events-random.py:
# several threads migrating between cpus, spans keyed by thread, by cpu
# and by a field that crosses threads, nesting, ends with no begin, begins
# never ended; seeds 7 and 8 with hundreds and thousands of waiter values,
# so the table of field keys sweeps its emptied entries) against
# independent truths: the activities and summary (read on one thread and
# on two) against the python replay over `events list` (events-replay.py); the
# events a --where keeps, and a Lua keep(e) of the same condition,
# against the condition counted in python over the same list.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_SRC/examples/rec-demo"
lua=1
"$TRAWL" events list "$TRAWL_SRC/tests/data/rec" --script /dev/null 2>&1 | grep -q "built without Lua" && lua=0
printf 'function keep(e)\n  return (e.len ~= nil and e.len > 100) or e.cpu == 0\nend\n' >"$_tmp/k.lua"
cat >"$_tmp/more.tdef" <<'EOF'
activity handoff message { send lock:ACQUIRE; recv lock:RELEASE; key waiter; };
activity rx_len state { set net:RX; value len; };
activity core span { begin net:RX; end net:TX; key cpu; };
activity held span { begin lock:ACQUIRE; end lock:RELEASE, net:DROP; key thread; };
EOF
for seed in 1 2 3 4 5 6 7 8; do
	T="$_tmp/r$seed"
	waiters=4
	[ $seed = 7 ] && waiters=300
	[ $seed = 8 ] && waiters=3000
	python3 "$TRAWL_SRC/tests/cli/events-random.py" "$T" "$seed" $((seed * 2000)) $waiters || fail "seed $seed: generator"
	"$TRAWL" events list --abs "$T" >"$T.list" || fail "seed $seed: list"
	"$TRAWL" events activities --json "$T" --defs "$ex/analysis.tdef" >"$T.act" 2>/dev/null || fail "seed $seed: activities"
	"$TRAWL" events summary --json "$T" --defs "$ex/analysis.tdef" >"$T.sum" 2>/dev/null || fail "seed $seed: summary"
	python3 "$TRAWL_SRC/tests/cli/events-replay.py" "$T.list" "$T.act" "$T.sum" >/dev/null ||
		fail "seed $seed: activities differ from the replay"
	# read on a thread of its own (--threads 2) or not: both against the replay
	for th in 1 2; do
		"$TRAWL" events summary --json "$T" --defs "$ex/analysis.tdef" --threads $th >"$T.sum$th" 2>/dev/null ||
			fail "seed $seed: summary --threads $th"
		python3 "$TRAWL_SRC/tests/cli/events-replay.py" "$T.list" "$T.act" "$T.sum$th" >/dev/null ||
			fail "seed $seed: summary --threads $th differs from the replay"
	done
	for fmt in "" --csv; do
		"$TRAWL" events summary $fmt "$T" --defs "$ex/analysis.tdef" --where 'len > 100 || cpu == 0' --threads 1 >"$T.f1" 2>&1
		"$TRAWL" events summary $fmt "$T" --defs "$ex/analysis.tdef" --where 'len > 100 || cpu == 0' --threads 2 >"$T.f2" 2>&1
		cmp -s "$T.f1" "$T.f2" || fail "seed $seed: summary $fmt --where differs between --threads 1 and 2"
	done
	# the kinds analysis.tdef lacks (a message, a state with a value, a
	# span keyed by cpu and nested) and a --max-open the trace overflows:
	# the two-thread summary takes the engine's lean steps, the one-thread
	# one its general steps, which must agree
	for mo in "" "--max-open 3"; do
		"$TRAWL" events summary --json "$T" --defs "$_tmp/more.tdef" $mo --threads 1 >"$T.m1" 2>&1
		"$TRAWL" events summary --json "$T" --defs "$_tmp/more.tdef" $mo --threads 2 >"$T.m2" 2>&1
		cmp -s "$T.m1" "$T.m2" || fail "seed $seed: summary $mo (message, value state) differs between --threads 1 and 2"
		grep -q '"count"' "$T.m1" || fail "seed $seed: summary $mo: no counts in $(head -c 300 "$T.m1")"
	done
	want=$(awk '{ k = ($3 == 0); for (i = 7; i <= NF; i++) if ($i ~ /^len=/ && substr($i, 5) + 0 > 100) k = 1; n += k } END { print n + 0 }' "$T.list")
	"$TRAWL" events summary --json "$T" --defs "$ex/analysis.tdef" --where 'len > 100 || cpu == 0' >"$T.w" 2>/dev/null
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events_kept"])' "$T.w")
	[ "$got" = "$want" ] || fail "seed $seed: --where kept $got events, awk counts $want"
	# the kept events per unit of time, against the same count in python
	# (buckets of the summary's final width from the first kept event)
	python3 - "$T.list" "$T.w" <<'PY' || fail "seed $seed: --where rate differs from the list's"
import json, sys
s = json.load(open(sys.argv[2]))
times = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6:
        continue
    lens = [int(x[4:]) for x in f[6:] if x.startswith('len=')]
    if int(f[2]) == 0 or (lens and lens[0] > 100):
        times.append(int(f[0]))
w = s["rate_width_ns"]
want = [0] * len(s["rate"])
for t in times:
    want[(t - times[0]) // w] += 1
sys.exit(0 if want == s["rate"] else 1)
PY
	if [ $lua = 1 ]; then
		"$TRAWL" events summary --json "$T" --defs "$ex/analysis.tdef" --script "$_tmp/k.lua" >"$T.l" 2>/dev/null
		cmp -s "$T.l" "$T.w" || fail "seed $seed: the Lua keep(e) and --where summaries differ"
	fi
done
finish
