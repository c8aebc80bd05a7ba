#!/bin/sh
# Signal delivery (issue #17): examples/signals catches SIGSEGV, SIGILL and
# SIGTRAP from faulting instructions (siglongjmp out; a BRK handler moves
# the saved PC and X0 through the ucontext), uses sigaltstack with
# SA_ONSTACK, raise/kill with SA_SIGINFO, masking, SA_NODEFER and
# SA_RESETHAND. Its stdout and exit status under trawl emulate must equal
# QEMU's (each line is also checked by hand, so the test means something
# without QEMU). The trace must show the signal frame: at the fault, a
# state event with X0 = 11, X1 = SP = the frame, X30 = the trampoline,
# read back through trawl's own index (trawl regs). `signals maps`: stores
# after munmap, mprotect and mmap MAP_FIXED of pages written before fault
# or not as the new mapping says (trawl keeps Unicorn's answer of which
# region holds a page, lib/emu/unicorn-store.c, and must drop it there).
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/emulate-lib.sh"
ex="$TRAWL_BUILD/examples/signals"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"

"$TRAWL" emulate "$ex" -o "$_tmp/t.tarmac" >"$_tmp/t.out" 2>"$_tmp/t.err" </dev/null
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc; stderr: $(head -c 300 "$_tmp/t.err")"
cat >"$_tmp/want" <<'END'
segv 11 addr 0x10 code 1
segv again 11 addr 0x20
sigill 4
sigtrap 5 x0 1234
sigaltstack 0
on altstack 3
without SA_ONSTACK 0
raise code -6 pid 1 hits 1
kill code 0 pid 1 hits 2
blocked hits 2
pending 1
unblocked hits 3
deferred 1 -1 1 -1
nodefer 1 2 -2 -1
resethand 1 fp 5.00
END
diff "$_tmp/want" "$_tmp/t.out" >"$_tmp/d" || fail "output differs from the expected: $(cat "$_tmp/d")"
same_as_qemu "$_tmp/t.out" 0 "$ex"
# the default action of SIGTERM: the status a shell shows, 128 + 15
expect_exit 143 "$TRAWL" emulate "$ex" -o "$_tmp/term.tarmac" -- term
printf 'term\n' >"$_tmp/term.want"
cmp -s "$_tmp/out" "$_tmp/term.want" || fail "term printed: $(cat "$_tmp/out")"
same_as_qemu "$_tmp/term.want" 143 "$ex" term
# the mappings change under pages already written; traced and untraced
cat >"$_tmp/maps.want" <<'END'
page 0 store 0
page 1 store 0
page 2 store 0
unmapped middle: store 11 at +4104 code 1
others: store 0 0
read-only: store 11 at +24 code 2, still reads 1
writable again: store 0, reads 7
remapped middle: same place 1, reads 0, store 0, reads 8
all unmapped: store 11 at +8208 code 1
END
for style in "-o $_tmp/maps.tarmac" "--style none"; do
	timeout 60 "$TRAWL" emulate "$ex" $style -- maps >"$_tmp/maps.out" 2>"$_tmp/maps.err" </dev/null ||
		fail "maps, $style: exit $?: $(head -c 300 "$_tmp/maps.err")"
	diff "$_tmp/maps.want" "$_tmp/maps.out" >"$_tmp/d" || fail "maps, $style: output differs: $(cat "$_tmp/d")"
done
same_as_qemu "$_tmp/maps.want" 0 "$ex" maps
# --style none (no code hook) takes the same paths
"$TRAWL" emulate "$ex" --style none >"$_tmp/n.out" 2>&1 </dev/null || fail "--style none failed"
cmp -s "$_tmp/want" "$_tmp/n.out" || fail "--style none output differs: $(diff "$_tmp/want" "$_tmp/n.out")"
# slow self-check of the write sets across deliveries and returns
"$TRAWL" emulate "$ex" --check-writes -o /dev/null >/dev/null 2>"$_tmp/cw" </dev/null ||
	fail "--check-writes: $(cat "$_tmp/cw")"

# the first frame: the faulting store's time holds only the frame's state
t=$(awk '$3 == "R" && $4 == "X30" && $5 == "0000fffffffff000" { print $1; exit }' "$_tmp/t.tarmac")
[ -n "$t" ] || fail "no frame pointing X30 at the trampoline in the trace"
grep -q "^$t clk I[TS] " "$_tmp/t.tarmac" && fail "the faulting instruction at $t is in the trace as if it completed"
"$TRAWL" regs "$_tmp/t.tarmac" --time "$t" >"$_tmp/regs" 2>"$_tmp/rerr" || fail "trawl regs: $(cat "$_tmp/rerr")"
x1=$(awk '$1 == "x1" { print $2 }' "$_tmp/regs")
sp=$(awk '$1 == "sp" { print $2 }' "$_tmp/regs")
grep -Eq '^ *x0 +0+b$' "$_tmp/regs" || fail "X0 at the handler is not 11: $(head -3 "$_tmp/regs")"
[ -n "$x1" ] && [ "$x1" = "$sp" ] || fail "X1 ($x1) is not SP ($sp), the siginfo at the frame's base"
finish
