/* Threads for emulated AArch64 programs: clone(CLONE_THREAD) as glibc's
 * pthread_create makes it, futex waits and wakes, thread exit.
 *
 * Every thread is a core of its own in the trace ("cpuN" on every line
 * once the first thread was made; a new core's registers appear as a
 * state event when it starts). One Unicorn CPU runs them in turn: the
 * registers (TPIDR_EL0 included) of the threads not running are kept
 * here. The schedule is deterministic: round-robin in thread-table order,
 * switching every `quantum` instructions (the code hook stops Unicorn at
 * the boundary) and whenever the running thread blocks (futex wait) or
 * exits. A thread that exits frees its core number for the next thread.
 *
 * Signal masks and alternate stacks are per thread; pending signals are
 * the process's and go to the first thread that runs with them unblocked.
 *
 * Time is the instruction count (1 ns each, as times() says): a futex
 * wait with a timeout ends with ETIMEDOUT when that many instructions
 * have run, or at once when no thread can run; with every thread waiting
 * and no timeout, the program is deadlocked and the run stops saying so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu/sys.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

#define GUEST_PID 4242
#define CLONE_VM_ 0x100u
#define CLONE_VFORK_ 0x4000u
#define CLONE_THREAD_ 0x10000u
#define CLONE_SETTLS_ 0x80000u
#define CLONE_PARENT_SETTID_ 0x100000u
#define CLONE_CHILD_CLEARTID_ 0x200000u
#define CLONE_CHILD_SETTID_ 0x01000000u
#define FUTEX_WAITERS_ 0x80000000u
#define FUTEX_OWNER_DIED_ 0x40000000u
#define FUTEX_TID_MASK_ 0x3fffffffu
#define ROBUST_LIST_LIMIT 2048

static struct emu_thread *cur(struct trawl_emu *e)
{
	return &e->thr[e->cur_thr];
}

/* The registers of the running thread into its slot, or back, with its
 * signal mask and alternate stack (per thread, as on Linux). */
static void save(struct trawl_emu *e, struct emu_thread *t)
{
	for (unsigned c = 0; c < EMU_REG_COUNT; c++)
		emu_read_reg(e, c, t->regs[c]);
	uc_reg_read(e->uc, UC_ARM64_REG_PC, &t->pc);
	t->sigmask = e->sigmask;
	memcpy(t->altstack, e->altstack, sizeof t->altstack);
}

static void load(struct trawl_emu *e, const struct emu_thread *t)
{
	e->sigmask = t->sigmask;
	memcpy(e->altstack, t->altstack, sizeof e->altstack);
	for (unsigned c = 0; c < EMU_REG_COUNT; c++)
		if (c <= EMU_REG_TPIDR || c >= EMU_REG_V0)
			emu_write_reg(e, c, t->regs[c]);
	uc_reg_write(e->uc, UC_ARM64_REG_PC, &t->pc);
}

/* "cpuN " after " clk " in the line prefix */
static void set_core(struct trawl_emu *e, int core)
{
	char *p = e->prefix + e->ndigits + 5;
	int n = snprintf(p, 16, "cpu%d ", core);
	e->cpulen = (unsigned)n;
	emu_prefix_set(e);
}

/* The first clone: the table, thread 0 = the program so far on core 0. */
static int start_threads(struct trawl_emu *e)
{
	e->thr = calloc(EMU_THREADS_FIRST, sizeof *e->thr);
	if (!e->thr)
		return -ENOMEM;
	e->nthr = EMU_THREADS_FIRST;
	e->thr[0].live = 1;
	e->thr[0].tid = GUEST_PID;
	e->thr[0].core = 0;
	e->thr[0].clear_tid = e->clear_tid0;
	e->thr[0].robust = e->robust0;
	e->cur_thr = 0;
	e->next_tid = GUEST_PID + 1;
	e->nlive = 1;
	set_core(e, 0);
	return 0;
}

/* A full table doubles (up to EMU_MAX_THREADS, then clone fails with
 * EAGAIN as Linux's does at its limit); new slots go at the end, so the
 * round-robin order of the threads there stays what it was. Returns the
 * first new slot, or -1. */
