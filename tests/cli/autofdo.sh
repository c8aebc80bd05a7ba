#!/bin/sh
# trawl autofdo: counts against an independent reading of the Tarmac text
# (autofdo-oracle.py), merging, per-binary blocks with build ids as readelf
# reads them, and the profile turned into a sample profile by llvm-profgen.
. "$TRAWL_SRC/tests/cli-lib.sh"
oracle="$TRAWL_SRC/tests/cli/autofdo-oracle.py"
command -v python3 >/dev/null || skip "python3 not installed"

# 1. counts equal the oracle's, per core and across an exception (two-core
# trace), on an emulated program and on a real Thumb trace from the corpus
check_oracle() {
	python3 "$oracle" "$1" >"$_tmp/want" || { fail "oracle failed on $1"; return; }
	"$TRAWL" autofdo "$1" >"$_tmp/got" 2>"$_tmp/err" || fail "autofdo $1 exited $?: $(cat "$_tmp/err")"
	diff -u "$_tmp/want" "$_tmp/got" >"$_tmp/diff" || fail "autofdo $1 differs from the oracle:
$(head -20 "$_tmp/diff")"
	[ "$(head -1 "$_tmp/got")" -gt 0 ] || fail "no ranges counted in $1"
}
check_oracle "$TRAWL_SRC/tests/data/calls-2cpu.tarmac"
# hand-checked: cpu1's NOP at 0x1020 ends at the IRQ with no branch counted
grep -qx "1020-1020:1" "$_tmp/got" || fail "range ended by the exception missing"
grep -q "^1020->" "$_tmp/got" && fail "an exception entry was counted as a branch"
corpus=${TRAWL_CORPUS:-$TRAWL_SRC/../shared/corpus}
if [ -f "$corpus/tarmac/quicksort.tarmac" ]; then
	check_oracle "$corpus/tarmac/quicksort.tarmac"
else
	echo "note: $corpus absent, corpus trace not checked"
fi
# ETE reaches autofdo through its Tarmac conversion
if [ -d "$corpus/ete/ete/ete_ip" ]; then
	"$TRAWL" ete tarmac "$corpus/ete/ete/ete_ip" -o "$_tmp/ete.tarmac" || fail "ete tarmac failed"
	check_oracle "$_tmp/ete.tarmac"
fi
sort_elf="$TRAWL_BUILD/examples/sort"
[ -x "$sort_elf" ] || { finish; }
"$TRAWL" emulate "$sort_elf" -o "$_tmp/sort.tarmac" -- 300 >/dev/null 2>&1 || fail "emulate sort failed"
check_oracle "$_tmp/sort.tarmac"
cp "$_tmp/got" "$_tmp/one"

# 2. two copies of the trace: the same ranges and branches, every count doubled
"$TRAWL" autofdo "$_tmp/sort.tarmac" "$_tmp/sort.tarmac" >"$_tmp/two" || fail "autofdo of two traces failed"
awk -F: '/:/ { $NF = $NF * 2; print; next } { print }' OFS=: "$_tmp/one" >"$_tmp/doubled"
diff -u "$_tmp/doubled" "$_tmp/two" >"$_tmp/diff" || fail "merging two copies does not double every count:
$(head -10 "$_tmp/diff")"

# 3. --image: one block, addresses relative to the page of the first load
# segment (simpleperf's and create_llvm_prof's base), the build id readelf
# reports, the path; branches leaving the binary go to 0
"$TRAWL" autofdo --image "$sort_elf" "$_tmp/sort.tarmac" -o "$_tmp/img" || fail "autofdo --image failed"
base=$(readelf -lW "$sort_elf" | awk '$1 == "LOAD" { print $3; exit }')
bid=$(readelf -n "$sort_elf" | awk '/Build ID:/ { print $3 }')
grep -qx "// build_id: 0x$bid" "$_tmp/img" || fail "build id line is not 0x$bid: $(grep build_id "$_tmp/img")"
grep -qx "// $sort_elf" "$_tmp/img" || fail "path line missing"
python3 - "$_tmp/one" "$_tmp/img" "$base" <<'PY' || fail "relative addresses do not match the absolute profile"
import sys
def ranges(path, shift):
    out, lines = {}, [l.strip() for l in open(path) if not l.startswith('//')]
    n = int(lines[0])
    for l in lines[1:1 + n]:
        ab, c = l.split(':'); a, b = ab.split('-')
        out[(int(a, 16) + shift, int(b, 16) + shift)] = int(c)
    return out
