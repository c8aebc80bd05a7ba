#!/bin/sh
# A script's event table stores per event only the values whose names
# occur in the script; the rest come through its metatable. Checked here
# against --where and the listing: names built at run time, pairs, next,
# rawget, a store to a value not stored, a coroutine, a table kept from an
# earlier event, and a class made eager in the middle of a trace (many
# misses).
. "$TRAWL_SRC/tests/cli-lib.sh"
d="$TRAWL_SRC/tests/data/rec"
expect_exit 0 "$TRAWL" events import-bf "$d/act-dump.txt" --defs "$d/act.tdef" -o "$_tmp/tr"
T="$_tmp/tr"
if "$TRAWL" events list "$T" --script /dev/null 2>&1 | grep -q "built without Lua"; then
	skip "trawl built without Lua (liblua5.4-dev)"
fi
# none of the scripts below spells num, seq, who, tid or time as a word
same() { # name, script, --where
	"$TRAWL" events list "$T" --abs --script "$2" >"$_tmp/a" || fail "$1: script failed: $(cat "$_tmp/a")"
	"$TRAWL" events list "$T" --abs --where "$3" >"$_tmp/b"
	[ -s "$_tmp/b" ] || fail "$1: --where '$3' keeps nothing"
	cmp -s "$_tmp/a" "$_tmp/b" || fail "$1: keep() and --where differ: $(diff "$_tmp/a" "$_tmp/b" | head -5)"
}
printf 'local k = "n" .. "um"\nfunction keep(e) return e[k] == 7 or e[k] == 5 end\n' >"$_tmp/dyn.lua"
same "a field by a built name" "$_tmp/dyn.lua" 'num == 7 || num == 5'
printf 'local k = "ti" .. "me"\nfunction keep(e) return e[k] >= 500 end\n' >"$_tmp/time.lua"
same "time by a built name" "$_tmp/time.lua" 'time >= 500'
printf 'local k = "s" .. "eq"\nfunction keep(e) return rawget(e, k) == 3 end\n' >"$_tmp/raw.lua"
same "rawget" "$_tmp/raw.lua" 'seq == 3'
printf 'function keep(e)\n  for k, v in next, e do if k == "w" .. "ho" and v == 1 then return true end end\n  return false\nend\n' \
	>"$_tmp/next.lua"
same "next" "$_tmp/next.lua" 'who == 1'
# a store to a value not stored: the next events still see their own
printf 'local k = "n" .. "um"\nfunction keep(e) local v = e[k]; e[k] = -1; return v ~= nil and v > 7 end\n' >"$_tmp/store.lua"
same "a store to a value not stored" "$_tmp/store.lua" 'num > 7'
# the metamethods called in a coroutine work on its stack, not the main one
cat >"$_tmp/co.lua" <<'EOL'
local k = "n" .. "um"
function keep(e)
  return coroutine.wrap(function()
    local n = 0
    for _ in pairs(e) do n = n + 1 end
    e["w" .. "ho"] = -1
    return n > 5 and (e[k] == 7 or e[k] == 5)
  end)()
end
EOL
same "pairs and a store in a coroutine" "$_tmp/co.lua" 'num == 7 || num == 5'

# pairs lists every value: the keys of each class, by hand
cat >"$_tmp/pairs.lua" <<'EOL'
fields = { keys = function(e)
  local t = {}
  for k in pairs(e) do t[#t + 1] = k end
  table.sort(t)
  return table.concat(t, ",")
end }
EOL
"$TRAWL" events list "$T" --abs --script "$_tmp/pairs.lua" >"$_tmp/p" || fail "pairs: $(cat "$_tmp/p")"
grep -q 'net:RX num=7 keys="cpu,event,name,num,subsys,tid,time"$' "$_tmp/p" || fail "pairs on net:RX: $(head -3 "$_tmp/p")"
grep -q 'ipc:SEND seq=3 keys="cpu,event,name,seq,subsys,tid,time"$' "$_tmp/p" || fail "pairs on ipc:SEND: $(cat "$_tmp/p")"

# a table kept from an earlier event holds that event's values (as the
# class's table always did): the num of the last net:RX, from the listing
cat >"$_tmp/keep.lua" <<'EOL'
local rx
fields = { prev = function(e)
  if e.name == "net:RX" then rx = e end
  if rx then return rx["n" .. "um"] end
end }
EOL
"$TRAWL" events list "$T" --abs --script "$_tmp/keep.lua" | sed 's/ *prev=[0-9]*$//' >"$_tmp/k1"
"$TRAWL" events list "$T" --abs >"$_tmp/k2"
cmp -s "$_tmp/k1" "$_tmp/k2" || fail "kept table: the listing differs: $(diff "$_tmp/k1" "$_tmp/k2" | head -3)"
"$TRAWL" events list "$T" --abs --script "$_tmp/keep.lua" | awk '
	/net:RX num=/ { match($0, /num=[0-9]+/); last = substr($0, RSTART + 4, RLENGTH - 4) }
	{ want = last == "" ? "" : " prev=" last; got = match($0, / prev=[0-9]+$/) ? substr($0, RSTART) : ""
	  if (got != want) { print "line " NR ": " $0 " (want" want ")"; bad = 1 } }
	END { exit bad }' >"$_tmp/k3" || fail "kept table: $(head -3 "$_tmp/k3")"

# many events: a class whose metatable is called on most events (three
# names it lacks) is made eager part way through, its values unchanged
awk 'BEGIN { print "# generated"
	for (i = 0; i < 6000; i++) {
		t = 1000 + i * 10; c = i % 2
		if (i % 3 == 0) printf "%d %d 0000%012x\n", c, t, i % 97            # net:RX num
		else if (i % 3 == 1) printf "%d %d 00010000%08x\n", c, t, i % 5      # lock:ACQ who
		else printf "%d %d 00020000%08x\n", c, t, i % 7                      # ipc:SEND seq
	} }' >"$_tmp/big.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/big.txt" --defs "$d/act.tdef" -o "$_tmp/big"
cat >"$_tmp/miss.lua" <<'EOL'
local w = "w" .. "ho"
function keep(e)
  return (e.num ~= nil and e.num > 50) or e.seq == 3 or e.app == 1 or e[w] == 2
end
EOL
"$TRAWL" events list "$_tmp/big" --abs --script "$_tmp/miss.lua" >"$_tmp/a" || fail "misses: script failed"
"$TRAWL" events list "$_tmp/big" --abs --where 'num > 50 || seq == 3 || app == 1 || who == 2' >"$_tmp/b"
[ "$(wc -l <"$_tmp/b")" -gt 1000 ] || fail "misses: --where kept $(wc -l <"$_tmp/b")"
cmp -s "$_tmp/a" "$_tmp/b" || fail "misses: keep() and --where differ: $(diff "$_tmp/a" "$_tmp/b" | head -5)"
finish
