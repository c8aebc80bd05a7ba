#!/bin/sh
# Call trees of real compiled programs traced by `trawl emulate`
# (examples/recurse.c and examples/sort.c), checked against truths from the
# program sources and from the trace text itself.
. "$TRAWL_SRC/tests/cli-lib.sh"
E="${TRAWL_BUILD:-}/examples"
[ -x "$E/recurse" ] && [ -x "$E/sort" ] || skip "examples not built (needs aarch64-linux-gnu-gcc)"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"

"$TRAWL" emulate "$E/recurse" -o "$_tmp/rec.tarmac" -- 6 >/dev/null 2>&1 || fail "emulate recurse"
"$TRAWL" profile --csv --image "$E/recurse" "$_tmp/rec.tarmac" >"$_tmp/rp" || fail "profile recurse"
# build(6) makes a complete binary tree of 2^7 - 1 = 127 nodes, nesting 7
# deep below main; destroy frees each node once
grep -q "^build,0x[0-9a-f]*,127,[0-9]*,[0-9]*,[0-9]*,[0-9]*,7$" "$_tmp/rp" ||
	fail "build should be called 127 times, 7 deep: $(grep '^build,' "$_tmp/rp")"
grep -q "^__free,0x[0-9a-f]*,127," "$_tmp/rp" || fail "free should be called 127 times: $(grep free "$_tmp/rp")"
n=$("$TRAWL" callinfo --image "$E/recurse" "$_tmp/rec.tarmac" __libc_malloc | grep -c "from build+")
[ "$n" = 127 ] || fail "malloc called from build $n times, expected 127"
# every executed BL/BLR is a call, plus the tail calls; nothing unwound
"$TRAWL" calltree --image "$E/recurse" "$_tmp/rec.tarmac" >"$_tmp/rt" || fail "calltree recurse"
bl=$(grep -cE "^[0-9]+ clk IT \([0-9]+\) [0-9a-f]+ [0-9a-f]+ O [^:]*: (bl|blr) " "$_tmp/rec.tarmac")
tails=$(grep -c "\[tail call\]" "$_tmp/rt")
nodes=$(wc -l <"$_tmp/rt")
[ "$nodes" = $((1 + bl + tails)) ] || fail "$nodes activations, expected 1 + $bl BL/BLR + $tails tail calls"
! grep -q "unwound" "$_tmp/rt" || fail "recurse: unwound frames: $(grep unwound "$_tmp/rt" | head -3)"
# main returns (return 0); the exit() its caller then makes never does
grep "^ *main @0x" "$_tmp/rt" | grep -q "unfinished" && fail "main should have returned"
grep -q "^ *exit @0x[0-9a-f]* .*\[unfinished\]" "$_tmp/rt" || fail "exit should be unfinished"

# Perfetto slices of a real program nest properly
"$TRAWL" export --perfetto --image "$E/recurse" "$_tmp/rec.tarmac" -o "$_tmp/rec.json" || fail "export"
python3 "$TRAWL_SRC/tests/cli/calls-export.py" perfetto "$_tmp/rec.json" "$nodes" >"$_tmp/r" || fail "$(cat "$_tmp/r")"
# folded stacks add up to every instruction of the trace
total=$(grep -cE "^[0-9]+ clk I[TS] " "$_tmp/rec.tarmac")
sum=$("$TRAWL" flamegraph --image "$E/recurse" "$_tmp/rec.tarmac" | awk '{ s += $NF } END { print s }')
[ "$sum" = "$total" ] || fail "folded stacks count $sum instructions, the trace has $total"

# sort 2000 numbers: quick_sort activations and depth from the source
"$TRAWL" emulate "$E/sort" -o "$_tmp/sort.tarmac" -- 2000 >/dev/null 2>&1 || fail "emulate sort"
set -- $(python3 "$TRAWL_SRC/tests/cli/calls-sort-oracle.py" 2000)
want_calls=$1 want_depth=$2
"$TRAWL" profile --csv --image "$E/sort" "$_tmp/sort.tarmac" >"$_tmp/sp" || fail "profile sort"
grep -q "^quick_sort,0x[0-9a-f]*,$want_calls,[0-9]*,[0-9]*,[0-9]*,[0-9]*,$want_depth$" "$_tmp/sp" ||
	fail "quick_sort: expected $want_calls calls $want_depth deep: $(grep quick_sort "$_tmp/sp")"
# the index fast path agrees on the sort program
"$TRAWL" profile --csv --use-index --image "$E/sort" "$_tmp/sort.tarmac" >"$_tmp/sp2" || fail "profile --use-index"
# (on the program's own functions: without register values the index path
# cannot see glibc's LR-reload-and-branch tail calls into unnamed IFUNC stubs)
grep -E "^(main|quick_sort)," "$_tmp/sp" >"$_tmp/own1"
grep -E "^(main|quick_sort)," "$_tmp/sp2" >"$_tmp/own2"
[ -s "$_tmp/own1" ] && cmp -s "$_tmp/own1" "$_tmp/own2" ||
	fail "--use-index profile differs: $(diff "$_tmp/own1" "$_tmp/own2" | head -5)"
finish
