/* Signals delivered to handlers, printed so that the output is the same
 * under any faithful emulator (QEMU's is the oracle in
 * tests/cli/emulate-signals.sh): addresses are checked, not printed.
 *
 *   signals          every case below, exit status 0
 *   signals term     raise(SIGTERM) with the default action (status 143)
 *   signals maps     stores after munmap, mprotect and mmap MAP_FIXED
 *                    fault or not as the new mapping says (each page is
 *                    written first, so what was known of it is stale)
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static sigjmp_buf jump;
static volatile int hits, nested, depth, order[8], norder;
static volatile uintptr_t fault_addr;
static volatile int fault_code, on_alt;
static char altstack[65536];

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	fault_addr = (uintptr_t)si->si_addr;
	fault_code = si->si_code;
	hits = sig;
	siglongjmp(jump, 1);
}

static void on_alt_stack(int sig)
{
	char here;
	on_alt = (uintptr_t)&here >= (uintptr_t)altstack &&
		 (uintptr_t)&here < (uintptr_t)altstack + sizeof altstack;
	stack_t now;
	sigaltstack(NULL, &now);
	on_alt |= (now.ss_flags & SS_ONSTACK) ? 2 : 0;
	(void)sig;
}

static volatile int info_code, info_pid_ok;

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	info_code = si->si_code;
	info_pid_ok = si->si_pid == getpid();
	hits += sig == SIGUSR2;
}

/* raises its own signal once inside: deferred unless SA_NODEFER */
static void on_nest(int sig)
{
	order[norder++] = ++depth;
	if (nested++ == 0)
		raise(sig);
	order[norder++] = -depth--;
}

/* BRK: step over it by moving the saved PC, then return through sigreturn */
static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	(void)si;
	uc->uc_mcontext.pc += 4;
	uc->uc_mcontext.regs[0] = 1234; /* the interrupted code sees this in x0 */
	hits = sig;
}

/* FP work in a handler must not leak into the interrupted code */
static void on_fp(int sig)
{
	volatile double x = 3.0;
	for (int i = 0; i < 10; i++)
		x = x * 1.5 + sig;
}

static void install(int sig, void (*h)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static void install_info(int sig, void (*h)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = h;
	sa.sa_flags = flags | SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

static void faults(void)
{
	install_info(SIGSEGV, on_fault, 0);
	if (sigsetjmp(jump, 1) == 0)
		*(volatile int *)(uintptr_t)0x10 = 1;
	printf("segv %d addr %#lx code %d\n", hits, (unsigned long)fault_addr, fault_code);
	/* the mask was restored by siglongjmp: a second fault is caught too */
	hits = 0;
	if (sigsetjmp(jump, 1) == 0)
		(void)*(volatile int *)(uintptr_t)0x20;
	printf("segv again %d addr %#lx\n", hits, (unsigned long)fault_addr);
	install_info(SIGILL, on_fault, 0);
	hits = 0;
	if (sigsetjmp(jump, 1) == 0)
		__asm__ volatile(".inst 0x00000000");
	/* si_code: Linux says ILL_ILLOPC (1), QEMU ILL_ILLOPN (2): not printed */
	printf("sigill %d\n", hits);
	install_info(SIGTRAP, on_trap, 0);
	hits = 0;
	register long x0 __asm__("x0") = 7;
	__asm__ volatile("brk #3" : "+r"(x0));
	printf("sigtrap %d x0 %ld\n", hits, x0);
}

static void delivery(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
	printf("sigaltstack %d\n", sigaltstack(&ss, NULL));
	install(SIGUSR1, on_alt_stack, SA_ONSTACK);
	raise(SIGUSR1);
	printf("on altstack %d\n", on_alt);
	install(SIGUSR1, on_alt_stack, 0);
	raise(SIGUSR1);
	printf("without SA_ONSTACK %d\n", on_alt);

	install_info(SIGUSR2, on_info, 0);
	hits = 0;
	raise(SIGUSR2);
	printf("raise code %d pid %d hits %d\n", info_code, info_pid_ok, hits);
	kill(getpid(), SIGUSR2);
	printf("kill code %d pid %d hits %d\n", info_code, info_pid_ok, hits);

	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, &old);
	raise(SIGUSR2);
	printf("blocked hits %d\n", hits);
	sigset_t pend;
	sigpending(&pend);
	printf("pending %d\n", sigismember(&pend, SIGUSR2));
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("unblocked hits %d\n", hits);

	install(SIGUSR1, on_nest, 0);
	nested = norder = 0;
	raise(SIGUSR1);
	printf("deferred");
	for (int i = 0; i < norder; i++)
		printf(" %d", order[i]);
	install(SIGUSR1, on_nest, SA_NODEFER);
	nested = norder = 0;
	raise(SIGUSR1);
	printf("\nnodefer");
	for (int i = 0; i < norder; i++)
		printf(" %d", order[i]);
	printf("\n");

	install(SIGUSR1, on_fp, SA_RESETHAND);
	volatile double a = 1.25, b = 0;
	raise(SIGUSR1);
	b = a * 4;
	struct sigaction back;
	sigaction(SIGUSR1, NULL, &back);
	printf("resethand %d fp %.2f\n", back.sa_handler == SIG_DFL, b);
}

/* a store to p: 0 when it went through, else the signal (11) */
static int try_store(volatile char *p, char v)
{
	hits = 0;
	if (sigsetjmp(jump, 1) == 0)
		*p = v;
	return hits;
}

static void maps(void)
{
	install_info(SIGSEGV, on_fault, 0);
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("mmap failed\n");
		return;
	}
	for (int k = 0; k < 3; k++)
		printf("page %d store %d\n", k, try_store(p + k * pg + 8, (char)(k + 1)));
	munmap(p + pg, pg);
	int sig = try_store(p + pg + 8, 9);
	printf("unmapped middle: store %d at +%ld code %d\n", sig,
	       (long)(fault_addr - (uintptr_t)p), fault_code);
	printf("others: store %d %d\n", try_store(p + 16, 4), try_store(p + 2 * pg + 16, 5));
	mprotect(p, pg, PROT_READ);
	sig = try_store(p + 24, 6);
	printf("read-only: store %d at +%ld code %d, still reads %d\n", sig,
	       (long)(fault_addr - (uintptr_t)p), fault_code, p[8]);
	mprotect(p, pg, PROT_READ | PROT_WRITE);
	printf("writable again: store %d, reads %d\n", try_store(p + 24, 7), p[24]);
	char *q = mmap(p + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	printf("remapped middle: same place %d, reads %d, store %d, reads %d\n", q == p + pg, q[8],
	       try_store(q + 8, 8), q[8]);
	munmap(p, 3 * pg);
	sig = try_store(p + 2 * pg + 16, 10);
	printf("all unmapped: store %d at +%ld code %d\n", sig, (long)(fault_addr - (uintptr_t)p),
	       fault_code);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && strcmp(argv[1], "term") == 0) {
		printf("term\n");
		raise(SIGTERM);
		printf("not reached\n");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "maps") == 0) {
		maps();
		return 0;
	}
	faults();
	delivery();
	return 0;
}
