#!/bin/sh
# A truncated or corrupt .gz/.zst trace: the message names the decompressed
# offset where good text stops. The truth is what gzip -dc and zstd -dc
# decode of the same damaged file (they write every byte they can).
# (The location used to be the start of the 4 MiB chunk being decoded:
# "offset 0" for damage megabytes into the trace.)
# A truncated one is a trace cut off while being written: every command
# uses the text before the cut, exactly as for that text uncompressed, and
# exits 1 (it used to give nothing at all, even with --lenient).
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v gzip >/dev/null 2>&1 || skip "gzip is not installed"
command -v zstd >/dev/null 2>&1 || skip "zstd is not installed (Debian package zstd)"
P="$_tmp/t.tarmac"
"$TRAWL_BUILD/bench-gen-tarmac" 6 >"$P" || fail "generator failed"
gzip -6 -c "$P" >"$_tmp/full.gz"
zstd -q -c "$P" >"$_tmp/full.zst"
head -c 800000 "$_tmp/full.gz" >"$_tmp/cut.tarmac.gz"
head -c 700000 "$_tmp/full.zst" >"$_tmp/cut.tarmac.zst"
# a corrupt deflate stream: the trailer's CRC no longer matches
cp "$_tmp/full.gz" "$_tmp/crc.tarmac.gz"
size=$(wc -c <"$_tmp/full.gz")
printf '\000\000\000\000' | dd of="$_tmp/crc.tarmac.gz" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null

check() { # FILE DECODER MESSAGE [warning: ]
	want=$($2 -dc "$1" 2>/dev/null | wc -c)
	[ "$want" -gt 1000000 ] || fail "$1: the oracle decoded only $want bytes"
	"$TRAWL" stats "$1" >/dev/null 2>"$_tmp/err"
	[ $? = 1 ] || fail "$1: stats should exit 1"
	grep -q "$3" "$_tmp/err" || fail "$1: $(cat "$_tmp/err")"
	grep -q "^trawl: stats: ${4:-}$1:offset $want: " "$_tmp/err" ||
		fail "$1: want offset $want (what $2 -dc decodes): $(cat "$_tmp/err")"
}
check "$_tmp/cut.tarmac.gz" gzip "gzip data is truncated" "warning: "
check "$_tmp/cut.tarmac.zst" zstd "zstd data is truncated" "warning: "
check "$_tmp/crc.tarmac.gz" gzip "corrupt gzip data"
# bytes that are not compressed data after the last complete member or frame
# (gzip -d: "trailing garbage ignored"): each member before them passed its
# check, so their text is the trace; the rest is named as ignored, exit 1
{ cat "$_tmp/full.gz"; printf 'not gzip data, appended by mistake\n'; } >"$_tmp/tail.tarmac.gz"
{ cat "$_tmp/full.zst"; printf 'not zstd data, appended by mistake\n'; } >"$_tmp/tail.tarmac.zst"
check "$_tmp/tail.tarmac.gz" gzip "after compressed byte $(wc -c <"$_tmp/full.gz"), where the last complete gzip member ends, are not gzip data" "warning: "
check "$_tmp/tail.tarmac.zst" zstd "after compressed byte $(wc -c <"$_tmp/full.zst"), where the last complete zstd frame ends, are not zstd data" "warning: "

# the cut copies against the text the oracles decode of them
for f in "$_tmp/cut.tarmac.gz" "$_tmp/cut.tarmac.zst" "$_tmp/tail.tarmac.gz" "$_tmp/tail.tarmac.zst"; do
	case $f in *.gz) dec=gzip ;; *) dec=zstd ;; esac
	plain="$f.plain"
	$dec -dc "$f" >"$plain" 2>/dev/null
	for what in stats cat; do
		"$TRAWL" $what "$plain" 2>/dev/null | grep -v -e '^trace:' -e '^elapsed' \
			-e '^throughput' -e '^peak rss' >"$_tmp/want"
		"$TRAWL" $what "$f" 2>"$_tmp/err" | grep -v -e '^trace:' -e '^elapsed' \
			-e '^throughput' -e '^peak rss' >"$_tmp/got"
		cmp -s "$_tmp/want" "$_tmp/got" || fail "$f: $what differs from the decoded text's"
		[ -s "$_tmp/got" ] || fail "$f: $what printed nothing"
	done
	"$TRAWL" index "$f" >/dev/null 2>"$_tmp/err"
	[ $? = 1 ] || fail "$f: index should exit 1: $(cat "$_tmp/err")"
	lines=$(wc -l <"$plain")
	for L in 1 $((lines / 3)) $((lines / 2)) $((lines - 2)); do
		"$TRAWL" regs "$plain" --at "$L" >"$_tmp/want" 2>/dev/null
		"$TRAWL" regs "$f" --at "$L" >"$_tmp/got" 2>/dev/null
		[ $? = 1 ] || fail "$f: regs on a cut trace should exit 1"
		cmp -s "$_tmp/want" "$_tmp/got" || fail "$f: regs --at $L differs from the decoded text's"
	done
done
finish
