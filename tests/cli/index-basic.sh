#!/bin/sh
# The index commands on hand-made Tarmac traces, against values worked out
# by hand: back-dated reads, unaligned overlapping writes, w/x and s/q
# aliasing, semihosting SYS_READ, two cores, big-endian, staleness,
# damaged and foreign index files.
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data/index"
cp "$D/mixed.tarmac" "$_tmp/m.tarmac"
M="$_tmp/m.tarmac"

expect_exit 0 "$TRAWL" index "$M"
expect_stdout_has "12 events, 31 lines" "$TRAWL" index "$M"
[ -f "$M.trawlidx" ] || fail "index not written beside the trace"

# every hand-worked answer below, from each kind of index
for kind in full compact; do
expect_stdout_has "12 events, 31 lines" "$TRAWL" index --force --kind $kind "$M"
expect_stdout_has "kind:                $kind" "$TRAWL" info "$M"

# the read at line 6 shows from the start of the trace (back-dating)
expect_stdout_has "0000000000010000: ef be ad de ?? ?? ?? ??  ?? ?? ?? ?? ?? ?? ?? ??" \
	"$TRAWL" mem "$M" --at 1 0x10000 16
# unaligned 8-byte store over part of it
expect_stdout_has "0000000000010000: ef be 88 77 66 55 44 33  22 11 ?? ?? ?? ?? ?? ??" \
	"$TRAWL" mem "$M" --at 9 0x10000 16
# 16-byte read, known only from that line on... and back-dated
expect_stdout_has "0000000000010010: ff ee dd cc bb aa 99 88  77 66 55 44 33 22 11 00" \
	"$TRAWL" mem "$M" --at 2 0x10010 16
# semihosting SYS_READ at line 25 refills 0x10000+4; the read at line 28
# tells the new value, from the call on (not before)
expect_stdout_has "0000000000010000: ef be 88 77 66 55 44 33" "$TRAWL" mem "$M" --at 24 0x10000 8
expect_stdout_has "0000000000010000: 0d f0 fe ca 66 55 44 33" "$TRAWL" mem "$M" --at 25 0x10000 8
expect_stdout_has "line 25 (event 9)" "$TRAWL" last-write "$M" --at 27 0x10001
expect_stdout_has "line 8 (event 3)" "$TRAWL" last-write "$M" --at 27 0x10004:4
expect_stdout_has "no earlier write to 0x10000" "$TRAWL" last-write "$M" --at 7 0x10000
expect_stdout_has "line 8 (event 3)" "$TRAWL" next-write "$M" --at 1 0x10000:4
expect_stdout_has "{\"event\":0,\"address\":\"0x10000\"" "$TRAWL" mem "$M" --at 1 0x10000 4 --json
expect_stdout_has "\"bytes\":\"efbeadde\"" "$TRAWL" mem "$M" --at 1 0x10000 4 --json

# registers: w3 zero-extends into x3, s0 clears the rest of v0
expect_stdout_has "x3         0000000012345678" "$TRAWL" regs "$M" --at 13
expect_stdout_has "x3         ffffffffffffffff" "$TRAWL" regs "$M" --at 11
expect_stdout_has "v0         00112233445566778899aabbccddeeff" "$TRAWL" regs "$M" --at 16
expect_stdout_has "v0         000000000000000000000000aabbccdd" "$TRAWL" regs "$M" --at 18
expect_stdout_has "line 12 (event 5)" "$TRAWL" last-write "$M" --at 20 w3
expect_stdout_has "line 10 (event 4)" "$TRAWL" last-write "$M" --at 11 x3
expect_stdout_has "line 14 (event 6)" "$TRAWL" next-write "$M" --at 1 d0
# two cores: each has its own x0; --time picks the last event at or before it
expect_stdout_has "x0         0000000000000002" "$TRAWL" regs "$M" --at 29 --cpu 1
expect_stdout_has "x0         00000000cafef00d" "$TRAWL" regs "$M" --at 31 --cpu 0
expect_stdout_has "x0         0000000000000009" "$TRAWL" regs "$M" --at 31
expect_stdout_has "cpu 1 after lines 3-4 (event 1)" "$TRAWL" regs "$M" --time 2
# --at a register line of an event names the whole event, not only its
# first line ("after line 3" read as if line 4 were not yet applied)
expect_stdout_has "cpu 1 after lines 3-4 (event 1)" "$TRAWL" regs "$M" --at 4
expect_stdout_has "memory after lines 3-4 (event 1)" "$TRAWL" mem "$M" --at 4 0x10000 4
expect_stdout_has "\"x0\":\"0000000000000001\"" "$TRAWL" regs "$M" --at 2 --json
expect_stdout_has "line 30 (event 11)" "$TRAWL" last-write "$M" --at 31 x0

