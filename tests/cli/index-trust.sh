#!/bin/sh
# Answers users can trust (issue #13): edits that keep size and mtime,
# swapped blocks, reader options, damaged indexes (rebuilt once, answers
# right), stale temporary files, read-only folders, huge last-write
# ranges, no source paths in messages. Truth: a fresh index of the same
# trace built elsewhere (--index), or values worked out by hand.
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data/index"

# a trace of 12000 instructions (~560 KB): x3 = i, a store of i every 4th one
gen() {
	awk 'BEGIN { for (i = 1; i <= 12000; i++) {
		pc = 4096 + 4 * i
		printf "%d clk cpu0 IT (%d) %08x d2800003 O EL1h_n : MOV x3,#%d\n", i, i, pc, i
		printf "%d clk cpu0 R X3 %016x\n", i, i
		if (i % 4 == 0) printf "%d clk cpu0 MW8 %08x %016x\n", i, 65536 + 8 * (i % 64), i
	} }'
}
T="$_tmp/t.tarmac"
gen >"$T"
"$TRAWL" index "$T" >/dev/null || fail "index"

# same check for a trace and its fresh index: every answer of the set
answers() {
	for at in 2 101 1001 10500 14200 14900 22222 26001; do
		"$TRAWL" regs "$1" --at $at $2 2>/dev/null | grep -E "x3|pc"
		"$TRAWL" last-write "$1" --at $at x3 $2 2>/dev/null
		"$TRAWL" mem "$1" --at $at 0x10000 64 $2 2>/dev/null
	done
}
same_as_fresh() {
	rm -f "$_tmp/fresh.idx"
	"$TRAWL" index "$1" --index "$_tmp/fresh.idx" >/dev/null 2>&1
	answers "$1" "" >"$_tmp/a1"
	answers "$1" "--index $_tmp/fresh.idx" >"$_tmp/a2"
	[ -s "$_tmp/a2" ] || fail "$2: no answers"
	cmp -s "$_tmp/a1" "$_tmp/a2" || fail "$2: answers differ from a fresh index:
$(diff "$_tmp/a1" "$_tmp/a2" | head -6)"
}

# 1. one register value changed in the middle, same size, mtime restored
cp -p "$T" "$_tmp/orig"
sed 's/^1500 clk cpu0 R X3 00000000000005dc$/1500 clk cpu0 R X3 00000000000005dd/' "$_tmp/orig" >"$_tmp/x"
cat "$_tmp/x" >"$T" && touch -r "$_tmp/orig" "$T"
cmp -s "$T" "$_tmp/orig" && fail "the edit did not happen"
ln=$(grep -n "^1500 clk cpu0 R X3" "$T" | cut -d: -f1)
expect_stdout_has "x3         00000000000005dd" "$TRAWL" regs "$T" --at "$ln"
same_as_fresh "$T" "same-size edit"
# 2. two line-aligned blocks of the same size swapped, mtime restored
gen >"$T" && "$TRAWL" index "$T" >/dev/null 2>&1 && cp -p "$T" "$_tmp/orig"
# (far from both ends: not in the first or last 64 KiB)
{ sed -n '1,10000p' "$_tmp/orig"; sed -n '14001,15000p' "$_tmp/orig"; sed -n '11001,14000p' "$_tmp/orig"
  sed -n '10001,11000p' "$_tmp/orig"; sed -n '15001,$p' "$_tmp/orig"; } >"$_tmp/x"
