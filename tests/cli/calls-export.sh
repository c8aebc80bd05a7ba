#!/bin/sh
# export --perfetto, vcd and truncate, checked by an independent parser
# (calls-export.py: VCD grammar and values; JSON validity and slice nesting)
# and against hand-made traces whose loops and values are known.
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data"
PY="python3 $TRAWL_SRC/tests/cli/calls-export.py"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"

# Perfetto: fact(3) has 4 activations; the A32/Thumb trace 3
"$TRAWL" export --perfetto "$D/calls-a64.tarmac" -o "$_tmp/a64.json" || fail "export a64"
$PY perfetto "$_tmp/a64.json" 4 >"$_tmp/r" || fail "$(cat "$_tmp/r")"
"$TRAWL" export --perfetto --timestamps "$D/calls-a32.tarmac" >"$_tmp/a32.json" || fail "export a32"
$PY perfetto "$_tmp/a32.json" 3 >"$_tmp/r" || fail "$(cat "$_tmp/r")"
# the innermost fact starts at instruction 12 (0-based) and runs 5
grep -q '"name":"0x1010","ts":12.000000,"dur":5.000000' "$_tmp/a64.json" || fail "innermost slice"
expect_exit 2 "$TRAWL" export "$D/calls-a64.tarmac"
"$TRAWL" export --perfetto "$D/calls-2cpu.tarmac" -o "$_tmp/2cpu.json" || fail "export 2cpu"
$PY perfetto "$_tmp/2cpu.json" 5 >"$_tmp/r" || fail "$(cat "$_tmp/r")"
grep -q "on 2 tracks" "$_tmp/r" || fail "two cpus should give two tracks: $(cat "$_tmp/r")"
Q="${TRAWL_CORPUS:-}/tarmac"
if [ -f "$Q/quicksort.tarmac" ]; then
	# 1 _start + c_entry + 27 quicksort + sys_write0 + sys_exit = 31 activations
	"$TRAWL" export --perfetto --image "$Q/quicksort.elf" "$Q/quicksort.tarmac" -o "$_tmp/q.json"
	$PY perfetto "$_tmp/q.json" 31 >"$_tmp/r" || fail "$(cat "$_tmp/r")"
	"$TRAWL" flamegraph --image "$Q/quicksort.elf" --svg "$_tmp/q.svg" "$Q/quicksort.tarmac" ||
		fail "flamegraph --svg"
	python3 -c "import sys,xml.dom.minidom as m; d=m.parse(sys.argv[1]); \
t=[x.firstChild.data for x in d.getElementsByTagName('title')]; \
assert any(s.startswith('quicksort (2018 instructions') for s in t), t[:5]" "$_tmp/q.svg" ||
		fail "svg lacks the quicksort frame"
fi

# VCD: instruction-count time, 1000 steps (ps) per instruction; at
# instruction 4 the Thumb leaf runs (pc 0x3100)
"$TRAWL" vcd "$D/calls-a32.tarmac" -o "$_tmp/a32.vcd" || fail "vcd a32"
$PY vcd "$_tmp/a32.vcd" 0:pc=2000 4000:pc=3100 3000:r14=3007 5000:sp=8000 2000:sp=7ffc 7000:encoding=eafffffe >"$_tmp/r" ||
	fail "$(cat "$_tmp/r")"
