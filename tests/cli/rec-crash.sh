#!/bin/sh
# A program that records events and then dies (SIGSEGV, abort, SIGKILL,
# _exit) keeps them: trawl events lists every one, in order, with the
# right payloads and loss counts, and `recover` makes the trace whole for
# babeltrace2. The oracle is the program's own sequence: event i is t:SEQ
# seq=i, and t:PAIR seq=i triple=3i follows when i % 7 == 0
# (tests/rec/crash-prog.c).
. "$TRAWL_SRC/tests/cli-lib.sh"
prog="$TRAWL_BUILD/rec-crash-prog"
[ -x "$prog" ] || skip "rec-crash-prog not built"
N=100000
TOTAL=$((N + (N + 6) / 7))
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) { print "t:SEQ seq=" i; if (i % 7 == 0) print "t:PAIR seq=" i " triple=" 3 * i } }' >"$_tmp/want"
names() { sed 's/^.* tid [0-9]* *//' "$1"; }
lost() { sed -n 's/^lost: //p' "$1"; }

# run DIR HOW [FLUSH_AT], with the variables in $E: exit status in $st
E="TRAWL_REC_BUFFER=4m"
run() {
	d=$1; shift
	rm -rf "$d"
	( env $E "$prog" "$d" $N "$@" ) >/dev/null 2>&1
	st=$?
}

# every event, in order, nothing lost; then recover and read again
check_all() {
	d=$1 what=$2
	"$TRAWL" events list "$d" >"$_tmp/l" 2>"$_tmp/e" || fail "$what: list exit $? ($(cat "$_tmp/e"))"
	names "$_tmp/l" >"$_tmp/got"
	cmp -s "$_tmp/want" "$_tmp/got" ||
		fail "$what: $(wc -l <"$_tmp/got") events listed, want $TOTAL; first difference: $(diff "$_tmp/want" "$_tmp/got" | sed -n 2p)"
	"$TRAWL" events stats "$d" >"$_tmp/s" 2>/dev/null || fail "$what: stats exit $?"
	[ "$(lost "$_tmp/s")" = 0 ] || fail "$what: lost $(lost "$_tmp/s"), want 0"
	"$TRAWL" events recover "$d" >"$_tmp/r" 2>&1 || fail "$what: recover exit $? ($(cat "$_tmp/r"))"
	ls -a "$d" | grep -q '^\.ring-' && fail "$what: recover left buffer files"
	"$TRAWL" events list "$d" >"$_tmp/l2" 2>"$_tmp/e2" || fail "$what: list after recover exit $?"
	[ -s "$_tmp/e2" ] && fail "$what: notes after recover: $(cat "$_tmp/e2")"
	names "$_tmp/l2" | cmp -s "$_tmp/want" - || fail "$what: events differ after recover"
	if command -v babeltrace2 >/dev/null 2>&1; then
		babeltrace2 "$d" >"$_tmp/bt" 2>"$_tmp/bt.err" || fail "$what: babeltrace2 failed after recover: $(head -3 "$_tmp/bt.err")"
		[ "$(grep -c ' t:SEQ: ' "$_tmp/bt")" = $N ] || fail "$what: babeltrace2 sees $(grep -c ' t:SEQ: ' "$_tmp/bt") t:SEQ"
		grep -q "seq = 99999, triple = 299997" "$_tmp/bt" && fail "$what: babeltrace2 shows a PAIR that was never emitted"
		grep -q "seq = 99995, triple = 299985" "$_tmp/bt" || fail "$what: babeltrace2 lacks the last t:PAIR"
		grep -qi discarded "$_tmp/bt.err" && fail "$what: babeltrace2 reports discarded events"
	fi
}

# the four deaths, buffers large enough (4 MiB) that nothing overflows
run "$_tmp/segv" segv
[ $st -ne 0 ] && [ $st -ne 2 ] || fail "segv: the program did not die (status $st)"
check_all "$_tmp/segv" segv
run "$_tmp/abort" abort
[ $st -ne 0 ] && [ $st -ne 2 ] || fail "abort: the program did not die (status $st)"
check_all "$_tmp/abort" abort
run "$_tmp/kill" kill
[ $st -ne 0 ] && [ $st -ne 2 ] || fail "kill: the program did not die (status $st)"
check_all "$_tmp/kill" kill
run "$_tmp/exit" _exit
[ $st = 3 ] || fail "_exit: status $st, want 3"
check_all "$_tmp/exit" _exit
# part flushed to stream-0 before the death: the journal says where the
# buffer file takes over (no event twice, none missing)
run "$_tmp/half" kill 50000
check_all "$_tmp/half" "kill after a flush"
run "$_tmp/half2" segv 33333
check_all "$_tmp/half2" "segv after a flush"

