#!/bin/sh
# A program traced through the environment alone (rec-demo --no-start never
# calls trawl_rec_start): output directory, subsystem switches, triggers.
. "$TRAWL_SRC/tests/cli-lib.sh"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
cnt() { sed -n "s/^[0-9]* *[0-9]* *\([0-9]*\)  $1\$/\1/p" "$2"; }

# no variables: no trace at all
(cd "$_tmp" && "$demo" --no-start --threads 1 --packets 10 >/dev/null) || fail "untraced run failed"
[ -z "$(ls "$_tmp" | grep trawl-trace)" ] || fail "a trace was written without TRAWL_REC_*"

TRAWL_REC_OUT="$_tmp/a" TRAWL_REC_BUFFER=4m "$demo" --no-start --threads 2 --packets 1000 >/dev/null || fail "env run failed"
"$TRAWL" events stats "$_tmp/a" >"$_tmp/a.s" || fail "no trace from TRAWL_REC_OUT"
[ "$(cnt net:RX "$_tmp/a.s")" = 2000 ] || fail "env trace net:RX count"
[ "$(cnt app:STOP "$_tmp/a.s")" = 1 ] || fail "env trace app:STOP (emitted just before exit) missing"

# only subsystem 1 (lock)
TRAWL_REC_OUT="$_tmp/b" TRAWL_REC_ENABLE=1 TRAWL_REC_BUFFER=4m "$demo" --no-start --threads 2 --packets 1000 >/dev/null
"$TRAWL" events stats "$_tmp/b" >"$_tmp/b.s"
grep -qx "events: 4000" "$_tmp/b.s" || fail "TRAWL_REC_ENABLE=1: $(head -1 "$_tmp/b.s")"
[ "$(cnt lock:ACQUIRE "$_tmp/b.s")" = 2000 ] || fail "TRAWL_REC_ENABLE=1 lock:ACQUIRE"

# start at the DROP of packet 500 (net:DROP arg 500 = 0:2:500), stop at app:STOP (2:1)
TRAWL_REC_OUT="$_tmp/c" TRAWL_REC_START=0:2:500 TRAWL_REC_STOP=2:1 TRAWL_REC_BUFFER=4m \
	"$demo" --no-start --threads 1 --packets 1000 >/dev/null
"$TRAWL" events list "$_tmp/c" >"$_tmp/c.l"
head -1 "$_tmp/c.l" | grep -q "net:DROP arg=500$" || fail "trace does not begin at the start trigger: $(head -1 "$_tmp/c.l")"
tail -1 "$_tmp/c.l" | grep -q "app:STOP packets=1000$" || fail "trace does not end at the stop trigger"
# packet 500's RX and lock events come before its DROP: then packets
# 501..999 give 499 RX and 998 lock events; DROPs 500,510..990 = 50; 450 TX; STOP
[ "$(wc -l <"$_tmp/c.l")" = $((499 + 998 + 50 + 450 + 1)) ] || fail "triggered trace has $(wc -l <"$_tmp/c.l") events"
grep -q "app:START" "$_tmp/c.l" && fail "event before the start trigger recorded"

# a malformed variable does not crash the program
TRAWL_REC_OUT="$_tmp/d" TRAWL_REC_MODE=bogus "$demo" --no-start --threads 1 --packets 10 >/dev/null || fail "bad variable crashed the program"
finish
