#!/bin/sh
# trawl browse on compressed copies of a trace (issue #18 item 2): the
# screen of a .gz and of a .zst copy at a line, and after a text search,
# is the plain trace's screen, character for character (before, the trace
# pane of a compressed trace was empty). The text pane is also checked
# against the trace's own line (sed).
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/browse-lib.sh"
command -v zstd >/dev/null 2>&1 || skip "zstd is not installed (Debian package zstd)"
P="$_tmp/t.tarmac"
"$TRAWL_BUILD/bench-gen-tarmac" 3 >"$P" || fail "generator failed"
gzip -c "$P" >"$_tmp/z.tarmac.gz"
zstd -q -c "$P" >"$_tmp/z.tarmac.zst"
L=$(( $(wc -l <"$P") * 2 / 3 ))
A=$(event_line "$P" "$L")
want=$(sed -n "${A}p" "$P" | cut -c1-60)
# an instruction line further down: the search lands on it
N=$(awk -v from=$((A + 200)) 'NR >= from && / IT \(/ { print NR; exit }' "$P")
needle=$(sed -n "${N}p" "$P" | cut -c1-24)

# screen_at TRACE: the screen at line L, then after searching for needle
screen_at() {
	"$TRAWL" index "$1" >/dev/null 2>&1 || fail "index $1"
	start_browse 150 40 "$1" --at "$L"
	wait_for ">$(printf '%7d' "$A") $want"
	settled_screen >"$2.at"
	keys /; type_line "$needle"
	wait_for ">$(printf '%7d' "$N") $needle"
	settled_screen >"$2.found"
}
screen_at "$P" "$_tmp/plain"
for f in "$_tmp/z.tarmac.gz" "$_tmp/z.tarmac.zst"; do
	screen_at "$f" "$_tmp/copy"
	cmp -s "$_tmp/plain.at" "$_tmp/copy.at" || fail "$f: the screen at line $L differs:
$(diff "$_tmp/plain.at" "$_tmp/copy.at" | head -10)"
	cmp -s "$_tmp/plain.found" "$_tmp/copy.found" || fail "$f: the screen after a search differs:
$(diff "$_tmp/plain.found" "$_tmp/copy.found" | head -10)"
done
finish