static int grow_threads(struct trawl_emu *e)
{
	if (e->nthr >= EMU_MAX_THREADS)
		return -1;
	int n = e->nthr * 2 > EMU_MAX_THREADS ? EMU_MAX_THREADS : e->nthr * 2;
	struct emu_thread *t = realloc(e->thr, (size_t)n * sizeof *t);
	if (!t)
		return -1;
	memset(t + e->nthr, 0, (size_t)(n - e->nthr) * sizeof *t);
	e->thr = t;
	int first = e->nthr;
	e->nthr = n;
	return first;
}

static int free_core(const struct trawl_emu *e)
{
	for (int core = 0;; core++) {
		int used = 0;
		for (int i = 0; i < e->nthr && !used; i++)
			used = e->thr[i].live && e->thr[i].core == core;
		if (!used)
			return core;
	}
}

int emu_current_tid(const struct trawl_emu *e)
{
	return e->thr ? e->thr[e->cur_thr].tid : GUEST_PID;
}

int emu_tid_live(const struct trawl_emu *e, int64_t tid)
{
	if (!e->thr)
		return tid == GUEST_PID;
	for (int i = 0; i < e->nthr; i++)
		if (e->thr[i].live && e->thr[i].tid == tid)
			return 1;
	return 0;
}

/* clone: only new threads of this process (what pthread_create asks
 * for); fork, vfork and other processes stop the run with a message. The
 * child starts after the SVC with X0 = 0 and its own stack and TLS. */
int64_t emu_sys_clone(struct trawl_emu *e, struct sys_call *c)
{
	uint64_t flags = c->a[0];
	if (!(flags & CLONE_THREAD_) || !(flags & CLONE_VM_) || (flags & CLONE_VFORK_)) {
		emu_fault(e, e->cur ? e->cur->pc : 0, 0,
			  "clone with flags 0x%llx makes a new process (fork/vfork): trawl emulates "
			  "one process (threads are supported)",
			  (unsigned long long)flags);
		c->stop = 2;
		return 0;
	}
	if (!e->thr && start_threads(e) != 0)
		return -ENOMEM;
	int slot = -1;
	for (int i = 0; i < e->nthr && slot < 0; i++)
		if (!e->thr[i].live)
			slot = i;
	if (slot < 0 && (slot = grow_threads(e)) < 0)
		return -EAGAIN;
	struct emu_thread *t = &e->thr[slot];
	memset(t, 0, sizeof *t);
	save(e, t);
	t->tid = e->next_tid++;
	t->core = free_core(e);
	t->regs[0][0] = 0;
	/* the mask is inherited; a new thread has no alternate stack */
	memset(t->altstack, 0, sizeof t->altstack);
	t->altstack[8] = 2; /* SS_DISABLE */
	if (c->a[1])
		t->regs[EMU_REG_SP][0] = c->a[1];
	if (flags & CLONE_SETTLS_)
		t->regs[EMU_REG_TPIDR][0] = c->a[3];
	int32_t tid = t->tid;
	if ((flags & CLONE_PARENT_SETTID_) && emu_guest_write(e, c->a[2], &tid, 4) != UC_ERR_OK)
		return -EFAULT;
	if ((flags & CLONE_CHILD_SETTID_) && emu_guest_write(e, c->a[4], &tid, 4) != UC_ERR_OK)
		return -EFAULT;
	if (flags & CLONE_CHILD_CLEARTID_)
		t->clear_tid = c->a[4];
	t->live = 1;
	t->fresh = 1; /* its registers go into the trace at the boundary */
	e->nlive++;
	e->resched = 1;
	return t->tid;
}

static int wake(struct trawl_emu *e, uint64_t addr, uint32_t bitset, int64_t n)
{
	int woken = 0;
	for (int i = 0; i < e->nthr && woken < n; i++) {
		struct emu_thread *t = &e->thr[i];
		if (t->live && t->waiting && t->futex == addr && (t->bitset & bitset)) {
			t->waiting = 0;
			t->regs[0][0] = 0;
			t->result_set = 1;
			woken++;
		}
	}
	return woken;
}

