#!/bin/sh
# A script's stop is final (lib/analysis/sw-script.c, stop_set): the
# runaway guard's and the memory bound's errors can be caught by the
# script (pcall, coroutine.resume), which went on, so a loop of caught
# stops ran for ever and a caught stop ended with exit 0. Now once stopped
# the script runs no instruction more, in any coroutine: each case below
# ends with exit 1, the first stop's message and the events before the
# one it was processing (1000 generated net:RX events, num = 0..999). And
# the memory bound is looked at after a call whose last allocation was
# in C (a tail call into C), at that event, not the next.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/script-lib.sh"

# case NAME WANT_NUMS MESSAGE [options]: the script is $_tmp/NAME.lua; it
# must end (timeout 60) with exit 1, listing WANT_NUMS, saying MESSAGE
case_() {
	name=$1 want=$2 msg=$3; shift 3
	timeout 60 "$TRAWL" events list "$T" --script "$_tmp/$name.lua" "$@" >"$_tmp/$name.out" 2>"$_tmp/$name.err"
	rc=$?
	[ "$rc" = 1 ] || fail "$name: exit status $rc, expected 1 (124: it ran on)"
	[ "$(nums "$_tmp/$name.out")" = "$want" ] || fail "$name: listed '$(nums "$_tmp/$name.out")', expected '$want'"
	grep -qF -- "$msg" "$_tmp/$name.err" || fail "$name: $(head -c 400 "$_tmp/$name.err")"
}

# a loop of caught runaways, at num 2
cat >"$_tmp/caught.lua" <<'EOF'
function keep(e)
  if e.num == 2 then
    while true do pcall(function() while true do end end) end
  end
  return true
end
EOF
case_ caught "0 1 " "caught.lua:3: the script ran more than 100000 instructions on one event: stopped (--script-limit raises it) (while processing net:RX at 1020 ns" --script-limit 100000

# the same inside a coroutine
cat >"$_tmp/cocaught.lua" <<'EOF'
function keep(e)
  if e.num == 4 then
    local co = coroutine.wrap(function() while true do pcall(function() while true do end end) end end)
    co()
  end
  return true
end
EOF
case_ cocaught "0 1 2 3 " "the script ran more than 100000 instructions on one event: stopped" --script-limit 100000

# one runaway caught, then returning as if nothing happened
printf 'function keep(e)\n  if e.num == 3 then pcall(function() while true do end end) end\n  return true\nend\n' >"$_tmp/once.lua"
case_ once "0 1 2 " "once.lua:2: the script ran more than 100000 instructions on one event" --script-limit 100000

# resume returns the stop as a value: still the stop
cat >"$_tmp/resume.lua" <<'EOF'
function keep(e)
  if e.num == 1 then
    local co = coroutine.create(function() while true do end end)
    local ok, err = coroutine.resume(co)
  end
  return true
end
EOF
case_ resume "0 " "resume.lua:3: the script ran more than 100000 instructions on one event" --script-limit 100000

# the memory bound caught by pcall, at num 0 (100 strings of 100 KB against 8 MiB)
cat >"$_tmp/memcaught.lua" <<'EOF'
local t = {}
function keep(e)
  pcall(function() for i = 1, 100 do t[#t + 1] = string.rep("z", 100000) .. i end end)
  return true
end
EOF
case_ memcaught "" "memcaught.lua:3: the script holds more than 8 MiB of memory: stopped" --script-memory 8

# a refused allocation caught by pcall ("not enough memory" to the script)
printf 'function keep(e)\n  if e.num == 6 then pcall(string.rep, "x", 1 << 30) end\n  return true\nend\n' >"$_tmp/refused.lua"
case_ refused "0 1 2 3 4 5 " "refused.lua: the script needs more than 16 MiB of memory: stopped (--script-memory raises it) (while processing net:RX at 1060 ns" --script-memory 16

# a tail call into C that takes it past the bound, at num 5: stopped at 5
cat >"$_tmp/tail.lua" <<'EOF'
store = {}
for i = 1, 1 << 20 do store[i] = i end
function keep(e)
  if e.num == 5 then return rawset(store, #store + 1, e.num) end
  return true
end
EOF
case_ tail "0 1 2 3 4 " "tail.lua: the script holds more than 24 MiB of memory: stopped (--script-memory raises it) (while processing net:RX at 1050 ns" --script-memory 24

# a runaway top level is not said to be on an event
printf 'while true do end\n' >"$_tmp/top.lua"
case_ top "" "top.lua:1: the script ran more than 1000 instructions at its top level: stopped" --script-limit 1000

# --script-limit 0 is no bound, as --script-memory 0 is (it was the default)
printf 'function keep(e)\n  if e.num == 2 then local x = 0 for i = 1, 20000000 do x = x + i end end\n  return true\nend\n' >"$_tmp/long.lua"
expect_exit 0 "$TRAWL" events list "$T" --script "$_tmp/long.lua" --script-limit 0
[ "$(nums "$_tmp/out" | wc -w)" = 1000 ] || fail "--script-limit 0: not every event listed"
expect_exit 1 "$TRAWL" events list "$T" --script "$_tmp/long.lua" --script-limit 1000000

# a long message is cut, not the event it names
printf 'function keep(e)\n  if e.num == 3 then error(string.rep("E", 100000)) end\n  return true\nend\n' >"$_tmp/long-msg.lua"
expect_exit 1 "$TRAWL" events list "$T" --script "$_tmp/long-msg.lua"
grep -q "EEE... (1000[0-9]* bytes) (while processing net:RX at 1030 ns, cpu 1, thread 0)" "$_tmp/err" || fail "long message: $(tail -c 200 "$_tmp/err")"

# after a stop, what was not read is said, and activities open then are
# open where the script stopped, not at the end of the trace
printf 'subsystem net { event RX (u32 num) };\nactivity rx span { begin net:RX; end net:RX; key num; };\n' >"$_tmp/rx.tdef"
printf 'function keep(e)\n  if e.num == 9 then error("nine") end\n  return true\nend\n' >"$_tmp/nine.lua"
expect_exit 1 "$TRAWL" events list "$T" --script "$_tmp/nine.lua"
grep -q "the script stopped at event 10 of the trace: the events after it were not read" "$_tmp/err" ||
	fail "not-read note: $(cat "$_tmp/err")"
printf 'function on_event(e)\n  activity.open("rx", e.num)\n  if e.num == 4 then error("four") end\nend\n' >"$_tmp/opener.lua"
expect_exit 1 "$TRAWL" events activities "$T" --defs "$_tmp/rx.tdef" --script "$_tmp/opener.lua"
grep -q "still open where the script stopped" "$_tmp/err" || fail "open activities: $(cat "$_tmp/err")"
grep -q "still open at the end of the trace" "$_tmp/err" && fail "open activities said to be at the end of the trace"

# a computed field that fails: the event it failed on is not listed (it
# was, without that field, as if whole)
printf 'fields = {\n  a = function(e) if e.num == 10 then error("boom") end return e.num end,\n}\n' >"$_tmp/field.lua"
expect_exit 1 "$TRAWL" events list "$T" --script "$_tmp/field.lua"
[ "$(nums "$_tmp/out")" = "0 1 2 3 4 5 6 7 8 9 " ] || fail "failed field: listed $(nums "$_tmp/out")"
tail -1 "$_tmp/out" | grep -q "num=9 a=9$" || fail "failed field: last line $(tail -1 "$_tmp/out")"
grep -q "field.lua:2: boom (while processing net:RX at 1100 ns" "$_tmp/err" || fail "failed field: $(cat "$_tmp/err")"
finish
