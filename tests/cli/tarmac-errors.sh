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

expect_exit 0 "$TRAWL" cat --lenient "$D/bad.tarmac"
expect_stderr_has "skipped 1 malformed line" "$TRAWL" cat --lenient "$D/bad.tarmac"
expect_stderr_has "warning: $D/bad.tarmac:2:12: expected a register value" "$TRAWL" cat --lenient "$D/bad.tarmac"
[ "$(wc -l <"$_tmp/out")" = 2 ] || fail "lenient cat should print 2 events"
expect_stdout_has "skipped bad lines: 1" "$TRAWL" stats --lenient --no-timing "$D/bad.tarmac"

# M-profile lines need --implicit-thumb, and the message says so
expect_exit 1 "$TRAWL" cat "$D/cortex-m.tarmac"
expect_stderr_has "need --implicit-thumb" "$TRAWL" cat "$D/cortex-m.tarmac"

# unknown record types: kept as text, one warning per type
printf '1 clk FOO one\n2 clk FOO two\n3 clk BAR x\n' >"$_tmp/u.tarmac"
expect_exit 0 "$TRAWL" cat "$_tmp/u.tarmac"
[ "$(grep -c "unknown Tarmac record type" "$_tmp/err")" = 2 ] || fail "expected one warning per unknown type"

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
finish
