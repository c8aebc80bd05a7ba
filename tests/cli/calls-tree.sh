#!/bin/sh
# calltree, profile, callinfo and flamegraph on hand-made Tarmac traces whose
# call structure was worked out by hand (tests/data/calls-*.tarmac: fact(3)
# recursing in A64; an A32 caller BLX-ing a Thumb function that calls a Thumb
# leaf), and on the corpus call-heuristics traces (skipped when absent).
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data"

check() { # name, expected text, command...
	name=$1 want=$2; shift 2
	"$@" >"$_tmp/out" 2>"$_tmp/err" </dev/null || fail "$name: '$*' exited $?: $(head -c 300 "$_tmp/err")"
	printf '%s\n' "$want" >"$_tmp/want"
	diff -u "$_tmp/want" "$_tmp/out" >"$_tmp/diff" || fail "$name differs:
$(head -40 "$_tmp/diff")"
}

# fact(3): main -> fact -> fact -> fact; 27 instructions, fact 21 of them
# (8 + 8 + 5 of its own), main's own 6 (incl. three 'B .' at the end).
check "a64 calltree" "0x1000 @0x1000  lines 2-43  time 1-28clk  insns 27/6  [unfinished]
  0x1010 @0x1010  lines 6-39  time 3-24clk  insns 21/8  from 0x1004 line 4
    0x1010 @0x1010  lines 14-34  time 8-21clk  insns 13/8  from 0x1020 line 12
      0x1010 @0x1010  lines 22-29  time 13-18clk  insns 5/5  from 0x1020 line 20" \
	"$TRAWL" calltree "$D/calls-a64.tarmac"
check "a64 max-depth" "0x1000 @0x1000  lines 2-43  time 1-28clk  insns 27/6  [unfinished]
  0x1010 @0x1010  lines 6-39  time 3-24clk  insns 21/8  from 0x1004 line 4" \
	"$TRAWL" calltree --max-depth 1 "$D/calls-a64.tarmac"
check "a64 profile csv" "name,addr,calls,incl_insns,self_insns,incl_time,self_time,max_depth
0x1000,0x1000,1,27,6,27,6,1
0x1010,0x1010,3,21,21,21,21,3" \
	"$TRAWL" profile --csv "$D/calls-a64.tarmac"
check "a64 folded" "0x1000 6
0x1000;0x1010 8
0x1000;0x1010;0x1010 8
0x1000;0x1010;0x1010;0x1010 5" \
	"$TRAWL" flamegraph "$D/calls-a64.tarmac"
check "a64 callinfo" "0x1010 (0x1010):
  time 3-24clk  lines 6-39  insns 21/8  from 0x1004 line 4
  time 8-21clk  lines 14-34  insns 13/8  from 0x1020 line 12
  time 13-18clk  lines 22-29  insns 5/5  from 0x1020 line 20
  3 calls" \
	"$TRAWL" callinfo "$D/calls-a64.tarmac" 0x1010
# stdin works the same
"$TRAWL" calltree - <"$D/calls-a64.tarmac" >"$_tmp/stdin.out" 2>&1 || fail "calltree - failed"
"$TRAWL" calltree "$D/calls-a64.tarmac" >"$_tmp/file.out" 2>&1
cmp -s "$_tmp/stdin.out" "$_tmp/file.out" || fail "calltree from stdin differs from file"

# the index fast path gives the same tree (BL calls, RET returns)
cp "$D/calls-a64.tarmac" "$_tmp/ix.tarmac"
"$TRAWL" calltree --use-index "$_tmp/ix.tarmac" >"$_tmp/ix.out" 2>&1 || fail "calltree --use-index: $(cat "$_tmp/ix.out")"
cmp -s "$_tmp/ix.out" "$_tmp/file.out" || fail "--use-index tree differs: $(diff "$_tmp/file.out" "$_tmp/ix.out" | head -5)"
[ -f "$_tmp/ix.tarmac.trawlidx" ] || fail "--use-index did not build the index"

