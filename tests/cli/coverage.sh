#!/bin/sh
# trawl coverage against gcov: tests/data/coverage/cov-example.c built with
# -g -O0 (emulated, traced, measured by trawl) and with --coverage (run
# under qemu-aarch64, measured by gcov). genhtml must take the lcov file
# without a warning; the drcov blocks must cover exactly the lines the lcov
# file reports hit; several traces add their counts.
. "$TRAWL_SRC/tests/cli-lib.sh"
cc=aarch64-linux-gnu-gcc
for t in $cc aarch64-linux-gnu-gcov aarch64-linux-gnu-addr2line aarch64-linux-gnu-nm qemu-aarch64 python3; do
	command -v $t >/dev/null 2>&1 || skip "$t not installed"
done
src="$TRAWL_SRC/tests/data/coverage/cov-example.c"
check="$TRAWL_SRC/tests/cli/coverage-check.py"
cd "$_tmp" || exit 1
$cc -g -O0 -static -o plain "$src" || fail "cannot build the -g -O0 program"
$cc -O0 --coverage -static -o inst "$src" || fail "cannot build the --coverage program"
timeout 60 qemu-aarch64 ./inst >inst.out 2>&1 || fail "the instrumented program failed under qemu"
aarch64-linux-gnu-gcov -t inst-cov-example.gcda >gcov.txt 2>gcov.err || fail "gcov failed: $(cat gcov.err)"
"$TRAWL" emulate ./plain -o plain.tarmac >plain.out 2>&1 || fail "emulate failed: $(cat plain.out)"
cmp -s inst.out plain.out || fail "the two builds printed different results"

# lines: gcov's executed lines hit, its never-executed lines not
"$TRAWL" coverage --image ./plain plain.tarmac -o plain.info 2>err.txt || fail "coverage failed: $(cat err.txt)"
python3 "$check" gcov gcov.txt plain.info cov-example.c >check.txt || fail "trawl and gcov disagree:
$(cat check.txt)"
# hand-checked against the source: never_called is never entered, classify
# 13 times; the condition of line 10 (x < 0) is taken 3 times of 13
grep -qx "FNDA:0,never_called" plain.info || fail "never_called should not be entered"
grep -qx "FNDA:13,classify" plain.info || fail "classify should be entered 13 times"
grep -q "^BRDA:" plain.info || fail "no branch records"
grep -qx "DA:42,0" plain.info || fail "line 42 should be reported not hit"

# genhtml renders it without a warning
if command -v genhtml >/dev/null 2>&1; then
	genhtml --branch-coverage --function-coverage -q -o html plain.info >genhtml.out 2>&1 ||
		fail "genhtml failed: $(head -5 genhtml.out)"
	grep -qi "warning\|error" genhtml.out && fail "genhtml complained: $(head -5 genhtml.out)"
	[ -s html/index.html ] || fail "genhtml wrote no index.html"
else
	echo "note: genhtml (Debian lcov) not installed, HTML not checked"
fi

# drcov: blocks cover exactly the hit lines
"$TRAWL" coverage --image ./plain --format drcov plain.tarmac -o plain.drcov || fail "drcov failed"
python3 "$check" drcov plain.drcov plain.info ./plain aarch64-linux-gnu-addr2line aarch64-linux-gnu-nm \
	>check.txt || fail "drcov blocks and lcov lines disagree:
$(head -20 check.txt)"

# two traces: the same lines, every count doubled
"$TRAWL" coverage --image ./plain plain.tarmac plain.tarmac -o two.info || fail "coverage of two traces failed"
awk -F'[:,]' '/^DA:/ { print "DA:" $2 "," $3 * 2; next } /^FNDA:/ { print "FNDA:" $2 * 2 "," $3; next }
	/^DA|^FNDA/ { next } { print }' plain.info | grep "^DA\|^FNDA" >doubled
