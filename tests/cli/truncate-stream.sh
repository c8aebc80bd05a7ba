#!/bin/sh
# trawl truncate on crash loops, a Cortex-M lockup and pipes that never end.
# Truths: the line counts worked out by hand from the hand-made traces
# (tests/data/stuck-crash.tarmac, stuck-lockup.tarmac, see the comments in
# tests/unit/test-stuck.c), and for the generated traces the number of lines
# the generator printed before the loop; pipe and file runs must agree byte
# for byte.
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data"

# crash loop (Fast Models, A64): the vector's own push faults forever. Kept:
# lines 1-20, the first turn with its CoreEvent_CURRENT_SPx_SYNC line and the
# ESR/FAR/ELR/SPSR/cpsr lines after it.
"$TRAWL" truncate "$D/stuck-crash.tarmac" -o "$_tmp/c1" 2>"$_tmp/e" || fail "truncate crash: exit $?"
head -n 20 "$D/stuck-crash.tarmac" | cmp -s - "$_tmp/c1" ||
	fail "crash loop: kept $(wc -l <"$_tmp/c1") lines, ends '$(tail -1 "$_tmp/c1")'; expected 20"
grep -q "stuck in a loop of 1 instruction, 1 exception from line 13 (4 identical turns); kept lines up to 20" "$_tmp/e" ||
	fail "crash message: $(cat "$_tmp/e")"
cat "$D/stuck-crash.tarmac" | "$TRAWL" truncate - >"$_tmp/c2" 2>/dev/null || fail "crash from stdin"
cmp -s "$_tmp/c1" "$_tmp/c2" || fail "crash loop: stdin and file cuts differ"
gzip -c "$D/stuck-crash.tarmac" >"$_tmp/crash.gz"
"$TRAWL" truncate "$_tmp/crash.gz" -o "$_tmp/c3" 2>/dev/null && cmp -s "$_tmp/c1" "$_tmp/c3" ||
	fail "crash loop: .gz and file cuts differ"

# Cortex-M lockup: no instructions, the exception-reason line repeats. Kept:
# lines 1-6 (up to the first lockup line).
"$TRAWL" truncate "$D/stuck-lockup.tarmac" -o "$_tmp/l1" 2>"$_tmp/e" || fail "truncate lockup: exit $?"
head -n 6 "$D/stuck-lockup.tarmac" | cmp -s - "$_tmp/l1" ||
	fail "lockup: kept $(wc -l <"$_tmp/l1") lines, expected 6; $(cat "$_tmp/e")"
grep -q "loop of 0 instructions, 1 exception-reason line from line 6" "$_tmp/e" ||
	fail "lockup message: $(cat "$_tmp/e")"

# not stuck: copied whole, exit 0, says so
"$TRAWL" truncate "$D/stuck-progress.tarmac" -o "$_tmp/n1" 2>"$_tmp/e" || fail "not stuck: exit $?"
cmp -s "$D/stuck-progress.tarmac" "$_tmp/n1" || fail "not stuck: not copied whole"
grep -q "not stuck; copied the whole trace" "$_tmp/e" || fail "not stuck message: $(cat "$_tmp/e")"

# A bad line: the lines before it are written, exit 1, the message says so.
{ head -n 5 "$D/stuck-progress.tarmac"; echo "6 clk R X0 00zz"; echo "7 clk R X0 00"; } >"$_tmp/bad.tarmac"
"$TRAWL" truncate "$_tmp/bad.tarmac" -o "$_tmp/b1" 2>"$_tmp/e"
[ $? = 1 ] || fail "bad line: exit status should be 1"
head -n 5 "$D/stuck-progress.tarmac" | cmp -s - "$_tmp/b1" || fail "bad line: the 5 lines before it not written"
grep -q "copied the .* bytes before the error" "$_tmp/e" || fail "bad line message: $(cat "$_tmp/e")"

# the generator: tests/cli/truncate-gen.awk
gen() { awk -v P="$1" -v TURNS="$2" -f "$TRAWL_SRC/tests/cli/truncate-gen.awk"; }
command -v awk >/dev/null 2>&1 || skip "awk not installed"
command -v timeout >/dev/null 2>&1 || skip "timeout not installed"

# A simulator that never stops, ~8 MB before the loop (several input
# chunks): trawl must stop reading by itself once the loop is certain. The
# timeout only bounds a broken build: had it fired, the producer would exit
# 124 (killed) rather than by the broken pipe trawl leaves behind.
P=60000
{ timeout 120 awk -v P=$P -v TURNS=0 -f "$TRAWL_SRC/tests/cli/truncate-gen.awk"; echo $? >"$_tmp/prod_rc"; } |
	"$TRAWL" truncate - -o "$_tmp/pipe" 2>"$_tmp/pe"