# by-PC lookup
expect_stdout_has "0x1004: 2 visits" "$TRAWL" pc "$M" 0x1004
expect_stdout_has "next:     line 30 (event 11)" "$TRAWL" pc "$M" 0x1004 --from 6
expect_stdout_has "previous: none" "$TRAWL" pc "$M" 0x1004 --from 6
expect_stdout_has "previous: line 5 (event 2)" "$TRAWL" pc "$M" 0x1004 --from 8

# changes between two lines
expect_stdout_has "cpu 0 x3       ffffffffffffffff -> 0000000012345678" \
	"$TRAWL" changes "$M" --from 11 --to 13
expect_stdout_has "mem 0x10000+4 efbe8877 -> 0df0feca" "$TRAWL" changes "$M" --from 24 --to 28
"$TRAWL" changes "$M" --from 24 --to 28 >"$_tmp/ch"
grep -q "0x20000" "$_tmp/ch" && fail "changes lists memory that did not change"
done

# an index of another kind than asked for is rebuilt; without --kind any is used
expect_stdout_has "kind:                compact" "$TRAWL" info "$M"
expect_stderr_has "is of another kind: building it again" "$TRAWL" regs --kind full "$M" --at 1
expect_stdout_has "kind:                full" "$TRAWL" info "$M"
expect_stdout_has "bytes per line" "$TRAWL" info "$M"
expect_stdout_has "checksums:           ok" "$TRAWL" info "$M" --verify
expect_stdout_has "\"events\":12" "$TRAWL" info "$M" --json

# big-endian memory values, as the reader converts them
cp "$D/big-endian.tarmac" "$_tmp/be.tarmac"
expect_stdout_has "0000000000030000: 11 22 33 44 ?? ?? ?? ??  01 02 03 04 05 06 07 08" \
	"$TRAWL" mem "$_tmp/be.tarmac" --big-endian --at 3 0x30000 16

# AArch32 SVC 0x123456 and T32 BKPT 0xab semihosting (32-bit parameter
# blocks): SYS_READ of 2 bytes, then of 1 byte
cp "$D/a32-semihost.tarmac" "$_tmp/a32.tarmac"
A="$_tmp/a32.tarmac"
expect_stdout_has "0000000000010000: 44 33 22 11" "$TRAWL" mem "$A" --at 9 0x10000 4
expect_stdout_has "0000000000010000: dd cc 22 11" "$TRAWL" mem "$A" --at 10 0x10000 4
expect_stdout_has "0000000000010000: dd cc 22 ??" "$TRAWL" mem "$A" --at 19 0x10000 4
expect_stdout_has "line 19 (event 5)" "$TRAWL" last-write "$A" --at 20 0x10003
expect_stdout_has "line 10 (event 2)" "$TRAWL" last-write "$A" --at 20 0x10000:2
# AArch32 state: r-names, 32 bits
expect_stdout_has "r2         11223344" "$TRAWL" regs "$A" --at 3

# a trace cut off inside its last event: what is there is indexed
head -n 29 "$M" >"$_tmp/cut.tarmac"
printf '12 clk cpu1 IT (2) 00001004 d2800040 O EL1h_n : MOV x0,#2\n' >>"$_tmp/cut.tarmac"
expect_stdout_has "12 events, 30 lines" "$TRAWL" index "$_tmp/cut.tarmac"
expect_stdout_has "x0         0000000000000002" "$TRAWL" regs "$_tmp/cut.tarmac" --at 30

