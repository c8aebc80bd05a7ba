#!/bin/sh
# Robust mutexes (issue #17): when a thread exits holding one, Linux walks
# the thread's robust list (set_robust_list) and marks the lock word
# FUTEX_OWNER_DIED, waking a waiter, so the next locker gets EOWNERDEAD.
# examples/threads robust does it twice: with nobody waiting, and with
# the main thread blocked in pthread_mutex_lock. QEMU cannot be the
# oracle (qemu-user answers set_robust_list with ENOSYS and the program
# hangs), so the truth is the real kernel: the same C file built for the
# host and run natively must print the same, as must the hand-written
# expectation. In the trace, the exiting thread's SVC writes 0xc0000000
# (OWNER_DIED | WAITERS: someone was waiting) to the lock word. The
# previous binary deadlocked at the first lock.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples/threads"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"

cat >"$_tmp/want" <<'END'
lock after its owner died: EOWNERDEAD
consistent: ok
waiter when the owner died: EOWNERDEAD
lock again: ok ok
rc 0
END
for q in 10000 37; do
	"$TRAWL" emulate "$ex" --quantum $q -o "$_tmp/t.tarmac" -- robust >"$_tmp/t.out" 2>"$_tmp/t.err" </dev/null
	echo "rc $?" >>"$_tmp/t.out"
	cmp -s "$_tmp/want" "$_tmp/t.out" ||
		fail "--quantum $q: $(diff "$_tmp/want" "$_tmp/t.out") $(head -c 300 "$_tmp/t.err")"
	awk '$3 ~ /^cpu[1-9]/ && $4 == "MW4" && $6 == "c0000000"' "$_tmp/t.tarmac" | grep -q . ||
		fail "--quantum $q: no exiting thread marked a waited-for lock OWNER_DIED (MW4 ... c0000000)"
done
if command -v cc >/dev/null && cc -O2 -pthread -o "$_tmp/native" "$TRAWL_SRC/examples/threads.c" 2>"$_tmp/cc.err"; then
	( "$_tmp/native" robust >"$_tmp/n.out" 2>&1; echo "rc $?" >>"$_tmp/n.out" ) </dev/null
	cmp -s "$_tmp/n.out" "$_tmp/t.out" || fail "differs from the host kernel's: $(diff "$_tmp/n.out" "$_tmp/t.out")"
else
	echo "no host C compiler: checked against the expected text only"
fi
finish