rc=$?
[ $rc = 0 ] || fail "pipe: exit $rc; $(cat "$_tmp/pe")"
[ "$(cat "$_tmp/prod_rc")" != 124 ] || fail "pipe: trawl kept reading until the producer was killed"
grep -q "stuck in a loop of 1 instruction, 1 exception from line $((2 * P + 9))" "$_tmp/pe" ||
	fail "pipe message: $(cat "$_tmp/pe")"
gen $P 40 >"$_tmp/gen.tarmac"
"$TRAWL" truncate "$_tmp/gen.tarmac" -o "$_tmp/file" 2>/dev/null || fail "generated file: exit $?"
cmp -s "$_tmp/pipe" "$_tmp/file" || fail "pipe and file cuts differ ($(wc -c <"$_tmp/pipe") vs $(wc -c <"$_tmp/file") bytes)"
head -n $((2 * P + 16)) "$_tmp/gen.tarmac" | cmp -s - "$_tmp/file" ||
	fail "generated file: kept $(wc -l <"$_tmp/file") lines, expected $((2 * P + 16))"

# An output that cannot be written stops the reading too (exit 1, says so)
# rather than reading a pipe that never ends.
if [ -w /dev/full ]; then
	{ timeout 120 awk -v P=100000000 -v TURNS=0 -f "$TRAWL_SRC/tests/cli/truncate-gen.awk"; echo $? >"$_tmp/prod_rc"; } |
		"$TRAWL" truncate - -o /dev/full 2>"$_tmp/pe"
	[ $? = 1 ] || fail "/dev/full: exit status should be 1"
	[ "$(cat "$_tmp/prod_rc")" != 124 ] || fail "/dev/full: trawl kept reading until the producer was killed"
	grep -q "cannot write '/dev/full'" "$_tmp/pe" || fail "/dev/full message: $(cat "$_tmp/pe")"
fi

# Written as it goes: a producer that prints ~18 MB that never loops and then
# hangs. Everything but the last input chunk (4 MiB) and the events held
# back must already be in the file; killing trawl then leaves it there.
P=150000
gen $P 0 | head -n $((2 * P)) >"$_tmp/prefix.tarmac"
want=$(($(wc -c <"$_tmp/prefix.tarmac") - (5 << 20)))
mkfifo "$_tmp/fifo" || skip "mkfifo failed"
"$TRAWL" truncate "$_tmp/fifo" -o "$_tmp/live" 2>/dev/null &
tpid=$!
(cat "$_tmp/prefix.tarmac"; exec sleep 120) >"$_tmp/fifo" &
ppid=$!
size() { if [ -f "$1" ]; then wc -c <"$1"; else echo 0; fi; }
i=0
while [ $i -lt 600 ] && [ "$(size "$_tmp/live")" -lt $want ]; do
	sleep 0.1
	i=$((i + 1))
done
# the producer first (then its cat, if still writing, gets SIGPIPE from
# trawl's end of the fifo), then trawl
kill $ppid 2>/dev/null
kill $tpid 2>/dev/null
wait $ppid 2>/dev/null
wait $tpid 2>/dev/null
got=$(size "$_tmp/live")
[ "$got" -ge $want ] || fail "live: only $got bytes written of $(wc -c <"$_tmp/prefix.tarmac") read (want >= $want)"
head -c "$got" "$_tmp/prefix.tarmac" | cmp -s - "$_tmp/live" || fail "live: what was written is not the start of the trace"

# trawl's own emulator, piped: examples/faults spin polls a flag forever.
E="${TRAWL_BUILD:-}/examples"
if [ -x "$E/faults" ]; then
	{ timeout 120 "$TRAWL" emulate "$E/faults" -n 100000000 -- spin 2>/dev/null; echo $? >"$_tmp/prod_rc"; } |
		tee "$_tmp/emu.tarmac" | "$TRAWL" truncate - -o "$_tmp/emu.pipe" 2>"$_tmp/pe"
	[ $? = 0 ] || fail "emulator pipe: exit status; $(cat "$_tmp/pe")"
	[ "$(cat "$_tmp/prod_rc")" != 124 ] || fail "emulator pipe: trawl did not stop reading"
	grep -q "stuck in a loop of 2 instructions" "$_tmp/pe" || fail "emulator pipe: $(cat "$_tmp/pe")"
	# the same text from a file (tee kept at least what trawl read)
	"$TRAWL" truncate "$_tmp/emu.tarmac" -o "$_tmp/emu.file" 2>/dev/null || fail "emulator file"
	cmp -s "$_tmp/emu.pipe" "$_tmp/emu.file" || fail "emulator: pipe and file cuts differ"
	# the kept turn is the poll (ldr, cbz back to it), and the next line of
	# the trace is the ldr again
	n=$(wc -l <"$_tmp/emu.pipe")
	grep ' IT ' "$_tmp/emu.pipe" | tail -2 | sed 's/.* : //' | awk '{print $1}' | tr '\n' ' ' |
		grep -q "^ldr cbz $" || fail "emulator: kept turn is not ldr, cbz: $(tail -3 "$_tmp/emu.pipe")"
	next=$(sed -n "$((n + 1))p" "$_tmp/emu.tarmac")
	first=$(grep ' IT ' "$_tmp/emu.pipe" | tail -2 | head -1 | awk '{print $5}')
	echo "$next" | awk -v pc="$first" '$3 == "IT" && $5 == pc { ok = 1 } END { exit !ok }' ||
		fail "emulator: the line after the cut ('$next') is not the loop's first instruction $first"
