#!/bin/sh
# activity.open/close(NAME, KEY): a key that is not an integer (a string,
# a table, 1.5, 2^70) was taken as 0, so every such key was the same one:
# activity.open("conn", "a") ... activity.close("conn", "b") closed "a"'s
# span, with exit status 0. It is an error naming the script's line, as
# the other errors of activity.open and close now do too.
. "$TRAWL_SRC/tests/cli-lib.sh"
printf 'subsystem net { event RX (u32 num), event TX (u32 num) };\n' >"$_tmp/n.tdef"
printf '0 100 0000000000000001\n0 150 0000000100000002\n' >"$_tmp/d.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/n.tdef" -o "$_tmp/tr"
if "$TRAWL" events list "$_tmp/tr" --script /dev/null 2>&1 | grep -q "built without Lua"; then
	skip "trawl built without Lua (liblua5.4-dev)"
fi
for k in '"a":a string' '{}:a table' '1.5:1.5' '2^70:1.1805916207174e+21' 'true:a boolean'; do
	printf 'function on_event(e)\n  activity.open("x", %s)\nend\n' "${k%:*}" >"$_tmp/s.lua"
	expect_exit 1 "$TRAWL" events activities "$_tmp/tr" --script "$_tmp/s.lua"
	grep -qF "s.lua:2: activity key must be an integer, not ${k##*:} (while processing net:RX at 100 ns" "$_tmp/err" ||
		fail "key ${k%:*}: $(cat "$_tmp/err")"
done
printf 'function on_event(e)\n  activity.close(nil)\nend\n' >"$_tmp/n.lua"
expect_stderr_has "n.lua:2: activity name expected (a string)" "$TRAWL" events activities "$_tmp/tr" --script "$_tmp/n.lua"
# integers, numeric strings (Lua converts them) and whole floats are keys;
# by hand: RX (num 1) opens key 1, TX (num 2) closes key "2"'s span: none,
# so one open span keyed 1 and one close with no begin
cat >"$_tmp/ok.lua" <<'EOL'
function on_event(e)
  if e.name == "net:RX" then activity.open("x", 1.0) else activity.close("x", "2") end
end
EOL
expect_exit 0 "$TRAWL" events activities "$_tmp/tr" --script "$_tmp/ok.lua" --abs
awk 'NR > 1 {print $1, $3, $7, $11}' "$_tmp/out" >"$_tmp/got"
printf 'x 1 100 open\n' | diff -u - "$_tmp/got" || fail "integer keys"
grep -q "activity 'x': 1 ends with no begin (the first at 150 ns)" "$_tmp/err" || fail "close of key 2: $(cat "$_tmp/err")"
finish
