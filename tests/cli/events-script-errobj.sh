#!/bin/sh
# A script that raises an error whose value is not a string (error({}),
# error(nil), error(setmetatable({}, ...))) ended with the message "error"
# alone: neither the script nor what went wrong. As Lua's own interpreter
# does, the message names the kind of value, and here also the script.
. "$TRAWL_SRC/tests/cli-lib.sh"
printf 'subsystem net { event RX (u32 num) };\n' >"$_tmp/n.tdef"
printf '0 100 0000000000000001\n' >"$_tmp/d.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/n.tdef" -o "$_tmp/tr"
if "$TRAWL" events list "$_tmp/tr" --script /dev/null 2>&1 | grep -q "built without Lua"; then
	skip "trawl built without Lua (liblua5.4-dev)"
fi
for v in '{}:table' 'nil:nil' 'true:boolean' 'setmetatable({}, {__tostring = function() error("x") end}):table'; do
	printf 'function keep(e) error(%s) end\n' "${v%:*}" >"$_tmp/s.lua"
	expect_exit 1 "$TRAWL" events list "$_tmp/tr" --script "$_tmp/s.lua"
	grep -qF "s.lua: the script raised an error whose value is a ${v##*:}, not a message (while processing net:RX at 100 ns, cpu 0, thread 0)" "$_tmp/err" ||
		fail "error(${v%:*}): $(cat "$_tmp/err")"
done
# at the top level too; a string error keeps its line as before
printf 'error({})\n' >"$_tmp/t.lua"
expect_stderr_has "t.lua: the script raised an error whose value is a table, not a message" "$TRAWL" events list "$_tmp/tr" --script "$_tmp/t.lua"
printf 'function keep(e)\n  error("no")\nend\n' >"$_tmp/u.lua"
expect_stderr_has "u.lua:2: no (while processing net:RX" "$TRAWL" events list "$_tmp/tr" --script "$_tmp/u.lua"
finish
