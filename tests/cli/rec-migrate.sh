#!/bin/sh
# Thread migration: a program moves itself from cpu to cpu while recording
# (tests/rec/migrate-prog.c prints which cpu each phase ran on); every
# event must carry the cpu its phase ran on — in the trace written at
# exit, in the buffer files read after an _exit (crash recovery), and
# after 'trawl events recover'. babeltrace2's cpu_id agrees.
. "$TRAWL_SRC/tests/cli-lib.sh"
prog="$TRAWL_BUILD/rec-migrate-prog"
[ -x "$prog" ] || skip "rec-migrate-prog not built"
check() { # trace label: every event's cpu is its phase's
	"$TRAWL" events list "$1" 2>/dev/null >"$_tmp/list"
	[ "$(wc -l <"$_tmp/list")" = $((20 * 110)) ] || fail "$2: $(wc -l <"$_tmp/list") events, want 2200"
	awk -v label="$2" 'NR == FNR { cpu[$2] = $4; next }
		{ c = $3; split($7, kv, "="); p = kv[2]
		  if (!(p in cpu) || c != cpu[p]) { bad++; if (bad < 4) print label ": phase " p " event on cpu " c ", ran on " cpu[p] } }
		END { exit bad > 0 }' "$_tmp/phases" "$_tmp/list" || fail "$2: events carry the wrong cpu"
}
"$prog" "$_tmp/tr" 20 stop >"$_tmp/phases"; rc=$?
[ $rc = 77 ] && skip "cannot move between cpus here, or no rseq: $(cat "$_tmp/phases")"
[ $rc = 0 ] || fail "migrate-prog failed ($rc)"
[ "$(awk '{ print $4 }' "$_tmp/phases" | sort -u | wc -l)" -ge 2 ] || fail "the program did not change cpus"
check "$_tmp/tr" "trace"
[ "$(ls "$_tmp/tr" | grep -c '^stream-')" -ge 1 ] || fail "no stream"
if command -v babeltrace2 >/dev/null 2>&1; then
	babeltrace2 "$_tmp/tr" | sed -n 's/.*subsys1:event[01]: { cpu_id = \([0-9]*\),.*/\1/p' >"$_tmp/bt"
	cut -c1-100000 "$_tmp/list" | awk '{ print $3 }' | cmp -s - "$_tmp/bt" || fail "babeltrace2's cpu_id differs"
fi
"$prog" "$_tmp/ab" 20 abandon >"$_tmp/phases" || fail "migrate-prog (abandon) failed"
ls -a "$_tmp/ab" | grep -q '^\.ring-' || fail "no buffer file left after _exit"
check "$_tmp/ab" "buffer files"
"$TRAWL" events recover "$_tmp/ab" >/dev/null || fail "recover failed"
check "$_tmp/ab" "recovered"
finish
