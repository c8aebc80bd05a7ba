#!/bin/sh
# The browser's 't' with a unit: "2us" on a trace in ns (kept in ps) goes
# where --time 2000000 does; "5clk" there is refused, never converted.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/browse-lib.sh"
T="$_tmp/t.tarmac"
printf '%s\n' '10 ns IT (1) 00008000 d503201f O EL0t_n : NOP' 'R X0 0000000000000001' \
	'2 us IT (2) 00008004 d503201f O EL0t_n : NOP' 'R X0 0000000000000002' >"$T"
"$TRAWL" index "$T" >/dev/null || fail "index failed"
start_browse 120 30 "$T"
wait_status "line 1  ev 0/2  time 10000 ps"
keys t; type_line 2us
wait_status "line 3  ev 1/2  time 2000000 ps"
keys t; type_line 1.999999us
wait_status "line 1  ev 0/2"
keys t; type_line 2000000
wait_status "line 3  ev 1/2"
keys t; type_line 5clk
wait_for "time '5clk' counts clk, but this trace's times are in ps"
keys q
wait_for "browse exited 0"
finish