# A32 main BLX -> Thumb f (PUSH {lr}; BL g; POP {pc}) -> Thumb g (BX lr)
check "a32/thumb calltree" "0x2000 @0x2000  lines 2-14  time 1-9clk  insns 8/4  [unfinished]
  0x3000 @0x3000  lines 6-11  time 3-7clk  insns 4/3  from 0x2004 line 4
    0x3100 @0x3100  lines 10-10  time 5-6clk  insns 1/1  from 0x3002 line 8" \
	"$TRAWL" calltree "$D/calls-a32.tarmac"

# two cores interleaved, cpu1 taking an IRQ inside its call (ERET back);
# a debug event on cpu1 is not a transfer of control
check "two cpus" "cpu 0:
0x1000 @0x1000  lines 4-13  time 1-5clk  insns 4/3  [unfinished]
  0x1010 @0x1010  lines 10-10  time 3-4clk  insns 1/1  from 0x1004 line 6
cpu 1:
0x1000 @0x1000  lines 5-19  time 1-8clk  insns 7/3  [unfinished]
  0x1020 @0x1020  lines 11-17  time 3-7clk  insns 4/2  from 0x1004 line 8
    [CoreEvent_IRQ] @0x400  lines 14-16  time 4-6clk  insns 2/2  from 0x1020 line 12  [exception]" \
	"$TRAWL" calltree "$D/calls-2cpu.tarmac"
check "two cpus folded" "cpu0;0x1000 3
cpu0;0x1000;0x1010 1
cpu1;0x1000 3
cpu1;0x1000;0x1020 2
cpu1;0x1000;0x1020;[CoreEvent_IRQ] 2" \
	"$TRAWL" flamegraph "$D/calls-2cpu.tarmac"

# --debug=calls explains decisions on stderr
"$TRAWL" calltree --debug=calls "$D/calls-a32.tarmac" >/dev/null 2>"$_tmp/dbg"
grep -q "line 6 cpu0: call from 0x2004 to 0x3000 (branch with link), returns to 0x2008" "$_tmp/dbg" ||
	fail "debug lacks the BLX decision: $(head -5 "$_tmp/dbg")"
grep -q "line 13 cpu0: return to 0x2008 (return instruction)" "$_tmp/dbg" ||
	fail "debug lacks the POP {pc} decision"

# usage errors
expect_exit 2 "$TRAWL" calltree
expect_exit 2 "$TRAWL" calltree --debug=everything "$D/calls-a64.tarmac"
expect_exit 2 "$TRAWL" profile --sort=bogus "$D/calls-a64.tarmac"
expect_exit 1 "$TRAWL" calltree --image /nonexistent.elf "$D/calls-a64.tarmac"
expect_exit 1 "$TRAWL" calltree /nonexistent.tarmac
expect_exit 2 "$TRAWL" callinfo "$D/calls-a64.tarmac" no_such_symbol

# the corpus call-heuristics cases: expected structure read off the traces
# and the ELF symbols (see docs/calls.md for why each frame is what it is)
C="${TRAWL_CORPUS:-}/tarmac/calltests"
if [ -f "$C/calltest64.tarmac" ] && [ -f "$C/calltest64.elf" ]; then
	check "calltest64" "_start
  leaf_ret
  nonleaf_pop_lr
    leaf_ret
    leaf_ret
  call_via_x1
    leaf_ret [tail call]
  leaf_ret [linkless]
  leaf_ret [linkless]
  leaf_ret [linkless]
  leaf_ret [linkless]
  branch_after_call_wrapper
    branch_after_call" \
	sh -c "'$TRAWL' calltree --image '$C/calltest64.elf' '$C/calltest64.tarmac' | sed -e 's/ @0x.*  \[/ [/' -e 's/ @0x.*//' -e 's/\]  \[.*/]/' -e 's/ \[unfinished\]//'"
	check "calltest32" "_start
  leaf_bx_lr
  nonleaf_pop_pc
    leaf_bx_lr
    leaf_mov_pc_lr
  nonleaf_pop_lr [linkless]
    leaf_mov_pc_lr
    leaf_bx_lr
  call_via_r1
    leaf_mov_pc_lr [tail call]
  leaf_bx_lr [linkless]
  leaf_bx_lr [linkless]
  leaf_bx_lr [linkless]
  internal_bl
  internal_bx_lr
  branch_after_call_wrapper
    branch_after_call" \
	sh -c "'$TRAWL' calltree --image '$C/calltest32.elf' '$C/calltest32.tarmac' | sed -e 's/ @0x.*  \[/ [/' -e 's/ @0x.*//' -e 's/\]  \[.*/]/' -e 's/ \[unfinished\]//'"
	# --image repeats: an unrelated second image changes no name
	"$TRAWL" calltree --image "$C/calltest64.elf" "$C/calltest64.tarmac" >"$_tmp/one"
	"$TRAWL" calltree --image "${TRAWL_CORPUS}/tarmac/quicksort.elf" --image "$C/calltest64.elf" \
		"$C/calltest64.tarmac" >"$_tmp/two"
	cmp -s "$_tmp/one" "$_tmp/two" || fail "a second --image changed the calltest64 tree"
	# every frame but the root returned where it was expected to
	"$TRAWL" calltree --image "$C/calltest32.elf" "$C/calltest32.tarmac" | grep -c "unwound" >"$_tmp/n" 
	[ "$(cat "$_tmp/n")" = 0 ] || fail "calltest32 has unwound frames"
