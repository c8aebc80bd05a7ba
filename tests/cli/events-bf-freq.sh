#!/bin/sh
# import-bf --freq HZ: a timestamp whose ns do not fit in 64 bits (ticks *
# 1e9 / HZ >= 2^64) is an error naming the dump's line, before anything is
# written; it wrapped around (20000000000 ticks at 1 Hz became
# 1553255926290448384 ns), exit status 0.
. "$TRAWL_SRC/tests/cli-lib.sh"
printf 'subsystem net { event RX (u32 num), event TX (u32 num) };\n' >"$_tmp/n.tdef"
printf '0 100 0000000000000001\n0 20000000000 0000000100000001\n' >"$_tmp/d.txt"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/n.tdef" --freq 1 -o "$_tmp/tr"
grep -q "d.txt:2: timestamp 20000000000 at --freq 1 is past 2^64 ns" "$_tmp/err" || fail "not named: $(cat "$_tmp/err")"
[ -e "$_tmp/tr" ] && fail "a trace was written"
# the largest that fits: 18446744073 ticks at 1 Hz = 18446744073000000000 ns
printf '0 100 0000000000000001\n0 18446744073 0000000100000001\n' >"$_tmp/e.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/e.txt" --defs "$_tmp/n.tdef" --freq 1 -o "$_tmp/tr2"
"$TRAWL" events list --abs "$_tmp/tr2" | awk '{print $1}' | tr '\n' ' ' >"$_tmp/got"
[ "$(cat "$_tmp/got")" = "100000000000 18446744073000000000 " ] || fail "times: $(cat "$_tmp/got")"
finish
