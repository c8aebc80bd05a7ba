/* The emulator's private state, shared by its files:
 *   emu.c      loading, the Unicorn hooks, the run loop, faults
 *   syscall.c  the Linux system calls (the table; memory, basic I/O)
 *   sys-proc.c system calls about the process (ids, time, signals, prctl)
 *   sys-file.c system calls about files (directories, fds, pipes)
 *   sys-root.c changes to files: refused, or confined to --root
 *   signal.c   signal frames, delivery and rt_sigreturn
 *   thread.c   threads: clone, futex, the schedule
 *   regs-direct.c  where Unicorn keeps X0-X30 and SP, for cheap reads
 *   trace.c    the Tarmac writer
 *   memcalc.c  memory accesses computed from the decoded instruction
 */
#ifndef TRAWL_EMU_INT_H
#define TRAWL_EMU_INT_H

#include <stdint.h>

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)
#include <unicorn/unicorn.h>

#include "emu/decode.h"
#include "emu/elf.h"
#include "trawl/emu.h"

#define EMU_PAGE 4096u
#define EMU_STACK_TOP UINT64_C(0x0000fffffffff000)
#define EMU_STACK_SIZE (UINT64_C(8) << 20)
#define EMU_MMAP_BASE UINT64_C(0x0000400000000000)
#define EMU_BRK_LIMIT (UINT64_C(4) << 30)
#define EMU_MAX_FDS 256
#define EMU_MAX_MEM 512     /* memory accesses one instruction may make */

/* One memory access of the instruction being executed. */
struct emu_access {
	uint64_t addr;
	uint64_t value;         /* little-endian value for size <= 8 */
	uint32_t size;
	uint32_t write;
};

/* Guest memory a system call wrote. */
struct emu_range {
	uint64_t addr;
	uint64_t len;
};
#define EMU_MAX_SYSW 64

/* A signal on its way to the program: siginfo's fields. */
struct emu_siginfo {
	int32_t signo, code;
	int32_t pid, uid;       /* kill, tgkill */
	int tid;                /* tgkill: the one thread that takes it; 0 = any */
	int fault;              /* from an instruction: si_addr = addr */
	int mem;                /* a memory fault: sigcontext.fault_address = addr */
	uint64_t addr;
	uint64_t esr;           /* for the esr_context record; 0 = none */
	uint64_t pc;            /* fault: the instruction (or branch target) */
};

/* One thread of the program (thread.c); the running one's registers are
 * in Unicorn, the others' here. */
#define EMU_THREADS_FIRST 64  /* slots at the first clone; the table grows */
#define EMU_MAX_THREADS 4096
struct emu_thread {
	int live, exited;
	int tid, core;
	int waiting;            /* in a futex wait */
	int has_deadline;
	int fresh;              /* not run yet: its registers go into the trace */
	int result_set;         /* a wake or timeout set X0: shown when it runs */
	uint32_t bitset;
	uint64_t futex, deadline;
	uint64_t clear_tid;     /* CLONE_CHILD_CLEARTID / set_tid_address */
	uint64_t robust;        /* set_robust_list's head, walked at exit */
	uint64_t sigmask;       /* its signal mask and alternate stack, */
	uint8_t altstack[24];   /* in e->sigmask/e->altstack while it runs */
	uint64_t regs[EMU_REG_COUNT][2];
	uint64_t pc;
};

/* e->stopped: 1 the run ended; EMU_PAUSED Unicorn stopped for the run
 * loop to act at an instruction boundary (signals, threads) */
#define EMU_PAUSED 2

struct trawl_emu {
	struct trawl_emu_options opt;
	char *path;
	uint8_t *file;          /* the ELF file contents */
	size_t file_len;
	struct trawl_elf_image img;
	uc_engine *uc;
	const uint64_t *xregs;  /* X0-X30, SP in Unicorn's CPU state, or NULL */
	const uint32_t *flagw;  /* NZCV's words there (emu_nzcv_direct), or NULL */
	int flagk[4];           /* N, Z, C, V: which word of flagw */
	const uint32_t *flag4;  /* CF, VF, NF, ZF in a row (QEMU's order), or NULL */
	struct emu_decoder *dec;
	uc_hook hooks[6];
	int nhooks;

