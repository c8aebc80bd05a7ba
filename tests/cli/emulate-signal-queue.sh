#!/bin/sh
# Pending signals as Linux keeps them (issue #17): a real-time signal
# (32 and up) sent N times while blocked is delivered N times, a standard
# one once; a pending signal whose action becomes "ignore" (SIG_IGN, or
# SIG_DFL of a signal ignored by default) is discarded, so a handler set
# again later does not see it. trawl delivered a real-time signal once
# however often it was sent, and delivered discarded signals, exit status
# 0 both. Counts by hand below; QEMU runs the same program when present.
. "$TRAWL_SRC/tests/cli-lib.sh"
cc=aarch64-linux-gnu-gcc
command -v $cc >/dev/null 2>&1 || skip "$cc not installed"
cat >"$_tmp/q.c" <<'EOC'
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
static volatile int n;
static void h(int s, siginfo_t *si, void *u) { n++; }
static void block(void) { sigset_t all; sigfillset(&all); sigprocmask(SIG_BLOCK, &all, 0); }
static void unblock(void) { sigset_t all; sigfillset(&all); sigprocmask(SIG_UNBLOCK, &all, 0); }
int main(void)
{
	struct sigaction sa = { 0 };
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 2, &sa, 0);
	sigaction(SIGUSR1, &sa, 0);
	block();
	for (int i = 0; i < 5; i++)
		raise(SIGRTMIN + 2);
	for (int i = 0; i < 5; i++)
		raise(SIGUSR1);
	unblock();
	printf("queued: %d\n", n);
	n = 0;
	sigaction(SIGUSR2, &sa, 0);
	block();
	raise(SIGUSR2);
	signal(SIGUSR2, SIG_IGN);
	sigaction(SIGUSR2, &sa, 0);
	unblock();
	printf("discarded by SIG_IGN: %d\n", n);
	n = 0;
	sigaction(SIGRTMIN + 3, &sa, 0);
	block();
	raise(SIGRTMIN + 3);
	raise(SIGRTMIN + 3);
	signal(SIGRTMIN + 3, SIG_IGN);
	sigaction(SIGRTMIN + 3, &sa, 0);
	unblock();
	printf("real-time, discarded by SIG_IGN: %d\n", n);
	n = 0;
	sigaction(SIGCHLD, &sa, 0);
	block();
	raise(SIGCHLD);
	signal(SIGCHLD, SIG_DFL);
	sigaction(SIGCHLD, &sa, 0);
	unblock();
	printf("discarded by SIG_DFL of SIGCHLD: %d\n", n);
	n = 0;
	sigaction(SIGRTMIN + 4, &sa, 0);
	block();
	raise(SIGRTMIN + 4);
	raise(SIGRTMIN + 4);
	unblock();
	raise(SIGRTMIN + 4);
	printf("real-time, queued then one more: %d\n", n);
	return 0;
}
EOC
$cc -static -O1 -o "$_tmp/q" "$_tmp/q.c" || skip "cannot build the test program"
cat >"$_tmp/want" <<'EOW'
queued: 6
discarded by SIG_IGN: 0
real-time, discarded by SIG_IGN: 0
discarded by SIG_DFL of SIGCHLD: 0
real-time, queued then one more: 3
EOW
"$TRAWL" emulate "$_tmp/q" -o "$_tmp/t.tarmac" >"$_tmp/t.out" 2>"$_tmp/t.err"
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc: $(cat "$_tmp/t.err")"
diff -u "$_tmp/want" "$_tmp/t.out" || fail "pending signals differ from Linux's"
if command -v qemu-aarch64 >/dev/null; then
	qemu-aarch64 "$_tmp/q" >"$_tmp/q.out" 2>&1
	diff -u "$_tmp/q.out" "$_tmp/t.out" || fail "output differs from QEMU's"
fi
finish