else
	echo "SKIP (part): corpus calltests not found under ${TRAWL_CORPUS:-<unset>}"
fi

Q="${TRAWL_CORPUS:-}/tarmac"
if [ -f "$Q/quicksort.tarmac" ] && [ -f "$Q/quicksort.elf" ]; then
	# quicksort.c sorts a 16-element array recursively: the trace executes
	# 2044 instructions, quicksort is entered 27 times, 7 deep at most
	"$TRAWL" profile --csv --image "$Q/quicksort.elf" "$Q/quicksort.tarmac" >"$_tmp/q" ||
		fail "profile of quicksort failed"
	grep -q "^quicksort,0x8038,27,2018,2018,2018,2018,7$" "$_tmp/q" ||
		fail "quicksort profile: $(cat "$_tmp/q")"
	grep -q "^sys_write0,0x80ec,1,4,4," "$_tmp/q" || fail "sys_write0 row: $(cat "$_tmp/q")"
	grep -q "^_start,0x8000,1,2044,3," "$_tmp/q" || fail "_start row: $(cat "$_tmp/q")"
	n=$("$TRAWL" callinfo --image "$Q/quicksort.elf" "$Q/quicksort.tarmac" quicksort | grep -c "from quicksort+0x40")
	[ "$n" = 26 ] || fail "26 recursive calls expected, got $n"
else
	echo "SKIP (part): corpus quicksort not found"
fi
# the same program traced in two Tarmac styles must give the same calls and
# instruction counts (an oracle independent of how either is written)
if [ -f "$Q/calculator-aarch64-fastmodel.tarmac" ] && [ -f "$Q/calculator-aarch64-es-ld-st-style.tarmac" ]; then
	"$TRAWL" profile --csv --sort=name --image "$Q/calculator-aarch64.elf" "$Q/calculator-aarch64-fastmodel.tarmac" |
		cut -d, -f1-5 >"$_tmp/fm"
	"$TRAWL" profile --csv --sort=name --image "$Q/calculator-aarch64.elf" "$Q/calculator-aarch64-es-ld-st-style.tarmac" |
		cut -d, -f1-5 >"$_tmp/es"
	cmp -s "$_tmp/fm" "$_tmp/es" || fail "calculator profiles differ between trace styles: $(diff "$_tmp/fm" "$_tmp/es" | head -5)"
	# every executed BL in the trace text is one call, and nothing else is
	bls=$(grep -cE "^[0-9]+ [a-z]+ IT .* BL " "$Q/calculator-aarch64-fastmodel.tarmac")
	calls=$(awk -F, 'NR > 2 { s += $3 } END { print s }' "$_tmp/fm")
	[ "$bls" = "$calls" ] || fail "calculator: $calls calls found, the trace executes $bls BLs"
	adds=$(grep -cE "IT .* BL .*; 0x2110c4$" "$Q/calculator-aarch64-fastmodel.tarmac")
	grep -q "^Parser::add(unsigned int&),0x2110c4,$adds," "$_tmp/fm" || fail "Parser::add should have $adds calls"
	# C++ names shown demangled as binutils' nm -C shows them
	if command -v nm >/dev/null 2>&1; then
		nm -C "$Q/calculator-aarch64.elf" | awk '$2 ~ /^[tTwW]$/ { a = $1; sub(/^0+/, "", a); $1 = $2 = ""; sub(/^  /, ""); print "0x" a "\t" $0 }' |
			sort -u >"$_tmp/nm"
		"$TRAWL" profile --csv --image "$Q/calculator-aarch64.elf" "$Q/calculator-aarch64-fastmodel.tarmac" |
			awk -F, 'NR > 2 && $2 ~ /^0x/ && $1 !~ /^"/ { print $2 "\t" $1 }' | sort -u >"$_tmp/shown"
		[ "$(wc -l <"$_tmp/shown")" -gt 10 ] || fail "too few profile lines to check names"
		missing=$(comm -23 "$_tmp/shown" "$_tmp/nm" | head -3)
		[ -z "$missing" ] || fail "names not as nm -C shows them: $missing"
		grep -q "Lexer::next()" "$_tmp/shown" || fail "no demangled C++ name in the profile"
		# callinfo finds a function by either name
		a=$("$TRAWL" callinfo --image "$Q/calculator-aarch64.elf" "$Q/calculator-aarch64-fastmodel.tarmac" 'Lexer::next()' | wc -l)
		b=$("$TRAWL" callinfo --image "$Q/calculator-aarch64.elf" "$Q/calculator-aarch64-fastmodel.tarmac" _ZN5Lexer4nextEv | wc -l)
		[ "$a" -gt 1 ] && [ "$a" = "$b" ] || fail "callinfo by demangled ($a lines) and raw name ($b lines) differ"
	else
		echo "SKIP (part): nm not found"
	fi
