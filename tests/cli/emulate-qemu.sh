#!/bin/sh
# trawl emulate against an independent emulator: QEMU's user-mode emulator
# runs the same program single-stepped and logs every general-purpose
# register before each instruction; from main onwards, every register after
# every traced instruction must agree, for at least 100,000 instructions.
. "$TRAWL_SRC/tests/cli-lib.sh"
# QEMU and the comparison dominate the time and are the same in every build;
# the sanitizer build covers the emulator through the other emulate tests
[ -n "${TRAWL_ASAN:-}" ] && skip "QEMU comparison runs in the plain build only"
ex="$TRAWL_BUILD/examples/sort"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"
command -v qemu-aarch64 >/dev/null || skip "qemu-aarch64 not installed (qemu-user)"
command -v nm >/dev/null || skip "nm not installed (binutils)"
awkf="$TRAWL_SRC/tests/cli/emulate-qemu.awk"
main=$(nm "$ex" | awk '$3 == "main" { sub(/^0+/, "", $1); print $1 }')
[ -n "$main" ] || { fail "no main symbol in $ex"; finish; }
limit=110000

expect_exit 0 "$TRAWL" emulate "$ex" -o "$_tmp/t.tarmac"
# the same environment trawl gives programs
env -i PATH=/usr/bin:/bin LANG=C HOME=/ qemu-aarch64 -singlestep -d cpu,nochain -D "$_tmp/q.log" "$ex" >/dev/null 2>&1 ||
	fail "qemu-aarch64 failed on $ex"
awk -v mode=trace -v main="$main" -v limit=$limit -f "$awkf" "$_tmp/t.tarmac" >"$_tmp/t.txt"
awk -v mode=qemu -v main="$main" -v limit=$limit -f "$awkf" "$_tmp/q.log" >"$_tmp/q.txt"
rm -f "$_tmp/q.log"
n=$(wc -l <"$_tmp/t.txt")
[ "$n" -ge 100000 ] || fail "only $n instructions after main in the trace"
awk -v mode=compare -v qemu="$_tmp/q.txt" -f "$awkf" "$_tmp/t.txt" >"$_tmp/cmp" ||
	fail "registers differ from QEMU: $(head -20 "$_tmp/cmp")"
grep -q "^compared $limit instructions, 0 mismatches" "$_tmp/cmp" ||
	fail "unexpected comparison result: $(tail -3 "$_tmp/cmp")"
cat "$_tmp/cmp"

# the oracle itself must notice a wrong value: change one X19 write
awk 'done == 0 && $3 == "R" && $4 == "X19" && NR > 100000 { $5 = "00000000deadbeef"; done = 1 } { print }' \
	"$_tmp/t.tarmac" >"$_tmp/bad.tarmac"
awk -v mode=trace -v main="$main" -v limit=$limit -f "$awkf" "$_tmp/bad.tarmac" >"$_tmp/t.txt"
if awk -v mode=compare -v qemu="$_tmp/q.txt" -f "$awkf" "$_tmp/t.txt" >"$_tmp/cmp"; then
	fail "comparison did not notice a corrupted register value"
fi
finish