	/* guest memory bookkeeping */
	uint64_t brk_start, brk_cur, brk_mapped;
	uint64_t mmap_next;
	uint64_t sp0;
	int host_fd[EMU_MAX_FDS];   /* guest fd -> host fd, -1 = closed */
	uint8_t own_fd[EMU_MAX_FDS];
	uint8_t cloexec[EMU_MAX_FDS];   /* FD_CLOEXEC as the guest set it */
	/* 1 when the slot's open file description is trawl's own (its stdin,
	 * stdout, stderr or a dup of them): the guest's F_SETFL then changes
	 * only shadow_fl (O_NONBLOCK, O_APPEND), never trawl's descriptors */
	uint8_t shared_fd[EMU_MAX_FDS];
	int shadow_fl[EMU_MAX_FDS];
	int cwd_fd;                     /* the guest's cwd after chdir, -1 = the host's */
	/* --root (sys-root.c): where the guest's changes to files go */
	int has_root, root_fd;
	char root_path[4096];           /* its real path; "" when it is "/" */
	uint8_t in_root[EMU_MAX_FDS];   /* opened through the root: may be changed */
	uint64_t rng;

	/* process state the guest can set and read back */
	uint32_t umask;
	char comm[16];                  /* prctl(PR_SET_NAME) */
	uint8_t sigact[65][32];         /* rt_sigaction, as the guest wrote it */
	uint64_t sigmask;
	uint8_t altstack[24];           /* sigaltstack */
	uint64_t sigpending;            /* bit N-1 = signal N */
	struct emu_siginfo siginfo[65]; /* what each pending signal carries */
	uint32_t sigqueued[65];         /* a real-time one (32 and up) sent again while
	                                 * pending: how many more times (Linux queues
	                                 * them; the first's siginfo serves for all) */
	int sync_signal;                /* a fault's signal, taken before the others */
	uint64_t sigtramp;              /* rt_sigreturn trampoline for handlers without a restorer */
	int resched;                    /* stop Unicorn at the boundary: a signal, a thread switch */
	uint64_t resume_pc;             /* rt_sigreturn's PC, for the run loop */
	int resume;                     /* resume_pc is set */
	int regs_changed;               /* registers changed outside an instruction since e->snap */
	uint64_t snap[EMU_REG_COUNT][2];

	/* threads (thread.c): NULL until the first clone */
	struct emu_thread *thr;
	int nthr;                       /* slots in thr */
	int cur_thr, nlive, next_tid;
	uint64_t clear_tid0;            /* set_tid_address before any clone */
	uint64_t robust0;               /* set_robust_list before any clone */
	uint64_t quantum;               /* instructions a thread runs before the next one */
	uint64_t stop_at;               /* the code hook stops here: the limit or the quantum */
	int slice_over;                 /* the quantum ran out */
	int code_hooked;                /* the code hook is installed */

	/* self-modifying code: the PCs the decode cache holds lie in
	 * [code_lo, code_hi); writes there are noted in codew and the cached
	 * decodes refreshed at the next instruction (emu_code_refresh) */
	uint64_t code_lo, code_hi;
	struct emu_range codew[4];

