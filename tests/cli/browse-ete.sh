#!/bin/sh
# trawl browse on an ETE snapshot (a source without text): each row shows
# the event as the index has it. The rows are worked out by hand: program
# b.ne / nop / nop / ret at 0x1000, trace N (b.ne not taken) E (ret to
# 0x1000 by the address packet) N: 1000 1004 1008 100c 1000.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/browse-lib.sh"
. "$TRAWL_SRC/tests/ete-snap.sh"
d="$_tmp/snap"
mksnap "$d" 000000000000000000000080""0100""04850008000000000000""11""f6f79a00080000f6 \
	61000054""1f2003d5""1f2003d5""c0035fd6 0x0
"$TRAWL" index "$d" >/dev/null 2>&1 || fail "index of the snapshot failed"
start_browse 100 12 "$d"
wait_for "ev 0/5"
wait_for "1 L1 cpu0 t=0clk insn A64 pc=1000 enc=54000061"
wait_for "2 L2 cpu0 t=0clk insn A64 pc=1004 enc=d503201f"
wait_for "4 L4 cpu0 t=0clk insn A64 pc=100c enc=d65f03c0"
wait_for "5 L5 cpu0 t=0clk insn A64 pc=1000 enc=54000061"
screen | grep -q "text pane empty" && fail "a source without text is not an unreadable text"
tm send-keys -t b q
wait_for "browse exited 0"
finish
