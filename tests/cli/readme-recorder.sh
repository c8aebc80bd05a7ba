#!/bin/sh
# The README's recorder example, run as a reader would: the .tdef and
# 'trawl defs' lines, prog.c, and the build and trace lines, taken from
# README.md itself so the text cannot drift from what works.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v cc >/dev/null || skip "no C compiler"
lib="$(dirname "$TRAWL")/rec/libtrawlrec.a"
[ -f "$lib" ] || skip "libtrawlrec.a not built"
# the README's build line links a plain library; the sanitizer build's
# needs the sanitizer runtime too, which the line (rightly) does not name
[ -n "${TRAWL_ASAN:-}" ] && skip "sanitizer build: the README's line is for a plain build"
w="$_tmp/w"
mkdir -p "$w/bin"
ln -s "$TRAWL" "$w/bin/trawl"
# the n-th fenced block of the recorder section
block() {
	awk -v want="$1" '
		/^### Recording software events/ { on = 1; next }
		on && /^##/ { exit }
		on && /^```/ { inb = !inb; if (inb) n++; next }
		inb && n == want { print }
	' "$TRAWL_SRC/README.md"
}
block 1 >"$w/defs.sh"
block 2 >"$w/prog.c"
block 3 >"$w/run.sh"
grep -q "trawl defs" "$w/defs.sh" || fail "README block 1 is not the .tdef step: $(head -3 "$w/defs.sh")"
grep -q "int main" "$w/prog.c" || fail "README block 2 is not prog.c"
cc_line=$(grep '^cc ' "$w/run.sh")
[ -n "$cc_line" ] || fail "README block 3 has no cc line"
cd "$w" || exit 1
PATH="$w/bin:$PATH" sh defs.sh >out 2>&1 || fail "the README's defs step failed: $(cat out)"
[ -f net.h ] || fail "trawl defs wrote no net.h"
# the checkout's paths, as the README means them from the top of the tree
mkdir -p build/rec
ln -s "$TRAWL_SRC/rec" rec
ln -s "$lib" build/rec/libtrawlrec.a
sh -c "$cc_line" >out 2>&1 || fail "the README's build line failed: $(cat out)"
TRAWL_REC_OUT=trace ./prog || fail "prog failed"
"$TRAWL" events stats trace >stats 2>&1 || fail "events stats: $(cat stats)"
# 23 turns of the loop, three events each
grep -q "^events: 69$" stats || fail "want 69 events: $(cat stats)"
grep -q "^lost: 0$" stats || fail "events were lost: $(cat stats)"
finish