[ "$(wc -c <"$_tmp/x")" = "$(wc -c <"$_tmp/orig")" ] || fail "swap changed the size"
cat "$_tmp/x" >"$T" && touch -r "$_tmp/orig" "$T"
same_as_fresh "$T" "swapped blocks"
# 3. harmless: cp -a, chmod, mv keep the index (no rebuild note), answers right
gen >"$T" && "$TRAWL" index "$T" >/dev/null 2>&1
cp -a "$T" "$_tmp/c.tarmac" && cp -a "$T.trawlidx" "$_tmp/c.tarmac.trawlidx"
chmod 600 "$_tmp/c.tarmac"
mv "$_tmp/c.tarmac" "$_tmp/d.tarmac" && mv "$_tmp/c.tarmac.trawlidx" "$_tmp/d.tarmac.trawlidx"
ln=$(grep -n "^6 clk cpu0 R X3" "$T" | cut -d: -f1)
"$TRAWL" regs "$_tmp/d.tarmac" --at "$ln" >"$_tmp/out" 2>"$_tmp/err"
grep -q "building it again" "$_tmp/err" && fail "a copied trace was indexed again"
grep -qF "x3         0000000000000006" "$_tmp/out" || fail "copied trace: wrong x3"
same_as_fresh "$_tmp/d.tarmac" "copied trace"

# reader options are part of the identity
M="$_tmp/m.tarmac"
cp "$D/mixed.tarmac" "$M"
"$TRAWL" index "$M" >/dev/null
"$TRAWL" mem "$M" --at 9 0x10000 16 --big-endian --index "$_tmp/be.idx" >"$_tmp/be" 2>/dev/null
expect_exit 0 "$TRAWL" mem "$M" --at 9 0x10000 16 --big-endian
cmp -s "$_tmp/out" "$_tmp/be" || fail "--big-endian answered from a little-endian index"
expect_exit 1 "$TRAWL" mem "$M" --at 9 0x10000 16 --index "$_tmp/be.idx"
expect_stderr_has "built with reader options: --big-endian; asked for: none" \
	"$TRAWL" mem "$M" --at 9 0x10000 16 --index "$_tmp/be.idx"
# --lenient: not reused without it, and the skipped lines are told
L="$_tmp/l.tarmac"
{ cat "$D/mixed.tarmac"; echo "14 clk cpu0 R X0 zzzz not a value"; } >"$L"
# (a line was skipped: exit 1 after the answer, as every command does)
expect_exit 1 "$TRAWL" index "$L" --lenient
expect_exit 1 "$TRAWL" regs "$L" --at 3
expect_stderr_has "skipped (--lenient)" "$TRAWL" regs "$L" --at 3 --lenient
expect_exit 1 "$TRAWL" regs "$L" --at 3 --lenient
expect_stdout_has "cpu 1 after lines 3-4" "$TRAWL" regs "$L" --at 3 --lenient

