#!/bin/sh
# A script whose text holds no '[' is sealed (lib/analysis/sw-script-tables.c):
# its lazy tables have no __index, and a value it never writes is stored
# only when it changes. Checked against --where over 6000 generated events
# of three classes whose cpu runs in streaks of 50 (so most cpu values are
# the class's last): a name the class lacks reads nil; a name built at run
# time still reaches the value through string.gsub and rawget; a value the
# script overwrites (=, a list of targets, function e.x(), rawset, past a
# comment) is the event's own at the next event; and the old way (a '['
# in the text) agrees. A name built at run time through string.gsub works
# (its text is not sealed) and gsub's errors name the script's line.
. "$TRAWL_SRC/tests/cli-lib.sh"
d="$TRAWL_SRC/tests/data/rec"
awk 'BEGIN { print "# generated"
	for (i = 0; i < 6000; i++) {
		t = 1000 + i * 10; c = int(i / 50) % 2
		if (i % 3 == 0) printf "%d %d 0000%012x\n", c, t, i % 97            # net:RX num
		else if (i % 3 == 1) printf "%d %d 00010000%08x\n", c, t, i % 5      # lock:ACQ who
		else printf "%d %d 00020000%08x\n", c, t, i % 7                      # ipc:SEND seq
	} }' >"$_tmp/big.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/big.txt" --defs "$d/act.tdef" -o "$_tmp/big"
T="$_tmp/big"
if "$TRAWL" events list "$T" --script /dev/null 2>&1 | grep -q "built without Lua"; then
	skip "trawl built without Lua (liblua5.4-dev)"
fi
same() { # name, script, --where
	"$TRAWL" events list "$T" --abs --script "$2" >"$_tmp/a" 2>"$_tmp/ae" || fail "$1: script failed: $(cat "$_tmp/ae")"
	"$TRAWL" events list "$T" --abs --where "$3" >"$_tmp/b"
	[ "$(wc -l <"$_tmp/b")" -gt 30 ] || fail "$1: --where '$3' keeps $(wc -l <"$_tmp/b")"
	cmp -s "$_tmp/a" "$_tmp/b" || fail "$1: keep() and --where differ: $(diff "$_tmp/a" "$_tmp/b" | head -5)"
	"$TRAWL" events summary "$T" --defs "$d/act.tdef" --script "$2" >"$_tmp/sa" 2>&1
	"$TRAWL" events summary "$T" --defs "$d/act.tdef" --where "$3" >"$_tmp/sb" 2>&1
	cmp -s "$_tmp/sa" "$_tmp/sb" || fail "$1: summary with keep() and --where differ: $(diff "$_tmp/sa" "$_tmp/sb" | head -5)"
}
printf 'function keep(e)\n  return (e.num ~= nil and e.num > 50) or e.cpu == 0\nend\n' >"$_tmp/miss.lua"
same "misses" "$_tmp/miss.lua" 'num > 50 || cpu == 0'
# gsub looks the match up in e ("num" of an event without num stays
# "num"): a text naming gsub is not sealed, and gsub's errors keep the
# script's line and gsub's name
printf 'local k = "n" .. "um"\nfunction keep(e)\n  return (k:gsub(".+", e)) == "7" or (string.gsub(k, ".+", e)) == "9"\nend\n' \
	>"$_tmp/gsub.lua"
same "gsub" "$_tmp/gsub.lua" 'num == 7 || num == 9'
printf 'function keep(e)\n  return ("x"):gsub(".", e, "z") == 1\nend\n' >"$_tmp/gerr.lua"
expect_exit 1 "$TRAWL" events list "$T" --script "$_tmp/gerr.lua"
"$TRAWL" events list "$T" --script "$_tmp/gerr.lua" 2>&1 | grep -q "gerr.lua:2: bad argument #3 to 'gsub'" ||
	fail "gsub's error: $("$TRAWL" events list "$T" --script "$_tmp/gerr.lua" 2>&1 | tail -1)"
printf 'local k = "w" .. "ho"\nfunction keep(e) return rawget(e, k) == 3 end\n' >"$_tmp/raw.lua"
same "rawget" "$_tmp/raw.lua" 'who == 3'
# overwritten values: each event still sees its own cpu
printf 'function keep(e)\n  local c = e.cpu\n  e.cpu = 7\n  return c == 1\nend\n' >"$_tmp/w1.lua"
same "e.cpu = 7" "$_tmp/w1.lua" 'cpu == 1'
printf 'function keep(e)\n  local c = e.cpu\n  e.cpu, c = 7, c\n  return c == 1\nend\n' >"$_tmp/w2.lua"
same "e.cpu, c = " "$_tmp/w2.lua" 'cpu == 1'
printf 'function keep(e)\n  local c = e.cpu\n  function e.cpu() end\n  return c == 1\nend\n' >"$_tmp/w3.lua"
same "function e.cpu()" "$_tmp/w3.lua" 'cpu == 1'
printf 'function keep(e)\n  local c = e.cpu\n  rawset(e, "cpu", 7)\n  return c == 1\nend\n' >"$_tmp/w4.lua"
same "rawset" "$_tmp/w4.lua" 'cpu == 1'
printf 'function keep(e)\n  local c = e.cpu\n  e.cpu -- a comment\n   = 7\n  return c == 1 and e.cpu == 7\nend\n' >"$_tmp/w5.lua"
same "past a comment" "$_tmp/w5.lua" 'cpu == 1'
# written on some events only (lock:ACQ with who 2), read by the next of
# the class; and the same script with a '[' in a comment (not sealed:
# every value stored each event) agrees
printf 'function keep(e)\n  local ok = e.cpu == 1\n  if e.who == 2 then e.cpu = 7 end\n  return ok\nend\n' >"$_tmp/w6.lua"
same "written on some events" "$_tmp/w6.lua" 'cpu == 1'
{ cat "$_tmp/w6.lua"; echo '-- t[1]'; } >"$_tmp/w6b.lua"
same "written on some events, not sealed" "$_tmp/w6b.lua" 'cpu == 1'
finish
