#!/bin/sh
# The memory bound of a Lua script (--script-memory, lib/analysis/sw-script.c)
# over 1000 generated net:RX events (num = 0..999): a script that keeps a
# 100,001-byte string per event is stopped, at the line that allocated, once
# it holds more than the bound, so with 16 MiB at most 16 MiB / 100,001 =
# 167 strings (fewer by what Lua itself holds), and twice as many with
# 32 MiB; the events before it are listed and the exit status is 1. Garbage
# does not count (a full collection comes first); one allocation past 1.5
# times the bound is refused and named; the top level, a coroutine and a
# call the runaway guard is already counting are bounded too; 0 means no
# bound, and the default (1024 MiB) lets 100 MB through.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/script-lib.sh"

# 0 .. n-1, as nums prints them
upto() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%d ", i }'; }
# run a script over the trace: $1 name, $2 script, then options
run() {
	name=$1 script=$2; shift 2
	"$TRAWL" events list "$T" --script "$script" "$@" >"$_tmp/$name.out" 2>"$_tmp/$name.err"
	echo $?
}

cat >"$_tmp/hold.lua" <<'EOF'
local t = {}
function keep(e)
  t[#t + 1] = string.rep("x", 100000) .. e.cpu
  return true
end
EOF
# how many events a bound lets through, checked against the bound
held() {
	rc=$(run "hold$1" "$_tmp/hold.lua" --script-memory "$1")
	[ "$rc" = 1 ] || fail "--script-memory $1: exit status $rc, expected 1"
	n=$(nums "$_tmp/hold$1.out" | wc -w)
	[ "$(nums "$_tmp/hold$1.out")" = "$(upto "$n")" ] || fail "--script-memory $1: not the first $n events"
	hi=$(($1 * 1048576 / 100001))
	[ "$n" -le "$hi" ] && [ "$n" -ge $((hi - 8)) ] ||
		fail "--script-memory $1: $n events through, expected $((hi - 8)) to $hi"
	grep -q "hold.lua:3: the script holds more than $1 MiB of memory: stopped (--script-memory raises it) (while processing net:RX at $((1000 + 10 * n)) ns, cpu $((n % 2)), thread 0)" \
		"$_tmp/hold$1.err" || fail "--script-memory $1: $(cat "$_tmp/hold$1.err")"
}
held 16
held 32

# no bound, and the default: all 1000 (100 MB held)
for opt in "--script-memory 0" ""; do
	# shellcheck disable=SC2086
	rc=$(run all "$_tmp/hold.lua" $opt)
	[ "$rc" = 0 ] || fail "hold with '$opt': exit status $rc: $(head -c 300 "$_tmp/all.err")"
	[ "$(nums "$_tmp/all.out" | wc -w)" = 1000 ] || fail "hold with '$opt': not every event listed"
done

# garbage: 200 KB an event, none of it kept, under a 16 MiB bound
cat >"$_tmp/garbage.lua" <<'EOF'
function keep(e)
  local s = string.rep("y", 200000) .. e.cpu
  return #s > 0
end
EOF
rc=$(run garbage "$_tmp/garbage.lua" --script-memory 16)
[ "$rc" = 0 ] || fail "garbage: exit status $rc: $(head -c 300 "$_tmp/garbage.err")"
[ "$(nums "$_tmp/garbage.out" | wc -w)" = 1000 ] || fail "garbage: not every event listed"

# one allocation of 100 MiB against 16: refused (Lua's memory error has no line)
printf 'function keep(e)\n  return #string.rep("z", 100 * 1024 * 1024) > 0\nend\n' >"$_tmp/big.lua"
rc=$(run big "$_tmp/big.lua" --script-memory 16)
[ "$rc" = 1 ] || fail "big: exit status $rc"
[ ! -s "$_tmp/big.out" ] || fail "big: events listed"
grep -q "big.lua: the script needs more than 16 MiB of memory: stopped (--script-memory raises it) (while processing net:RX at 1000 ns, cpu 0, thread 0)" \
	"$_tmp/big.err" || fail "big: $(cat "$_tmp/big.err")"

# the top level
printf 'local t = {}\nfor i = 1, 300 do t[i] = string.rep("top", 100000) end\nfunction keep(e) return true end\n' >"$_tmp/top.lua"
rc=$(run top "$_tmp/top.lua" --script-memory 16)
[ "$rc" = 1 ] || fail "top level: exit status $rc"
grep -q "top.lua:2: the script holds more than 16 MiB" "$_tmp/top.err" || fail "top level: $(cat "$_tmp/top.err")"

# a coroutine holding it: named at the line the caller goes on at (the
# allocator cannot tell which Lua thread is running, so the main one looks)
cat >"$_tmp/co.lua" <<'EOF'
local t = {}
local co = coroutine.wrap(function()
  while true do
    t[#t + 1] = string.rep("c", 100000)
    coroutine.yield()
  end
end)
function keep(e)
  co()
  return true
end
EOF
rc=$(run co "$_tmp/co.lua" --script-memory 16)
[ "$rc" = 1 ] || fail "coroutine: exit status $rc"
n=$(nums "$_tmp/co.out" | wc -w)
[ "$n" -le 167 ] && [ "$n" -ge 159 ] || fail "coroutine: $n events through"
grep -q "co.lua:10: the script holds more than 16 MiB" "$_tmp/co.err" || fail "coroutine: $(cat "$_tmp/co.err")"

# a long call (the guard counting it by then, its limit far off) that then
# holds too much: the memory bound stops it, at the line; with the default
# limit the guard stops it first, in the loop
cat >"$_tmp/long.lua" <<'EOF'
local t = {}
function keep(e)
  if e.num == 3 then
    local x = 0
    for i = 1, 100000000 do x = x + i end
    for i = 1, 1000 do t[i] = string.rep("g", 100000) end
  end
  return true
end
EOF
rc=$(run long "$_tmp/long.lua" --script-memory 16 --script-limit 1000000000)
[ "$rc" = 1 ] || fail "long call: exit status $rc"
[ "$(nums "$_tmp/long.out")" = "0 1 2 " ] || fail "long call: listed $(nums "$_tmp/long.out")"
grep -q "long.lua:6: the script holds more than 16 MiB of memory" "$_tmp/long.err" || fail "long call: $(cat "$_tmp/long.err")"
rc=$(run guard "$_tmp/long.lua" --script-memory 16)
[ "$rc" = 1 ] || fail "guarded long call: exit status $rc"
grep -q "long.lua:5: the script ran more than 10000000 instructions on one event" "$_tmp/guard.err" ||
	fail "guarded long call: $(cat "$_tmp/guard.err")"

# not a number of MiB, or a bound with no script: usage errors
expect_exit 2 "$TRAWL" events list "$T" --script "$_tmp/hold.lua" --script-memory 2G
for o in "--script-memory 8" "--script-limit 5" --unsafe-script; do
	# shellcheck disable=SC2086
	expect_exit 2 "$TRAWL" events list "$T" $o
	grep -q "is for a --script" "$_tmp/err" || fail "$o without --script: $(cat "$_tmp/err")"
done
finish
