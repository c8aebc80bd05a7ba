/* Linux system calls about the process itself for emulated AArch64
 * programs: resource and time queries, prctl, umask, signals.
 *
 * Answers are deterministic, so two runs of a program give the same trace:
 * the machine is one CPU with 4 GiB of memory, and the program's CPU time
 * is its instruction count at one instruction per nanosecond. Sleeping
 * returns at once. Signals are delivered by signal.c.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "emu/sys.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

#define GUEST_PID 4242

static int64_t put(struct trawl_emu *e, uint64_t addr, const void *p, size_t n)
{
	return emu_guest_write(e, addr, p, n) == UC_ERR_OK ? 0 : -EFAULT;
}

/* struct sysinfo for a 64-bit guest: 112 bytes */
int64_t emu_sys_sysinfo(struct trawl_emu *e, struct sys_call *c)
{
	uint8_t b[112] = { 0 };
	uint64_t uptime = 1000 + e->n / 1000000000u;
	uint64_t ram[6] = { UINT64_C(4) << 30, UINT64_C(2) << 30, 0, 0, 0, 0 };
	uint16_t procs = 1;
	uint32_t unit = 1;
	memcpy(b, &uptime, 8);
	memcpy(b + 32, ram, sizeof ram);
	memcpy(b + 80, &procs, 2);
	memcpy(b + 104, &unit, 4);
	return put(e, c->a[0], b, sizeof b);
}