	/* run state */
	struct trawl_outfile *out;
	const struct emu_insn *cur;     /* instruction executing now, or NULL */
	struct emu_insn *prev;          /* the one before it, for the successor shortcut */
	uint64_t n;                     /* instructions started */
	/* "<n> clk " for the current instruction, kept up to date by counting
	 * in place; ndigits digits, then " clk ". 64 bytes so that fixed-size
	 * copies of it never read past the end. */
	char prefix[64];
	unsigned ndigits;
	unsigned cpulen;                /* "cpuN " after " clk " once a thread was made, else 0 */
	size_t plen;                    /* the prefix's length: ndigits + 5 + cpulen */
	char *last_digit;               /* prefix + ndigits - 1 */
	char *digit_vec;                /* the 16 bytes of prefix holding the last digit */
	const uint8_t *digit_one;       /* 16 bytes, 1 under it, else 0 (emu_prefix_set) */
	struct emu_access mem[EMU_MAX_MEM];
	unsigned nmem;
	/* memory accesses: computed from the decoded instruction (memcalc.c),
	 * or, with mem_hooks, collected by Unicorn's memory hooks (forced by
	 * the options, or switched on for good at the first instruction the
	 * decoder does not model: want_hooks asks the run loop to) */
	int memcalc;                    /* tracing and not mem_hooks */
	int mem_fast;                   /* memcalc, FM style, e->xregs: trace.c's
	                                   shortcut for general-purpose loads and stores */
	int mem_hooks, want_hooks;
	const struct emu_insn *mem_after;   /* e->mem needs values after it ran */
	uint64_t mem_addr;              /* its first address */
	struct emu_range sysw[EMU_MAX_SYSW];
	/* What keeps the code hook off its shortcut, together so that it
	 * tests them at once (hook_slow): the run stopped or paused (1,
	 * EMU_PAUSED), cached code rewritten, the kernel's writes to show,
	 * the shortcut off for the whole run (no_fast: not mem_fast, no
	 * flagw, an instruction callback, the write check, no text). */
	union {
		struct {
			uint8_t stopped;
			uint8_t ncodew;         /* ranges in codew */
			uint8_t nsysw;          /* ranges in sysw (at most EMU_MAX_SYSW) */
			uint8_t no_fast;
		};
		uint32_t hook_slow;
	};
	struct trawl_emu_result res;
	struct trawl_error fault;       /* why the run stopped early */
	enum trawl_status fault_status;
	uint64_t verify_regs[EMU_REG_COUNT][2];
	uint64_t fpsr;                  /* FPSR as last reported in the trace */

	/* output buffer */
	char *buf;
	size_t cap;
	/* where the next byte goes, and the point past which it is flushed
	 * first (cap less a margin for the largest instruction): pointers,
	 * so that the writer's per-instruction test and start are one load */
	char *wp, *flush_ptr;
	enum trawl_status out_status;
	struct trawl_error out_err;
};

/* emu.c: after ndigits or cpulen changed, the values derived from them */
void emu_prefix_set(struct trawl_emu *e);

/* syscall.c: perform the system call the guest asked for (X8 = number).
 * Returns 0 to continue, 1 when the program exited, -1 on an unsupported
 * call or a failure (e->fault filled). */
int emu_syscall(struct trawl_emu *e);
/* Write guest memory for the kernel; the trace shows it as MW lines. */
uc_err emu_guest_write(struct trawl_emu *e, uint64_t addr, const void *data, size_t len);
/* Guest fd -> host fd, -1 when not open. */
int emu_host_fd(struct trawl_emu *e, uint64_t fd);
/* -EAGAIN when the guest made a shared slot non-blocking and the host fd
 * is not ready for reading or writing now; else 0. */
int emu_fd_would_block(struct trawl_emu *e, uint64_t fd, int writing);
/* A guest dirfd argument as a host one (AT_FDCWD = the guest's cwd); -2 = bad. */
int emu_dir_fd(struct trawl_emu *e, uint64_t g);
/* Copy a NUL-terminated guest string (at most cap-1 bytes). 0 on success. */
int emu_read_string(struct trawl_emu *e, uint64_t addr, char *buf, size_t cap);

/* memcalc.c: before the instruction runs, record its accesses (addresses,
 * stored general-purpose values); after, fill in what it loaded */
void emu_mem_before(struct trawl_emu *e, const struct emu_insn *in);
void emu_mem_after(struct trawl_emu *e);

/* unicorn-lazy.c: drop the translated blocks of the code in [lo, hi)
 * (hooks added later then apply to it) */
uc_err emu_uc_drop_tb(uc_engine *uc, uint64_t lo, uint64_t hi);

