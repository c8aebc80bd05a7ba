#!/bin/sh
# Questions the trace cannot answer are usage errors (exit 2) with a
# message, not silence: changes with --from after --to, and --cpu naming a
# core the trace lacks, for every command taking --cpu (regs, last-write,
# next-write). The cores a trace has: a single-core hand-made trace and the
# two-core calls-2cpu.tarmac (cpu0 and cpu1 on its lines).
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data"
cp "$D/calls-a64.tarmac" "$_tmp/one.tarmac"
cp "$D/calls-2cpu.tarmac" "$_tmp/two.tarmac"
"$TRAWL" index "$_tmp/one.tarmac" >/dev/null || fail "index one"
"$TRAWL" index "$_tmp/two.tarmac" >/dev/null || fail "index two"

# changes: reversed bounds
expect_exit 2 "$TRAWL" changes "$_tmp/one.tarmac" --from 30 --to 10
grep -q "from 30 is after --to 10" "$_tmp/err" || fail "changes reversed: message: $(cat "$_tmp/err")"
[ -s "$_tmp/out" ] && fail "changes reversed printed changes: $(head -3 "$_tmp/out")"
expect_exit 0 "$TRAWL" changes "$_tmp/one.tarmac" --from 10 --to 30
[ -s "$_tmp/out" ] || fail "changes 10..30 printed nothing"

# --cpu: a core the trace lacks
for cmd in "regs" "last-write" "next-write"; do
	arg=""
	[ "$cmd" != regs ] && arg=x0
	# shellcheck disable=SC2086 # arg is empty or one word
	expect_exit 2 "$TRAWL" $cmd "$_tmp/one.tarmac" --at 10 --cpu 7 $arg
	grep -q -- "--cpu 7: the trace has only core 0" "$_tmp/err" ||
		fail "$cmd --cpu 7 (one core): message: $(cat "$_tmp/err")"
	[ -s "$_tmp/out" ] && fail "$cmd --cpu 7 printed: $(head -3 "$_tmp/out")"
	# shellcheck disable=SC2086
	expect_exit 2 "$TRAWL" $cmd "$_tmp/two.tarmac" --at 5 --cpu 2 $arg
	grep -q -- "--cpu 2: the trace has cores 0-1" "$_tmp/err" ||
		fail "$cmd --cpu 2 (two cores): message: $(cat "$_tmp/err")"
	# a core the trace has still works
	# shellcheck disable=SC2086
	expect_exit 0 "$TRAWL" $cmd "$_tmp/two.tarmac" --at 5 --cpu 1 $arg
done
# core 1's SP at line 5 (set by line 2 of the trace, by hand: 0x20000)
"$TRAWL" regs "$_tmp/two.tarmac" --at 5 --cpu 1 | grep -q "sp  *0000000000020000" ||
	fail "regs --cpu 1: sp is not 0x20000"
finish
