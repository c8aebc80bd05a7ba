/* A program that goes wrong on purpose, to show how trawl emulate reports
 * guest faults (message with PC and address, partial trace, exit 1).
 *   faults null | blocked | ignored | jump | udf | brk | syscall | abort | exit N | spin
 * `blocked` and `ignored` write to NULL with SIGSEGV blocked or ignored:
 * Linux kills the program all the same.
 * `spin` hangs instead: it polls a flag nothing ever sets (a trace that
 * never ends, for `trawl truncate`; run it with -n). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int never_set;

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "null";
	printf("faults: %s\n", what);
	fflush(stdout);
	if (strcmp(what, "blocked") == 0) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGSEGV);
		sigprocmask(SIG_BLOCK, &set, NULL);
	} else if (strcmp(what, "ignored") == 0) {
		signal(SIGSEGV, SIG_IGN);
	}
	if (strcmp(what, "null") == 0 || strcmp(what, "blocked") == 0 ||
	    strcmp(what, "ignored") == 0) {
		volatile int *p = (volatile int *)(uintptr_t)0x10;
		*p = 42;                                 /* unmapped write */
	} else if (strcmp(what, "jump") == 0) {
		void (*volatile f)(void) = (void (*)(void))(uintptr_t)0x1000;
		f();                                     /* no code there */
	} else if (strcmp(what, "udf") == 0) {
		__asm__ volatile(".inst 0x00000000");    /* UDF #0 */
	} else if (strcmp(what, "brk") == 0) {
		__asm__ volatile("brk #7");
	} else if (strcmp(what, "syscall") == 0) {
		register long x8 __asm__("x8") = 999;    /* no such system call */
		register long x0 __asm__("x0") = 0;
		__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8) : "memory");
	} else if (strcmp(what, "abort") == 0) {
		abort();
	} else if (strcmp(what, "spin") == 0) {
		while (!never_set)
			;
	} else if (strcmp(what, "exit") == 0) {
		return argc > 2 ? atoi(argv[2]) : 0;
	}
	return 0;
}