# a trace cut off inside a line (a trace still being written): the line is
# dropped, so the build and every later query through that index exit 1
# after answering, as the reading commands do (trawl stats exits 1 on it)
head -n 29 "$M" >"$_tmp/mid.tarmac"
printf '12 clk cpu1 IT (2) 00001004 d2800040 O EL1h_n : MOV x0,#2\n12 clk cpu1 R X0 00000' >>"$_tmp/mid.tarmac"
expect_exit 1 "$TRAWL" stats "$_tmp/mid.tarmac"
expect_exit 1 "$TRAWL" index "$_tmp/mid.tarmac"
grep -q "index: warning: the trace was cut off at its end" "$_tmp/err" || fail "index: $(cat "$_tmp/err")"
expect_stdout_has "12 events, 30 lines" "$TRAWL" index "$_tmp/mid.tarmac"
expect_exit 1 "$TRAWL" regs "$_tmp/mid.tarmac" --at 30
grep -q "regs: warning: the trace was cut off at its end" "$_tmp/err" || fail "regs: $(cat "$_tmp/err")"
expect_stdout_has "after line 30 (event 11): 12 clk cpu1 IT (2) 00001004" "$TRAWL" regs "$_tmp/mid.tarmac" --at 30

# a changed trace makes the index stale: it is rebuilt, never reused
printf '13 clk cpu0 IT (11) 00001028 d2800000 O EL1h_n : MOV x0,#0\n13 clk cpu0 R X0 0000000000000000\n' >>"$M"
expect_stdout_has "x0         0000000000000000" "$TRAWL" regs "$M" --at 33 --cpu 0
expect_stdout_has "13 events" "$TRAWL" index "$M"
# same size, same mtime would hide a change: the head/tail hash does not
cp "$M" "$_tmp/same.tarmac"
"$TRAWL" index "$_tmp/same.tarmac" >/dev/null
sed 's/cafef00d/cafef00e/' "$_tmp/same.tarmac" >"$_tmp/x" && cat "$_tmp/x" >"$_tmp/same.tarmac"
touch -r "$M" "$_tmp/same.tarmac"
expect_stdout_has "x0         00000000cafef00e" "$TRAWL" regs "$_tmp/same.tarmac" --at 31 --cpu 0

# a damaged index is rebuilt; a truncated one too; a build left half-done
# (no complete flag) is never used
I="$M.trawlidx"
head -c 2000 "$I" >"$_tmp/trunc" && cp "$_tmp/trunc" "$I"
expect_stdout_has "x3         0000000012345678" "$TRAWL" regs "$M" --at 13
printf 'X' | dd of="$I" bs=1 seek=100 conv=notrunc 2>/dev/null
expect_stdout_has "x3         0000000012345678" "$TRAWL" regs "$M" --at 13
printf '\000' | dd of="$I" bs=1 seek=16 conv=notrunc 2>/dev/null
expect_stdout_has "x3         0000000012345678" "$TRAWL" regs "$M" --at 13
# a file that is not an index is reported, not overwritten
echo "precious" >"$_tmp/notidx"
expect_exit 1 "$TRAWL" regs "$M" --at 13 --index "$_tmp/notidx"
expect_stderr_has "is not a trawl index" "$TRAWL" regs "$M" --at 13 --index "$_tmp/notidx"
[ "$(cat "$_tmp/notidx")" = precious ] || fail "a foreign file was overwritten"
# --index puts the index where asked
expect_exit 0 "$TRAWL" index "$M" --index "$_tmp/elsewhere.idx"
[ -f "$_tmp/elsewhere.idx" ] || fail "--index FILE not written"
# damage seen on opening (this index is one checksum block) is built over,
# with a note (tests/cli/index-trust.sh: damage met by a query)
cp "$_tmp/elsewhere.idx" "$_tmp/damaged.idx"
size=$(wc -c <"$_tmp/damaged.idx")
printf 'Z' | dd of="$_tmp/damaged.idx" bs=1 seek=$((size - 40)) conv=notrunc 2>/dev/null
expect_stderr_has "is damaged: building it again" "$TRAWL" info "$M" --index "$_tmp/damaged.idx" --verify
expect_stdout_has "checksums:           ok" "$TRAWL" info "$M" --index "$_tmp/damaged.idx" --verify

