#!/bin/sh
# trawl serve DUMP: a Barrelfish dump opened directly answers as the trace
# import-bf makes of it (tests/cli/serve-bf.py); a damaged dump is served
# up to the damage, which the page names, and exits 1.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
d="$TRAWL_SRC/tests/data/rec"
expect_exit 0 "$TRAWL" events import-bf "$d/act-dump.txt" --defs "$d/act.tdef" -o "$_tmp/tr"
mkdir "$_tmp/t"
timeout 240 python3 "$TRAWL_SRC/tests/cli/serve-bf.py" "$TRAWL" "$_tmp/t" "$d/act-dump.txt" "$d/act.tdef" "$_tmp/tr" ||
	fail "serve-bf.py"
finish
