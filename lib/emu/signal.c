/* Signal delivery for emulated AArch64 programs, laid out as Linux's
 * arch/arm64/kernel/signal.c does it:
 *
 *   next_frame (16 bytes: x29, x30)      <- round_down(sp - 16, 16)
 *   struct rt_sigframe (4688 bytes)      <- the handler's SP
 *     siginfo            128 bytes at 0
 *     ucontext           at 128: uc_flags, uc_link, uc_stack (24),
 *                        uc_sigmask (8), padding to 176, then sigcontext:
 *                        fault_address, regs[31], sp, pc, pstate and
 *                        __reserved[4096] holding the records
 *                        fpsimd_context (magic 0x46508001, 528 bytes),
 *                        esr_context (0x45535201, 16) for faults, and a
 *                        null record {0, 0} that ends them.
 *
 * The handler starts with X0 = signal, X1 = &info, X2 = &uc (SA_SIGINFO),
 * X29 = &next_frame, X30 = sa_restorer, or trawl's two-instruction
 * trampoline (mov x8, #139; svc #0) for handlers without one, since there
 * is no vDSO. rt_sigreturn reads the frame back at SP and restores every
 * register, the mask and the alternate stack state.
 *
 * Signals are taken at instruction boundaries: the run loop (emu.c) stops
 * Unicorn when one is pending (e->resched) and calls emu_signal_boundary.
 * What delivery and return change outside an instruction is written to
 * the trace as register and memory lines (emu_trace_state).
 */
#include <errno.h>
#include <string.h>

#include "emu/sys.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

#define SA_SIGINFO_ 0x4u
#define SA_ONSTACK_ 0x08000000u
#define SA_RESTORER_ 0x04000000u
#define SA_NODEFER_ 0x40000000u
#define SA_RESETHAND_ 0x80000000u
#define SA_RESTART_ 0x10000000u
#define SS_ONSTACK_ 1
#define SS_DISABLE_ 2
#define FRAME_SIZE 4688u
#define UC_OFF 128u
#define MC_OFF (UC_OFF + 176u)
#define RES_OFF (MC_OFF + 288u)
#define FPSIMD_MAGIC 0x46508001u
#define ESR_MAGIC 0x45535201u
#define UNBLOCKABLE ((UINT64_C(1) << 8) | (UINT64_C(1) << 18))

static uint64_t bit(int sig)
{
	return UINT64_C(1) << (sig - 1);
}

struct emu_sigaction {
	uint64_t handler, flags, restorer, mask;
};

static struct emu_sigaction action(const struct trawl_emu *e, int sig)
{
	struct emu_sigaction a;
	memcpy(&a, e->sigact[sig], sizeof a);
	return a;
}

/* Default actions: ignore (CHLD CONT URG WINCH, and the stop signals,
 * since there is no one to continue the program), else terminate. */
static int ignored_by_default(int sig)
{
	return sig == 17 || sig == 18 || sig == 23 || sig == 28 || sig == 19 || sig == 20 ||
	       sig == 21 || sig == 22;
}

void emu_signal_send(struct trawl_emu *e, const struct emu_siginfo *si)
{
	if (si->signo < 1 || si->signo > 64)
		return;
	struct emu_sigaction a = action(e, si->signo);
	if (si->signo != 9 && (a.handler == 1 || (a.handler == 0 && ignored_by_default(si->signo))))
		return; /* discarded at once, as Linux does for ignored signals */
	if (si->signo >= 32 && (e->sigpending & bit(si->signo))) {
		/* real-time signals queue (RLIMIT_SIGPENDING, thousands on
		 * Linux, is not modelled); standard ones are pending once */
		if (e->sigqueued[si->signo] < UINT32_MAX)
			e->sigqueued[si->signo]++;
		e->resched = 1;
		return;
	}
	e->sigpending |= bit(si->signo);
	e->siginfo[si->signo] = *si;
	e->resched = 1;
}

