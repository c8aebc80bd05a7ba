#!/bin/sh
# An exception taken as the trace ends (no instruction of its handler
# traced) is an activation with no instructions: its lines and time are the
# exception's own line and time, not "lines 0-0 time 0-0" (calltree and the
# index-based mode say the same).
. "$TRAWL_SRC/tests/cli-lib.sh"
printf '1 clk IT (1) 00008000 d503201f O EL3h_s : NOP\n2 clk IT (2) 00008004 d503201f O EL3h_s : NOP\n3 clk E 00000000 00000001 CoreEvent_IRQ\n' >"$_tmp/e.tarmac"
for mode in "" --use-index; do
	# shellcheck disable=SC2086
	expect_exit 0 "$TRAWL" calltree $mode "$_tmp/e.tarmac"
	grep -q "^  \[CoreEvent_IRQ\] @0x0  lines 3-3  time 3-3clk  insns 0/0  from 0x8004 line 3  \[exception\]  \[unfinished\]$" "$_tmp/out" ||
		fail "calltree $mode: $(cat "$_tmp/out")"
done
finish