grep -q '^\$timescale 1 ps \$end' "$_tmp/a32.vcd" || fail "vcd a32: timescale is not 1 ps"
# memory signals: the poll loop reads 0 from 0x2000 (clk ticks x1000)
"$TRAWL" vcd --timestamps "$D/stuck-poll.tarmac" -o "$_tmp/poll.vcd" || fail "vcd poll"
$PY vcd "$_tmp/poll.vcd" 2000:mem_addr=2000 2000:mem_read=1 3000:mem_read=0 1000:x0=2000 >"$_tmp/r" || fail "$(cat "$_tmp/r")"
grep -q "time: the trace's timestamps (clk)" "$_tmp/poll.vcd" || fail "vcd does not say its time base"
# timestamps that go backwards are reported, not fatal
sed 's/^4 clk IT (4)/1 clk IT (4)/' "$D/calls-a32.tarmac" >"$_tmp/back.tarmac"
expect_stderr_has "timestamps go backwards 1 time (first at line 8)" "$TRAWL" vcd --timestamps "$_tmp/back.tarmac" -o "$_tmp/back.vcd"
$PY vcd "$_tmp/back.vcd" >"$_tmp/r" || fail "$(cat "$_tmp/r")"
# Each access of an STP/LDP has its own time (access j of n at +j*1000/n
# inside the instruction's 1000 steps), so a viewer shows both; FP/SIMD
# registers are 128-bit signals (a D write clears the top half).
cat >"$_tmp/pair.tarmac" <<'TR'
1 clk IT (1) 00001000 a9000be1 O EL1h_n : STP x1,x2,[sp]
1 clk MW8 0000000000010000 1111111111111111
1 clk MW8 0000000000010008 2222222222222222
2 clk IT (2) 00001004 a94013e3 O EL1h_n : LDP x3,x4,[sp]
2 clk MR8 0000000000010000 1111111111111111
2 clk MR8 0000000000010008 2222222222222222
2 clk R X3 1111111111111111
2 clk R X4 2222222222222222
3 clk IT (3) 00001008 3dc003e0 O EL1h_n : LDR q0,[sp]
3 clk MR16 0000000000010000 22222222222222221111111111111111
3 clk R Q0 22222222222222221111111111111111
4 clk IT (4) 0000100c 1e6e1001 O EL1h_n : FMOV d1,#1.0
4 clk R D1 3ff0000000000000
5 clk IT (5) 00001010 d503201f O EL1h_n : NOP
TR
"$TRAWL" vcd "$_tmp/pair.tarmac" -o "$_tmp/pair.vcd" || fail "vcd pair"
$PY vcd-history "$_tmp/pair.vcd" mem_addr mem_read mem_write v0 v1 >"$_tmp/r" || fail "$(cat "$_tmp/r")"
cat >"$_tmp/want" <<'W'
mem_addr 0 10000
mem_addr 500 10008
mem_addr 1000 10000
mem_addr 1500 10008
mem_addr 2000 10000
mem_read 0 0
mem_read 1000 1
mem_read 3000 0
mem_write 0 1
mem_write 1000 0
v0 2000 22222222222222221111111111111111
v1 3000 3ff0000000000000
W
cmp -s "$_tmp/want" "$_tmp/r" || fail "vcd pair: value changes differ from the hand-worked ones:
$(diff "$_tmp/want" "$_tmp/r")"
grep -q 'wire 128 .* v0 ' "$_tmp/pair.vcd" || fail "vcd pair: v0 is not a 128-bit signal"
# function names from symbols
if [ -f "$Q/quicksort.elf" ]; then
	"$TRAWL" vcd --image "$Q/quicksort.elf" "$Q/quicksort.tarmac" -o "$_tmp/q.vcd" || fail "vcd quicksort"
	$PY vcd "$_tmp/q.vcd" 9000:pc=8038 >"$_tmp/r" || fail "$(cat "$_tmp/r")"
	# "quicksort" in ASCII
	$PY vcd "$_tmp/q.vcd" 9000:function=717569636b736f7274 >"$_tmp/r" || fail "function signal: $(cat "$_tmp/r")"
fi

# truncate: 'b .' forever -> keep up to the first 'b .' (line 6)
"$TRAWL" truncate "$D/stuck-self.tarmac" -o "$_tmp/t1" 2>"$_tmp/e1" || fail "truncate self"
head -n 6 "$D/stuck-self.tarmac" | cmp -s - "$_tmp/t1" || fail "truncate self kept: $(tail -2 "$_tmp/t1")"
grep -q "stuck in a loop of 1 instruction from line 6 (4 identical turns)" "$_tmp/e1" || fail "$(cat "$_tmp/e1")"
# a polling loop reading the same value: keep the first turn (lines 1-8)
cat "$D/stuck-poll.tarmac" | "$TRAWL" truncate - >"$_tmp/t2" 2>"$_tmp/e2" || fail "truncate poll (stdin)"
head -n 8 "$D/stuck-poll.tarmac" | cmp -s - "$_tmp/t2" || fail "truncate poll kept: $(tail -2 "$_tmp/t2")"
grep -q "loop of 3 instructions from line 3 (4 identical turns)" "$_tmp/e2" || fail "$(cat "$_tmp/e2")"
# compressed input works the same
gzip -c "$D/stuck-poll.tarmac" >"$_tmp/poll.gz"
"$TRAWL" truncate "$_tmp/poll.gz" -o "$_tmp/t3" 2>/dev/null && cmp -s "$_tmp/t2" "$_tmp/t3" || fail "truncate .gz"
# a loop that makes progress is not stuck: copied whole
"$TRAWL" truncate "$D/stuck-progress.tarmac" -o "$_tmp/t4" 2>"$_tmp/e4"
cmp -s "$D/stuck-progress.tarmac" "$_tmp/t4" || fail "progress loop was cut"
grep -q "not stuck" "$_tmp/e4" || fail "no 'not stuck' message"
# more identical turns asked for than present: not stuck
"$TRAWL" truncate --repeats 7 "$D/stuck-poll.tarmac" -o "$_tmp/t5" 2>/dev/null
cmp -s "$D/stuck-poll.tarmac" "$_tmp/t5" || fail "--repeats 7 should keep everything"
expect_exit 2 "$TRAWL" truncate --repeats 1 "$D/stuck-poll.tarmac"
expect_exit 2 "$TRAWL" truncate
finish
