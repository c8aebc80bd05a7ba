#!/bin/sh
# Bad input: messages name file, line and column and show the line; exit 1
# for bad input, 2 for usage; --lenient skips and counts.
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data/tarmac"

expect_exit 1 "$TRAWL" cat "$D/bad.tarmac"
cat >"$_tmp/want" <<EOT
trawl: cat: $D/bad.tarmac:2:12: expected a register value
  | 1 clk R X0 0000zz00
  |            ^
EOT
diff -u "$_tmp/want" "$_tmp/err" >/dev/null || fail "error message differs: $(cat "$_tmp/err")"
expect_exit 1 "$TRAWL" stats "$D/bad.tarmac"
expect_stderr_has "bad.tarmac:2:12: expected a register value" "$TRAWL" stats "$D/bad.tarmac"

# ... and the exit status says a line was skipped (1), after every event
# that could be read was printed
expect_exit 1 "$TRAWL" cat --lenient "$D/bad.tarmac"
expect_stderr_has "skipped 1 malformed line" "$TRAWL" cat --lenient "$D/bad.tarmac"
expect_stderr_has "warning: $D/bad.tarmac:2:12: expected a register value" "$TRAWL" cat --lenient "$D/bad.tarmac"
[ "$(wc -l <"$_tmp/out")" = 2 ] || fail "lenient cat should print 2 events"
expect_stdout_has "skipped bad lines: 1" "$TRAWL" stats --lenient --no-timing "$D/bad.tarmac"
expect_exit 1 "$TRAWL" stats --lenient --no-timing "$D/bad.tarmac"
"$TRAWL" calltree --parse-all --lenient "$D/bad.tarmac" >"$_tmp/out" 2>/dev/null
[ $? = 1 ] || fail "calltree --lenient over a skipped line should exit 1"
[ -s "$_tmp/out" ] || fail "calltree --lenient printed no tree"

# M-profile lines need --implicit-thumb, and the message says so
expect_exit 1 "$TRAWL" cat "$D/cortex-m.tarmac"
expect_stderr_has "need --implicit-thumb" "$TRAWL" cat "$D/cortex-m.tarmac"

# unknown record types: kept as text, one warning per type
printf '1 clk FOO one\n2 clk FOO two\n3 clk BAR x\n' >"$_tmp/u.tarmac"
expect_exit 0 "$TRAWL" cat "$_tmp/u.tarmac"
[ "$(grep -c "unknown Tarmac record type" "$_tmp/err")" = 2 ] || fail "expected one warning per unknown type"

# text that is not Tarmac (a README, a build log) is refused at once with
# one message, not read line by line with a warning for each
"$TRAWL" stats "$TRAWL_SRC/README.md" >"$_tmp/out" 2>"$_tmp/err"
[ $? = 1 ] || fail "stats README.md should exit 1"
grep -q "README.md: not a trace format trawl recognises: no Tarmac line" "$_tmp/err" || fail "README.md: $(head -c 300 "$_tmp/err")"
# the whole advice, not cut by the error record's size
grep -q "no CTF metadata (raw ETE: --ete-config)\$" "$_tmp/err" || fail "README.md: message cut: $(cat "$_tmp/err")"
[ "$(wc -l <"$_tmp/err")" = 1 ] || fail "README.md: want one message, got $(wc -l <"$_tmp/err") lines"
[ -s "$_tmp/out" ] && fail "README.md: stats printed figures for a non-trace"
# a directory that holds no trace says so (it said "cannot open
# 'DIR/metadata'", and regs first that no index could be written)
mkdir "$_tmp/notrace" && printf 'hello\n' >"$_tmp/notrace/readme"
for c in stats "regs --at 1"; do
	expect_exit 1 "$TRAWL" $c "$_tmp/notrace"
	grep -q "'$_tmp/notrace' is a directory but no trace: no CTF 'metadata' file" "$_tmp/err" || fail "$c of a folder: $(head -c 300 "$_tmp/err")"
	grep -q "no index can be written\|cannot open" "$_tmp/err" && fail "$c of a folder: $(head -c 300 "$_tmp/err")"
