#!/bin/sh
# An event named twice in one list of an activity (begin, end, send, recv,
# set) is an error at the second name: accepted, it acted twice (one RX
# opened two spans, one SEND two messages, one SWITCH two states), so every
# figure of the activity was wrong with exit status 0.
. "$TRAWL_SRC/tests/cli-lib.sh"
cat >"$_tmp/ev.tdef" <<'EOD'
subsystem net { event RX (u32 num), event TX (u32 num) };
subsystem ipc { event SEND (u32 seq), event RECV (u32 seq) };
subsystem sched { event SWITCH (u32 app) };
EOD
# one packet RX at 100, TX at 150; one message SEND on cpu 1 at 110, RECV on cpu 0 at 130
printf '0 100 0000000000000001\n1 110 0001000000000007\n0 130 0001000100000007\n0 150 0000000100000001\n1 200 0002000000000003\n' >"$_tmp/d.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/d.txt" --defs "$_tmp/ev.tdef" -o "$_tmp/tr"
for act in 'span { begin net:RX, net:RX; end net:TX; }' 'span { begin net:RX, NET:rx; end net:TX; }' \
	'span { begin net:RX; end net:TX; begin net:RX; }' \
	'span { begin net:RX; end net:TX, net:TX; }' \
	'message { send ipc:SEND, ipc:SEND; recv ipc:RECV; key seq; }' \
	'state { set sched:SWITCH, sched:SWITCH; value app; idle 0; }'; do
	{ cat "$_tmp/ev.tdef"; echo "activity x $act;"; } >"$_tmp/a.tdef"
	expect_exit 1 "$TRAWL" events activities "$_tmp/tr" --defs "$_tmp/a.tdef"
	grep -q "a.tdef:4:[0-9]*: activity 'x': '[A-Za-z]*:[A-Za-z]*' is named twice" "$_tmp/err" ||
		fail "$act: no error at the second name: $(head -c 300 "$_tmp/err")"
done
# the same event may begin one activity and end another, or both begin and end one
{ cat "$_tmp/ev.tdef"; echo 'activity a span { begin net:RX; end net:TX; }; activity b span { begin net:TX; end net:RX; };'; } >"$_tmp/ok.tdef"
expect_exit 0 "$TRAWL" events activities "$_tmp/tr" --defs "$_tmp/ok.tdef"
# by hand: one span a from 100 to 150, and nothing else but b open from 150
"$TRAWL" events activities "$_tmp/tr" --defs "$_tmp/ok.tdef" --abs 2>/dev/null | awk 'NR > 1 {print $1, $7, $8, $11}' >"$_tmp/got"
printf 'a 100 150 closed\nb 150 200 open\n' | diff -u - "$_tmp/got" || fail "begin of one, end of another"
finish