/* The instruction count a wait's timeout ends at: FUTEX_WAIT's is
 * relative, WAIT_BITSET's absolute on the clock the guest reads (the
 * host's, or the fixed one), both counted at 1 ns per instruction from
 * now. */
static int64_t deadline(struct trawl_emu *e, uint64_t ts_addr, int absolute, int realtime,
			uint64_t *out)
{
	int64_t ts[2];
	if (uc_mem_read(e->uc, ts_addr, ts, sizeof ts) != UC_ERR_OK)
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	int64_t ns = ts[0] * 1000000000 + ts[1];
	if (absolute) {
		int64_t now[2];
		if (emu_clock_now(e, realtime ? 0 : 1, now))
			return -EINVAL;
		ns -= now[0] * 1000000000 + now[1];
		if (ns < 0)
			ns = 0;
	}
	*out = e->n + (uint64_t)ns;
	return 0;
}

/* futex WAIT/WAKE and their BITSET forms, private or not, with
 * CLOCK_REALTIME; REQUEUE/CMP_REQUEUE move waiters to another word. */
int64_t emu_sys_futex_threads(struct trawl_emu *e, struct sys_call *c)
{
	enum { WAIT = 0, WAKE = 1, REQUEUE = 3, CMP_REQUEUE = 4, WAIT_BITSET = 9, WAKE_BITSET = 10 };
	uint64_t op = c->a[1] & 0x7f, addr = c->a[0];
	int realtime = (c->a[1] & 256) != 0;
	uint32_t bitset = op == WAIT_BITSET || op == WAKE_BITSET ? (uint32_t)c->a[5] : 0xffffffffu;
	if (bitset == 0)
		return -EINVAL;
	if (op == WAKE || op == WAKE_BITSET)
		return wake(e, addr, bitset, (int64_t)(uint32_t)c->a[2]);
	uint32_t v;
	if (uc_mem_read(e->uc, addr, &v, 4) != UC_ERR_OK)
		return -EFAULT;
	if (op == REQUEUE || op == CMP_REQUEUE) {
		if (op == CMP_REQUEUE && v != (uint32_t)c->a[5])
			return -EAGAIN;
		int n = wake(e, addr, 0xffffffffu, (int64_t)(uint32_t)c->a[2]);
		for (int i = 0, moved = 0; i < e->nthr && (uint64_t)moved < (uint32_t)c->a[3]; i++)
			if (e->thr[i].live && e->thr[i].waiting && e->thr[i].futex == addr) {
				e->thr[i].futex = c->a[4];
				moved++;
			}
		return n;
	}
	if (op != WAIT && op != WAIT_BITSET)
		return -ENOSYS;
	if (v != (uint32_t)c->a[2])
		return -EAGAIN;
	struct emu_thread *t = cur(e);
	t->has_deadline = 0;
	if (c->a[3]) {
		int64_t r = deadline(e, c->a[3], op == WAIT_BITSET, realtime, &t->deadline);
		if (r)
			return r;
		t->has_deadline = 1;
	}
	t->waiting = 1;
	t->futex = addr;
	t->bitset = bitset;
	e->resched = 1;
	return (int64_t)addr; /* X0 until a wake or the timeout sets the result */
}

/* set_robust_list: the head of the thread's list of robust mutexes it
 * holds (glibc's struct robust_list_head, 24 bytes), walked when it exits */
int64_t emu_sys_set_robust_list(struct trawl_emu *e, struct sys_call *c)
{
	if (c->a[1] != 24)
		return -EINVAL;
	if (e->thr)
		cur(e)->robust = c->a[0];
	else
		e->robust0 = c->a[0];
	return 0;
}

/* Linux's handle_futex_death: a lock word the dead thread still owns
 * gets FUTEX_OWNER_DIED (keeping FUTEX_WAITERS) and one waiter is woken,
 * who then sees EOWNERDEAD; a pending lock with the word 0 just wakes. */