done
printf 'make[1]: Entering directory\ncc -O2 -c x.c\nwarning: unused variable\n' >"$_tmp/log.txt"
expect_exit 1 "$TRAWL" cat "$_tmp/log.txt"
# ... while a trace of one unknown record type is still a trace
printf '1 clk FOO one\n' >"$_tmp/u1.tarmac"
expect_exit 0 "$TRAWL" cat "$_tmp/u1.tarmac"

# empty input, binary garbage, missing file, truncated gzip
: >"$_tmp/empty"
expect_exit 0 "$TRAWL" cat "$_tmp/empty"
[ -s "$_tmp/out" ] && fail "cat of an empty file printed something"
head -c 4096 /dev/urandom >"$_tmp/garbage"
printf '\177ELF\001\000' | cat - "$_tmp/garbage" >"$_tmp/bin"
expect_exit 1 "$TRAWL" cat "$_tmp/bin"
expect_stderr_has "not a trace format" "$TRAWL" stats "$_tmp/bin"
expect_exit 1 "$TRAWL" cat "$_tmp/no-such-file"
gzip -c "$D/mixed.tarmac" | head -c 100 >"$_tmp/cut.gz"
expect_exit 1 "$TRAWL" cat "$_tmp/cut.gz"

# usage errors
expect_exit 2 "$TRAWL" cat
expect_exit 2 "$TRAWL" cat --bogus "$D/mixed.tarmac"
expect_exit 2 "$TRAWL" stats a b
expect_stderr_has "trawl: stats: unexpected argument 'b'" "$TRAWL" stats a b
# a trace cut off inside its last line (no newline): the partial line is
# dropped with a warning and its event is marked truncated, not misread
# (11 zero digits would otherwise pass for an abbreviated zero)
printf '0 clk IT (0) 00008000 d2a00028 O EL3h_s : MOV      x8,#0x10000\n0 clk R X8 0000000000010000\n1 clk IT (1) 00008004 d2a00029 O EL3h_s : MOV      x9,#0x10000\n1 clk R X9 00000000000' >"$_tmp/cut.tarmac"
# exit 1: a line was lost (the events before it are all printed)
expect_exit 1 "$TRAWL" cat "$_tmp/cut.tarmac"
expect_stdout_has 'L3 cpu0 t=1clk insn A64 pc=8004 enc=d2a00029 el=3 mode=EL3h_s truncated "MOV' "$TRAWL" cat "$_tmp/cut.tarmac"
expect_stderr_has "cut.tarmac:4:12: the trace ends inside this line" "$TRAWL" cat "$_tmp/cut.tarmac"
"$TRAWL" cat "$_tmp/cut.tarmac" 2>/dev/null | grep -q 'x9=' && fail "cut-off value of x9 was read as a write"
# the same line with its newline is an abbreviated zero, as producers write it
printf '1 clk IT (1) 00008004 d2a00029 O EL3h_s : MOV      x9,#0x10000\n1 clk R X9 00000000000\n' >"$_tmp/abbr.tarmac"
expect_stdout_has 'x9=0000000000000000' "$TRAWL" cat "$_tmp/abbr.tarmac"

# One rule for memory values too: fewer digits than the access size is a
# truncation on the input's last line (warning, line dropped, event marked
# truncated, no read recorded) and an error on any other line (never padded
# with invented zero bytes: 0f0000 was read as 00000f00)
printf '1 clk IT (1) 00001000 b9400021 O EL1h_n : LDR w1,[x1]\n1 clk MR4 000ffb18 0f0000' >"$_tmp/cutm.tarmac"
expect_exit 1 "$TRAWL" cat "$_tmp/cutm.tarmac"
grep -q 'truncated "LDR w1,\[x1\]"$' "$_tmp/out" || fail "cut memory value: event not truncated / read kept: $(cat "$_tmp/out")"
grep -q "cutm.tarmac:2:20: the trace ends inside this line (no newline): line dropped (memory value cut off" "$_tmp/err" ||
	fail "cut memory value: no truncation warning: $(cat "$_tmp/err")"
# the index is built of the rest, and exits 1 as cat does: a line was lost
expect_exit 1 "$TRAWL" index "$_tmp/cutm.tarmac"
expect_stdout_has "1 events, 1 lines" "$TRAWL" index "$_tmp/cutm.tarmac"
printf '1 clk IT (1) 00001000 b9400021 O EL1h_n : LDR w1,[x1]\n1 clk MR4 000ffb18 0f0000\n2 clk IT (2) 00001004 d503201f O EL1h_n : NOP\n' >"$_tmp/shortm.tarmac"
expect_exit 1 "$TRAWL" cat "$_tmp/shortm.tarmac"
cat >"$_tmp/want" <<EOT
trawl: cat: $_tmp/shortm.tarmac:2:20: memory value too short: 6 hex digits for a 4-byte access
  | 1 clk MR4 000ffb18 0f0000
  |                    ^
