#!/bin/sh
# trawl serve on software-event traces: the JSON API against hand-worked
# answers and the `trawl events` verbs (tests/cli/serve-events.py).
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
"$TRAWL" serve --help >/dev/null || fail "serve --help"
d="$TRAWL_SRC/tests/data/rec"
expect_exit 0 "$TRAWL" events import-bf "$d/act-dump.txt" --defs "$d/act.tdef" -o "$_tmp/tr"
set --
demo="${TRAWL_BUILD:-}/rec/rec-demo/rec-demo"
if [ -x "$demo" ]; then
	"$demo" --threads 3 --packets 3000 --out "$_tmp/rd" >/dev/null || fail "rec-demo failed"
	set -- "$_tmp/rd" "$TRAWL_SRC/examples/rec-demo/analysis.tdef"
fi
timeout 240 python3 "$TRAWL_SRC/tests/cli/serve-events.py" "$TRAWL" "$_tmp" "$_tmp/tr" "$d/act.tdef" "$@" ||
	fail "serve-events.py"
# the server keeps activities on disk, sorted in runs merged when a lane is
# bigger than the sort memory (8 MiB): 400 bytes (10 records) a run takes
# that path here, checked against the same truths
TRAWL_SERVE_SORT_MEM=400 timeout 240 python3 "$TRAWL_SRC/tests/cli/serve-events.py" "$TRAWL" "$_tmp" \
	"$_tmp/tr" "$d/act.tdef" "$@" || fail "serve-events.py, activities sorted in runs"
[ "$_fails" = 0 ] || exit 1
