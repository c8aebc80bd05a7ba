#!/bin/sh
# More threads than the first thread table's 64 (issue #17): examples/
# threads "many 100" makes 100 pthreads that are all alive at once (none
# passes a barrier before the last was made), then each adds its number
# under a mutex. Output and exit status must equal QEMU's and the
# hand-computed sum 100 * 101 / 2; the trace has 101 cores (cpu0, the main
# thread, to cpu100) and trawl's index gives the last thread's core the
# TPIDR_EL0 the text gives it. The previous binary stopped at 63 threads.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/emulate-lib.sh"
ex="$TRAWL_BUILD/examples/threads"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"

printf 'made 100 threads\ncounter 5050 expected 5050\n' >"$_tmp/want"
"$TRAWL" emulate "$ex" -o "$_tmp/t.tarmac" -- many 100 >"$_tmp/t.out" 2>"$_tmp/t.err" </dev/null
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc: $(head -c 300 "$_tmp/t.out" "$_tmp/t.err")"
diff "$_tmp/want" "$_tmp/t.out" >"$_tmp/d" || fail "output differs from the expected: $(cat "$_tmp/d")"
same_as_qemu "$_tmp/t.out" 0 "$ex" many 100

"$TRAWL" stats "$_tmp/t.tarmac" >"$_tmp/stats" 2>"$_tmp/serr" || fail "trawl stats: $(cat "$_tmp/serr")"
n=$(awk '$1 ~ /^cpu[0-9]+$/ && $2 == "A64"' "$_tmp/stats" | grep -c .)
[ "$n" = 101 ] || fail "$n cores in the trace, expected 101"
awk '$1 ~ /^cpu[0-9]+$/ && $2 == "A64" { print $1 }' "$_tmp/stats" | grep -qx cpu100 ||
	fail "no cpu100 in the trace"
end=$(awk '$1 == "time:" { print $4 }' "$_tmp/stats")
want=$(awk '$3 == "cpu100" && $4 == "R" && $5 == "TPIDR_EL0" { v = $6 } END { print v }' "$_tmp/t.tarmac")
got=$("$TRAWL" regs "$_tmp/t.tarmac" --time "$end" --cpu 100 2>"$_tmp/rerr" </dev/null |
	awk '$1 == "TPIDR_EL0" { print $2 }')
[ -n "$want" ] && [ "$got" = "$want" ] || fail "cpu100's TPIDR_EL0: index '$got', text '$want' $(cat "$_tmp/rerr")"
finish