EOT
diff -u "$_tmp/want" "$_tmp/err" >/dev/null || fail "short memory value message differs: $(cat "$_tmp/err")"
# a whole value on the last line is no truncation
printf '1 clk IT (1) 00001000 b9400021 O EL1h_n : LDR w1,[x1]\n1 clk MR4 000ffb18 000f0000' >"$_tmp/wholem.tarmac"
expect_exit 0 "$TRAWL" cat "$_tmp/wholem.tarmac"
expect_stdout_has 'MR ffb18:4=00000f00' "$TRAWL" cat "$_tmp/wholem.tarmac"
[ -s "$_tmp/err" ] && fail "whole last memory value warned: $(cat "$_tmp/err")"
# an instruction's disassembly is free text: on a last line without a
# newline it may be cut anywhere (here inside "B.HI"), so the event is kept,
# marked truncated and named, and the run exits 1; with its newline the same
# line is whole
printf '1 clk IT (1) 00001000 b9400021 O EL1h_n : LDR w1,[x1]\n2 clk IT (2) 00001004 54ffff68 O EL1h_n : B.H' >"$_tmp/cutd.tarmac"
expect_exit 1 "$TRAWL" stats "$_tmp/cutd.tarmac"
grep -q "cutd.tarmac:2:.*the trace ends inside this line (no newline): its text may be cut off" "$_tmp/err" ||
	fail "cut disassembly: no warning: $(cat "$_tmp/err")"
expect_stdout_has 'pc=1004 enc=54ffff68 el=1 mode=EL1h_n truncated "B.H"' "$TRAWL" cat "$_tmp/cutd.tarmac"
printf '1 clk IT (1) 00001000 b9400021 O EL1h_n : LDR w1,[x1]\n2 clk IT (2) 00001004 54ffff68 O EL1h_n : B.HI 0x1000\n' >"$_tmp/wholed.tarmac"
expect_exit 0 "$TRAWL" stats "$_tmp/wholed.tarmac"
"$TRAWL" cat "$_tmp/wholed.tarmac" 2>/dev/null | grep -q truncated && fail "whole last instruction line marked truncated"

# a trace whose writer crashed leaves a zero-filled tail: it is still a
# Tarmac trace with a damaged end, named where (it was "not a trace format
# trawl recognises", as for a binary file), and the lines before it count
{ head -n 40 "$TRAWL_SRC/tests/data/tarmac/mixed.tarmac"; head -c 2000 /dev/zero; } >"$_tmp/zeros.tarmac"
n=$(head -n 40 "$TRAWL_SRC/tests/data/tarmac/mixed.tarmac" | grep -c .)
expect_exit 1 "$TRAWL" stats "$_tmp/zeros.tarmac"
grep -q "zeros.tarmac:$((n + 1)):1: the trace ends inside this line" "$_tmp/err" ||
	fail "zero-filled tail: $(head -c 300 "$_tmp/err")"
grep -q "not a trace format" "$_tmp/err" && fail "zero-filled tail taken for binary"
ev=$("$TRAWL" stats "$TRAWL_SRC/tests/data/tarmac/mixed.tarmac" | grep '^events:')
expect_stdout_has "$ev" "$TRAWL" stats "$_tmp/zeros.tarmac"
# binary data is still refused as such
printf '\177ELF\002\001\001\000' >"$_tmp/elf.tarmac"
expect_stderr_has "not a trace format" "$TRAWL" stats "$_tmp/elf.tarmac"
# a damaged perf.data recording given to a trace command is read as one
# (the perf.data reader backend) and its header named as the damage
{ printf 'PERFILE2'; head -c 200 /dev/zero; } >"$_tmp/perf.data"
expect_exit 1 "$TRAWL" stats "$_tmp/perf.data"
grep -q "perf.data header: bad header size" "$_tmp/err" ||
	fail "perf.data to stats: $(cat "$_tmp/err")"

finish
