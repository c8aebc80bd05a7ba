#!/bin/sh
# trawl serve's page on a recorder trace in headless Chromium
# (tests/cli/serve-events-browser.py): the event list against trawl events
# list, the filter panel, clicks both ways; saves
# build/serve-events-screenshot.png.
. "$TRAWL_SRC/tests/cli-lib.sh"
# Chromium is a heavy oracle: the plain build only
[ -n "${TRAWL_ASAN:-}" ] && skip "browser tests run in the plain build only"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
[ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1 ||
	skip "chromium not installed (make deps installs it)"
demo="${TRAWL_BUILD:-}/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
"$demo" --threads 2 --packets 1500 --out "$_tmp/rd" >/dev/null || fail "rec-demo failed"
HOME="$_tmp" timeout 150 python3 "$TRAWL_SRC/tests/cli/serve-events-browser.py" "$TRAWL" "$_tmp/rd" \
	"$TRAWL_SRC/examples/rec-demo/analysis.tdef" "$TRAWL_BUILD" || fail "serve-events-browser.py"
[ "$_fails" = 0 ] || exit 1
