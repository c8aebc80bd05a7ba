#!/bin/sh
# --stack-top ADDR: the stack may end at 0xfffffffff000 at most (the page
# above it holds the signal trampoline). 0x1000000000000 (2^48, inside the
# range --help and the error gave) failed with "the program's segments
# overlap the signal trampoline page", exit 1, though no segment was
# there; 0 was taken as "not given". Both are usage errors now.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples/sort"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"
for a in 0x1000000000000 0xfffffffff001 0x7fffff; do
	expect_exit 2 "$TRAWL" emulate --stack-top $a "$ex" -n 1000 -o /dev/null
	grep -q "stack top $a is not a page boundary in 0x800000..0xfffffffff000" "$_tmp/err" || fail "$a: $(cat "$_tmp/err")"
done
expect_exit 2 "$TRAWL" emulate --stack-top 0 "$ex" -n 1000 -o /dev/null
grep -q -- "--stack-top must not be 0" "$_tmp/err" || fail "0: $(cat "$_tmp/err")"
for a in 0xfffffffff000 0x100000000000 0x7ffffffff000; do
	expect_exit 0 "$TRAWL" emulate --stack-top $a "$ex" -n 1000 -o "$_tmp/t"
	grep -q "R SP_EL0 " "$_tmp/t" || fail "$a: no trace"
done
finish
