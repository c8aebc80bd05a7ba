#!/bin/sh
# trawl serve on an ETE snapshot (a source without text): the list equals
# trawl cat's events (tests/cli/serve-notext.py).
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
prog="$TRAWL_BUILD/examples/recurse"
[ -x "$prog" ] || skip "examples not built"
"$TRAWL" emulate --ete "$_tmp/snap" "$prog" -o /dev/null >/dev/null 2>&1 || skip "trawl emulate --ete unavailable (no Unicorn?)"
timeout 240 python3 "$TRAWL_SRC/tests/cli/serve-notext.py" "$TRAWL" "$_tmp" "$_tmp/snap" || fail "serve-notext.py"
finish