base = int(sys.argv[3], 16) & ~0xfff
absr, rel = ranges(sys.argv[1], 0), ranges(sys.argv[2], base)
inside = {k: v for k, v in absr.items() if k in rel}
assert rel and rel == inside, "relative ranges are not the absolute ones shifted"
assert len(rel) == len(absr), "ranges of the static program missing from its block"
PY
expect_exit 2 "$TRAWL" autofdo --image "$sort_elf" --binary nosuch "$_tmp/sort.tarmac" -o "$_tmp/none"
[ -e "$_tmp/none" ] && fail "a usage error left an output file"
expect_exit 2 "$TRAWL" autofdo --image "$sort_elf" --image "$sort_elf@0x10000000" --format llvm-profgen "$_tmp/sort.tarmac"
# two images: two blocks, the second (loaded elsewhere) with no range
"$TRAWL" autofdo --image "$sort_elf" --image "$sort_elf@0x10000000" "$_tmp/sort.tarmac" >"$_tmp/twoimg" ||
	fail "autofdo with two images failed"
[ "$(grep -c "^// build_id" "$_tmp/twoimg")" = 2 ] || fail "two images should give two blocks"
expect_exit 1 "$TRAWL" autofdo "$_tmp/nonexistent.tarmac"
# an image at the wrong offset holds none of the trace: an empty profile is
# no answer, exit 1 (it was 0 with a warning)
expect_exit 1 "$TRAWL" autofdo --image "$sort_elf@0x10000000" "$_tmp/sort.tarmac"
grep -q "none of the trace is in them" "$_tmp/err" || fail "autofdo, wrong offset: $(cat "$_tmp/err")"

# 4. usable: llvm-profgen (AArch64 support needs LLVM 17 or newer) makes a
# sample profile whose hottest function is the one the trace spent the most
# instructions in, counted from the Tarmac text with nm's symbols
profgen=""
for v in 21 20 19 18 17; do
	[ -x "/usr/lib/llvm-$v/bin/llvm-profgen" ] && { profgen=/usr/lib/llvm-$v/bin; break; }
done
if [ -z "$profgen" ]; then
	echo "note: no llvm-profgen with AArch64 support (llvm-17 or newer), profile not converted"
	finish
fi
"$TRAWL" autofdo --image "$sort_elf" --format llvm-profgen "$_tmp/sort.tarmac" -o "$_tmp/sort.raw" ||
	fail "autofdo --format llvm-profgen failed"
"$profgen/llvm-profgen" --binary "$sort_elf" --unsymbolized-profile "$_tmp/sort.raw" \
	--output "$_tmp/sort.afdo" --format=text >"$_tmp/pg.out" 2>&1 || fail "llvm-profgen failed: $(tail -3 "$_tmp/pg.out")"
"$profgen/llvm-profdata" show --sample "$_tmp/sort.afdo" >"$_tmp/show" 2>&1 || fail "llvm-profdata show failed"
hot=$(awk '/^Function: / { sub(/:$/, "", $2); n = $3 + 0; if (n > best) { best = n; name = $2 } }
	END { print name }' FS='[ ,]+' "$_tmp/show")
want=$(nm "$sort_elf" | python3 -c '
import re, sys, bisect
syms = sorted((int(a, 16), n) for a, t, n in (l.split()[:3] for l in sys.stdin if len(l.split()) == 3) if t in "tT")
addrs = [a for a, _ in syms]
count = {}
for line in open(sys.argv[1]):
    m = re.search(r" I[TS] \(\d+\) ([0-9a-f]+) ", line)
    if m:
        i = bisect.bisect_right(addrs, int(m.group(1), 16)) - 1
        count[syms[i][1]] = count.get(syms[i][1], 0) + 1
print(max(count, key=count.get))' "$_tmp/sort.tarmac")
[ -n "$hot" ] && [ "$hot" = "$want" ] || fail "llvm-profdata's hottest function is '$hot', the trace's is '$want'"

# 5. the two formats' bases differ when the text is not in the first load
# segment (-z separate-code: R at 0x400000, R E at 0x410000, readelf -l):
# the text format is relative to the first load segment (as simpleperf's
# perf_inject.data in the corpus, tests/cli/perf-reader.sh), llvm-profgen's
# input to the text segment's page, which llvm-profgen must still turn into
# a profile whose hottest function is the trace's
command -v aarch64-linux-gnu-gcc >/dev/null || { echo "note: no aarch64-linux-gnu-gcc, separate-code binary not checked"; finish; }
aarch64-linux-gnu-gcc -O2 -g -static -Wl,-z,separate-code -o "$_tmp/sep" "$TRAWL_SRC/examples/sort.c" ||
	{ fail "cannot build the separate-code sort"; finish; }
load=$(readelf -lW "$_tmp/sep" | awk '$1 == "LOAD" { print $3; exit }')
text=$(readelf -lW "$_tmp/sep" | awk '$1 == "LOAD" && /E 0x[0-9a-f]+$/ { print $3; exit }')
[ $((load)) != $((text)) ] || fail "the separate-code binary has its text in its first segment ($load)"
"$TRAWL" emulate "$_tmp/sep" -o "$_tmp/sep.tarmac" -- 300 >/dev/null 2>&1 || fail "emulate sep failed"
"$TRAWL" autofdo "$_tmp/sep.tarmac" -o "$_tmp/sep.abs" || fail "autofdo sep failed"
"$TRAWL" autofdo --image "$_tmp/sep" "$_tmp/sep.tarmac" -o "$_tmp/sep.txt" || fail "autofdo --image sep failed"
"$TRAWL" autofdo --image "$_tmp/sep" --format llvm-profgen "$_tmp/sep.tarmac" -o "$_tmp/sep.raw" ||
	fail "autofdo --format llvm-profgen sep failed"
# the first range of each, shifted back by its base, is the absolute one
first_abs=$(sed -n 2p "$_tmp/sep.abs" | cut -d- -f1)
[ $((0x$(sed -n 2p "$_tmp/sep.txt" | cut -d- -f1) + (load & ~0xfff))) = $((0x$first_abs)) ] ||
	fail "text format: $(sed -n 2p "$_tmp/sep.txt") is not $first_abs less the first load segment $load"
[ $((0x$(sed -n 2p "$_tmp/sep.raw" | cut -d- -f1) + (text & ~0xfff))) = $((0x$first_abs)) ] ||
	fail "llvm-profgen format: $(sed -n 2p "$_tmp/sep.raw") is not $first_abs less the text page $text"
"$profgen/llvm-profgen" --binary "$_tmp/sep" --unsymbolized-profile "$_tmp/sep.raw" \
	--output "$_tmp/sep.afdo" --format=text >"$_tmp/pg.out" 2>&1 || fail "llvm-profgen sep failed: $(tail -3 "$_tmp/pg.out")"
"$profgen/llvm-profdata" show --sample "$_tmp/sep.afdo" 2>&1 | grep -q "^Function: quick_sort: " ||
	fail "llvm-profgen made no quick_sort profile from the separate-code binary's offsets"
finish
