/* ppoll for emulated AArch64 programs (a shell's `read` waits on its input
 * with it). struct pollfd and the POLL* bits are the same on the AArch64
 * guest and the host; guest fds are mapped to host ones for the host call,
 * and a guest fd that is not open reports POLLNVAL as Linux does. The
 * signal mask argument is ignored: no signal is delivered during the call.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "emu/sys.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

#define POLL_MAX EMU_MAX_FDS /* the guest's RLIMIT_NOFILE */

static int poll_timeout(struct trawl_emu *e, uint64_t addr, struct timespec *ts)
{
	int64_t v[2];
	if (uc_mem_read(e->uc, addr, v, sizeof v) != UC_ERR_OK)
		return -EFAULT;
	if (v[0] < 0 || v[1] < 0 || v[1] >= 1000000000)
		return -EINVAL;
	ts->tv_sec = v[0];
	ts->tv_nsec = v[1];
	return 0;
}

/* ppoll(fds, nfds, timeout, sigmask, sigsetsize) */
int64_t emu_sys_ppoll(struct trawl_emu *e, struct sys_call *c)
{
	struct pollfd g[POLL_MAX], h[POLL_MAX];
	uint64_t n = c->a[1];
	struct timespec ts, *tp = NULL;
	if (n > POLL_MAX)
		return -EINVAL;
	if (c->a[2]) {
		int r = poll_timeout(e, c->a[2], &ts);
		if (r)
			return r;
		tp = &ts;
	}
	if (n && uc_mem_read(e->uc, c->a[0], g, n * sizeof g[0]) != UC_ERR_OK)
		return -EFAULT;
	for (uint64_t i = 0; i < n; i++) {
		/* a negative fd is skipped; one not open gets POLLNVAL from the
		 * host through an fd that is never open */
		h[i].fd = g[i].fd < 0 ? -1 : emu_host_fd(e, (uint64_t)(int64_t)g[i].fd);
		if (g[i].fd >= 0 && h[i].fd < 0)
			h[i].fd = INT32_MAX;
		h[i].events = g[i].events;
		h[i].revents = 0;
	}
	int r = ppoll(h, (nfds_t)n, tp, NULL);
	if (r < 0)
		return -errno;
	for (uint64_t i = 0; i < n; i++)
		g[i].revents = h[i].revents;
	if (n && emu_guest_write(e, c->a[0], g, n * sizeof g[0]) != UC_ERR_OK)
		return -EFAULT;
	return r;
}

#endif
