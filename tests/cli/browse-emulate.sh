#!/bin/sh
# trawl browse on traces written by trawl emulate: symbols from the
# program, call structure checked against the return address the trace
# itself holds (x30 at function entry), memory at an expression with sp,
# and the FP/SIMD pane against trawl regs.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/browse-lib.sh"
P="$TRAWL_BUILD/examples/recurse"
S="$TRAWL_BUILD/examples/simd"
[ -x "$P" ] && [ -x "$S" ] || skip "example programs not built (needs aarch64-linux-gnu-gcc)"
T="$_tmp/recurse.tarmac"
"$TRAWL" emulate "$P" -o "$T" -- 3 >/dev/null 2>&1 || fail "emulate failed"
"$TRAWL" index "$T" >/dev/null || fail "index failed"
fib=$(aarch64-linux-gnu-nm "$P" 2>/dev/null | awk '$3 == "fib" { print $1 }')
[ -n "$fib" ] || fib=$(readelf -s "$P" | awk '$8 == "fib" { print $2 }')
[ -n "$fib" ] || { fail "no fib symbol"; finish; }
fib=$(printf '0x%x' "0x$fib")

start_browse 160 45 "$T" --image "$P"
wait_status "line 1  ev 0/"
# first visit of fib, by symbol name
keys p; type_line fib
first=$("$TRAWL" pc "$T" "$fib" | sed -n '2s/^  line \([0-9]*\) .*/\1/p')
[ -n "$first" ] || fail "trawl pc found no visit of fib"
wait_status "line $first  ev"
wait_status "pc $fib fib  depth"
check_regs "$T" "$first"
# the return address, as the trace holds it at entry
ret=$("$TRAWL" regs "$T" --at "$first" | awk '$1 == "x30" { print $2 }')
ret=$(printf '0x%x' "0x$ret")
call=$(printf '0x%x' $((ret - 4)))
# step out of fib: the next instruction is at the return address
keys u
wait_status "pc $ret main+"
# step back over the call: the BL itself
keys S
wait_status "pc $call main+"
line_bl=$(status_line | sed -n 's/^line \([0-9]*\) .*/\1/p')
check_regs "$T" "$line_bl"
# fold the calls below here: one step lands on the return address
keys f
wait_for "events folded from fib"
keys j
wait_status "pc $ret main+"
keys f
# malloc runs once per tree node: its second visit with n, back with N
mal=$(aarch64-linux-gnu-nm "$P" 2>/dev/null | awk '$3 == "malloc" { print $1 }')
[ -n "$mal" ] || mal=$(readelf -s "$P" | awk '$8 == "malloc" { print $2 }')
mal=$(printf '0x%x' "0x$mal")
first=$("$TRAWL" pc "$T" "$mal" | sed -n '2s/^  line \([0-9]*\) .*/\1/p')
second=$("$TRAWL" pc "$T" "$mal" | sed -n '3s/^  line \([0-9]*\) .*/\1/p')
[ -n "$second" ] || fail "trawl pc found fewer than two visits of malloc"
keys g
wait_status "line 1  ev 0/"
keys p; type_line malloc
wait_status "line $first  ev"
wait_status "pc $mal malloc  depth"
keys n
wait_status "line $second  ev"
keys N
wait_status "line $first  ev"

# memory at sp-16 after the prologue stores: equals trawl mem, row by row
keys j j j
sleep 0.2
cur=$(status_line | sed -n 's/^line \([0-9]*\) .*/\1/p')
sp=$("$TRAWL" regs "$T" --at "$cur" | awk '$1 == "sp" { print $2 }')
keys m; type_line "sp - 16"
wait_for "memory  sp - 16 = "
row=$(printf '0x%x' $(( (0x$sp - 16) & ~15 )))
check_mem_row "$T" "$cur" "$row"
check_mem_row "$T" "$cur" "$(printf '0x%x' $((row + 16)))"
# last write of the selected byte (sp-16) goes where trawl last-write says
keys w
lw=$("$TRAWL" last-write "$T" --at "$cur" "$(printf '0x%x' $((0x$sp - 16)))" |
	sed -n 's/^line \([0-9]*\) .*/\1/p')
if [ -n "$lw" ]; then
	[ "$lw" = "$cur" ] && lw=$("$TRAWL" last-write "$T" --at "$((cur - 1))" \
		"$(printf '0x%x' $((0x$sp - 16)))" | sed -n 's/^line \([0-9]*\) .*/\1/p')
	[ -n "$lw" ] && wait_status "line $lw  ev"
fi
keys q
wait_for "browse exited 0"

# the FP/SIMD pane shows v0-v31, fpsr and fpcr as trawl regs prints them
V="$_tmp/simd.tarmac"
"$TRAWL" emulate "$S" -o "$V" >/dev/null 2>&1 || fail "emulate simd failed"
last=$(wc -l <"$V")
start_browse 200 60 "$V"
wait_status "line 1  ev 0/"
keys G
wait_status "ev "
keys v
wait_for "FP/SIMD: v (128 bits), fpsr, fpcr"
lineG=$(status_line | sed -n 's/^line \([0-9]*\) .*/\1/p')
"$TRAWL" regs "$V" --at "$lineG" >"$_tmp/vregs"
screen >"$_tmp/scr"
n=0
for r in v0 v1 v2 v3 v7 v15 v31 fpsr fpcr; do
	v=$(awk -v r="$r" '$1 == r { print $2 }' "$_tmp/vregs")
	[ -n "$v" ] || continue
	n=$((n + 1))
	grep -qE "(^| )$r +$(printf '%s' "$v" | sed 's/?/[?]/g')( |\$)" "$_tmp/scr" ||
		fail "FP pane: $r should show $v; screen:
$(cat "$_tmp/scr")"
done
[ "$n" -ge 4 ] || fail "trawl regs showed too few vector registers to compare ($n)"
keys z
wait_for "SVE: z, p, ffr"
keys q
wait_for "browse exited 0"
finish
