#!/bin/sh
# --cpu and --thread numbers past 64 bits are a usage error at the value:
# they were clamped to 2^64-1, so '--cpu 0-18446744073709551616' kept
# everything and '--thread 99999999999999999999' nothing, exit status 0.
. "$TRAWL_SRC/tests/cli-lib.sh"
printf 'subsystem net { event RX (u32 num) };\n' >"$_tmp/n.tdef"
printf '0 100 0000000000000001\n1 150 0000000000000002\n' >"$_tmp/d.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/n.tdef" -o "$_tmp/tr"
for f in '--cpu 18446744073709551616' '--cpu 0-18446744073709551616' '--thread 99999999999999999999' '--cpu 1,99999999999999999999-3'; do
	expect_exit 2 "$TRAWL" events list "$_tmp/tr" $f
	grep -q -- "${f%% *}: number too large in" "$_tmp/err" || fail "$f: $(cat "$_tmp/err")"
done
# the largest value is still a value
expect_exit 0 "$TRAWL" events list "$_tmp/tr" --cpu 1-18446744073709551615
[ "$(wc -l <"$_tmp/out")" = 1 ] || fail "--cpu 1-max: $(cat "$_tmp/out")"
finish
