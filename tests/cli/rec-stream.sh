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
wait $lpid
hrc=$?
if command -v nc >/dev/null 2>&1; then
	# the hostile clients' connections lost data: exit 1
	[ "$hrc" = 1 ] || fail "listener exited $hrc after hostile clients, expected 1"
	grep -q "bad magic" "$_tmp/H.log" || fail "hostile client not reported: $(cat "$_tmp/H.log")"
	grep -q "version 1 is not supported" "$_tmp/H.log" || fail "v1 client not reported"
else
	[ "$hrc" = 0 ] || fail "listener failed: $(cat "$_tmp/H.log")"
fi
"$TRAWL" events stats "$_tmp/H" | grep -Eq "^0 +0 +100  net:RX$" || fail "events after the hostile client lost"

# clocks: the second program's clock is 2.5 s behind (the recorder's
# test-only skew). The listener measures it (NTP-style, within half the
# round trip) and moves its times onto its own clock, so the merged trace
# has the first program's events, then the second's; uncorrected, the
# second program's would come 2.5 s earlier, before the first's.
start_listener "$_tmp/S" --count 2
TRAWL_REC_STREAM=127.0.0.1:$port "$demo" --threads 1 --packets 300 --out "$_tmp/fbS1" >"$_tmp/dS1" ||
	fail "unskewed program failed"
TRAWL_REC_TEST_CLOCK_SKEW_NS=-2500000000 TRAWL_REC_STREAM=127.0.0.1:$port "$demo" --threads 1 --packets 300 \
	--out "$_tmp/fbS2" >"$_tmp/dS2" || fail "skewed program failed"
wait $lpid || fail "listener failed: $(cat "$_tmp/S.log")"
off() { sed -n "s/^	c$1_clock_offset_ns = \(-*[0-9]*\);$/\1/p" "$_tmp/S/metadata"; }
o0=$(off 0) o1=$(off 1)
[ -n "$o0" ] && [ -n "$o1" ] || fail "clock offsets not in the metadata: $(grep clock "$_tmp/S/metadata")"
# the true offsets are exactly 0 and -2500000000 ns: within 50 us
within() { d=$(($1 - $2)); [ "${d#-}" -le 50000 ]; }
within "${o0:-x}" 0 || fail "same-clock program measured at $o0 ns"
within "${o1:-x}" -2500000000 || fail "skewed program measured at $o1 ns, not -2500000000 +- 50000"
p0=$(sed -n 's/.*connection 0 from .*: pid \([0-9]*\),.*/\1/p' "$_tmp/S.log")
p1=$(sed -n 's/.*connection 1 from .*: pid \([0-9]*\),.*/\1/p' "$_tmp/S.log")
"$TRAWL" events list "$_tmp/S" | awk '/app:(START|STOP)/ { for (i = 1; i < NF; i++) if ($i == "tid") printf "%s %s\n", $1, $(i + 1) }' >"$_tmp/app"
[ "$(cut -d' ' -f2 "$_tmp/app" | tr '\n' ' ')" = "$p0 $p0 $p1 $p1 " ] ||
	fail "merged trace out of order (pids $p0 then $p1): $(cat "$_tmp/app")"
# the second program started after the first stopped, well within 2 s
gap=$(awk 'NR == 2 { a = $1 } NR == 3 { b = $1 } END { print (b > a && b - a < 2) ? "ok" : b - a }' "$_tmp/app")
[ "$gap" = ok ] || fail "gap between the programs in the merged trace: $gap s"
if command -v babeltrace2 >/dev/null 2>&1; then
	babeltrace2 "$_tmp/S" 2>/dev/null | sed -n 's/.*app:\(START\|STOP\):.*thread_id = \([0-9]*\).*/\2/p' | tr '\n' ' ' >"$_tmp/bt"
	[ "$(cat "$_tmp/bt")" = "$p0 $p0 $p1 $p1 " ] || fail "babeltrace2 order: $(cat "$_tmp/bt")"
fi

# the listener dies mid-run: nothing acknowledged is lost, the rest stays local
start_listener "$_tmp/K"
TRAWL_REC_STREAM=127.0.0.1:$port TRAWL_REC_FLUSH_MS=5 "$demo" --threads 2 --packets 20000 --pace 2000 --out "$_tmp/fb4" >"$_tmp/d4" &
d4=$!
# kill it once it has written events (a fixed sleep left it empty on a loaded machine)
for i in $(seq 200); do
	[ -n "$(find "$_tmp/K" -type f ! -name metadata -size +0c 2>/dev/null | head -1)" ] && break
	sleep 0.05
done
sleep 0.1
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
# each packet once in the local trace: the one whose send failed was
# written by the fallback and again by its thread (its events twice,
# the stream's time going back), when the connection broke in its send
python3 - "$_tmp/fb4" <<'EOP' || fail "a packet written twice to the fallback trace"
import os, struct, sys
d = sys.argv[1]
for f in os.listdir(d):
    if not f.startswith("stream-"):
        continue
    b, off, seqs = open(os.path.join(d, f), "rb").read(), 0, []
    while off + 64 <= len(b):
        seqs.append(struct.unpack_from("<Q", b, off + 40)[0])
        off += struct.unpack_from("<Q", b, off + 32)[0] // 8
    assert len(seqs) == len(set(seqs)), (f, seqs)
EOP
finish
