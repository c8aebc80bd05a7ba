#!/bin/sh
# Lua scripts (--script): keep(e) gives what the same --where gives; a
# script's on_event activities equal the same span declared in .tdef;
# computed fields worked out by hand; errors name the script line and the
# event; the sandbox has no io, os, require, dofile, loadfile or load; a
# runaway script is stopped (in a call, at the top level, in a coroutine);
# Lua is not loaded without --script.
. "$TRAWL_SRC/tests/cli-lib.sh"
d="$TRAWL_SRC/tests/data/rec"
expect_exit 0 "$TRAWL" events import-bf "$d/act-dump.txt" --defs "$d/act.tdef" -o "$_tmp/tr"
T="$_tmp/tr"
if "$TRAWL" events list "$T" --script /dev/null 2>&1 | grep -q "built without Lua"; then
	skip "trawl built without Lua (liblua5.4-dev)"
fi

# keep(e) = --where
cat >"$_tmp/k.lua" <<'EOL'
function keep(e)
  return (e.num == 7) or (e.seq ~= nil and e.seq > 3) or (e.cpu == 1 and e.time >= 500)
end
EOL
"$TRAWL" events list "$T" --abs --script "$_tmp/k.lua" >"$_tmp/a" || fail "script filter failed"
"$TRAWL" events list "$T" --abs --where 'num == 7 || seq > 3 || (cpu == 1 && time >= 500)' >"$_tmp/b"
[ -s "$_tmp/a" ] || fail "script kept nothing"
cmp -s "$_tmp/a" "$_tmp/b" || fail "keep() and --where differ: $(diff "$_tmp/a" "$_tmp/b" | head -5)"

# print() goes to standard error, named by the script, never into the
# listing (or a CSV) on standard output
cat >"$_tmp/p.lua" <<'EOL'
n = 0
function keep(e)
  n = n + 1
  if n <= 2 then print("seen", n, nil, e.num == 7) end
  return (e.num == 7) or (e.seq ~= nil and e.seq > 3) or (e.cpu == 1 and e.time >= 500)
end
EOL
"$TRAWL" events list "$T" --abs --script "$_tmp/p.lua" >"$_tmp/pa" 2>"$_tmp/pe" || fail "print script failed: $(cat "$_tmp/pe")"
cmp -s "$_tmp/pa" "$_tmp/b" || fail "print() wrote into the listing: $(diff "$_tmp/pa" "$_tmp/b" | head -5)"
printf '%s\n' "$_tmp/p.lua: seen	1	nil	false" "$_tmp/p.lua: seen	2	nil	false" | cmp -s - "$_tmp/pe" ||
	fail "print() on standard error: $(cat "$_tmp/pe")"
[ "$(awk '{print $1}' "$_tmp/a" | tr '\n' ' ')" = "1100 1400 1500 1800 " ] || fail "keep(): $(cat "$_tmp/a")"

# computed fields: by hand, num * 2 for net events, the subsystem, the name
cat >"$_tmp/f.lua" <<'EOL'
fields = {
  twice = function(e) if e.num then return e.num * 2 end end,
  sub = function(e) return e.subsys end,
  ev = function(e) return e.event end,
}
EOL
"$TRAWL" events list "$T" --abs --script "$_tmp/f.lua" --event net:RX >"$_tmp/c" || fail "computed fields failed"
[ "$(sed 's/^ *//' "$_tmp/c" | head -1)" = "1100  cpu 0   tid 0       net:RX num=7 ev=RX sub=net twice=14" ] ||
	fail "computed fields: $(head -1 "$_tmp/c")"

# a script's activity = the same span from the definitions (pkt: RX..TX by num)
cat >"$_tmp/act.lua" <<'EOL'
function on_event(e)
  if e.name == "net:RX" then activity.open("pkt", e.num) end
  if e.name == "net:TX" then activity.close("pkt", e.num) end
end
EOL
printf 'activity pkt span { begin net:RX; end net:TX; key num; };\n' >"$_tmp/pkt.tdef"
"$TRAWL" events activities "$T" --abs --script "$_tmp/act.lua" 2>"$_tmp/e1" | sort >"$_tmp/s1" || fail "script activities"
"$TRAWL" events activities "$T" --abs --defs "$_tmp/pkt.tdef" 2>"$_tmp/e2" | sort >"$_tmp/s2"
cmp -s "$_tmp/s1" "$_tmp/s2" || fail "script activities differ from .tdef ones: $(diff "$_tmp/s1" "$_tmp/s2" | head)"
[ "$(wc -l <"$_tmp/s1")" = 4 ] || fail "script activities: $(cat "$_tmp/s1")"
grep -q "activity 'pkt': 1 ends with no begin" "$_tmp/e1" || fail "script activity's unmatched end not reported"
"$TRAWL" events summary "$T" --json --script "$_tmp/act.lua" 2>/dev/null |
	python3 -c 'import json,sys; a=json.load(sys.stdin)["activities"][0]; assert (a["name"],a["count"],a["total_ns"],a["open"])==("pkt",2,400,1), a' ||
	fail "summary of a script activity"

# errors: the script's line and the event
printf 'function keep(e)\n  return e.seq > 3\nend\n' >"$_tmp/bad.lua"
expect_exit 1 "$TRAWL" events list "$T" --script "$_tmp/bad.lua"
expect_stderr_has "bad.lua:2: attempt to compare number with nil (while processing sched:SWITCH at 1000 ns, cpu 0, thread 0)" \
	"$TRAWL" events list "$T" --script "$_tmp/bad.lua"
