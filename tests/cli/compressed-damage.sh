#!/bin/sh
# A truncated or corrupt .gz/.zst trace: the error names the decompressed
# offset where good text stops. The truth is what gzip -dc and zstd -dc
# decode of the same damaged file (they write every byte they can).
# (The location used to be the start of the 4 MiB chunk being decoded:
# "offset 0" for damage megabytes into the trace.)
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

check() { # FILE DECODER MESSAGE
	want=$($2 -dc "$1" 2>/dev/null | wc -c)
	[ "$want" -gt 1000000 ] || fail "$1: the oracle decoded only $want bytes"
	"$TRAWL" stats "$1" >/dev/null 2>"$_tmp/err"
	[ $? = 1 ] || fail "$1: stats should exit 1"
	grep -q "$3" "$_tmp/err" || fail "$1: $(cat "$_tmp/err")"
	grep -q "^trawl: stats: $1:offset $want: " "$_tmp/err" ||
		fail "$1: want offset $want (what $2 -dc decodes): $(cat "$_tmp/err")"
}
check "$_tmp/cut.tarmac.gz" gzip "gzip data is truncated"
check "$_tmp/cut.tarmac.zst" zstd "zstd data is truncated"
check "$_tmp/crc.tarmac.gz" gzip "corrupt gzip data"
finish
