#!/bin/sh
# The recorder's traces open in babeltrace2 (the CTF reference reader) and
# in trawl, and both see exactly the events rec-demo emits (its counts are
# fixed by its loop: see examples/rec-demo/rec-demo.c).
. "$TRAWL_SRC/tests/cli-lib.sh"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 not installed"

T=3 N=2000
"$demo" --threads $T --packets $N --out "$_tmp/tr" >"$_tmp/demo.out" || fail "rec-demo failed"
grep -q "0 lost" "$_tmp/demo.out" || fail "rec-demo lost events: $(cat "$_tmp/demo.out")"
head -c 10 "$_tmp/tr/metadata" | grep -qF '/* CTF 1.8' || fail "metadata does not start with /* CTF 1.8"
[ "$(ls "$_tmp/tr" | grep -c '^stream-')" -ge $((T + 1)) ] || fail "expected one stream per thread"

babeltrace2 "$_tmp/tr" >"$_tmp/bt" 2>"$_tmp/bt.err" || fail "babeltrace2 failed: $(head -5 "$_tmp/bt.err")"
drops=$((T * ((N + 9) / 10)))
count() { grep -c " $1: " "$_tmp/bt"; }
[ "$(count net:RX)" = $((T * N)) ] || fail "babeltrace2: net:RX $(count net:RX), want $((T * N))"
[ "$(count lock:ACQUIRE)" = $((T * N)) ] || fail "babeltrace2: lock:ACQUIRE count"
[ "$(count lock:RELEASE)" = $((T * N)) ] || fail "babeltrace2: lock:RELEASE count"
[ "$(count net:DROP)" = $drops ] || fail "babeltrace2: net:DROP $(count net:DROP), want $drops"
[ "$(count net:TX)" = $((T * N - drops)) ] || fail "babeltrace2: net:TX count"
[ "$(count app:START)" = 1 ] || fail "babeltrace2: app:START count"
# typed fields with their names and values: packet 1 of a thread is 64 + 37 = 101 bytes
grep -q 'net:TX: { cpu_id = [0-9]*, thread_id = [0-9]* }, { len = 101, port = 800[0-2], latency_ns = [0-9-]* }' "$_tmp/bt" ||
	fail "babeltrace2 does not show net:TX fields as expected: $(grep -m1 net:TX "$_tmp/bt")"
grep -q 'app:START: .*{ threads = 3 }' "$_tmp/bt" || fail "app:START threads field"
grep -qi "discarded" "$_tmp/bt.err" && fail "babeltrace2 reports discarded events"

# trawl reads the same trace: same total and per-event counts
"$TRAWL" events stats "$_tmp/tr" >"$_tmp/stats" || fail "trawl events stats failed"
total=$(wc -l <"$_tmp/bt")
grep -qx "events: $total" "$_tmp/stats" || fail "trawl stats total differs from babeltrace2 ($total): $(head -1 "$_tmp/stats")"
grep -qx "lost: 0" "$_tmp/stats" || fail "trawl stats lost"
grep -Eq "^0 +1 +$((T * N - drops))  net:TX$" "$_tmp/stats" || fail "trawl stats net:TX count"
"$TRAWL" events list "$_tmp/tr" >"$_tmp/list" || fail "trawl events list failed"
[ "$(wc -l <"$_tmp/list")" = "$total" ] || fail "trawl events list prints $(wc -l <"$_tmp/list") events, babeltrace2 $total"
grep -Eq "cpu [0-9]+ +tid [0-9]+ +net:TX len=101 port=800[0-2] latency_ns=[0-9]+$" "$_tmp/list" || fail "trawl list net:TX line"
# same events in the same order as babeltrace2 (names only; both merge by time)
sed 's/.*) [^ ]* \([a-z]*:[A-Z]*\): .*/\1/' "$_tmp/bt" >"$_tmp/bt.names"
awk '{print $6}' "$_tmp/list" >"$_tmp/list.names"
cmp -s "$_tmp/bt.names" "$_tmp/list.names" || fail "event order differs between babeltrace2 and trawl"

# overwrite mode (flight recorder): losses are counted by both readers
TRAWL_REC_MODE=overwrite TRAWL_REC_BUFFER=8k TRAWL_REC_FLUSH_MS=0 "$demo" --threads 1 --packets 20000 --out "$_tmp/ow" >"$_tmp/ow.out" ||
	fail "rec-demo overwrite failed"
rec=$(sed -n 's/.* \([0-9]*\) events recorded, \([0-9]*\) lost.*/\1/p' "$_tmp/ow.out")
lost=$(sed -n 's/.* \([0-9]*\) events recorded, \([0-9]*\) lost.*/\2/p' "$_tmp/ow.out")
[ $((rec + lost)) = $((4 * 20000 + 2)) ] || fail "overwrite: recorded $rec + lost $lost != emitted"
"$TRAWL" events stats "$_tmp/ow" >"$_tmp/ow.stats"
grep -qx "lost: $lost" "$_tmp/ow.stats" || fail "trawl stats lost differs from the recorder ($lost)"
grep -qx "events: $rec" "$_tmp/ow.stats" || fail "trawl stats events differs from the recorder ($rec)"
babeltrace2 "$_tmp/ow" >"$_tmp/ow.bt" 2>"$_tmp/ow.err"
[ "$(wc -l <"$_tmp/ow.bt")" = "$rec" ] || fail "babeltrace2 sees $(wc -l <"$_tmp/ow.bt") events in overwrite trace, want $rec"
grep -q "discarded" "$_tmp/ow.err" || fail "babeltrace2 does not report the discarded events"
finish