void emu_signal_action_set(struct trawl_emu *e, int sig)
{
	if (sig < 1 || sig > 64)
		return;
	struct emu_sigaction a = action(e, sig);
	if (sig != 9 && (a.handler == 1 || (a.handler == 0 && ignored_by_default(sig)))) {
		e->sigpending &= ~bit(sig);
		e->sigqueued[sig] = 0;
		if (e->sync_signal == sig)
			e->sync_signal = 0;
	}
}

int emu_signal_catch_fault(struct trawl_emu *e, const struct emu_siginfo *si)
{
	struct emu_sigaction a = action(e, si->signo);
	if (a.handler <= 1 || (e->sigmask & bit(si->signo)))
		return 0; /* Linux would kill the program: report the fault */
	e->sigpending |= bit(si->signo);
	e->siginfo[si->signo] = *si;
	e->sync_signal = si->signo;
	e->resched = 1;
	return 1;
}

static int on_altstack(const struct trawl_emu *e, uint64_t sp)
{
	uint64_t ss_sp, ss_size;
	memcpy(&ss_sp, e->altstack, 8);
	memcpy(&ss_size, e->altstack + 16, 8);
	return ss_size && sp > ss_sp && sp - ss_sp <= ss_size;
}

/* sigaltstack's ss_flags as the kernel reports them for this SP */
int32_t emu_altstack_flags(const struct trawl_emu *e, uint64_t sp)
{
	int32_t flags;
	memcpy(&flags, e->altstack + 8, 4);
	if (flags & SS_DISABLE_)
		return SS_DISABLE_;
	return on_altstack(e, sp) ? SS_ONSTACK_ : (flags & ~SS_ONSTACK_);
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

/* The ucontext part of the frame from the registers now. */
static void fill_context(struct trawl_emu *e, uint8_t *f, const struct emu_siginfo *si,
			 uint64_t pc, uint64_t sp)
{
	uint64_t v[2];
	memcpy(f + UC_OFF + 16, e->altstack, 24);
	put32(f, UC_OFF + 24, (uint32_t)emu_altstack_flags(e, sp));
	put64(f, UC_OFF + 40, e->sigmask);
	put64(f, MC_OFF, si->mem ? si->addr : 0);
	for (unsigned r = 0; r < 31; r++) {
		emu_read_reg(e, r, v);
		put64(f, MC_OFF + 8 + 8 * r, v[0]);
	}
	put64(f, MC_OFF + 256, sp);
	put64(f, MC_OFF + 264, pc);
	emu_read_reg(e, EMU_REG_CPSR, v);
	put64(f, MC_OFF + 272, v[0]);
	size_t rec = RES_OFF;
	put32(f, rec, FPSIMD_MAGIC);
	put32(f, rec + 4, 528);
	emu_read_reg(e, EMU_REG_FPSR, v);
	put32(f, rec + 8, (uint32_t)v[0]);
	emu_read_reg(e, EMU_REG_FPCR, v);
	put32(f, rec + 12, (uint32_t)v[0]);
	for (unsigned q = 0; q < 32; q++) {
		emu_read_reg(e, EMU_REG_V0 + q, v);
		memcpy(f + rec + 16 + 16 * q, v, 16);
	}
	rec += 528;
	if (si->esr) {
		put32(f, rec, ESR_MAGIC);
		put32(f, rec + 4, 16);
		put64(f, rec + 8, si->esr);
		rec += 16;
	}
	put64(f, rec, 0); /* the terminating null record */
}

/* siginfo: signo, errno, code, then the union (si_addr, or pid and uid) */
static void fill_info(uint8_t *f, const struct emu_siginfo *si)
{
	put32(f, 0, (uint32_t)si->signo);
	put32(f, 8, (uint32_t)si->code);
	if (si->fault) {
		put64(f, 16, si->addr);
	} else {
		put32(f, 16, (uint32_t)si->pid);
		put32(f, 20, (uint32_t)si->uid);
	}
}

static void set_reg(struct trawl_emu *e, unsigned code, uint64_t value)
{
	uint64_t v[2] = { value, 0 };
	emu_write_reg(e, code, v);
}

/* Build the frame and point the registers at the handler. 0, or -1 when
 * the frame cannot be written (the program is then killed, as Linux does
 * with SIGSEGV). */
static int deliver(struct trawl_emu *e, int sig, uint64_t pc)
{
	struct emu_sigaction a = action(e, sig);
	const struct emu_siginfo *si = &e->siginfo[sig];
	uint64_t v[2], sp, ss_sp, ss_size;
	emu_snapshot(e);
	e->regs_changed = 1;
	emu_read_reg(e, EMU_REG_SP, v);
	sp = v[0];
	memcpy(&ss_sp, e->altstack, 8);
	memcpy(&ss_size, e->altstack + 16, 8);
	uint64_t top = sp;
	if ((a.flags & SA_ONSTACK_) && emu_altstack_flags(e, sp) == 0 && ss_size)
		top = ss_sp + ss_size;
	uint64_t next = (top - 16) & ~(uint64_t)15;
	uint64_t frame = next - FRAME_SIZE;
	static uint8_t f[FRAME_SIZE];
	memset(f, 0, sizeof f);
	fill_context(e, f, si, pc, sp);
	if (a.flags & SA_SIGINFO_)
		fill_info(f, si);
	uint64_t rec[2];
	emu_read_reg(e, 29, v);
	rec[0] = v[0];
	emu_read_reg(e, 30, v);
	rec[1] = v[0];
	if (emu_guest_write(e, frame, f, sizeof f) != UC_ERR_OK ||
	    emu_guest_write(e, next, rec, 16) != UC_ERR_OK)
		return -1;
	set_reg(e, 0, (uint64_t)sig);
	if (a.flags & SA_SIGINFO_) {
		set_reg(e, 1, frame);
		set_reg(e, 2, frame + UC_OFF);
	}
	set_reg(e, EMU_REG_SP, frame);
	set_reg(e, 29, next);
	set_reg(e, 30, (a.flags & SA_RESTORER_) ? a.restorer : e->sigtramp);
	uc_reg_write(e->uc, UC_ARM64_REG_PC, &a.handler);
	e->sigmask |= a.mask;
	if (!(a.flags & SA_NODEFER_))
		e->sigmask |= bit(sig);
	e->sigmask &= ~UNBLOCKABLE;
	if (a.flags & SA_RESETHAND_)
		memset(e->sigact[sig], 0, sizeof e->sigact[sig]);
	return 0;
}

/* The lowest pending signal that is not blocked, 0 when none. A
 * synchronous one (a fault) goes first: the faulting instruction must not
 * run again before its handler. */
static int next_signal(struct trawl_emu *e)
{
	if (e->sync_signal)
		return e->sync_signal;
	uint64_t ready = e->sigpending & ~e->sigmask;
	int tid = emu_current_tid(e);
	/* a tgkill's signal is its thread's; one with the default action
	 * ends the whole program, whichever thread takes it */
	for (int s = 1; s <= 64; s++)
		if ((ready & bit(s)) && (!e->siginfo[s].tid || e->siginfo[s].tid == tid ||
					 action(e, s).handler == 0))
			return s;
	return 0;
}

int emu_signal_for_thread(const struct trawl_emu *e, uint64_t mask, int tid, int *restart)
{
	uint64_t ready = e->sigpending & ~mask;
	for (int s = 1; s <= 64; s++) {
		if (!(ready & bit(s)) || (e->siginfo[s].tid && e->siginfo[s].tid != tid))
			continue;
		struct emu_sigaction a = action(e, s);
		if (a.handler <= 1)
			continue;
		*restart = (a.flags & SA_RESTART_) != 0;
		return s;
	}
	return 0;
}

/* At an instruction boundary: deliver what is pending. The default action
 * of a signal that is not ignored ends the program as if killed by it
 * (exit status 128+N, as a shell shows it). */
void emu_signal_boundary(struct trawl_emu *e, uint64_t pc)
{
	int sig;
	while (!e->stopped && (sig = next_signal(e)) != 0) {
		if (e->sigqueued[sig])
			e->sigqueued[sig]--; /* still pending: the next one of the queue */
		else
			e->sigpending &= ~bit(sig);
		e->sync_signal = 0;
		struct emu_sigaction a = action(e, sig);
		if (sig != 9 && a.handler == 1)
			continue;
		if (sig == 9 || a.handler == 0) {
			if (ignored_by_default(sig))
				continue;
			e->res.exit_code = 128 + sig;
			e->res.stop = TRAWL_EMU_EXITED;
			e->stopped = 1;
			return;
		}
		if (deliver(e, sig, pc) != 0) {
			emu_fault(e, pc, 0, "cannot write the frame of signal %d: the stack is not mapped",
				  sig);
			return;
		}
		/* one frame at a time, as Linux: the handler's first instruction
		 * is the next boundary; more pending signals follow it */
		if (next_signal(e))
			e->resched = 1;
		return;
	}
}

/* the pending signals (blocked ones, since the others were taken) */
int64_t emu_sys_rt_sigpending(struct trawl_emu *e, struct sys_call *c)
{
	if (c->a[1] > 8)
		return -EINVAL;
	return emu_guest_write(e, c->a[0], &e->sigpending, (size_t)c->a[1]) == UC_ERR_OK ? 0
											 : -EFAULT;
}

/* rt_sigreturn: restore everything from the frame at SP. The result is
 * the restored X0, which emu_syscall then writes back unchanged. */
int64_t emu_sys_rt_sigreturn(struct trawl_emu *e, struct sys_call *c)
{
	uint64_t v[2];
	emu_read_reg(e, EMU_REG_SP, v);
	uint64_t frame = v[0];
	static uint8_t f[FRAME_SIZE];
	emu_snapshot(e);
	if ((frame & 15) || uc_mem_read(e->uc, frame, f, sizeof f) != UC_ERR_OK) {
		emu_fault(e, e->cur ? e->cur->pc : 0, frame,
			  "rt_sigreturn with no signal frame at SP 0x%llx", (unsigned long long)frame);
		c->stop = 2;
		return 0;
	}
	uint64_t x[34];
	memcpy(x, f + MC_OFF + 8, sizeof x); /* regs[31], sp, pc, pstate */
	for (unsigned r = 1; r < 31; r++)
		set_reg(e, r, x[r]);
	set_reg(e, EMU_REG_SP, x[31]);
	e->resume_pc = x[32]; /* set by the run loop (emu.c) */
	e->resume = 1;
	uint32_t nzcv = (uint32_t)(x[33] & 0xf0000000u);
	uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &nzcv);
	uint64_t mask;
	memcpy(&mask, f + UC_OFF + 40, 8);
	e->sigmask = mask & ~UNBLOCKABLE;
	for (size_t rec = RES_OFF; rec + 8 <= sizeof f;) {
		uint32_t magic, size;
		memcpy(&magic, f + rec, 4);
		memcpy(&size, f + rec + 4, 4);
		if (magic == 0 || size < 8 || rec + size > sizeof f)
			break;
		if (magic == FPSIMD_MAGIC && size == 528) {
			uint32_t w;
			memcpy(&w, f + rec + 8, 4);
			set_reg(e, EMU_REG_FPSR, w);
			memcpy(&w, f + rec + 12, 4);
			set_reg(e, EMU_REG_FPCR, w);
			for (unsigned q = 0; q < 32; q++) {
				memcpy(v, f + rec + 16 + 16 * q, 16);
				emu_write_reg(e, EMU_REG_V0 + q, v);
			}
		}
		rec += size;
	}
	if (e->sigpending & ~e->sigmask)
		e->resched = 1;
	e->regs_changed = 1;
	e->resched = 1; /* PC moved: restart Unicorn there */
	return (int64_t)x[0];
}

#endif
