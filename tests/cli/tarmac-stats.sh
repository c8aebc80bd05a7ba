#!/bin/sh
# trawl stats: the summary of hand-made traces and corpus traces (timing
# figures left out with --no-timing; they vary from run to run).
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data/tarmac"

# the trace line names the file; keep goldens independent of the checkout
for f in mixed es-style; do
	"$TRAWL" stats --no-timing "$D/$f.tarmac" | sed 's/^trace: .*/trace: '"$f"'/' >"$_tmp/s"
	expect_golden "stats-$f" cat "$_tmp/s"
done
expect_stdout_has "throughput: " "$TRAWL" stats "$D/mixed.tarmac"
expect_stdout_has "peak rss: " "$TRAWL" stats "$D/mixed.tarmac"
"$TRAWL" stats --no-timing - <"$D/mixed.tarmac" | sed 's/^trace: -$/trace: X/' >"$_tmp/a"
"$TRAWL" stats --no-timing "$D/mixed.tarmac" | sed 's/^trace: .*/trace: X/' >"$_tmp/b"
cmp -s "$_tmp/a" "$_tmp/b" || fail "stats of stdin differs from stats of the file"

if [ -d "${TRAWL_CORPUS:-}/tarmac" ]; then
	C="$TRAWL_CORPUS/tarmac"
	for f in quicksort calculator-aarch64-fastmodel calculator-aarch64-es-ld-st-style; do
		"$TRAWL" stats --no-timing "$C/$f.tarmac" | sed 's/^trace: .*/trace: '"$f"'/' >"$_tmp/s"
		expect_golden "stats-corpus-$f" cat "$_tmp/s"
	done
	# both styles of the same program run the same instructions at the same PCs
	a=$(sed -n 's/^distinct pcs: //p' "$TRAWL_SRC/tests/cli/golden/stats-corpus-calculator-aarch64-fastmodel")
	b=$(sed -n 's/^distinct pcs: //p' "$TRAWL_SRC/tests/cli/golden/stats-corpus-calculator-aarch64-es-ld-st-style")
	[ "$a" = "$b" ] || fail "the two calculator traces visit $a and $b distinct PCs"
	# independent count of instruction lines
	n=$(grep -c -E '^[0-9]+ clk (IT|IS) ' "$C/quicksort.tarmac")
	got=$("$TRAWL" stats --no-timing "$C/quicksort.tarmac" | sed -n 's/^  insn *//p')
	[ "$n" = "$got" ] || fail "quicksort: $got instructions, grep counts $n"
else
	echo "corpus not found: corpus part skipped"
fi
finish
