#!/bin/sh
# No place to write an index: --memory-index builds it in memory for one
# command (nothing written anywhere), and so does any index command, with a
# warning, when neither the trace's folder nor the cache folder can be
# written. Answers are index-basic's hand-worked values.
#
# The unwritable folder is made immutable (chattr +i: even root cannot
# create a file in it); without chattr it is made read-only with chmod,
# which trawl honours for root too. The cache folder cannot be made
# because XDG_CACHE_HOME names a regular file.
. "$TRAWL_SRC/tests/cli-lib.sh"
D="$TRAWL_SRC/tests/data/index"
mkdir "$_tmp/w" "$_tmp/ro"
cp "$D/mixed.tarmac" "$_tmp/w/m.tarmac"
cp "$D/mixed.tarmac" "$_tmp/ro/m.tarmac"
: >"$_tmp/not-a-folder"
export XDG_CACHE_HOME="$_tmp/not-a-folder" HOME="$_tmp/not-a-folder"

# --memory-index in a writable folder: the answers, and no file at all
W="$_tmp/w/m.tarmac"
expect_stdout_has "x3         0000000012345678" "$TRAWL" regs --memory-index "$W" --at 13
expect_stdout_has "0000000000010000: 0d f0 fe ca 66 55 44 33" \
	"$TRAWL" mem --memory-index --kind compact "$W" --at 25 0x10000 8
expect_stdout_has "line 25 (event 9)" "$TRAWL" last-write --memory-index "$W" --at 27 0x10001
[ "$(ls "$_tmp/w")" = m.tarmac ] || fail "--memory-index wrote files: $(ls "$_tmp/w")"
expect_stderr_has "trawl index writes an index; give it to the command that needs one" \
	"$TRAWL" index --memory-index "$W"

# --no-index (regs, last-write): only the trace up to LINE is read. The
# copy below has 300000 more lines and a cut-off last line: reading it all
# warns about that line, the prefix does not reach it.
P="$_tmp/w/prefix.tarmac"
cp "$D/mixed.tarmac" "$P"
awk 'BEGIN { for (i = 0; i < 150000; i++) printf "%d clk cpu0 IT (%d) 00002000 d503201f O EL1h_n : NOP\n%d clk cpu0 R X5 %016x\n", 20 + i, 20 + i, 20 + i, i
	printf "999999 clk cpu0 IT (9" }' >>"$P"
expect_exit 0 "$TRAWL" regs --no-index "$P" --at 13
grep -q "ends inside this line" "$_tmp/err" && fail "--no-index read the whole trace"
expect_stdout_has "x3         0000000012345678" "$TRAWL" regs --no-index "$P" --at 13
expect_stdout_has "line 25 (event 9)" "$TRAWL" last-write --no-index "$P" --at 27 0x10001
expect_stderr_has "ends inside this line" "$TRAWL" regs --memory-index "$P" --at 13
expect_exit 2 "$TRAWL" mem --no-index "$P" --at 13 0x10000 4
expect_exit 2 "$TRAWL" next-write --no-index "$P" --at 13 x3
[ "$(ls "$_tmp/w")" = "m.tarmac
prefix.tarmac" ] || fail "--no-index wrote files: $(ls "$_tmp/w")"

if chattr +i "$_tmp/ro" 2>/dev/null; then
	trap 'chattr -i "$_tmp/ro"; rm -rf "$_tmp"' EXIT
else
	chmod a-w "$_tmp/ro"
	trap 'chmod u+w "$_tmp/ro"; rm -rf "$_tmp"' EXIT
fi
if [ "$(id -u)" != 0 ] && touch "$_tmp/ro/probe" 2>/dev/null; then
	skip "the folder is still writable"
fi

R="$_tmp/ro/m.tarmac"
expect_exit 0 "$TRAWL" regs "$R" --at 13
expect_stderr_has "building one in memory for this command" "$TRAWL" regs "$R" --at 13
expect_stdout_has "x3         0000000012345678" "$TRAWL" regs "$R" --at 13
expect_stdout_has "line 8 (event 3)" "$TRAWL" next-write "$R" --at 1 0x10000:4
expect_stdout_has "(index in memory)" "$TRAWL" index "$R"
expect_stdout_has "kind:                compact" "$TRAWL" info --kind compact "$R"
[ "$(ls "$_tmp/ro")" = m.tarmac ] || fail "files appeared in the unwritable folder"
[ -f "$_tmp/not-a-folder" ] && [ ! -s "$_tmp/not-a-folder" ] || fail "the cache file changed"
# an explicit --index that cannot be written is an error, not silently in memory
expect_exit 1 "$TRAWL" regs --index "$_tmp/ro/x.idx" "$R" --at 13
finish
