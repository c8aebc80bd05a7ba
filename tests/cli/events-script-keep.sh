#!/bin/sh
# keep(e) (tools/trawl/events-script.c) over 1000 generated net:RX events
# (num = 0..999, cpu = num % 2, time = 1000 + 10 * num ns): what keep gives
# is what awk computes from the same numbers, and the same as when the script
# also defines computed fields (events list then calls it for those too); an
# error names its event and the events before it were kept or dropped as
# keep said; an event the other filters drop is never given to keep; --limit
# stops before an error further on; keep's result counts as Lua truth (nil
# and false drop, 0, "" and tables keep, no value drops); bounded work is
# not stopped and a runaway call after it is; an error stops summary's
# batches where it happened; summary equals --where.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/script-lib.sh"
[ "$("$TRAWL" events list "$T" | wc -l)" = 1000 ] || fail "the generated trace does not hold 1000 events"

# the same script with a computed field (nil: not shown), which makes
# events list call the script for fields too
with_field() { { cat "$1"; echo 'fields = { none = function(e) return nil end }'; } >"$1.u"; echo "$1.u"; }
# the nums of the events a run listed (--abs: "TIME cpu C tid 0 net:RX num=N")

# an error at num N, keep(num % 3 == 0) before it: exit 1, the kept
# events before N and nothing after, the error naming N's time and cpu
for n in 600 255 0 63 64 65 999; do
	printf 'function keep(e)\n  if e.num == %d then error("boom at " .. e.num) end\n  return e.num %% 3 == 0\nend\n' "$n" >"$_tmp/err$n.lua"
	"$TRAWL" events list "$T" --abs --script "$_tmp/err$n.lua" >"$_tmp/b$n" 2>"$_tmp/be$n"
	[ $? = 1 ] || fail "error at $n: exit status $?, expected 1"
	want=$(awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) if (i % 3 == 0) printf "%d ", i }')
	[ "$(nums "$_tmp/b$n")" = "$want" ] || fail "error at $n: kept $(nums "$_tmp/b$n" | head -c 200)"
	grep -q "err$n.lua:2: boom at $n (while processing net:RX at $((1000 + 10 * n)) ns, cpu $((n % 2)), thread 0)" \
		"$_tmp/be$n" || fail "error at $n: $(cat "$_tmp/be$n")"
	"$TRAWL" events list "$T" --abs --script "$(with_field "$_tmp/err$n.lua")" >"$_tmp/u$n" 2>"$_tmp/ue$n"
	cmp -s "$_tmp/b$n" "$_tmp/u$n" || fail "error at $n: with and without a field output differ"
	sed "s/err$n.lua.u:/err$n.lua:/" "$_tmp/ue$n" | cmp -s - "$_tmp/be$n" ||
		fail "error at $n: with and without a field messages differ: $(cat "$_tmp/ue$n")"
done

# keep is given only what the other filters pass: an error on any cpu 0
# event is not raised with --cpu 1 (nor with --where), as one by one
printf 'function keep(e)\n  if e.cpu == 0 then error("cpu 0 reached keep") end\n  return e.num %% 5 == 1\nend\n' >"$_tmp/cpu.lua"
expect_exit 0 "$TRAWL" events list "$T" --abs --cpu 1 --script "$_tmp/cpu.lua"
"$TRAWL" events list "$T" --abs --cpu 1 --script "$_tmp/cpu.lua" >"$_tmp/c1" 2>&1
[ "$(nums "$_tmp/c1")" = "$(awk 'BEGIN { for (i = 1; i < 1000; i += 2) if (i % 5 == 1) printf "%d ", i }')" ] ||
	fail "--cpu 1 with keep: $(head -3 "$_tmp/c1")"
expect_exit 0 "$TRAWL" events list "$T" --where 'cpu == 1' --script "$_tmp/cpu.lua"
expect_exit 1 "$TRAWL" events list "$T" --script "$_tmp/cpu.lua"

# --limit 5 stops reading before the error at 600 
"$TRAWL" events list "$T" --abs --limit 5 --script "$_tmp/err600.lua" >"$_tmp/lim" 2>"$_tmp/lime"
[ $? = 0 ] || fail "--limit 5 before an error: exit status $?: $(cat "$_tmp/lime")"
[ "$(nums "$_tmp/lim")" = "0 3 6 9 12 " ] || fail "--limit 5: $(nums "$_tmp/lim")"
[ -s "$_tmp/lime" ] && fail "--limit 5 before an error said: $(cat "$_tmp/lime")"

