#!/bin/sh
# Public headers: trawl.h includes every one (as it says), and each one
# compiles on its own, included first in a C11 file (it includes what it
# needs).
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v cc >/dev/null || skip "no C compiler"
inc="$TRAWL_SRC/include"
for h in "$inc"/trawl/*.h; do
	b=$(basename "$h")
	[ "$b" = trawl.h ] && continue
	grep -q "#include \"trawl/$b\"" "$inc/trawl/trawl.h" || fail "trawl.h does not include trawl/$b"
	printf '#include "trawl/%s"\nint main(void) { return 0; }\n' "$b" >"$_tmp/one.c"
	cc -std=c11 -Wall -Werror -I "$inc" -fsyntax-only "$_tmp/one.c" 2>"$_tmp/err" ||
		fail "trawl/$b does not compile on its own: $(head -5 "$_tmp/err")"
done
printf '#include "trawl/trawl.h"\nint main(void) { return 0; }\n' >"$_tmp/all.c"
cc -std=c11 -Wall -Werror -I "$inc" -fsyntax-only "$_tmp/all.c" 2>"$_tmp/err" || fail "trawl.h: $(head -5 "$_tmp/err")"
finish
