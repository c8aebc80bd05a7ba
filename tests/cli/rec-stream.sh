#!/bin/sh
# Live streaming on loopback: two programs with several threads each stream
# to one `trawl listen`; every event arrives. Then a listener dies in the
# middle of a run: the program keeps going and keeps, in its own trace,
# everything the listener had not acknowledged.
. "$TRAWL_SRC/tests/cli-lib.sh"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"

start_listener() { # $1 = out dir, rest = options
	out=$1; shift
	"$TRAWL" listen --port 0 -o "$out" "$@" 2>"$out.log" &
	lpid=$!
	port=
	for i in $(seq 50); do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$out.log")
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || { fail "listener did not start: $(cat "$out.log")"; kill $lpid; finish; }
}

start_listener "$_tmp/L" --count 2
TRAWL_REC_STREAM=127.0.0.1:$port "$demo" --threads 3 --packets 5000 --out "$_tmp/fb1" >"$_tmp/d1" &
d1=$!
TRAWL_REC_STREAM=127.0.0.1:$port "$demo" --threads 2 --packets 3000 --out "$_tmp/fb2" >"$_tmp/d2" &
d2=$!
wait $d1 || fail "first program failed"
wait $d2 || fail "second program failed"
wait $lpid || fail "listener exited with an error: $(cat "$_tmp/L.log")"
grep -q "trace in the listener" "$_tmp/d1" || fail "first program did not stream: $(cat "$_tmp/d1")"
[ -e "$_tmp/fb1" ] && fail "first program wrote a local trace although the stream worked"
"$TRAWL" events stats "$_tmp/L" >"$_tmp/s" || fail "stats of the listener's trace failed"
want_rx=$((3 * 5000 + 2 * 3000))
want_drop=$((3 * 500 + 2 * 300))
grep -Eq "^0 +0 +$want_rx  net:RX$" "$_tmp/s" || fail "net:RX count from the listener: $(grep net:RX "$_tmp/s")"
grep -Eq "^0 +2 +$want_drop  net:DROP$" "$_tmp/s" || fail "net:DROP count from the listener"
grep -Eq "^2 +0 +2  app:START$" "$_tmp/s" || fail "app:START from both programs"
grep -qx "lost: 0" "$_tmp/s" || fail "events lost on the way"
[ "$(ls "$_tmp/L" | grep -c '^stream-c')" -ge 7 ] || fail "expected a stream per thread per program"
if command -v babeltrace2 >/dev/null 2>&1; then
	n=$(babeltrace2 "$_tmp/L" 2>/dev/null | grep -c ' net:RX: ')
	[ "$n" = "$want_rx" ] || fail "babeltrace2 sees $n net:RX in the listener's trace"
fi

# the listener binds to 127.0.0.1 only
grep -q "listening on 127.0.0.1:" "$_tmp/L.log" || fail "listener not on 127.0.0.1"

# a hostile client (when nc exists): refused, the listener carries on
start_listener "$_tmp/H"
if command -v nc >/dev/null 2>&1; then
	printf 'GET / HTTP/1.0\r\n\r\n' | timeout 5 nc -q1 127.0.0.1 $port >/dev/null 2>&1
	printf 'TRWLSTRM\001\000\060\000' | timeout 5 nc -q1 127.0.0.1 $port >/dev/null 2>&1
fi
TRAWL_REC_STREAM=127.0.0.1:$port "$demo" --threads 1 --packets 100 --out "$_tmp/fb3" >"$_tmp/d3" || fail "program after hostile client failed"
kill -TERM $lpid
wait $lpid || fail "listener failed after a hostile client"
if command -v nc >/dev/null 2>&1; then
	grep -q "bad magic" "$_tmp/H.log" || fail "hostile client not reported: $(cat "$_tmp/H.log")"
fi
"$TRAWL" events stats "$_tmp/H" | grep -Eq "^0 +0 +100  net:RX$" || fail "events after the hostile client lost"

# the listener dies mid-run: nothing acknowledged is lost, the rest stays local
start_listener "$_tmp/K"
TRAWL_REC_STREAM=127.0.0.1:$port TRAWL_REC_FLUSH_MS=5 "$demo" --threads 2 --packets 20000 --pace 2000 --out "$_tmp/fb4" >"$_tmp/d4" &
d4=$!
sleep 0.3
kill -9 $lpid
wait $d4 || fail "program died with its listener"
grep -q "stream failed: fell back to files" "$_tmp/d4" || fail "program did not report the fallback: $(cat "$_tmp/d4")"
"$TRAWL" events stats "$_tmp/K" >"$_tmp/k1" 2>/dev/null
"$TRAWL" events stats "$_tmp/fb4" >"$_tmp/k2" || fail "no readable fallback trace"
rx() { sed -n 's/^0 *0 *\([0-9]*\)  net:RX$/\1/p' "$1"; }
a=$(rx "$_tmp/k1"); b=$(rx "$_tmp/k2")
[ -n "$b" ] && [ "${a:-0}" -gt 0 ] || fail "expected events on both sides (listener ${a:-0}, local ${b:-0})"
# packets written but not yet acknowledged may be in both: never fewer than sent
[ $((${a:-0} + ${b:-0})) -ge 40000 ] || fail "events lost when the listener died: ${a:-0} + ${b:-0} < 40000"
grep -qx "lost: 0" "$_tmp/k2" || fail "fallback trace reports lost events"
finish