fi
# A frame that never returns keeps its last instruction's tick. Worked by
# hand: every instruction lasts 10 clk. Open at the end: 0x2000 runs 4
# instructions from 20 to 50, ending at 50 + the step before (10) = 60, so
# 40 clk; the root 10..60 = 50, 10 of them its own.
cat >"$_tmp/nr.tarmac" <<'TR'
10 clk IT (1) 00001000 94000400 O EL1h_n : BL 0x2000
10 clk R X30 0000000000001004
20 clk IT (2) 00002000 d503201f O EL1h_n : NOP
30 clk IT (3) 00002004 14000000 O EL1h_n : B .
40 clk IT (4) 00002004 14000000 O EL1h_n : B .
50 clk IT (5) 00002004 14000000 O EL1h_n : B .
TR
check "never returns, profile" "name,addr,calls,incl_insns,self_insns,incl_time,self_time,max_depth
0x1000,0x1000,1,5,1,50,10,1
0x2000,0x2000,1,4,4,40,40,1" "$TRAWL" profile --csv "$_tmp/nr.tarmac"
check "never returns, calltree" "0x1000 @0x1000  lines 1-6  time 10-60clk  insns 5/1  [unfinished]
  0x2000 @0x2000  lines 3-6  time 20-60clk  insns 4/4  from 0x1000 line 1  [unfinished]" \
	"$TRAWL" calltree "$_tmp/nr.tarmac"
# Unwound by a reset at 50: 0x2000 ran 20..50 (30), the root 10..50 (40,
# 10 own); after the reset the new root's two instructions at 60 and 70
# end at 80 (20).
cat >"$_tmp/nr2.tarmac" <<'TR'
10 clk IT (1) 00001000 94000400 O EL1h_n : BL 0x2000
10 clk R X30 0000000000001004
20 clk IT (2) 00002000 d503201f O EL1h_n : NOP
30 clk IT (3) 00002004 d503201f O EL1h_n : NOP
50 clk E 00000000 00000001 CoreEvent_RESET
60 clk IT (4) 00000000 d503201f O EL1h_n : NOP
70 clk IT (5) 00000004 d503201f O EL1h_n : NOP
TR
check "unwound by reset, profile" "name,addr,calls,incl_insns,self_insns,incl_time,self_time,max_depth
0x1000,0x1000,1,3,1,40,10,1
0x0,0x0,1,2,2,20,20,1
0x2000,0x2000,1,2,2,30,30,1" "$TRAWL" profile --csv "$_tmp/nr2.tarmac"
finish
