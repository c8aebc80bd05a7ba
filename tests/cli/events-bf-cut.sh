#!/bin/sh
# A Barrelfish dump that ends inside a line (no newline after the last
# event, as 'head -c' or a full disk leaves it): the raw word is hex of any
# width, so '0 200 00000001000000' (cut from 0000000100000001) read as
# net:RX num=16777216 in place of net:TX num=1, with exit status 0. That
# line is not read: the events before it are kept (cat, stats, import-bf),
# and the dump's name and the line are reported, exit status 1.
. "$TRAWL_SRC/tests/cli-lib.sh"
printf 'subsystem net { event RX (u32 num), event TX (u32 num) };\n' >"$_tmp/n.tdef"
printf '# a dump\n0 100 0000000000000001\n1 150 0000000000000002\n0 200 00000001000000' >"$_tmp/cut.txt"
expect_exit 1 "$TRAWL" cat --defs "$_tmp/n.tdef" "$_tmp/cut.txt"
grep -q "cut.txt:4:1: the dump ends inside its last line" "$_tmp/err" || fail "cat: cut line not reported: $(cat "$_tmp/err")"
printf 'L2 cpu0 t=100cyc sw net:RX tid=0 num=1\nL3 cpu1 t=150cyc sw net:RX tid=0 num=2\n' | diff -u - "$_tmp/out" ||
	fail "cat: the events before the cut differ"
expect_exit 1 "$TRAWL" stats --defs "$_tmp/n.tdef" "$_tmp/cut.txt"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/cut.txt" --defs "$_tmp/n.tdef" -o "$_tmp/tr"
grep -q "cut.txt:4:1: the dump ends inside its last line" "$_tmp/err" || fail "import-bf: cut line not reported: $(cat "$_tmp/err")"
"$TRAWL" events list --abs "$_tmp/tr" >"$_tmp/list" 2>&1 || fail "the imported trace does not read: $(cat "$_tmp/list")"
awk '{print $1, $3, $6, $7}' "$_tmp/list" >"$_tmp/got"
printf '100 0 net:RX num=1\n150 1 net:RX num=2\n' | diff -u - "$_tmp/got" || fail "import-bf: the events before the cut differ"
# the same dump whole, and one whose last line is a comment or blank
# without a newline, read entirely with exit status 0
printf '# a dump\n0 100 0000000000000001\n1 150 0000000000000002\n0 200 0000000100000001\n' >"$_tmp/whole.txt"
expect_exit 0 "$TRAWL" cat --defs "$_tmp/n.tdef" "$_tmp/whole.txt"
grep -q "L4 cpu0 t=200cyc sw net:TX tid=0 num=1" "$_tmp/out" || fail "whole dump: last event missing"
for tail in '# end' '  '; do
	printf '0 100 0000000000000001\n%s' "$tail" >"$_tmp/t.txt"
	expect_exit 0 "$TRAWL" cat --defs "$_tmp/n.tdef" "$_tmp/t.txt"
done
finish
