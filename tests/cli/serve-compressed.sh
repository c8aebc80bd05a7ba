#!/bin/sh
# trawl serve on compressed copies of a trace (issue #15): the list and the
# text search of a .gz, a .zst and a multi-frame .zst copy equal the plain
# trace read by the test itself (tests/cli/serve-compressed.py says how).
# Before, the list of a compressed trace was refused.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
command -v zstd >/dev/null 2>&1 || skip "zstd is not installed (Debian package zstd)"
P="$_tmp/t.tarmac"
"$TRAWL_BUILD/bench-gen-tarmac" 3 >"$P" || fail "generator failed"
gzip -c "$P" >"$_tmp/z.tarmac.gz"
zstd -q -c "$P" >"$_tmp/z.tarmac.zst"
# two frames, cut at a line
half=$(( $(wc -l <"$P") / 2 ))
{ head -n "$half" "$P" | zstd -q -c; tail -n +"$((half + 1))" "$P" | zstd -q -c; } >"$_tmp/m.tarmac.zst"
timeout 300 python3 "$TRAWL_SRC/tests/cli/serve-compressed.py" "$TRAWL" "$P" \
	"$_tmp/z.tarmac.gz" "$_tmp/z.tarmac.zst" "$_tmp/m.tarmac.zst" || fail "serve-compressed.py"
finish