# keep's result as Lua truth: by num % 6, 0 nil, 1 false, 2 zero, 3 "",
# 4 a table, 5 no value; kept: 2, 3, 4
cat >"$_tmp/truth.lua" <<'EOL'
local r = { [0] = function() return nil end, function() return false end, function() return 0 end,
            function() return "" end, function() return {} end, function() end }
function keep(e) return r[e.num % 6]() end
EOL
want=$(awk 'BEGIN { for (i = 0; i < 1000; i++) if (i % 6 >= 2 && i % 6 <= 4) printf "%d ", i }')
"$TRAWL" events list "$T" --abs --script "$_tmp/truth.lua" >"$_tmp/t" || fail "keep returning values: exit $?"
[ "$(nums "$_tmp/t")" = "$want" ] || fail "keep's result as truth: $(nums "$_tmp/t" | head -c 200)"
"$TRAWL" events list "$T" --abs --script "$(with_field "$_tmp/truth.lua")" >"$_tmp/tu"
cmp -s "$_tmp/t" "$_tmp/tu" || fail "keep's result as truth: with and without a field differ"

# the runaway guard: calls doing bounded work (a loop of 20,000 turns, two
# VM instructions each, on every tenth event: below the limit however long
# each takes, so whatever the watchdog saw of them) are not stopped, and
# their verdicts are kept; a call that runs away after 600 of them is
# stopped at its line, naming its event, with what came before kept
cat >"$_tmp/work.lua" <<'EOL'
function keep(e)
  if e.num == 600 and STOP then while true do end end
  if e.num % 10 == 0 then
    local n = 0
    for i = 1, 20000 do n = n + i end
    return n == 200010000
  end
  return false
end
EOL
want=$(awk 'BEGIN { for (i = 0; i < 1000; i += 10) printf "%d ", i }')
"$TRAWL" events list "$T" --abs --script "$_tmp/work.lua" --script-limit 10000000 >"$_tmp/wk" 2>"$_tmp/wke" ||
	fail "bounded work: exit $?: $(cat "$_tmp/wke")"
[ "$(nums "$_tmp/wk")" = "$want" ] || fail "bounded work: kept $(nums "$_tmp/wk" | head -c 200)"
{ echo 'STOP = true'; cat "$_tmp/work.lua"; } >"$_tmp/run.lua"
"$TRAWL" events list "$T" --abs --script "$_tmp/run.lua" --script-limit 100000 >"$_tmp/rn" 2>"$_tmp/rne"
[ $? = 1 ] || fail "runaway after bounded work: exit status $?"
[ "$(nums "$_tmp/rn")" = "$(awk 'BEGIN { for (i = 0; i < 600; i += 10) printf "%d ", i }')" ] ||
	fail "runaway after bounded work: kept $(nums "$_tmp/rn" | head -c 200)"
grep -qF "run.lua:3: the script ran more than 100000 instructions on one event: stopped (--script-limit raises it) (while processing net:RX at 7000 ns, cpu 0, thread 0)" \
	"$_tmp/rne" || fail "runaway after bounded work: $(cat "$_tmp/rne")"
# and so in a summary with activities, where keep runs on the reading
# thread (the watchdog signals that thread): 600 events before it read
"$TRAWL" events summary "$T" --defs "$d/act.tdef" --threads 2 --script "$_tmp/run.lua" --script-limit 100000 \
	>"$_tmp/rs" 2>"$_tmp/rse"
[ $? = 1 ] || fail "summary, runaway: exit status $?"
[ "$(head -1 "$_tmp/rs")" = "events: 60 kept of 601 read, 0 lost, over 6000 ns" ] || fail "summary, runaway: $(head -1 "$_tmp/rs")"
grep -qF "run.lua:3: the script ran more than 100000 instructions on one event: stopped" "$_tmp/rse" ||
	fail "summary, runaway: $(cat "$_tmp/rse")"