int64_t emu_sys_prctl(struct trawl_emu *e, struct sys_call *c)
{
	enum { PR_SET_DUMPABLE_ = 4, PR_GET_DUMPABLE_ = 3, PR_SET_NAME_ = 15, PR_GET_NAME_ = 16 };
	switch (c->a[0]) {
	case PR_SET_NAME_: {
		char name[16] = { 0 };
		for (int i = 0; i < 15; i++) {
			if (uc_mem_read(e->uc, c->a[1] + (uint64_t)i, name + i, 1) != UC_ERR_OK)
				return -EFAULT;
			if (!name[i])
				break;
		}
		memcpy(e->comm, name, sizeof name);
		return 0;
	}
	case PR_GET_NAME_:
		return put(e, c->a[1], e->comm, sizeof e->comm);
	case PR_GET_DUMPABLE_:
		return 1;
	case PR_SET_DUMPABLE_:
		return c->a[1] <= 1 ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

int64_t emu_sys_umask(struct trawl_emu *e, struct sys_call *c)
{
	uint32_t old = e->umask;
	e->umask = (uint32_t)c->a[0] & 0777;
	return old;
}

/* one CPU: CPU 0; the kernel copies a whole word and returns its size */
int64_t emu_sys_sched_getaffinity(struct trawl_emu *e, struct sys_call *c)
{
	if (c->a[0] != 0 && !emu_tid_live(e, (int64_t)c->a[0]))
		return -ESRCH;
	if (c->a[1] < 8 || (c->a[1] & 7))
		return -EINVAL;
	uint64_t mask = 1;
	int64_t r = put(e, c->a[2], &mask, 8);
	return r ? r : 8;
}

/* clock ticks (100 per second) of CPU time */
int64_t emu_sys_times(struct trawl_emu *e, struct sys_call *c)
{
	uint64_t ticks = e->n / 10000000u;
	if (c->a[0]) {
		uint64_t t[4] = { ticks, 0, 0, 0 };
		int64_t r = put(e, c->a[0], t, sizeof t);
		if (r)
			return r;
	}
	return (int64_t)(100000 + ticks);
}

int64_t emu_sys_getrusage(struct trawl_emu *e, struct sys_call *c)
{
	int64_t who = (int64_t)c->a[0];
	if (who != 0 && who != -1 && who != 1) /* SELF, CHILDREN, THREAD */
		return -EINVAL;
	uint64_t b[18] = { 0 }; /* two timevals, then 14 longs */
	if (who != -1) {
		b[0] = e->n / 1000000000u;
		b[1] = e->n / 1000u % 1000000u;
	}
	return put(e, c->a[1], b, sizeof b);
}

static int64_t check_timespec(struct trawl_emu *e, uint64_t addr)
{
	int64_t ts[2];
	if (uc_mem_read(e->uc, addr, ts, sizeof ts) != UC_ERR_OK)
		return -EFAULT;
	return ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000 ? -EINVAL : 0;
}

/* 2025-01-01T00:00:00Z: a plausible date for programs that check it */
#define TRAWL_EMU_FIXED_EPOCH 1735689600

int64_t emu_clock_now(struct trawl_emu *e, uint64_t clk, int64_t ts[2])
{
	if (!e->opt.fixed_clock) {
		struct timespec t;
		if (clock_gettime((clockid_t)clk, &t) != 0)
			return -errno;
		ts[0] = t.tv_sec;
		ts[1] = t.tv_nsec;
		return 0;
	}
	/* the wall clocks (glibc's time() reads REALTIME_COARSE) start at the
	 * epoch; the rest (monotonic, boot, CPU time) at 0. 10 is no clock
	 * on Linux; dynamic clock ids (negative) are refused as well. */
	enum { REALTIME = 0, REALTIME_COARSE = 5, REALTIME_ALARM = 8, TAI = 11 };
	if (clk > TAI || clk == 10)
		return -EINVAL;
	int wall = clk == REALTIME || clk == REALTIME_COARSE || clk == REALTIME_ALARM || clk == TAI;
	ts[0] = (wall ? TRAWL_EMU_FIXED_EPOCH : 0) + (int64_t)(e->n / 1000000000);
	ts[1] = (int64_t)(e->n % 1000000000);
	return 0;
}

int64_t emu_sys_nanosleep(struct trawl_emu *e, struct sys_call *c)
{
	return check_timespec(e, c->a[0]);
}

int64_t emu_sys_clock_nanosleep(struct trawl_emu *e, struct sys_call *c)
{
	if (c->a[0] > 11) /* not a clock id */
		return -EINVAL;
	return check_timespec(e, c->a[2]);
}

/* MEMBARRIER_CMD_QUERY: no command is supported (none is needed with one
 * thread); glibc and libstdc++ fall back to ordinary barriers */
int64_t emu_sys_membarrier(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	return c->a[0] == 0 ? 0 : -EINVAL;
}

/* struct sigaction as the AArch64 kernel has it: handler, flags,
 * restorer, mask; 32 bytes, kept as the guest wrote them */
int64_t emu_sys_rt_sigaction(struct trawl_emu *e, struct sys_call *c)
{
	uint64_t sig = c->a[0];
	if (sig < 1 || sig > 64 || c->a[3] != 8)
		return -EINVAL;
	uint8_t act[32];
	if (c->a[1]) {
		if (sig == 9 || sig == 19) /* SIGKILL, SIGSTOP */
			return -EINVAL;
		if (uc_mem_read(e->uc, c->a[1], act, sizeof act) != UC_ERR_OK)
			return -EFAULT;
	}
	if (c->a[2] && put(e, c->a[2], e->sigact[sig], 32))
		return -EFAULT;
	if (c->a[1]) {
		memcpy(e->sigact[sig], act, sizeof act);
		emu_signal_action_set(e, (int)sig);
	}
	return 0;
}

int64_t emu_sys_rt_sigprocmask(struct trawl_emu *e, struct sys_call *c)
{
	const uint64_t unblockable = (UINT64_C(1) << 8) | (UINT64_C(1) << 18); /* KILL, STOP */
	uint64_t how = c->a[0], set = 0;
	if (c->a[3] != 8)
		return -EINVAL;
	if (c->a[1]) {
		if (how > 2)
			return -EINVAL;
		if (uc_mem_read(e->uc, c->a[1], &set, 8) != UC_ERR_OK)
			return -EFAULT;
	}
	if (c->a[2] && put(e, c->a[2], &e->sigmask, 8))
		return -EFAULT;
	if (c->a[1]) {
		if (how == 0)
			e->sigmask |= set;
		else if (how == 1)
			e->sigmask &= ~set;
		else
			e->sigmask = set;
		e->sigmask &= ~unblockable;
		if (e->sigpending & ~e->sigmask)
			e->resched = 1; /* taken when the call returns */
	}
	return 0;
}

/* stack_t: ss_sp, ss_flags (int, padded), ss_size */
int64_t emu_sys_sigaltstack(struct trawl_emu *e, struct sys_call *c)
{
	uint8_t ss[24];
	if (c->a[0] && uc_mem_read(e->uc, c->a[0], ss, sizeof ss) != UC_ERR_OK)
		return -EFAULT;
	uint64_t sp[2];
	emu_read_reg(e, EMU_REG_SP, sp);
	int32_t now = emu_altstack_flags(e, sp[0]);
	if (c->a[1]) {
		uint8_t old[24];
		memcpy(old, e->altstack, sizeof old);
		memcpy(old + 8, &now, 4);
		if (put(e, c->a[1], old, sizeof old))
			return -EFAULT;
	}
	if (c->a[0] && now == 1) /* SS_ONSTACK: cannot change it from on it */
		return -EPERM;
	if (c->a[0]) {
		int32_t flags;
		uint64_t size;
		memcpy(&flags, ss + 8, 4);
		memcpy(&size, ss + 16, 8);
		if ((uint32_t)flags & ~(2u | (1u << 31))) /* SS_DISABLE, SS_AUTODISARM */
			return -EINVAL;
		if (!(flags & 2) && size < 2048) /* MINSIGSTKSZ on AArch64... at least */
			return -ENOMEM;
		memcpy(e->altstack, ss, sizeof ss);
	}
	return 0;
}

/* kill and tgkill of the program itself: the signal becomes pending and
 * is taken at the next instruction boundary (signal.c), by its handler or
 * its default action. Other processes do not exist. */
int64_t emu_sys_kill(struct trawl_emu *e, struct sys_call *c)
{
	int tg = c->nr != 129;
	int64_t pid = (int64_t)c->a[0];
	uint64_t sig = tg ? c->a[2] : c->a[1];
	if (pid != GUEST_PID && !(!tg && (pid == 0 || pid == -1)))
		return -ESRCH;
	if (tg && !emu_tid_live(e, (int64_t)c->a[1]))
		return -ESRCH; /* a live thread: it takes the signal (thread.c) */
	if (sig > 64)
		return -EINVAL;
	if (sig == 0)
		return 0;
	/* SI_USER (0) for kill, SI_TKILL (-6) for tgkill */
	struct emu_siginfo si = { .signo = (int32_t)sig, .code = tg ? -6 : 0,
				  .pid = GUEST_PID, .uid = 1000, .tid = tg ? (int)c->a[1] : 0 };
	emu_signal_send(e, &si);
	return 0;
}

#endif