# a damaged index (not caught at open) is rebuilt once and the answer is right
gen >"$T" && "$TRAWL" index "$T" >/dev/null 2>&1
want=$("$TRAWL" regs "$T" --at 4500)
I="$T.trawlidx"
size=$(wc -c <"$I")
# the event record the query reads: EVENTS (section 1) holds blocks of 256
# packed records after a 128-byte header; EVBLK (section 3) has a u64 per
# block, its offset (low 48 bits) and record size (high 16)
ev=$(echo "$want" | sed -n 's/.*(event \([0-9]*\)).*/\1/p' | head -1)
[ -n "$ev" ] || fail "no event number in: $want"
evoff=$(python3 - "$I" "$ev" <<'PY'
import struct, sys
h = open(sys.argv[1], 'rb').read()
ev = int(sys.argv[2])
sec = {}
for i in range(struct.unpack_from('<I', h, 100)[0]):
    sid, rec, off, ln, _ = struct.unpack_from('<IIQQQ', h, 128 + 32 * i)
    sec[sid] = off
e = struct.unpack_from('<Q', h, sec[3] + 8 * (ev // 256))[0]
print(sec[1] + (e & (2**48 - 1)) + 128 + (ev % 256) * (e >> 48))
PY
)
[ -n "$evoff" ] || fail "no offset for event $ev"
printf 'ZZZZ' | dd of="$I" bs=1 seek="$evoff" conv=notrunc 2>/dev/null
"$TRAWL" regs "$T" --at 4500 >"$_tmp/out" 2>"$_tmp/err"; rc=$?
[ $rc = 0 ] || fail "damaged index: exit $rc; $(cat "$_tmp/err")"
[ "$(cat "$_tmp/out")" = "$want" ] || fail "damaged index: wrong answer"
grep -q "is damaged: building it again" "$_tmp/err" || fail "damage was not noted: $(cat "$_tmp/err")"
expect_stdout_has "checksums:           ok" "$TRAWL" info "$T" --verify
# ... also for a command with two arguments and an option before them (the
# second run got the command line as the first run's parse left it)
wantlw=$("$TRAWL" last-write --at 4500 "$T" x3)
printf 'ZZZZ' | dd of="$I" bs=1 seek="$evoff" conv=notrunc 2>/dev/null
"$TRAWL" last-write --at 4500 "$T" x3 >"$_tmp/out" 2>"$_tmp/err"; rc=$?
[ $rc = 0 ] || fail "damaged index, last-write: exit $rc; $(cat "$_tmp/err")"
[ "$(cat "$_tmp/out")" = "$wantlw" ] || fail "damaged index, last-write: $(cat "$_tmp/out")"
# every mutated byte of a small index: never a wrong answer with exit 0
"$TRAWL" index "$T" >/dev/null 2>&1
for frac in 5 9 17 33 50 71 90 97; do
	printf '\377' | dd of="$I" bs=1 seek=$((size * frac / 100)) conv=notrunc 2>/dev/null
	"$TRAWL" regs "$T" --at 4500 >"$_tmp/out" 2>/dev/null
	[ "$(cat "$_tmp/out")" = "$want" ] || fail "byte at $frac%: wrong answer"
done
# the first page damaged: rebuilt, not "not a trawl index" forever
printf 'XXXXXXXX' | dd of="$I" bs=1 seek=0 conv=notrunc 2>/dev/null
"$TRAWL" regs "$T" --at 4500 >"$_tmp/out" 2>/dev/null
[ "$(cat "$_tmp/out")" = "$want" ] || fail "first page damaged: wrong answer"
# trawl index (no --force) finds damage anywhere and builds over it
printf 'ZZZZ' | dd of="$I" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_stderr_has "is damaged: building it again" "$TRAWL" index "$T"
expect_exit 0 "$TRAWL" info "$T" --verify
# an index of an older format is rebuilt, never called damaged
printf '\001' | dd of="$I" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_stderr_has "is of an older format: building it again" "$TRAWL" regs "$T" --at 5
# a real version-3 index (32-byte REGW records, made by the binary before
# format 4) beside a copy of its trace: rebuilt, and the answer is that of a
# fresh index (the old binary used it as it was)
cp "$D/mixed.tarmac" "$_tmp/m3.tarmac"
cp "$D/mixed-v3.idx" "$_tmp/m3.tarmac.trawlidx"
expect_stderr_has "is of an older format: building it again" "$TRAWL" last-write "$_tmp/m3.tarmac" --at 24 x0
"$TRAWL" last-write "$_tmp/m3.tarmac" --at 24 x0 >"$_tmp/got" 2>/dev/null
"$TRAWL" last-write "$D/mixed.tarmac" --index "$_tmp/m3fresh.idx" --at 24 x0 >"$_tmp/want" 2>/dev/null
[ -s "$_tmp/want" ] && cmp -s "$_tmp/got" "$_tmp/want" || fail "v3 index: another answer than a fresh one"

# no source paths in messages; --debug shows where damage was detected
cp "$I" "$_tmp/dmg.idx"
printf 'ZZZZ' | dd of="$_tmp/dmg.idx" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_exit 1 "$TRAWL" info "$T" --index "$_tmp/dmg.idx" --verify
grep -q "\.c:[0-9]" "$_tmp/err" && fail "a source path in a message: $(cat "$_tmp/err")"
cp "$I" "$_tmp/dmg.idx"
printf 'ZZZZ' | dd of="$_tmp/dmg.idx" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_stderr_has "detected at" "$TRAWL" --debug info "$T" --index "$_tmp/dmg.idx" --verify

# a killed build's temporary file is removed by the next build
dead=$(sh -c 'echo $$')
dd if=/dev/zero of="$I.tmp$dead" bs=1024 count=64 2>/dev/null
expect_exit 0 "$TRAWL" index "$T" --force
[ -e "$I.tmp$dead" ] && fail "a dead build's temporary file was left"

# info says where the index is
expect_stdout_has "index file:          $I" "$TRAWL" info "$T"

# last-write over a huge range costs its writes, not its length
# (the same answers as ranges covering just what the trace wrote)
"$TRAWL" index "$M" --force >/dev/null 2>&1
expect_stdout_has "line 25 (event 9)" timeout 20 "$TRAWL" last-write "$M" --at 27 0x0:0x10000000000
expect_stdout_has "line 19 (event 8)" timeout 20 "$TRAWL" next-write "$M" --at 9 0x0:0x10000000000

# a read-only folder with a good index beside the trace uses it
if [ "$(id -u)" != 0 ]; then
	mkdir "$_tmp/ro" && cp "$D/mixed.tarmac" "$_tmp/ro/t.tarmac"
	"$TRAWL" index "$_tmp/ro/t.tarmac" >/dev/null && chmod 555 "$_tmp/ro"
	XDG_CACHE_HOME="$_tmp/cache" expect_exit 0 "$TRAWL" regs "$_tmp/ro/t.tarmac" --at 13
	ls "$_tmp/cache/trawl/"*t.tarmac.trawlidx >/dev/null 2>&1 && fail "a good index beside the trace was ignored"
	chmod 755 "$_tmp/ro"
fi
# an index that cannot be written (disk full; here the file size limit,
# which fails the write the same way) is said to be the index's failure,
# not pointed at a trace line as a parse error is ("trace:LINE: cannot write")
(trap '' XFSZ; ulimit -f 64; "$TRAWL" index --force --index "$_tmp/small.idx" "$T") >/dev/null 2>"$_tmp/err"
[ $? = 1 ] || fail "index into a full disk should exit 1"
grep -q "cannot write .*\(indexing line [0-9]* of the trace\|of the index being built\)" "$_tmp/err" ||
	fail "full disk: $(cat "$_tmp/err")"
grep -v warning "$_tmp/err" | grep -q "t.tarmac:[0-9]*:" && fail "full disk reported at a trace line: $(cat "$_tmp/err")"

# In a read-only folder a valid index beside the trace is used, not built
# again into the cache. Needs a read-only mount (root); skipped otherwise.
ro="$_tmp/ro"
mkdir -p "$ro"
if mount -t tmpfs -o size=8m tmpfs "$ro" 2>/dev/null; then
	cp "$D/mixed.tarmac" "$ro/m.tarmac"
	"$TRAWL" index "$ro/m.tarmac" >/dev/null 2>&1 || fail "index in the folder before it is read-only"
	if mount -o remount,ro "$ro" 2>/dev/null; then
		XDG_CACHE_HOME="$_tmp/cache" "$TRAWL" info "$ro/m.tarmac" >"$_tmp/ro.out" 2>&1 ||
			fail "info in a read-only folder: $(cat "$_tmp/ro.out")"
		grep -q "index file: *$ro/m.tarmac.trawlidx" "$_tmp/ro.out" ||
			fail "read-only folder: the index beside the trace was not used: $(cat "$_tmp/ro.out")"
		[ -z "$(find "$_tmp/cache" -name '*.trawlidx' 2>/dev/null)" ] ||
			fail "read-only folder: an index was built into the cache"
	fi
	umount "$ro"
else
	echo "read-only folder check skipped: cannot mount here"
fi

finish