static void futex_death(struct trawl_emu *e, uint64_t uaddr, int tid, int pi, int pending)
{
	uint32_t v, nv;
	if ((uaddr & 3) || uc_mem_read(e->uc, uaddr, &v, 4) != UC_ERR_OK)
		return;
	if (pending && !pi && v == 0) {
		wake(e, uaddr, 0xffffffffu, 1);
		return;
	}
	if ((v & FUTEX_TID_MASK_) != (uint32_t)tid)
		return;
	nv = (v & FUTEX_WAITERS_) | FUTEX_OWNER_DIED_;
	if (emu_guest_write(e, uaddr, &nv, 4) == UC_ERR_OK && (nv & FUTEX_WAITERS_) && !pi)
		wake(e, uaddr, 0xffffffffu, 1);
}

/* Linux's exit_robust_list: the entries (bit 0 = a PI futex) from the
 * head's `next` round to the head, each lock word at entry +
 * futex_offset, at most 2048 of them, then the one being locked or
 * unlocked (list_op_pending). The kernel's writes are the SVC's. */
static void exit_robust_list(struct trawl_emu *e, const struct emu_thread *t)
{
	uint64_t head = t->robust, h[3];
	if (!head || uc_mem_read(e->uc, head, h, sizeof h) != UC_ERR_OK)
		return;
	uint64_t entry = h[0], pending = h[2], off = h[1];
	for (int n = 0; (entry & ~UINT64_C(1)) != head && n < ROBUST_LIST_LIMIT; n++) {
		uint64_t next;
		int ok = uc_mem_read(e->uc, entry & ~UINT64_C(1), &next, 8) == UC_ERR_OK;
		if (entry != pending)
			futex_death(e, (entry & ~UINT64_C(1)) + off, t->tid, (int)(entry & 1), 0);
		if (!ok)
			return;
		entry = next;
	}
	if (pending)
		futex_death(e, (pending & ~UINT64_C(1)) + off, t->tid, (int)(pending & 1), 1);
}

/* exit of one thread: its robust mutexes are marked as their owner's
 * death, then CLONE_CHILD_CLEARTID's word is cleared and one waiter woken
 * (pthread_join), in Linux's order; the last thread's exit ends the
 * program */
int64_t emu_sys_exit_thread(struct trawl_emu *e, struct sys_call *c)
{
	if (!e->thr || e->nlive == 1) {
		e->res.exit_code = (int)(c->a[0] & 0xff);
		c->stop = 1;
		return 0;
	}
	struct emu_thread *t = cur(e);
	exit_robust_list(e, t);
	if (t->clear_tid) {
		uint32_t zero = 0;
		if (emu_guest_write(e, t->clear_tid, &zero, 4) == UC_ERR_OK)
			wake(e, t->clear_tid, 0xffffffffu, 1);
	}
	t->live = 0;
	t->exited = 1;
	e->nlive--;
	e->resched = 1;
	return 0;
}

int64_t emu_sys_set_tid_address(struct trawl_emu *e, struct sys_call *c)
{
	if (e->thr)
		cur(e)->clear_tid = c->a[0];
	else
		e->clear_tid0 = c->a[0];
	return emu_current_tid(e);
}

int64_t emu_sys_gettid(struct trawl_emu *e, struct sys_call *c)
{
	(void)c;
	return emu_current_tid(e);
}

/* The next thread to run after `from`, round-robin; -1 when none can. */
static int pick(struct trawl_emu *e, int from)
{
	for (int k = 1; k <= e->nthr; k++) {
		int i = (from + k) % e->nthr;
		if (e->thr[i].live && !e->thr[i].waiting)
			return i;
	}
	return -1;
}

/* Waits whose time has come end with ETIMEDOUT; with nothing able to
 * run, the earliest timeout comes at once. 0 when still nothing can run. */
