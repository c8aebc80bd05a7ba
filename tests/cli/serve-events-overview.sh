#!/bin/sh
# trawl serve's overview of software-event timelines (docs/serve.md,
# "Overview"): at wide zooms, against the aggregation of `trawl events
# activities`/`list` and against the detailed path; a failed read of the
# server's temporary files is a 500 (tests/cli/serve-events-overview.py).
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
demo="${TRAWL_BUILD:-}/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
"$demo" --threads 3 --packets 6000 --out "$_tmp/rd" >/dev/null || fail "rec-demo failed"
timeout 300 python3 "$TRAWL_SRC/tests/cli/serve-events-overview.py" "$TRAWL" "$_tmp" "$_tmp/rd" \
	"$TRAWL_SRC/examples/rec-demo/analysis.tdef" || fail "serve-events-overview.py"
[ "$_fails" = 0 ] || exit 1
