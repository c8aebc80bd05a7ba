#!/bin/sh
# trawl serve of traces cut off at their end (a plain file cut inside a
# line, a .gz and a .zst whose compressed data stops mid-stream): the page
# and /api/trace say what the terminal says (the page said "ready" and
# nothing else), /api/lines lists the lines the test reads itself from the
# cut data and nothing past the index's last line (it listed the dropped
# fragment), and the server exits 1 (lost data). tests/cli/serve-cut.py.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
command -v zstd >/dev/null 2>&1 || skip "zstd is not installed (Debian package zstd)"
P="$_tmp/t.tarmac"
"$TRAWL_BUILD/bench-gen-tarmac" 1 >"$P" || fail "generator failed"
size=$(stat -c %s "$P")
# cut inside a line: 5 bytes into the line after 60% of the file
head -c $((size * 6 / 10)) "$P" >"$_tmp/cut.tarmac"
gzip -c "$P" >"$_tmp/all.gz"
head -c $(($(stat -c %s "$_tmp/all.gz") * 6 / 10)) "$_tmp/all.gz" >"$_tmp/cut.tarmac.gz"
zstd -q -c "$P" >"$_tmp/all.zst"
head -c $(($(stat -c %s "$_tmp/all.zst") * 6 / 10)) "$_tmp/all.zst" >"$_tmp/cut.tarmac.zst"
rm -f "$_tmp/all.gz" "$_tmp/all.zst"
browser=0
if [ -z "${TRAWL_ASAN:-}" ] && { [ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1; }; then
	browser=1
else
	echo "note: the page itself is checked in the plain build with chromium only"
fi
HOME="$_tmp" timeout 300 python3 "$TRAWL_SRC/tests/cli/serve-cut.py" "$TRAWL" "$browser" \
	"$_tmp/cut.tarmac" "$_tmp/cut.tarmac.gz" "$_tmp/cut.tarmac.zst" || fail "serve-cut.py"
finish
