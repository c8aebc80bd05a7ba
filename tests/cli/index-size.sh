#!/bin/sh
# What each index kind costs on a real trace (issue #18): the full kind at
# most 0.8x the trace text (format 5 made 1.12x), the compact kind at most
# 0.25x and 27 bytes per instruction; and the two kinds give the same
# answers. Truth: the files' sizes (wc -c) and the instruction count the
# emulator was asked for; the other kind's answers.
. "$TRAWL_SRC/tests/cli-lib.sh"
E="${TRAWL_BUILD:-}/examples"
[ -x "$E/sort" ] || skip "examples not built (needs aarch64-linux-gnu-gcc)"

T="$_tmp/sort.tarmac"
n=300000
"$TRAWL" emulate "$E/sort" -n $n -o "$T" -- 20000 >/dev/null 2>&1 || fail "emulate sort"
"$TRAWL" index --kind full --index "$_tmp/full.idx" "$T" >/dev/null 2>&1 || fail "full index"
"$TRAWL" index --kind compact --index "$_tmp/compact.idx" "$T" >/dev/null 2>&1 || fail "compact index"
text=$(wc -c <"$T"); full=$(wc -c <"$_tmp/full.idx"); compact=$(wc -c <"$_tmp/compact.idx")
insns=$(grep -cE ' I[TS] \(' "$T")
[ "$insns" = $n ] || fail "the trace has $insns instructions, not $n"
echo "trace $text bytes; full $full ($(awk -v a="$full" -v b="$text" 'BEGIN { printf "%.3f", a / b }')x);" \
	"compact $compact ($(awk -v a="$compact" -v b="$insns" 'BEGIN { printf "%.1f", a / b }') B/instruction)"
[ $((full * 10)) -le $((text * 8)) ] || fail "full index $full bytes: over 0.8x the trace ($text)"
[ $((compact * 4)) -le "$text" ] || fail "compact index $compact bytes: over 0.25x the trace ($text)"
[ "$compact" -le $((insns * 27)) ] || fail "compact index $compact bytes: over 27 B per instruction"

# the same answers from both kinds, at lines across the trace
lines=$(wc -l <"$T")
addr=0x$(awk '$3 == "MW4" { n++ } n == 20000 { print $4; exit }' "$T")
[ "$addr" != 0x ] || fail "no store in the trace"
for at in 5 1001 $((lines / 3)) $((lines / 2 + 17)) $((lines - 1)); do
	for q in "regs --at $at" "last-write --at $at x0" "next-write --at $at sp" \
		"mem --at $at $addr 64" "changes --from $((at / 2)) --to $at"; do
		set -- $q
		verb=$1; shift
		"$TRAWL" "$verb" "$T" "$@" --index "$_tmp/full.idx" >"$_tmp/a" 2>&1 || fail "'$q' (full): $(cat "$_tmp/a")"
		"$TRAWL" "$verb" "$T" "$@" --index "$_tmp/compact.idx" >"$_tmp/b" 2>&1 || fail "'$q' (compact): $(cat "$_tmp/b")"
		cmp -s "$_tmp/a" "$_tmp/b" || fail "'$q': the kinds differ"
	done
done
finish
