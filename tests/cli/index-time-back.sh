#!/bin/sh
# Times that go backwards: a Fast Models trace's closing CADI line is a
# tick before the last instruction, a glitch or a trace concatenated with
# another steps back further. `regs --time T` answers with the last event
# before the trace's time first passes T; the truth is worked out from the
# text by awk (first instruction line with a time > T, and the event
# before it), not by trawl.
. "$TRAWL_SRC/tests/cli-lib.sh"

# instructions at times 10 20 30 40 50 5 60 70 80 90, each writing x0
awk 'BEGIN { split("10 20 30 40 50 5 60 70 80 90", t, " ");
	for (i = 1; i <= 10; i++)
		printf "%d clk IT (%d) %08x d2800000 O EL1h_s : MOV      x0,#%d\n%d clk R X0 %016x\n", t[i], i, 4096 + 4 * i, i, t[i], i }' >"$_tmp/glitch.tarmac"
# the same run twice in a row (times 1..40, then 1..40 again), ending with
# a text line a tick back, as Fast Models writes
awk 'BEGIN { for (r = 0; r < 2; r++) for (i = 1; i <= 40; i++)
		printf "%d clk IT (%d) %08x d2800000 O EL1h_s : MOV      x0,#%d\n%d clk R X0 %016x\n", i, i, 4096 + 4 * i, i + 100 * r, i, i + 100 * r;
	printf "39 clk CADI E simulation_stopped\n" }' >"$_tmp/twice.tarmac"

# first line of the event the answer should be: the event before the
# first event (an instruction or a text line) whose time is > T
want_line() {
	awk -v T="$2" '$1 ~ /^[0-9]+$/ && ($3 == "IT" || $3 == "CADI") {
		if ($1 + 0 > T) { print prev; found = 1; exit } prev = NR }
		END { if (!found) print prev }' "$1"
}

for kind in full compact; do
	for f in glitch twice; do
		for T in 10 15 40 45 50 55 60 85 90 100 1 2 39 40; do
			w=$(want_line "$_tmp/$f.tarmac" "$T")
			[ -n "$w" ] || continue
			got=$("$TRAWL" regs --index "$_tmp/$f.$kind.idx" --kind $kind "$_tmp/$f.tarmac" --time "$T" 2>"$_tmp/err" | head -1)
			case "$got" in
			"cpu 0 after line $w "* | "cpu 0 after lines $w-"*) ;;
			*) fail "$f ($kind) --time $T: want the event at line $w, got '$got' $(cat "$_tmp/err")" ;;
			esac
		done
	done
done

# trawl info says how often times go back and where first: the doubled
# trace's second copy (line 81) and its CADI line
expect_stdout_has "time goes back:      2 times (first at line 81;" "$TRAWL" info --index "$_tmp/twice.full.idx" "$_tmp/twice.tarmac"
expect_stdout_has '"time_back":2,"time_back_line":81' "$TRAWL" info --json --index "$_tmp/twice.full.idx" "$_tmp/twice.tarmac"

# before the first event: a usage error, as a line past the end is
expect_exit 2 "$TRAWL" regs --index "$_tmp/glitch.full.idx" "$_tmp/glitch.tarmac" --time 7

# a trace written in us with fractions is kept in ps: "--time 10" is before
# "10.000000us", and the message gives the first time with its unit
printf '      10.000000us IT (1) 00001000 d2800020 O EL1h_s : MOV      x0,#1\n      10.500000us IT (2) 00001004 d2800040 O EL1h_s : MOV      x0,#2\n' >"$_tmp/us.tarmac"
expect_exit 2 "$TRAWL" regs --memory-index "$_tmp/us.tarmac" --time 10
grep -q "time 10 is before the trace (its first event is at 10000000 ps)" "$_tmp/err" || fail "us: $(head -c 300 "$_tmp/err")"
expect_stdout_has "after line 1 " "$TRAWL" regs --memory-index "$_tmp/us.tarmac" --time 10400000

# more runs than the index lists (8190): no single place answers a time,
# so the search by time is refused (exit 1) and lines still work
awk 'BEGIN { for (i = 1; i <= 16400; i++)
	printf "%d clk IT (%d) %08x d2800000 O EL1h_s : MOV      x0,#0\n", 2 - i % 2, i, 4096 }' >"$_tmp/saw.tarmac"
expect_exit 1 "$TRAWL" regs --index "$_tmp/saw.idx" "$_tmp/saw.tarmac" --time 1
grep -q "times in this trace go backwards 8199 times" "$_tmp/err" || fail "saw: $(head -c 300 "$_tmp/err")"
expect_exit 0 "$TRAWL" regs --index "$_tmp/saw.idx" "$_tmp/saw.tarmac" --at 9

finish