/* trace.c */
void emu_trace_header(struct trawl_emu *e);
void emu_trace_finish(struct trawl_emu *e, uint64_t next_pc);
enum trawl_status emu_trace_flush(struct trawl_emu *e);
/* empty e->buf: the write pointer at its start, the flush point before its end */
void emu_trace_buffer_reset(struct trawl_emu *e);
void emu_read_reg(struct trawl_emu *e, unsigned code, uint64_t v[2]);
void emu_write_reg(struct trawl_emu *e, unsigned code, const uint64_t v[2]);
/* remember every register in e->snap */
void emu_snapshot(struct trawl_emu *e);
/* write the kernel's memory writes and the registers changed since e->snap */
void emu_trace_state(struct trawl_emu *e, const struct emu_insn *done, int all);

/* regs-direct.c: set e->xregs when Unicorn's registers can be read
 * directly (else NULL: uc_reg_read) */
void emu_regs_locate(struct trawl_emu *e);
/* NZCV (in bits 31-28) from QEMU's flag words; only when e->flagw */
static inline uint32_t emu_nzcv_direct(const struct trawl_emu *e)
{
	const uint32_t *f = e->flagw;
	return (f[e->flagk[0]] & UINT32_C(0x80000000)) | (uint32_t)(f[e->flagk[1]] == 0) << 30 |
	       (uint32_t)(f[e->flagk[2]] != 0) << 29 | (f[e->flagk[3]] >> 31) << 28;
}

/* signal.c */
/* make a signal pending (ignored ones are dropped); sets e->resched */
void emu_signal_send(struct trawl_emu *e, const struct emu_siginfo *si);
/* After rt_sigaction set signal sig's action: a pending signal that the
 * action ignores is discarded, as POSIX says. */
void emu_signal_action_set(struct trawl_emu *e, int sig);
/* a fault's signal: 1 when a handler takes it, 0 when the program would die */
int emu_signal_catch_fault(struct trawl_emu *e, const struct emu_siginfo *si);
/* A pending signal with a handler that a thread with this mask and tid
 * may take (0 when none); *restart says whether its handler has
 * SA_RESTART */
int emu_signal_for_thread(const struct trawl_emu *e, uint64_t mask, int tid, int *restart);
/* deliver pending signals at the boundary before `pc` */
void emu_signal_boundary(struct trawl_emu *e, uint64_t pc);
/* thread.c: switch threads at a boundary if the running one blocked,
 * exited or used its quantum */
void emu_thread_schedule(struct trawl_emu *e, int tracing);
int emu_current_tid(const struct trawl_emu *e);
/* 1 when tid is a thread of the program that has not exited */
int emu_tid_live(const struct trawl_emu *e, int64_t tid);
/* sigaltstack's ss_flags for this SP */
int32_t emu_altstack_flags(const struct trawl_emu *e, uint64_t sp);

/* emu.c: guest memory [addr, addr+len) was written or remapped; a cached
 * decode there is refreshed before the next instruction */
void emu_code_note(struct trawl_emu *e, uint64_t addr, uint64_t len);
static inline void emu_code_written(struct trawl_emu *e, uint64_t addr, uint64_t len)
{
	if (addr < e->code_hi && addr + len > e->code_lo)
		emu_code_note(e, addr, len);
}

/* emu.c: record a fault that ends the run. */
void emu_fault(struct trawl_emu *e, uint64_t pc, uint64_t addr, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

#endif /* TRAWL_HAVE_UNICORN && TRAWL_HAVE_CAPSTONE */

/* Load libunicorn (unicorn-lazy.c); the error says why it cannot be. */
enum trawl_status emu_unicorn_load(struct trawl_error *err);
/* Unicorn's own definition of `name` (dlsym in the loaded library, not
 * the process's first), or NULL when it lacks one or cannot be loaded. */
void *emu_unicorn_symbol(const char *name);
/* Around every Unicorn call that may change the mapped regions, with 1
 * before and 0 after (unicorn-store.c keeps answers about them). */
void emu_unicorn_regions_change(int begin);

#endif