fi
# A wait loop the file later leaves is not where it got stuck: a plain file
# is read to its end and cut at the loop it ends in (it was cut at the first
# 4 identical turns of a device poll); a pipe cannot look ahead and stops
# at the first certain loop (docs/calls.md), unless --repeats says more.
{
	n=1
	echo "1 clk IT (1) 00001000 d2a00021 O EL1h_n : MOV x1,#0x10000"; echo "1 clk R X1 0000000000010000"
	for i in 1 2 3 4 5 6 7 8 9; do
		v=0; [ $i = 9 ] && v=1
		n=$((n + 1)); echo "$i clk IT ($n) 00001004 b9400020 O EL1h_n : LDR w0,[x1]"
		echo "$i clk MR4 00010000 0000000$v"; echo "$i clk R X0 000000000000000$v"
		n=$((n + 1)); echo "$i clk IT ($n) 00001008 34ffffe0 O EL1h_n : CBZ w0,{pc}-4"
	done
	for i in 1 2 3 4 5 6 7 8; do n=$((n + 1)); echo "20 clk IT ($n) 0000100c 14000000 O EL1h_n : B {pc}"; done
} >"$_tmp/wait.tarmac"
"$TRAWL" truncate "$_tmp/wait.tarmac" -o "$_tmp/wait-file" 2>"$_tmp/err" || fail "truncate of the wait trace failed"
# kept: 2 lines, 9 turns of the poll (4 lines each), one B {pc}
[ "$(wc -l <"$_tmp/wait-file")" = 39 ] || fail "file cut at the wait loop: $(wc -l <"$_tmp/wait-file") lines; $(cat "$_tmp/err")"
tail -1 "$_tmp/wait-file" | grep -q "B {pc}" || fail "file cut does not end in the loop it ends in: $(tail -1 "$_tmp/wait-file")"
grep -q "loop of 1 instruction from line 39" "$_tmp/err" || fail "file: $(cat "$_tmp/err")"
cat "$_tmp/wait.tarmac" | "$TRAWL" truncate - -o "$_tmp/wait-pipe" 2>"$_tmp/err"
grep -q "loop of 2 instructions from line 3" "$_tmp/err" || fail "pipe: $(cat "$_tmp/err")"
cat "$_tmp/wait.tarmac" | "$TRAWL" truncate --repeats 16 - -o "$_tmp/wait-pipe16" 2>"$_tmp/err"
# (16 turns: more than the poll's 8, fewer than... the B loop has 8: not stuck, whole copy)
cmp -s "$_tmp/wait.tarmac" "$_tmp/wait-pipe16" || fail "pipe with --repeats 16: $(cat "$_tmp/err")"

# A file that ends inside an event (a simulator killed after an
# instruction line, before its effect lines): the last, incomplete turn does
# not count as leaving the loop, and the file's cut is the pipe's
{
	n=1
	for i in 1 2 3 4 5 6 7 8; do
		n=$((n + 1)); echo "$i clk IT ($n) 00001004 b9400020 O EL1h_n : LDR w0,[x1]"
		echo "$i clk MR4 00010000 00000000"; echo "$i clk R X0 0000000000000000"
		n=$((n + 1)); echo "$i clk IT ($n) 00001008 34ffffe0 O EL1h_n : CBZ w0,{pc}-4"
	done
	echo "9 clk IT ($((n + 1))) 00001004 b9400020 O EL1h_n : LDR w0,[x1]"
} >"$_tmp/killed.tarmac"
"$TRAWL" truncate "$_tmp/killed.tarmac" -o "$_tmp/killed-file" 2>"$_tmp/err" || fail "killed trace: $(cat "$_tmp/err")"
grep -q "stuck in a loop of 2 instructions" "$_tmp/err" || fail "killed trace (file): $(cat "$_tmp/err")"
cat "$_tmp/killed.tarmac" | "$TRAWL" truncate - -o "$_tmp/killed-pipe" 2>/dev/null
cmp -s "$_tmp/killed-file" "$_tmp/killed-pipe" || fail "killed trace: file and pipe cuts differ"

finish
