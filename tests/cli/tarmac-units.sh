#!/bin/sh
# Time units of Tarmac traces, end to end: each unit the specs and producers
# write (real time shown in ps: 1 ns = 1000 ps, 1 us = 10^6, 1 ms = 10^9,
# 1 s = 10^12; counts as written), one unit per trace (a change is bad
# input: exit 1, lenient skips and counts), unknown units, times going
# backwards, stamps near 2^64, and --time with a unit. Values by hand.
. "$TRAWL_SRC/tests/cli-lib.sh"
I='IT (1) 00008000 d503201f O EL0t_n : NOP'
J='IT (2) 00008004 d503201f O EL0t_n : NOP'

for u in clk:7 cyc:7 tic:7 cs:7 ps:7 ns:7000 us:7000000 ms:7000000000 s:7000000000000; do
	w=${u%%:*} t=${u#*:}
	case $w in p*|n*|u*|m*|s) shown=ps ;; *) shown=$w ;; esac
	printf '7 %s %s\n7 %s R X0 0000000000000001\n' "$w" "$I" "$w" >"$_tmp/u.tarmac"
	expect_exit 0 "$TRAWL" cat "$_tmp/u.tarmac"
	grep -q "^L1-2 cpu0 t=$t$shown insn" "$_tmp/out" || fail "$w: want t=$t$shown: $(cat "$_tmp/out")"
	expect_stdout_has "time: $t .. $t $shown" "$TRAWL" stats --no-timing "$_tmp/u.tarmac"
done

# ns and us in one trace: one unit, so 2 us comes after 10 ns
printf '10 ns %s\n2 us %s\n' "$I" "$J" >"$_tmp/nsus.tarmac"
expect_stdout_has "time: 10000 .. 2000000 ps" "$TRAWL" stats --no-timing "$_tmp/nsus.tarmac"
expect_exit 0 "$TRAWL" stats --no-timing "$_tmp/nsus.tarmac"

# a word trawl does not know between the time and the record: an error,
# not an instruction turned into text
printf '1 clk %s\n2 fs %s\n' "$I" "$J" >"$_tmp/fs.tarmac"
expect_exit 1 "$TRAWL" cat "$_tmp/fs.tarmac"
expect_stderr_has "fs.tarmac:2:3: unknown time unit 'fs'" "$TRAWL" cat "$_tmp/fs.tarmac"

# cycles then real time, two clocks, a bare number: exit 1 naming both
for pair in "clk ns" "clk cyc" "ns tic" "cs clk"; do
	a=${pair% *} b=${pair#* }
	printf '1 %s %s\n2 %s %s\n1 %s R X0 0000000000000001\n' "$a" "$I" "$b" "$J" "$a" >"$_tmp/mix.tarmac"
	expect_exit 1 "$TRAWL" cat "$_tmp/mix.tarmac"
	expect_stderr_has "mix.tarmac:2:3: time unit changes from '$a' (line 1) to '$b'" "$TRAWL" cat "$_tmp/mix.tarmac"
	expect_exit 1 "$TRAWL" stats "$_tmp/mix.tarmac"
	expect_exit 1 "$TRAWL" index --index "$_tmp/mix.idx" "$_tmp/mix.tarmac"
	# lenient: line 2 skipped and counted, lines 1 and 3 read (one event)
	expect_exit 1 "$TRAWL" cat --lenient "$_tmp/mix.tarmac"
	grep -q "skipped 1 malformed line" "$_tmp/err" || fail "lenient $pair: $(cat "$_tmp/err")"
	[ "$(wc -l <"$_tmp/out")" = 1 ] || fail "lenient $pair: want 1 event: $(cat "$_tmp/out")"
done
printf '1 clk %s\n2 %s\n' "$I" "$J" >"$_tmp/bare.tarmac"
expect_stderr_has "time unit changes from 'clk' (line 1) to none" "$TRAWL" cat "$_tmp/bare.tarmac"

# times going backwards: kept as the trace says, and --time knows
printf '10 ns %s\n20 ns %s\n15 ns R X1 0000000000000002\n' "$I" "$J" >"$_tmp/back.tarmac"
expect_exit 0 "$TRAWL" cat "$_tmp/back.tarmac"
grep -q "^L3 cpu0 t=15000ps state" "$_tmp/out" || fail "backwards: $(cat "$_tmp/out")"
expect_stdout_has "time: 10000 .. 20000 ps" "$TRAWL" stats --no-timing "$_tmp/back.tarmac"

# 2^64-1 = 18446744073709551615: kept; one more, or ns past it in ps: exit 1
printf '18446744073709551615 clk %s\n' "$I" >"$_tmp/h.tarmac"
expect_stdout_has "t=18446744073709551615clk" "$TRAWL" cat "$_tmp/h.tarmac"
printf '18446744073709551616 clk %s\n' "$I" >"$_tmp/h.tarmac"
expect_exit 1 "$TRAWL" cat "$_tmp/h.tarmac"
printf '1 ns %s\n18446744073709551 ns %s\n18446744073709552 ns %s\n' "$I" "$I" "$J" >"$_tmp/h.tarmac"
expect_exit 1 "$TRAWL" cat "$_tmp/h.tarmac"
grep -q "t=18446744073709551000ps" "$_tmp/out" || fail "the largest ns time: $(cat "$_tmp/out")"
grep -q "h.tarmac:3:1: timestamp too large: 18446744073709552 ns in picoseconds" "$_tmp/err" ||
	fail "overflow message: $(cat "$_tmp/err")"

# --time: a count in the trace's unit, or with a unit converted to it
printf '10 ns %s\nR X0 0000000000000001\n2 us %s\nR X0 0000000000000002\n' "$I" "$J" >"$_tmp/t.tarmac"
"$TRAWL" index "$_tmp/t.tarmac" >/dev/null 2>&1 || fail "index t.tarmac"
for q in 1999999 1999999ps 1999.999ns 1.999999us; do
	expect_stdout_has "0000000000000001" "$TRAWL" regs --time "$q" "$_tmp/t.tarmac"
done
for q in 2000000 2us 0.002ms; do
	expect_stdout_has "0000000000000002" "$TRAWL" regs --time "$q" "$_tmp/t.tarmac"
done
expect_exit 2 "$TRAWL" regs --time 5clk "$_tmp/t.tarmac"
expect_stderr_has "counts clk, but this trace's times are in ps" "$TRAWL" regs --time 5clk "$_tmp/t.tarmac"
expect_exit 2 "$TRAWL" regs --time 1.5fs "$_tmp/t.tarmac"
expect_exit 2 "$TRAWL" regs --time 5 "$_tmp/t.tarmac"
printf '10 clk %s\nR X0 0000000000000001\n' "$I" >"$_tmp/c.tarmac"
expect_stdout_has "0000000000000001" "$TRAWL" regs --time 10clk "$_tmp/c.tarmac"
expect_exit 2 "$TRAWL" regs --time 10ns "$_tmp/c.tarmac"
expect_stderr_has "cycles and real time cannot be converted" "$TRAWL" regs --time 10ns "$_tmp/c.tarmac"
finish