static int expire(struct trawl_emu *e, int idle)
{
	int best = -1, n = 0;
	for (int i = 0; i < e->nthr; i++) {
		struct emu_thread *t = &e->thr[i];
		if (!t->live || !t->waiting || !t->has_deadline)
			continue;
		if (t->deadline <= e->n) {
			t->waiting = 0;
			t->regs[0][0] = (uint64_t)(int64_t)-ETIMEDOUT;
			t->result_set = 1;
			n++;
		} else if (best < 0 || t->deadline < e->thr[best].deadline) {
			best = i;
		}
	}
	if (!n && idle && best >= 0) {
		e->thr[best].waiting = 0;
		e->thr[best].regs[0][0] = (uint64_t)(int64_t)-ETIMEDOUT;
		e->thr[best].result_set = 1;
		n = 1;
	}
	return n;
}

static void deadlock(struct trawl_emu *e)
{
	char list[400] = "";
	size_t len = 0;
	for (int i = 0; i < e->nthr && len < sizeof list - 40; i++)
		if (e->thr[i].live)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%d on 0x%llx",
						len ? ", " : "", e->thr[i].tid,
						(unsigned long long)e->thr[i].futex);
	emu_fault(e, e->thr[e->cur_thr].pc, 0,
		  "deadlock: every thread waits on a futex with no timeout (thread %s)", list);
}

/* The trace lines a thread needs when it starts running on its core:
 * every register of a new thread, or the result of the wait it slept in */
static void show_start(struct trawl_emu *e, struct emu_thread *t, int tracing)
{
	if (!tracing)
		return;
	if (t->fresh) {
		emu_trace_state(e, NULL, 1);
	} else if (t->result_set) {
		memcpy(e->snap, t->regs, sizeof e->snap);
		e->snap[0][0] = ~t->regs[0][0];   /* only X0 differs */
		emu_trace_state(e, NULL, 0);
	}
}

/* A signal with a handler, pending for a thread asleep in a futex wait
 * (sent to it by tgkill, or to the process while the running thread
 * blocks it) interrupts the wait as on Linux: the call returns EINTR, or,
 * when the handler has SA_RESTART and the wait no timeout, is made again
 * after the handler (the thread resumes at its SVC, X0 still the
 * address). The thread's index, to run next, or -1. */
static int interrupt_wait(struct trawl_emu *e)
{
	const struct emu_thread *c = cur(e);
	for (int i = 0; i < e->nthr; i++) {
		struct emu_thread *t = &e->thr[i];
		if (i == e->cur_thr || !t->live || !t->waiting)
			continue;
		int restart = 0, sig = emu_signal_for_thread(e, t->sigmask, t->tid, &restart);
		if (!sig)
			continue;
		/* the process's, and the running thread may take it: it does */
		if (!e->siginfo[sig].tid && c->live && !c->waiting &&
		    !(e->sigmask & (UINT64_C(1) << (sig - 1))))
			continue;
		t->waiting = 0;
		if (restart && !t->has_deadline) {
			t->pc -= 4;
		} else {
			t->regs[0][0] = (uint64_t)(int64_t)-EINTR;
			t->result_set = 1;
		}
		return i;
	}
	return -1;
}

/* At a boundary: switch threads when the running one blocked, exited or
 * used its quantum, or a signal interrupts another one's wait. The new
 * one's registers are loaded into Unicorn. */
void emu_thread_schedule(struct trawl_emu *e, int tracing)
{
	if (!e->thr)
		return;
	struct emu_thread *t = cur(e);
	int woken = e->sigpending ? interrupt_wait(e) : -1;
	int must = !t->live || t->waiting || woken >= 0;
	if (!must && !e->slice_over)
		return;
	e->slice_over = 0;
	if (t->live)
		save(e, t);
	expire(e, 0);
	int next = woken >= 0 ? woken : pick(e, e->cur_thr);
	if (next < 0 && t->live && !t->waiting)
		next = e->cur_thr;
	if (next < 0 && expire(e, 1))
		next = pick(e, e->cur_thr);
	if (next < 0) {
		deadlock(e);
		return;
	}
	e->cur_thr = next;
	t = cur(e);
	load(e, t);
	set_core(e, t->core);
	show_start(e, t, tracing);
	t->fresh = 0;
	t->result_set = 0;
	e->stop_at = e->n + e->quantum;
	if (e->opt.max_insns && e->opt.max_insns < e->stop_at)
		e->stop_at = e->opt.max_insns;
}

#endif
