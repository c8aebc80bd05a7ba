#!/bin/sh
# What a computed field returns, as events list prints it: a string with a
# space, '=', a quote or a control character is printed in double quotes
# with C escapes, so that one event stays one line and 'NAME=VALUE' stays
# readable ('s=a b=c' read as two fields, a newline split the event in
# two); an empty string is "" (it was left out, as nil is); a table or a
# function is an error naming the field and the event (it was left out).
. "$TRAWL_SRC/tests/cli-lib.sh"
printf 'subsystem net { event RX (u32 num) };\n' >"$_tmp/n.tdef"
printf '0 100 0000000000000001\n' >"$_tmp/d.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/n.tdef" -o "$_tmp/tr"
if "$TRAWL" events list "$_tmp/tr" --script /dev/null 2>&1 | grep -q "built without Lua"; then
	skip "trawl built without Lua (liblua5.4-dev)"
fi
cat >"$_tmp/f.lua" <<'EOL'
fields = {
  a = function(e) return "plain_1.5:x/y-z+" end,
  b = function(e) return "a b=c" end,
  c = function(e) return 'q"x\n\t\\' .. string.char(1) end,
  d = function(e) return "" end,
  e = function(e) return nil end,
  f = function(e) return 7 end,
  g = function(e) return true end,
}
EOL
expect_exit 0 "$TRAWL" events list "$_tmp/tr" --script "$_tmp/f.lua"
[ "$(wc -l <"$_tmp/out")" = 1 ] || fail "one event, one line: $(cat "$_tmp/out")"
want='net:RX num=1 a=plain_1.5:x/y-z+ b="a b=c" c="q\"x\n\t\\\x01" d="" f=7 g=true'
got=$(sed 's/^.*tid 0 *//' "$_tmp/out")
[ "$got" = "$want" ] || fail "values: got '$got', want '$want'"
for v in '{}:table' 'print:function'; do
	printf 'fields = { t = function(e) return %s end }\n' "${v%:*}" >"$_tmp/t.lua"
	expect_exit 1 "$TRAWL" events list "$_tmp/tr" --script "$_tmp/t.lua"
	grep -qF "t.lua: fields.t returned a ${v##*:}, not a number, string or boolean (while processing net:RX at 100 ns" "$_tmp/err" ||
		fail "${v%:*}: $(cat "$_tmp/err")"
done
finish