# read-only folder: the index goes to $XDG_CACHE_HOME/trawl/, for root too
# (root may write anywhere, but a folder nobody may write to was made so on
# purpose: a shared collection of traces must not fill up with indexes)
mkdir "$_tmp/ro" && cp "$D/mixed.tarmac" "$_tmp/ro/t.tarmac" && chmod 555 "$_tmp/ro"
XDG_CACHE_HOME="$_tmp/cache" expect_exit 0 "$TRAWL" index "$_tmp/ro/t.tarmac"
ls "$_tmp/cache/trawl/"*t.tarmac.trawlidx >/dev/null 2>&1 || fail "no index in the cache folder"
[ "$(ls "$_tmp/ro")" = t.tarmac ] || fail "wrote into a read-only folder: $(ls "$_tmp/ro")"
chmod 755 "$_tmp/ro"

# every --json output parses
if command -v python3 >/dev/null 2>&1; then
	for c in "index $M" "info $M" "regs $M --at 13" "mem $M --at 13 0x10000 8" \
		"last-write $M --at 27 x0" "next-write $M --at 1 0x10000" "pc $M 0x1004" \
		"pc $M 0x1004 --from 8" "changes $M --from 1 --to 31" "last-write $M --at 1 0x99999"; do
		"$TRAWL" $c --json | python3 -c "import json, sys; json.load(sys.stdin)" ||
			fail "trawl $c --json is not valid JSON"
	done
fi

# compressed traces index the same (decompressed offsets and lines)
if command -v zstd >/dev/null 2>&1; then
	zstd -q "$D/mixed.tarmac" -o "$_tmp/z.tarmac.zst"
	expect_stdout_has "x3         0000000012345678" "$TRAWL" regs "$_tmp/z.tarmac.zst" --at 13
	expect_stdout_has "line 25 (event 9)" "$TRAWL" last-write "$_tmp/z.tarmac.zst" --at 27 0x10001
fi

# usage errors
expect_exit 2 "$TRAWL" regs "$M"
expect_exit 2 "$TRAWL" mem "$M" 0x10
expect_exit 2 "$TRAWL" mem "$M" --at 1 zz
# a line past the end (the trace's last line is 33) is a wrong question,
# the same usage error for every command that takes a line (regs exited 1,
# as for lost data); the last line itself answers
expect_exit 0 "$TRAWL" regs "$M" --at 33
for q in "regs --at 34" "regs --at 999" "mem --at 34 0x10000 4" "last-write --at 34 x0" \
	"next-write --at 34 0x10000" "changes --from 1 --to 34" "browse --at 34"; do
	set -- $q
	cmd=$1; shift
	expect_exit 2 "$TRAWL" "$cmd" "$M" "$@"
	grep -q "is past the end of the trace (its events end at line 33)" "$_tmp/err" ||
		fail "$q: $(cat "$_tmp/err")"
done
expect_exit 2 "$TRAWL" mem "$M" --at 0 0x10000 4
# a time before the first event too (it exited 1)
printf '5 clk IT (1) 00001000 d503201f O EL1h_s : NOP\n6 clk IT (2) 00001004 d503201f O EL1h_s : NOP\n' >"$_tmp/t5.tarmac"
expect_exit 2 "$TRAWL" regs "$_tmp/t5.tarmac" --time 4
grep -q "time 4 is before the trace (its first event is at 5 clk)" "$_tmp/err" || fail "regs --time 4: $(cat "$_tmp/err")"
expect_exit 0 "$TRAWL" regs "$_tmp/t5.tarmac" --time 5
# standard input cannot be indexed: a usage error that says so (it was
# "cannot open '-': No such file or directory", exit 1)
for q in "regs --at 3" "mem --at 3 0x10000 4" "info" "index" "regs --memory-index --at 3"; do
	set -- $q
	cmd=$1; shift
	expect_exit 2 "$TRAWL" "$cmd" - "$@"
	grep -q "'-': $cmd needs a trace file" "$_tmp/err" || fail "$q of -: $(cat "$_tmp/err")"
done
expect_exit 2 "$TRAWL" last-write "$M" --at 3 nosuchreg
expect_exit 1 "$TRAWL" index "$_tmp/nonexistent"
finish
