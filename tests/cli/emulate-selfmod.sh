#!/bin/sh
# A program that rewrites its own code (examples/selfmod.c: the same PC
# runs movz w0, #7, then #14, then #21): the trace must show, at each
# run of that PC, the instruction that ran, not the one the decode cache
# saw first. The truth is hand-encoded: MOVZ W0, #imm is 0x52800000 |
# imm << 5, and X0 after it is imm; the program's output and exit status
# must equal QEMU's.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples/selfmod"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"

"$TRAWL" emulate "$ex" -o "$_tmp/t.tarmac" >"$_tmp/t.out" 2>"$_tmp/t.err"
echo "rc $?" >>"$_tmp/t.out"
printf 'round 1: 7\nround 2: 14\nround 3: 21\nrc 0\n' >"$_tmp/want"
cmp -s "$_tmp/want" "$_tmp/t.out" || fail "output: $(cat "$_tmp/t.out" "$_tmp/t.err")"
if command -v qemu-aarch64 >/dev/null; then
	( qemu-aarch64 "$ex" >"$_tmp/q.out" 2>&1; echo "rc $?" >>"$_tmp/q.out" )
	cmp -s "$_tmp/q.out" "$_tmp/t.out" || fail "output differs from QEMU's: $(diff "$_tmp/q.out" "$_tmp/t.out")"
fi

# the rewritten PC: the one IT lines show with more than one encoding;
# each of its runs with the register line after it
awk '$3 == "IT" || $3 == "IS" { pc = $5; enc[pc] = enc[pc] " " $6 }
     END { for (p in enc) { n = split(enc[p], a, " "); d = 0
           for (i = 2; i <= n; i++) if (a[i] != a[1]) d = 1
           if (d) print p } }' "$_tmp/t.tarmac" >"$_tmp/pcs"
[ -s "$_tmp/pcs" ] || fail "no PC shows its code rewritten: the trace kept the first instruction seen there"
[ "$(wc -l <"$_tmp/pcs")" -le 1 ] || fail "expected one rewritten PC, found: $(cat "$_tmp/pcs")"
pc=$(cat "$_tmp/pcs")
awk -v pc="$pc" '$3 == "IT" && $5 == pc { print $6, $NF; getline; print $3, $4, $5 }' \
	"$_tmp/t.tarmac" >"$_tmp/runs"
cat >"$_tmp/want-runs" <<'END'
528000e0 #0x7
R X0 0000000000000007
528001c0 #0xe
R X0 000000000000000e
528002a0 #0x15
R X0 0000000000000015
END
cmp -s "$_tmp/want-runs" "$_tmp/runs" ||
	fail "the rewritten instruction at $pc: $(diff "$_tmp/want-runs" "$_tmp/runs")"

# the register file agrees with the decoded write sets all along
"$TRAWL" emulate "$ex" --check-writes -o /dev/null >"$_tmp/c.out" 2>"$_tmp/c.err" ||
	fail "--check-writes: $(cat "$_tmp/c.err")"
# trawl's own reader takes the trace whole
"$TRAWL" stats "$_tmp/t.tarmac" >"$_tmp/stats" 2>&1 || fail "trawl stats: $(cat "$_tmp/stats")"
finish
