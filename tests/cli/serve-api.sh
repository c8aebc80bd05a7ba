#!/bin/sh
# trawl serve's JSON API on loopback (tests/cli/serve-api.py says against
# what); with the examples built, on an emulated trace too.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
"$TRAWL" serve --help >/dev/null || fail "serve --help"
# libmicrohttpd is loaded by trawl serve only: the binary does not link it
if command -v ldd >/dev/null 2>&1 && ldd "$TRAWL" | grep -q microhttpd; then
	fail "trawl is linked against libmicrohttpd (every command would load it)"
fi
expect_exit 2 "$TRAWL" serve
expect_exit 2 "$TRAWL" serve --bind nowhere "$TRAWL_SRC/tests/data/calls-2cpu.tarmac"
expect_exit 1 "$TRAWL" serve "$_tmp/missing.tarmac"
E="${TRAWL_BUILD:-}/examples"
set --
if [ -x "$E/recurse" ] && "$TRAWL" emulate "$E/recurse" -o "$_tmp/rec.tarmac" -- 4 >/dev/null 2>&1; then
	set -- "$_tmp/rec.tarmac" "$E/recurse"
fi
timeout 240 python3 "$TRAWL_SRC/tests/cli/serve-api.py" "$TRAWL" "$_tmp" "$@" || fail "serve-api.py"
[ "$_fails" = 0 ] || exit 1
