#!/bin/sh
# --max-open 0 is a usage error (exit 2): it was taken as "not given", so
# a user asking that no activity be kept open got the default bound of
# 1,000,000 and every activity, with exit status 0 and nothing said.
. "$TRAWL_SRC/tests/cli-lib.sh"
cat >"$_tmp/a.tdef" <<'EOD'
subsystem net { event RX (u32 num), event TX (u32 num) };
activity pkt span { begin net:RX; end net:TX; key num; };
EOD
printf '0 100 0000000000000001\n0 150 0000000100000001\n' >"$_tmp/d.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/a.tdef" -o "$_tmp/tr"
for verb in activities summary; do
	expect_exit 2 "$TRAWL" events $verb "$_tmp/tr" --defs "$_tmp/a.tdef" --max-open 0
	grep -q -- "--max-open must be at least 1" "$_tmp/err" || fail "$verb: $(cat "$_tmp/err")"
done
expect_exit 2 "$TRAWL" export --perfetto "$_tmp/tr" --defs "$_tmp/a.tdef" --max-open 0 -o "$_tmp/p.json"
# 1 is a bound like any other: the one packet fits
expect_exit 0 "$TRAWL" events activities "$_tmp/tr" --defs "$_tmp/a.tdef" --max-open 1
grep -q "^pkt  span  1 " "$_tmp/out" || fail "--max-open 1: $(cat "$_tmp/out")"
finish
