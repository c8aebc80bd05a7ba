#!/bin/sh
# Threads (issue #17): examples/threads runs 4 pthreads adding to a counter
# under a mutex (the total must be exact), hands a token round them with a
# condition variable, joins them, keeps thread-local storage per thread and
# starts one more thread after they exited (its core number is reused).
# Output and exit status must equal QEMU's and the hand-computed values;
# the trace has one core per thread (cpu0-cpu4, no cpu5), each with its own
# TPIDR_EL0 read back through trawl's index; the schedule is deterministic
# (two runs give the same trace); a deadlock ends with a message, exit 1.
# The index oracle (tests/unit/test-index-trace.c) replays a threaded trace
# core by core.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/emulate-lib.sh"
ex="$TRAWL_BUILD/examples/threads"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"

cat >"$_tmp/want" <<'END'
counter 5000 expected 5000
order 0 1 2 3
join sum 604 main tls -1
second round 2500
END
"$TRAWL" emulate "$ex" -o "$_tmp/t.tarmac" >"$_tmp/t.out" 2>"$_tmp/t.err" </dev/null
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc; stderr: $(head -c 300 "$_tmp/t.err")"
diff "$_tmp/want" "$_tmp/t.out" >"$_tmp/d" || fail "output differs from the expected: $(cat "$_tmp/d")"
same_as_qemu "$_tmp/t.out" 0 "$ex"

# one core per live thread: main and 4 workers; the fifth worker reuses one
"$TRAWL" stats "$_tmp/t.tarmac" >"$_tmp/stats" 2>"$_tmp/serr" || fail "trawl stats: $(cat "$_tmp/serr")"
cores=$(awk '$1 ~ /^cpu[0-9]+$/ && $2 == "A64" { print $1 }' "$_tmp/stats" | tr '\n' ' ')
[ "$cores" = "cpu0 cpu1 cpu2 cpu3 cpu4 " ] || fail "cores in the trace: '$cores'"
# every core's thread pointer as the index gives it equals the last
# TPIDR_EL0 line of that core in the text (lines before the first thread
# have no cpu field: core 0); the four workers' differ (the
# fifth worker may reuse an exited one's stack and thread block)
end=$(awk '$1 == "time:" { print $4 }' "$_tmp/stats")
awk '$3 ~ /^cpu/ && $4 == "R" && $5 == "TPIDR_EL0" { v[$3] = $6 }
     $3 == "R" && $4 == "TPIDR_EL0" { v["cpu0"] = $5 }   # before the first thread
     END { for (c in v) print c, v[c] }' "$_tmp/t.tarmac" | sort >"$_tmp/tp.text"
for c in 0 1 2 3 4; do
	"$TRAWL" regs "$_tmp/t.tarmac" --time "$end" --cpu $c 2>"$_tmp/rerr" </dev/null |
		awk -v c=$c '$1 == "TPIDR_EL0" { print "cpu" c, $2 }' >>"$_tmp/tp" ||
		fail "trawl regs --cpu $c: $(cat "$_tmp/rerr")"
done
cmp -s "$_tmp/tp.text" "$_tmp/tp" || fail "TPIDR_EL0 per core: index $(cat "$_tmp/tp"), text $(cat "$_tmp/tp.text")"
[ "$(awk '$1 != "cpu0" { print $2 }' "$_tmp/tp" | sort -u | grep -c .)" -ge 3 ] ||
	fail "the workers' TPIDR_EL0 are not their own: $(cat "$_tmp/tp")"
n=$(awk '$3 == "cpu2" && $4 == "R" && $5 == "TPIDR_EL0"' "$_tmp/t.tarmac" | sort -u | grep -c .)
[ "$n" = 1 ] || fail "cpu2's TPIDR_EL0 changed while one thread ran on it ($n values)"

# deterministic: the same trace again, and the same output at any quantum
"$TRAWL" emulate "$ex" -o "$_tmp/t2.tarmac" >/dev/null 2>&1 </dev/null
cmp -s "$_tmp/t.tarmac" "$_tmp/t2.tarmac" || fail "two runs gave different traces"
"$TRAWL" emulate "$ex" --style none --quantum 37 >"$_tmp/n.out" 2>&1 </dev/null || fail "--quantum 37 failed"
cmp -s "$_tmp/want" "$_tmp/n.out" || fail "--quantum 37 output differs: $(diff "$_tmp/want" "$_tmp/n.out")"
"$TRAWL" emulate "$ex" --check-writes --quantum 500 -o /dev/null -- 2 >/dev/null 2>"$_tmp/cw" </dev/null ||
	fail "--check-writes: $(cat "$_tmp/cw")"