grep "^DA\|^FNDA" two.info >two
cmp -s doubled two || fail "merging two copies does not double the counts: $(diff doubled two | head -5)"

expect_stdout_has "total: lines" "$TRAWL" coverage --image ./plain --format text plain.tarmac
# the image loaded where the program did not run (a wrong @OFFSET): no
# line can be hit, and the command says why instead of a silent 0%. Every
# executed range is outside: their number is counted from the trace text
# (a range ends where the next pc is not pc + 4)
ranges=$(python3 -c '
import re, sys
prev, seen, start = None, set(), None
for l in open(sys.argv[1]):
    m = re.match(r"\d+ \w+ I[TS] \(\d+\) ([0-9a-f]+) ", l)
    if not m: continue
    pc = int(m.group(1), 16)
    if prev is None or pc != prev + 4:
        if prev is not None: seen.add((start, prev))
        start = pc
    prev = pc
seen.add((start, prev)); print(len(seen))' plain.tarmac)
# nothing of the trace in the image: the 0% is no answer, exit 1 (it was 0)
expect_exit 1 "$TRAWL" coverage --image ./plain@0x10000000 --format text plain.tarmac
grep -q "^total: lines 0/" "$_tmp/out" || fail "wrong offset: $(tail -1 "$_tmp/out")"
grep -q "coverage: warning: $ranges executed ranges outside the images given" "$_tmp/err" ||
	fail "wrong offset: want a note of $ranges ranges outside: $(cat "$_tmp/err")"
grep -q "none of the trace is in them" "$_tmp/err" || fail "wrong offset: $(cat "$_tmp/err")"
"$TRAWL" coverage --image ./plain --format text plain.tarmac 2>&1 >/dev/null | grep -q outside &&
	fail "the right image is not outside"
expect_exit 2 "$TRAWL" coverage plain.tarmac
$cc -O0 -static -o nodebug "$src" || fail "cannot build the program without -g"
expect_stderr_has "no DWARF" "$TRAWL" coverage --image ./nodebug plain.tarmac
expect_exit 1 "$TRAWL" coverage --image ./nodebug plain.tarmac

# libdw is loaded by coverage alone (dlopen at first use), not by trawl regs
LD_DEBUG=files "$TRAWL" coverage --image ./plain plain.tarmac -o /dev/null 2>ld.txt
grep -q "libdw.*dynamically loaded" ld.txt || fail "coverage did not load libdw at run time"
LD_DEBUG=files "$TRAWL" regs plain.tarmac --at 10 >/dev/null 2>ld.txt
grep -q "libdw" ld.txt && fail "trawl regs loaded libdw"

# a file whose bss-only segment names an offset past its end (ld writes
# such small files) is a valid image: this failed with "program header 1
# is out of bounds" before
tiny="$TRAWL_SRC/tests/fuzz/corpus/lines/tiny-aarch64"
start=$(aarch64-linux-gnu-nm "$tiny" | awk '$3 == "_start" { print $1 }')
# the trace's encodings are the file's own (objdump's), as the image check
# of the coverage command requires
aarch64-linux-gnu-objdump -d "$tiny" | awk -v s="$start" '
	$0 ~ "^0*" s " <_start>:" { on = 1; next }
	on && n < 3 && $1 ~ /:$/ { a = $1; sub(/:$/, "", a); n++
		printf "%d clk IT (%d) %s %s O EL0t_n : x\n", n, n, a, $2 }' >tiny.tarmac
[ "$(wc -l <tiny.tarmac)" = 3 ] || fail "objdump of the small ELF: $(cat tiny.tarmac)"
"$TRAWL" coverage --image "$tiny" tiny.tarmac -o tiny.info 2>err.txt || fail "coverage of a small ELF failed: $(cat err.txt)"
grep -qx "FNDA:1,_start" tiny.info || fail "_start should be entered once: $(grep FNDA tiny.info)"
grep -qx "FNDA:0,sq" tiny.info || fail "sq should not be entered"
finish
