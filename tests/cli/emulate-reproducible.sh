#!/bin/sh
# What docs/emulate.md promises of reproducibility: two runs of one
# program with the same arguments, inputs and kind of standard streams
# (here /dev/null) write byte-identical traces (sort, which reads no
# clock); a program that reads the time (threads timeout: clock_gettime
# then a timed wait) does so only with --fixed-clock, whose clock is
# 2025-01-01T00:00:00Z (0x67748580 s) plus 1 ns per instruction: the
# clock_gettime SVC's MW16 holds that second and, as nanoseconds, the
# SVC's own instruction index (the IT line's number, read here by awk).
# syscalls clocks reads time(), gettimeofday (UTC: zone 0 0) and the
# realtime and monotonic clocks: that second, and 0 s monotonic, early on.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex=$TRAWL_BUILD/examples
[ -x "$ex/sort" ] && [ -x "$ex/threads" ] && [ -x "$ex/syscalls" ] || skip "examples not built"
run() { # name args...: the trace in $_tmp/name
	n=$1; shift
	"$TRAWL" emulate -o "$_tmp/$n" "$@" >/dev/null 2>"$_tmp/$n.err" </dev/null ||
		fail "emulate $*: exit $?: $(cat "$_tmp/$n.err")"
}
run s1 "$ex/sort" -- 2000
run s2 "$ex/sort" -- 2000
cmp -s "$_tmp/s1" "$_tmp/s2" || fail "sort: two runs differ: $(cmp "$_tmp/s1" "$_tmp/s2")"
run t1 --fixed-clock "$ex/threads" -- timeout
run t2 --fixed-clock "$ex/threads" -- timeout
cmp -s "$_tmp/t1" "$_tmp/t2" || fail "threads timeout --fixed-clock: two runs differ: $(cmp "$_tmp/t1" "$_tmp/t2")"
# clock_gettime is system call 113 (0x71 in X8)
awk '/ R X8 0000000000000071$/ { x8 = 1; next }
	x8 && / IT \([0-9]+\) .* svc / { i = $0; sub(/.*IT \(/, "", i); sub(/\).*/, "", i); svc = i; next }
	svc != "" && / MW16 / { printf "%s %s %s\n", svc, $(NF - 1), $NF; exit }
	/ IT / { x8 = 0 }' "$_tmp/t1" >"$_tmp/clock"
if read -r idx nsec sec <"$_tmp/clock"; then
	[ "$sec" = 0000000067748580 ] || fail "fixed clock: tv_sec $sec, want 0000000067748580"
	[ "$((0x$nsec))" = "$idx" ] || fail "fixed clock: tv_nsec 0x$nsec, want the SVC's index $idx"
else
	fail "threads timeout: no clock_gettime call in the trace"
fi
"$TRAWL" emulate --fixed-clock -o "$_tmp/c.tarmac" "$ex/syscalls" -- clocks >"$_tmp/c.out" 2>"$_tmp/c.err" </dev/null ||
	fail "syscalls clocks: exit $?: $(cat "$_tmp/c.err")"
printf 'clocks 1735689600 0 1735689600 1735689600 0 0 0\nclocks ordered 1\n' | cmp -s - "$_tmp/c.out" ||
	fail "syscalls clocks --fixed-clock: $(cat "$_tmp/c.out")"
# on the host's clock: now, give or take a minute
"$TRAWL" emulate -o /dev/null "$ex/syscalls" -- clocks >"$_tmp/h.out" 2>"$_tmp/h.err" </dev/null ||
	fail "syscalls clocks: exit $?: $(cat "$_tmp/h.err")"
now=$(date +%s)
read -r _ t g tv rt _ <"$_tmp/h.out"
[ "$g" = 0 ] && [ $((now - t)) -lt 60 ] && [ $((t - now)) -lt 60 ] && [ "$tv" -ge "$t" ] && [ "$rt" -ge "$tv" ] ||
	fail "syscalls clocks on the host's clock (now $now): $(cat "$_tmp/h.out")"
grep -qxF "clocks ordered 1" "$_tmp/h.out" || fail "syscalls clocks: $(cat "$_tmp/h.out")"
finish