printf 'function keep(e)\n  return e.num >\nend\n' >"$_tmp/syn.lua"
expect_stderr_has "syn.lua:3: unexpected symbol near 'end'" "$TRAWL" events list "$T" --script "$_tmp/syn.lua"
printf 'function on_event(e)\n  activity.open()\nend\n' >"$_tmp/arg.lua"
expect_stderr_has "activity name expected" "$TRAWL" events activities "$T" --script "$_tmp/arg.lua"
# what it printed before the error stays (exit 1)
printf 'function keep(e)\n  if e.time > 300 then error("stop here") end\n  return true\nend\n' >"$_tmp/late.lua"
"$TRAWL" events list "$T" --abs --script "$_tmp/late.lua" >"$_tmp/l" 2>"$_tmp/le"
[ $? = 1 ] || fail "script error exit status"
[ "$(wc -l <"$_tmp/l")" = 7 ] || fail "events before the script error: $(cat "$_tmp/l")"
grep -q "late.lua:2: stop here (while processing ipc:SEND at 1320 ns, cpu 1, thread 0)" "$_tmp/le" || fail "late error: $(cat "$_tmp/le")"

# the sandbox
for w in io os require dofile loadfile load package debug; do
	printf 'assert(%s == nil, "%s is there")\n' "$w" "$w" >"$_tmp/sb.lua"
	expect_exit 0 "$TRAWL" events stats "$T" --script "$_tmp/sb.lua"
done
printf 'local f = io.open("/etc/hostname")\n' >"$_tmp/io.lua"
expect_stderr_has "io.lua:1: attempt to index a nil value (global 'io')" "$TRAWL" events stats "$T" --script "$_tmp/io.lua"
printf 'assert(os.getenv ~= nil)\nfunction keep(e) return true end\n' >"$_tmp/os.lua"
expect_exit 1 "$TRAWL" events stats "$T" --script "$_tmp/os.lua"
expect_exit 0 "$TRAWL" events stats "$T" --script "$_tmp/os.lua" --unsafe-script

# a runaway script is stopped, at its line, on the event it was on
printf 'function keep(e)\n  local n = 0\n  while true do n = n + 1 end\nend\n' >"$_tmp/loop.lua"
expect_exit 1 "$TRAWL" events list "$T" --script "$_tmp/loop.lua" --script-limit 100000
expect_stderr_has "loop.lua:3: the script ran more than 100000 instructions on one event: stopped" \
	"$TRAWL" events list "$T" --script "$_tmp/loop.lua" --script-limit 100000
expect_stderr_has "stopped (--script-limit raises it) (while processing sched:SWITCH at 1000 ns, cpu 0, thread 0)" \
	"$TRAWL" events list "$T" --script "$_tmp/loop.lua" --script-limit 100000
printf 'while true do end\n' >"$_tmp/top.lua"
expect_stderr_has "top.lua:1: the script ran more than" "$TRAWL" events list "$T" --script "$_tmp/top.lua" --script-limit 5000
# a coroutine is a Lua thread of its own: one that runs away is stopped too,
# at its line, whether made by coroutine.wrap or coroutine.create
printf 'function keep(e)\n  local f = coroutine.wrap(function()\n    while true do end\n  end)\n  return f()\nend\n' >"$_tmp/co.lua"
expect_stderr_has "co.lua:3: the script ran more than 100000 instructions on one event: stopped" \
	"$TRAWL" events list "$T" --script "$_tmp/co.lua" --script-limit 100000
printf 'local c = coroutine.create(function() while true do end end)\nassert(coroutine.resume(c))\n' >"$_tmp/co2.lua"
expect_exit 1 "$TRAWL" events stats "$T" --script "$_tmp/co2.lua" --script-limit 100000
grep -qF "co2.lua:1: the script ran more than 100000 instructions" "$_tmp/err" || fail "runaway coroutine.create: $(cat "$_tmp/err")"
# coroutine.wrap and create still behave as Lua's: values both ways, an
# error raised again at the caller's line, a dead coroutine
cat >"$_tmp/wrap.lua" <<'EOL'
local g = coroutine.wrap(function(a) local b = coroutine.yield(a + 1, "x") return b * 2 end)
local p, q = g(1)
assert(p == 2 and q == "x", "first resume")
assert(g(5) == 10, "second resume")
local f = coroutine.wrap(function() error("boom") end)
local ok, msg = pcall(function() return f() end)
assert(not ok and msg:find("wrap.lua:6: .*wrap.lua:5: boom"), msg)
assert(not pcall(g), "a dead coroutine resumed")
local c = coroutine.create(function(a) return a * 3 end)
local ok, v = coroutine.resume(c, 4)
assert(ok and v == 12 and coroutine.status(c) == "dead", "create")
EOL
expect_exit 0 "$TRAWL" events stats "$T" --script "$_tmp/wrap.lua"

# Lua is loaded only by a command given --script
LD_DEBUG=files "$TRAWL" events list "$T" 2>&1 >/dev/null | grep -q liblua && fail "Lua loaded without --script"
LD_DEBUG=files "$TRAWL" events list "$T" --script "$_tmp/k.lua" 2>&1 >/dev/null | grep -q liblua ||
	fail "Lua not loaded with --script (LD_DEBUG shows no dlopen)"
finish
