#!/bin/sh
# What a script declares and trawl cannot use is an error naming the
# script, not silently left out: keep or on_event that is not a function,
# fields that is not a table, an entry of fields that is not NAME =
# function, a name of 48 characters or more, more than 64 of them, or the
# name of an event's own field (events list printed 'num=1 num=99', two
# values for one name). Each was ignored with exit status 0.
. "$TRAWL_SRC/tests/cli-lib.sh"
printf 'subsystem net { event RX (u32 num), event TX (u32 num) };\n' >"$_tmp/n.tdef"
printf '0 100 0000000000000001\n0 150 0000000100000002\n' >"$_tmp/d.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/n.tdef" -o "$_tmp/tr"
if "$TRAWL" events list "$_tmp/tr" --script /dev/null 2>&1 | grep -q "built without Lua"; then
	skip "trawl built without Lua (liblua5.4-dev)"
fi
long=$(printf 'f%.0s' $(seq 1 48))
many=$(for i in $(seq 1 65); do printf 'f%d = function(e) return 1 end, ' $i; done)
n=0
while IFS='|' read -r code msg; do
	n=$((n + 1))
	printf '%s\n' "$code" >"$_tmp/s$n.lua"
	expect_exit 1 "$TRAWL" events list "$_tmp/tr" --script "$_tmp/s$n.lua"
	grep -qF "s$n.lua: $msg" "$_tmp/err" || fail "$code: $(cat "$_tmp/err")"
done <<EOC
keep = 5|'keep' is a number, not a function
on_event = "x"|'on_event' is a string, not a function
fields = 5|'fields' is a number, not a table of functions
fields = { a = 1 }|fields.a is a number, not a function
fields = { function(e) return 1 end }|fields: a key that is not a name (a number)
fields = { $long = function(e) return 1 end }|fields.$long: the name is longer than 47 characters
fields = { $many }|fields: more than 64 of them
fields = { num = function(e) return 99 end }|fields.num: events net:RX and others have a field of that name
EOC
# what is right still runs: nil for each, and a computed field of a new name
printf 'fields = { twice = function(e) return e.num * 2 end }\n' >"$_tmp/ok.lua"
expect_exit 0 "$TRAWL" events list "$_tmp/tr" --script "$_tmp/ok.lua"
grep -q "net:RX num=1 twice=2$" "$_tmp/out" || fail "computed field: $(cat "$_tmp/out")"
finish
