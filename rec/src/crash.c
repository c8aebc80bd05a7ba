/* Fatal signals: write the buffers out before the process dies, where
 * that is safe (rec_crash_flush only tries locks and never allocates),
 * then let the signal do what it would have done. The ring files keep
 * every event whether or not this runs (SIGKILL, _exit, a handler of the
 * program's own, a crash inside the recorder). */
#include "rec-int.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT };
#define NFATAL (sizeof fatal / sizeof fatal[0])

static struct sigaction saved[NFATAL];
static int installed[NFATAL];

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int e = errno;
	rec_crash_flush(sig);
	/* the action before ours (the default: we only replace that) */
	for (size_t i = 0; i < NFATAL; i++)
		if (fatal[i] == sig && installed[i]) {
			sigaction(sig, &saved[i], NULL);
			installed[i] = 0;
		}
	errno = e;
	/* a fault comes back when the instruction runs again; a signal that
	 * was sent (kill, raise, abort) has to be raised again */
	if (!si || si->si_code <= 0 || sig == SIGABRT || sig == SIGTERM || sig == SIGINT)
		raise(sig);
}

void rec_crash_install(void)
{
	for (size_t i = 0; i < NFATAL; i++) {
		struct sigaction cur;
		if (installed[i] || sigaction(fatal[i], NULL, &cur) != 0)
			continue;
		/* a program's (or a sanitizer's) own handler, or SIG_IGN, stays */
		if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_fatal;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		if (sigaction(fatal[i], &sa, &saved[i]) == 0)
			installed[i] = 1;
	}
}

void rec_crash_uninstall(void)
{
	for (size_t i = 0; i < NFATAL; i++) {
		struct sigaction cur;
		if (!installed[i] || sigaction(fatal[i], NULL, &cur) != 0)
			continue;
		/* someone replaced ours meanwhile: theirs stays */
		if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fatal)
			sigaction(fatal[i], &saved[i], NULL);
		installed[i] = 0;
	}
}
