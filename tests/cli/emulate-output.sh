#!/bin/sh
# What trawl emulate writes: the Tarmac line layout (golden file for the
# first instructions), -n, the ldst style, and .gz/.zst output that
# decompresses to exactly the plain trace.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples"
[ -x "$ex/sort" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"

# the initial register dump and the first 40 instructions of sort (run from
# its folder: the stack layout depends on the length of the program's path)
cd "$ex" || fail "no $ex"
expect_golden emulate-sort-40.tarmac "$TRAWL" emulate sort -n 40 -o - -- 10
cd - >/dev/null
expect_exit 0 "$TRAWL" emulate "$ex/sort" -n 40 -o "$_tmp/n40" -- 10
[ "$(grep -c ' clk I[TS] ' "$_tmp/n40")" = 40 ] || fail "-n 40 did not stop after 40 instructions"

# trace on stdout: the program's own output goes to stderr instead
"$TRAWL" emulate "$ex/sort" -- 10 >"$_tmp/so" 2>"$_tmp/se" </dev/null || fail "stdout run failed"
grep -q "^sorted 10 numbers" "$_tmp/se" || fail "program output not on stderr"
grep -q "sorted" "$_tmp/so" && fail "program output mixed into the trace"
"$TRAWL" emulate "$ex/sort" -o "$_tmp/plain" -- 10 >"$_tmp/so2" || fail "plain run failed"
# (fstat of the program's stdout differs, so only the instruction counts match)
[ "$(grep -c ' clk I[TS] ' "$_tmp/so")" = "$(grep -c ' clk I[TS] ' "$_tmp/plain")" ] ||
	fail "trace on stdout differs from trace in a file"

# compressed on the fly (program output to /dev/null in every run: what
# fstat says about it changes the program's path through stdio)
"$TRAWL" emulate "$ex/sort" -o "$_tmp/plain" -- 10 >/dev/null || fail "plain run failed"
"$TRAWL" emulate "$ex/sort" -o "$_tmp/t.gz" -- 10 >/dev/null || fail "gz run failed"
"$TRAWL" emulate "$ex/sort" -o "$_tmp/t.zst" -- 10 >/dev/null || fail "zst run failed"
gzip -dc "$_tmp/t.gz" | cmp -s - "$_tmp/plain" || fail ".gz output does not decompress to the trace"
if command -v zstd >/dev/null; then
	zstd -dc "$_tmp/t.zst" | cmp -s - "$_tmp/plain" || fail ".zst output does not decompress to the trace"
	# a trace of about 76 MB (a frame per emulator block, see also
	# emulate-zst-frames.sh), on the default threads, on 3, and in the
	# emulating thread
	"$TRAWL" emulate "$ex/sort" -o "$_tmp/big" -- 5000 >/dev/null || fail "plain run failed"
	for th in "" 3 0; do
		"$TRAWL" emulate "$ex/sort" ${th:+--compress-threads $th} -o "$_tmp/big.zst" -- 5000 >/dev/null ||
			fail "zst run (threads '$th') failed"
		zstd -dc "$_tmp/big.zst" | cmp -s - "$_tmp/big" ||
			fail ".zst output with --compress-threads '$th' does not decompress to the trace"
	done
	[ "$(wc -c <"$_tmp/big")" -gt 30000000 ] || fail "the big trace is too small to need many blocks"
	rm -f "$_tmp/big" "$_tmp/big.zst"
fi

# ldst style: the same instructions, memory as 16-byte LD/ST diagrams
"$TRAWL" emulate "$ex/sort" --style ldst -o "$_tmp/ldst" -- 10 >/dev/null || fail "ldst run failed"
grep -q ' M[RW][0-9]' "$_tmp/ldst" && fail "ldst style still has MR/MW lines"
[ "$(grep -c ' clk I[TS] ' "$_tmp/ldst")" = "$(grep -c ' clk I[TS] ' "$_tmp/plain")" ] ||
	fail "ldst style has a different number of instructions"
# instruction 5 is "ldr x1, [sp]" loading argc = 2 from the 16-byte aligned stack
grep -q '^5 clk LD [0-9a-f]*0 \.\.\.\.\.\.\.\. \.\.\.\.\.\.\.\. 00000000 00000002$' "$_tmp/ldst" ||
	fail "LD line of 'ldr x1, [sp]' wrong: $(grep '^5 clk LD' "$_tmp/ldst")"

# trawl's own Tarmac reader accepts every style with no error and finds
# exactly the instructions the emulator says it ran
reader_count() { # trace -> number of instruction events, per trawl stats
	"$TRAWL" stats --no-timing "$1" 2>"$_tmp/rerr" | awk '$1 == "insn" { print $2 }'
}
for style in fm ldst; do
	for ext in tarmac tarmac.zst; do
		"$TRAWL" emulate "$ex/simd" --style $style --stats -o "$_tmp/r.$ext" >/dev/null 2>"$_tmp/st" ||
			fail "simd --style $style -o .$ext failed"
		want=$(sed -n 's/^emulate: \([0-9]*\) instructions.*/\1/p' "$_tmp/st")
		got=$(reader_count "$_tmp/r.$ext")
		[ -n "$want" ] && [ "$got" = "$want" ] ||
			fail "style $style .$ext: trawl stats counts '$got' instructions, emulate ran '$want': $(head -3 "$_tmp/rerr")"
	done
done
finish
