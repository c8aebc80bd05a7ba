#!/bin/sh
# trawl serve's page in headless Chromium (tests/cli/serve-browser.py):
# DOM values against trawl regs / mem, timeline items against the call
# tree, clicks both ways, a refused token; saves build/serve-screenshot.png.
. "$TRAWL_SRC/tests/cli-lib.sh"
# Chromium is a heavy oracle: the plain build only
[ -n "${TRAWL_ASAN:-}" ] && skip "browser tests run in the plain build only"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
[ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1 ||
	skip "chromium not installed (make deps installs it)"
E="${TRAWL_BUILD:-}/examples"
[ -x "$E/recurse" ] || skip "examples not built (needs aarch64-linux-gnu-gcc)"
"$TRAWL" emulate "$E/recurse" -o "$_tmp/rec.tarmac" -- 6 >/dev/null 2>&1 || fail "emulate recurse"
HOME="$_tmp" timeout 150 python3 "$TRAWL_SRC/tests/cli/serve-browser.py" "$TRAWL" "$_tmp/rec.tarmac" \
	"$E/recurse" "$TRAWL_BUILD" || fail "serve-browser.py"
[ "$_fails" = 0 ] || exit 1