# summary reads in batches of 64 with keep as part of the filter: an
# error at num N (either side of a batch's edge) stops the reading there
# as one by one would: N + 1 events read, the kept of those before N, the
# span of time up to N's
for n in 0 63 64 65 600 999; do
	"$TRAWL" events summary "$T" --script "$_tmp/err$n.lua" >"$_tmp/sb$n" 2>"$_tmp/sbe$n" ||
		[ $? = 1 ] || fail "summary, error at $n: exit status $?"
	want=$(awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) k += (i % 3 == 0); printf "events: %d kept of %d read, 0 lost, over %d ns", k, n + 1, 10 * n }')
	[ "$(head -1 "$_tmp/sb$n")" = "$want" ] || fail "summary, error at $n: $(head -1 "$_tmp/sb$n"), expected $want"
	grep -q "err$n.lua:2: boom at $n (while processing net:RX at $((1000 + 10 * n)) ns" "$_tmp/sbe$n" ||
		fail "summary, error at $n: $(cat "$_tmp/sbe$n")"
	# with activities, keep runs on the reading thread (--threads 2) and
	# the engine on the other: the same summary, message and exit status
	# as on one thread
	for th in 1 2; do
		"$TRAWL" events summary "$T" --defs "$d/act.tdef" --threads $th --script "$_tmp/err$n.lua" \
			>"$_tmp/sa$th" 2>"$_tmp/sae$th"
		echo "exit $?" >>"$_tmp/sa$th"
	done
	cmp -s "$_tmp/sa1" "$_tmp/sa2" && cmp -s "$_tmp/sae1" "$_tmp/sae2" ||
		fail "summary with activities, error at $n: --threads 1 and 2 differ: $(diff "$_tmp/sa1" "$_tmp/sa2" | head -5)"
	[ "$(head -1 "$_tmp/sa2")" = "$want" ] || fail "summary with activities, error at $n: $(head -1 "$_tmp/sa2")"
	grep -q "^exit 1$" "$_tmp/sa2" || fail "summary with activities, error at $n: $(tail -1 "$_tmp/sa2")"
done

# summary with keep = summary with the same --where
printf 'function keep(e) return e.num %% 7 == 2 or (e.cpu == 1 and e.time >= 5000) end\n' >"$_tmp/w.lua"
"$TRAWL" events summary "$T" --defs "$d/act.tdef" --script "$_tmp/w.lua" >"$_tmp/s1" 2>&1
"$TRAWL" events summary "$T" --defs "$d/act.tdef" --where 'num % 7 == 2 || (cpu == 1 && time >= 5000)' >"$_tmp/s2" 2>&1
cmp -s "$_tmp/s1" "$_tmp/s2" || fail "summary: keep and --where differ: $(diff "$_tmp/s1" "$_tmp/s2" | head -5)"
"$TRAWL" events summary "$T" --defs "$d/act.tdef" --script "$_tmp/w.lua" --threads 1 >"$_tmp/s3" 2>&1
cmp -s "$_tmp/s1" "$_tmp/s3" || fail "summary: keep on one thread and on two differ: $(diff "$_tmp/s1" "$_tmp/s3" | head -5)"
grep -q "^events: $(awk 'BEGIN { for (i = 0; i < 1000; i++) n += (i % 7 == 2 || (i % 2 == 1 && 10 * i >= 5000)); print n }') kept of 1000 read" "$_tmp/s1" ||
	fail "summary: $(head -1 "$_tmp/s1")"

# --time with no activities: keep is called only for the events in the
# window (it was called for every event, so one outside made list fail);
# grouping activities it is called for the others too, which may begin an
# activity that overlaps the window (docs/analysis.md, "Filters")
printf 'function keep(e)\n  if e.num == 900 then error("late " .. e.num) end\n  return true\nend\n' >"$_tmp/late.lua"
"$TRAWL" events list "$T" --script "$_tmp/late.lua" --time ..30ns >"$_tmp/late.out" 2>"$_tmp/late.err"
[ $? = 0 ] || fail "--time ..30ns: keep was called outside the window: $(cat "$_tmp/late.err")"
[ "$(nums "$_tmp/late.out")" = "0 1 2 3 " ] || fail "--time ..30ns: listed $(nums "$_tmp/late.out")"
expect_exit 0 "$TRAWL" events stats "$T" --script "$_tmp/late.lua" --time ..30ns
expect_exit 1 "$TRAWL" events summary "$T" --defs "$d/act.tdef" --script "$_tmp/late.lua" --time ..30ns
expect_stderr_has "late.lua:2: late 900" "$TRAWL" events summary "$T" --defs "$d/act.tdef" --script "$_tmp/late.lua" --time ..30ns
finish