expect_exit 2 "$TRAWL" emulate "$ex" --quantum 0 -o /dev/null

expect_exit 1 "$TRAWL" emulate "$ex" -o "$_tmp/dl.tarmac" -- deadlock
grep -q "deadlock: every thread waits on a futex with no timeout" "$_tmp/err" ||
	fail "no deadlock message: $(cat "$_tmp/err")"
# fork: one process only, said clearly
expect_exit 1 "$TRAWL" emulate "$ex" -o "$_tmp/f.tarmac" -- fork
grep -q "makes a new process (fork/vfork)" "$_tmp/err" || fail "no fork message: $(cat "$_tmp/err")"
# tgkill from a worker to the main thread's tid reaches the handler
"$TRAWL" emulate "$ex" -o "$_tmp/k.tarmac" -- kill >"$_tmp/k.out" 2>&1 </dev/null
grep -qxF "got 10 tid 1" "$_tmp/k.out" || fail "tgkill to the main thread: $(cat "$_tmp/k.out")"
same_as_qemu "$_tmp/k.out" 0 "$ex" kill
# a timed wait nobody signals, with the other thread waiting for ever:
# ETIMEDOUT at once (time is instructions), not a deadlock and not 30 s
"$TRAWL" emulate "$ex" -o /dev/null -- timeout >"$_tmp/to.out" 2>&1 </dev/null
grep -qxF "timedwait ETIMEDOUT" "$_tmp/to.out" || fail "timed wait: $(cat "$_tmp/to.out")"
# masks are per thread: the main thread blocks SIGUSR1, a worker sends it
# to the process and takes it itself
"$TRAWL" emulate "$ex" -o "$_tmp/m.tarmac" -- mask >"$_tmp/m.out" 2>&1 </dev/null
grep -qxF "got 10 by worker 1" "$_tmp/m.out" || fail "per-thread mask: $(cat "$_tmp/m.out")"
same_as_qemu "$_tmp/m.out" 0 "$ex" mask

# a signal interrupts a futex wait, as on Linux: pthread_kill of the main
# thread asleep in FUTEX_WAIT (the worker blocks the signal itself) gives
# EINTR without SA_RESTART, EINTR with a timeout even with SA_RESTART, and
# with SA_RESTART and no timeout the wait is made again after the handler
# (then woken: 0). Before, the wait slept on and the worker spun for ever:
# the instruction limit stops that
"$TRAWL" emulate "$ex" -o "$_tmp/e.tarmac" -n 20000000 -- eintr >"$_tmp/e.out" 2>&1 </dev/null
printf '%s\n' "no SA_RESTART: futex -1 EINTR, handler ran 1" \
	"SA_RESTART, timeout: futex -1 EINTR, handler ran 1" "SA_RESTART: futex 0 woken, handler ran 1" >"$_tmp/e.want"
cmp -s "$_tmp/e.want" "$_tmp/e.out" || fail "futex wait interrupted by a signal: $(cat "$_tmp/e.out")"
same_as_qemu "$_tmp/e.out" 0 "$ex" eintr
# a tgkill's signal with no handler ends the program whichever thread
# takes it (SIGTERM to the main thread, asleep in pthread_join): 143
"$TRAWL" emulate "$ex" -o "$_tmp/t.tarmac" -n 20000000 -- term >"$_tmp/t.out" 2>&1 </dev/null
trc=$?
[ $trc = 143 ] || fail "SIGTERM by pthread_kill: exit $trc, expected 143: $(head -c 300 "$_tmp/t.out")"
same_as_qemu "$_tmp/t.out" 143 "$ex" term
# the interrupted wait's result is the X0 line on the main thread's core
grep -q ' cpu0 R X0 fffffffffffffffc$' "$_tmp/e.tarmac" || fail "no X0 = -EINTR line on cpu0 in the trace"
finish