# a normal end leaves plain CTF: no buffer files
run "$_tmp/normal" exit
[ $st = 0 ] || fail "normal end: status $st"
ls -a "$_tmp/normal" | grep -q '^\.ring-' && fail "normal end left buffer files"
check_all "$_tmp/normal" "normal end"

# a program still recording holds its buffer files: they are left alone
# (and said so) until it dies, then read
rm -rf "$_tmp/live" "$_tmp/live.ready"
env TRAWL_REC_BUFFER=4m TRAWL_REC_FLUSH_MS=0 "$prog" "$_tmp/live" $N pause >/dev/null 2>&1 &
pid=$!
i=0
while [ ! -e "$_tmp/live.ready" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$_tmp/live.ready" ] || { kill -9 $pid; fail "live: the program did not get ready"; }
"$TRAWL" events stats "$_tmp/live" >"$_tmp/s" 2>"$_tmp/e" || fail "live: stats exit $?"
grep -qx "events: 0" "$_tmp/s" || fail "live: read a buffer file its program holds: $(head -1 "$_tmp/s")"
grep -q "still recording" "$_tmp/e" || fail "live: no note about the live buffer file: $(cat "$_tmp/e")"
expect_exit 1 "$TRAWL" events recover "$_tmp/live"
kill -9 $pid
wait $pid 2>/dev/null
check_all "$_tmp/live" "killed while paused"

# three more threads, which ended before the death: every thread's
# events in order (a thread's buffer file stays until the flusher has
# drained it into stream-N, then goes: so 1 to 4 buffer files, as the
# flusher happened to run; FLUSH_MS=0 makes it rare, not impossible)
E="TRAWL_REC_BUFFER=4m TRAWL_REC_FLUSH_MS=0 CRASH_THREADS=3" run "$_tmp/mt" kill
"$TRAWL" events list "$_tmp/mt" >"$_tmp/l" 2>/dev/null || fail "threads: list exit $?"
names "$_tmp/l" | grep '^t:' | cmp -s - "$_tmp/want" || fail "threads: the main thread's events differ"
names "$_tmp/l" | awk -v n=$N '
	/^subsys3:event[0-2] / { k = substr($1, 14) + 0; split($2, a, "="); if (a[2] != c[k]++) { print "thread " k ": arg " a[2] " at " c[k] - 1; exit 1 } }
	END { for (k = 0; k < 3; k++) if (c[k] != n) { print "thread " k ": " c[k] " events"; exit 1 } }' >"$_tmp/bad" ||
	fail "threads: $(cat "$_tmp/bad")"
rings=$(ls -a "$_tmp/mt" | grep -c '^\.ring-')
[ "$rings" -ge 1 ] && [ "$rings" -le 4 ] || fail "threads: $rings buffer files, want 1 to 4"
"$TRAWL" events recover "$_tmp/mt" >/dev/null 2>&1 || fail "threads: recover exit $?"
"$TRAWL" events stats "$_tmp/mt" >"$_tmp/s" 2>/dev/null
grep -qx "events: $((TOTAL + 3 * N))" "$_tmp/s" || fail "threads: after recover $(head -1 "$_tmp/s")"

# an event nobody defined: named as the recorder would, and recover adds
# its class to the metadata (babeltrace2 then reads it too)
E="TRAWL_REC_BUFFER=4m TRAWL_REC_FLUSH_MS=0" run "$_tmp/undef" kill 0 undef
"$TRAWL" events list "$_tmp/undef" >"$_tmp/l" 2>/dev/null || fail "undefined event: list exit $?"
tail -1 "$_tmp/l" | grep -q "subsys2:event5 arg=77$" || fail "undefined event: last event $(tail -1 "$_tmp/l")"
[ "$(wc -l <"$_tmp/l")" = $((TOTAL + 1)) ] || fail "undefined event: $(wc -l <"$_tmp/l") events"
"$TRAWL" events recover "$_tmp/undef" >/dev/null 2>&1 || fail "undefined event: recover exit $?"
grep -q '"subsys2:event5"' "$_tmp/undef/metadata" || fail "undefined event: class not added to the metadata"
"$TRAWL" events list "$_tmp/undef" 2>/dev/null | tail -1 | grep -q "subsys2:event5 arg=77$" || fail "undefined event: not read after recover"
if command -v babeltrace2 >/dev/null 2>&1; then
	babeltrace2 "$_tmp/undef" 2>/dev/null | tail -1 | grep -q "subsys2:event5: .*{ arg = 77 }" ||
		fail "undefined event: babeltrace2 after recover: $(babeltrace2 "$_tmp/undef" 2>&1 | tail -1)"
fi

# overflow, flight recorder (overwrite, 64 KiB): the newest events are
# kept, and lost = emitted - kept
E="TRAWL_REC_MODE=overwrite TRAWL_REC_BUFFER=64k TRAWL_REC_FLUSH_MS=0" run "$_tmp/ow" kill
"$TRAWL" events list "$_tmp/ow" >"$_tmp/l" 2>/dev/null || fail "overwrite: list exit $?"
"$TRAWL" events stats "$_tmp/ow" >"$_tmp/s" 2>/dev/null
kept=$(wc -l <"$_tmp/l")
[ "$kept" -gt 1000 ] && [ "$kept" -lt $TOTAL ] || fail "overwrite: $kept events kept"
[ "$(lost "$_tmp/s")" = $((TOTAL - kept)) ] || fail "overwrite: lost $(lost "$_tmp/s"), want $TOTAL - $kept"
tail -n "$kept" "$_tmp/want" >"$_tmp/want.part"
names "$_tmp/l" | cmp -s - "$_tmp/want.part" || fail "overwrite: the kept events are not the last $kept emitted"
# overflow, discard mode (64 KiB, _exit): what is kept is in order and
# right, and lost = emitted - kept
E="TRAWL_REC_BUFFER=64k TRAWL_REC_FLUSH_MS=0" run "$_tmp/dc" _exit
"$TRAWL" events list "$_tmp/dc" >"$_tmp/l" 2>/dev/null || fail "discard: list exit $?"
"$TRAWL" events stats "$_tmp/dc" >"$_tmp/s" 2>/dev/null
kept=$(wc -l <"$_tmp/l")
[ "$kept" -gt 1000 ] && [ "$kept" -lt $TOTAL ] || fail "discard: $kept events kept"
[ "$(lost "$_tmp/s")" = $((TOTAL - kept)) ] || fail "discard: lost $(lost "$_tmp/s"), want $TOTAL - $kept"
names "$_tmp/l" | awk '
	{ split($2, a, "="); s = a[2] + 0 }
	$1 == "t:SEQ" { if (s <= last && NR > 1) { print "SEQ " s " after " last; exit 1 } last = s; next }
	$1 == "t:PAIR" { split($3, b, "="); if (b[2] != 3 * s || s < last) { print "bad PAIR " $0; exit 1 } last = s; next }
	{ print "unexpected " $0; exit 1 }' >"$_tmp/bad" || fail "discard: $(cat "$_tmp/bad")"

# damage in a buffer file: read up to it, file and offset named, exit 1.
# 4 MiB = 8 sub-buffers of 512 KiB after a 4 KiB header; the events fill
# 3 and most of the 4th, which starts at 4096 + 3 * 524288. No flush
# (the buffer file alone holds the events).
E="TRAWL_REC_BUFFER=4m TRAWL_REC_FLUSH_MS=0" run "$_tmp/bad" kill
ring="$_tmp/bad/.ring-0"
cut=$((4096 + 3 * 524288 + 200000))
cp "$ring" "$_tmp/ring.orig"
LC_ALL=C awk 'BEGIN { srand(42); for (i = 0; i < 4096; i++) printf "%c", int(rand() * 255) + 1 }' |
	dd of="$ring" bs=1 seek=$cut conv=notrunc 2>/dev/null
"$TRAWL" events list "$_tmp/bad" >"$_tmp/l" 2>"$_tmp/e"
[ $? = 1 ] || fail "random bytes in a buffer file: exit status not 1"
off=$(sed -n 's/.*\.ring-0:offset \([0-9]*\): .*/\1/p' "$_tmp/e")
[ -n "$off" ] && [ "$off" -ge $((cut - 32)) ] && [ "$off" -lt $((cut + 4096)) ] ||
	fail "random bytes at $cut: damage not reported at its offset: $(cat "$_tmp/e")"
n=$(wc -l <"$_tmp/l")
[ "$n" -gt 98000 ] && [ "$n" -lt $TOTAL ] || fail "random bytes: $n events listed"
# all but the last listed event (whose fields may hold the first random
# bytes) are exactly the first ones emitted
head -n $((n - 1)) "$_tmp/want" >"$_tmp/want.part"
names "$_tmp/l" | head -n $((n - 1)) | cmp -s - "$_tmp/want.part" || fail "random bytes: events before the damage differ"
# recover keeps what came before the damage and sets the file aside
"$TRAWL" events recover "$_tmp/bad" >/dev/null 2>&1
[ $? = 1 ] || fail "recover of a damaged buffer file: exit status not 1"
[ -f "$_tmp/bad/.ring-0.damaged" ] || fail "recover did not keep the damaged buffer file aside"
"$TRAWL" events list "$_tmp/bad" >"$_tmp/l2" 2>/dev/null || fail "list after recovering a damaged ring: exit $?"
[ "$(wc -l <"$_tmp/l2")" = "$n" ] || fail "recover wrote $(wc -l <"$_tmp/l2") events, list showed $n"
# a buffer file cut short (a partial copy)
cp "$_tmp/ring.orig" "$ring"
rm -f "$_tmp/bad/.ring-0.damaged" "$_tmp/bad/stream-0"
head -c 1700000 "$_tmp/ring.orig" >"$ring"
"$TRAWL" events list "$_tmp/bad" >"$_tmp/l" 2>"$_tmp/e"
[ $? = 1 ] || fail "cut buffer file: exit status not 1"
grep -q "\.ring-0:offset 1700000: ring file ends inside a sub-buffer" "$_tmp/e" || fail "cut buffer file: $(cat "$_tmp/e")"
n=$(wc -l <"$_tmp/l")
head -n "$n" "$_tmp/want" >"$_tmp/want.part"
names "$_tmp/l" | cmp -s - "$_tmp/want.part" || fail "cut buffer file: events before the cut differ"
[ "$n" -gt 90000 ] || fail "cut buffer file: only $n events"
# killed while opening a sub-buffer: its number is set but not the rest
# (ready still the initial all-ones, open_ticks 0); the sub-buffers before
# it read whole, it adds nothing, no damage. Sub-buffer 3's header is at
# 512 + 3 * 48: ready at +8, open_ticks at +24.
cp "$_tmp/ring.orig" "$ring"
printf '\377\377\377\377\377\377\377\377' | dd of="$ring" bs=1 seek=$((512 + 3 * 48 + 8)) conv=notrunc 2>/dev/null
printf '\0\0\0\0\0\0\0\0' | dd of="$ring" bs=1 seek=$((512 + 3 * 48 + 24)) conv=notrunc 2>/dev/null
"$TRAWL" events list "$_tmp/bad" >"$_tmp/l" 2>"$_tmp/e" || fail "died opening a sub-buffer: exit $? ($(cat "$_tmp/e"))"
n=$(wc -l <"$_tmp/l")
head -n "$n" "$_tmp/want" >"$_tmp/want.part"
names "$_tmp/l" | cmp -s - "$_tmp/want.part" || fail "died opening a sub-buffer: events differ"
[ "$n" -gt 80000 ] && [ "$n" -lt 100000 ] || fail "died opening a sub-buffer: $n events"
# garbage for a header: the stream files still read, the damage named
head -c 600 /dev/urandom | dd of="$ring" conv=notrunc 2>/dev/null
"$TRAWL" events stats "$_tmp/bad" >/dev/null 2>"$_tmp/e"
[ $? = 1 ] || fail "garbage ring header: exit status not 1"
grep -q "\.ring-0:offset 0: bad ring magic" "$_tmp/e" || fail "garbage ring header: $(cat "$_tmp/e")"
finish
