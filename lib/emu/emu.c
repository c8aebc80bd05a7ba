/* The emulator: loads a static AArch64 Linux executable into Unicorn, builds
 * the initial stack the kernel would, runs it at EL0 and turns Unicorn's
 * callbacks into trace lines.
 *
 * How the per-instruction data is obtained cheaply:
 *  - one code hook per instruction does all the work for the *previous*
 *    instruction, whose effects are complete by then: it writes its IT/IS
 *    line (taken or not = whether this PC follows it), its memory accesses
 *    (collected by the memory hooks meanwhile) and reads only the registers
 *    its decoded write set names;
 *  - decoding (Capstone plus our write-set rules) and the text of the IT
 *    line are cached per PC, so a loop costs a hash lookup per instruction;
 *  - memory hooks use UC_HOOK_MEM_READ_AFTER, which hands over the loaded
 *    value, so no extra guest memory reads are needed.
 *
 * Guest memory layout: the ELF segments where they ask to be, the heap
 * (brk) right after the highest segment, mmap regions from 0x4000_0000_0000
 * upwards and an 8 MiB stack below 0xffff_ffff_f000.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/emu-int.h"
#include "emu/trace-line.h"
#include "emu/sys.h"
#include "trawl/file.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

/* QEMU's AArch64 exception numbers as Unicorn reports them in UC_HOOK_INTR. */
#define EXCP_UDEF 1
#define EXCP_SWI 2
#define EXCP_PREFETCH_ABORT 3
#define EXCP_DATA_ABORT 4
#define EXCP_BKPT 7

/* Auxiliary vector keys (Linux include/uapi/linux/auxvec.h). */
enum {
	AT_NULL = 0, AT_PHDR = 3, AT_PHENT = 4, AT_PHNUM = 5, AT_PAGESZ = 6, AT_BASE = 7,
	AT_FLAGS = 8, AT_ENTRY = 9, AT_UID = 11, AT_EUID = 12, AT_GID = 13, AT_EGID = 14,
	AT_PLATFORM = 15, AT_HWCAP = 16, AT_CLKTCK = 17, AT_SECURE = 23, AT_RANDOM = 25,
	AT_HWCAP2 = 26, AT_EXECFN = 31,
};
/* HWCAP_FP | HWCAP_ASIMD: what the emulated core offers that glibc should use. */
#define EMU_HWCAP 0x3u

void emu_fault(struct trawl_emu *e, uint64_t pc, uint64_t addr, const char *fmt, ...)
{
	if (e->fault_status != TRAWL_OK)
		return;   /* keep the first cause */
	char what[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	e->fault_status = TRAWL_ERR_FORMAT;
	trawl_error_set(&e->fault, TRAWL_ERR_FORMAT, "%s at pc 0x%llx, after %llu instructions",
			what, (unsigned long long)pc,
			(unsigned long long)(e->n - (e->cur && e->n ? 1 : 0)));
	snprintf(e->fault.file, sizeof e->fault.file, "%s", e->path);
	e->res.stop = TRAWL_EMU_FAULT;
	e->res.fault_pc = pc;
	e->res.fault_addr = addr;
	e->stopped = 1;
	uc_emu_stop(e->uc);
}

/* A fault Linux kills the program for (no handler; blocked or ignored
 * signals are forced to the default action): the program dies of the
 * signal, exit status 128 + it as for the other default-action deaths,
 * and the message says which signal, where and why. */
static void fault_kill(struct trawl_emu *e, int sig, uint64_t pc, uint64_t addr, const char *what)
{
	const char *name = sig == 11 ? "SIGSEGV" : sig == 4 ? "SIGILL" : "SIGTRAP";
	int first = e->fault_status == TRAWL_OK;
	emu_fault(e, pc, addr, "killed by signal %d (%s): %s", sig, name, what);
	if (first) {
		e->res.signal = sig;
		e->res.exit_code = 128 + sig;
	}
}

/* ---- hooks ------------------------------------------------------------- */

static const uint8_t one_at[32] = { [15] = 1 };

void emu_prefix_set(struct trawl_emu *e)
{
	e->plen = e->ndigits + 5 + e->cpulen;
	e->last_digit = e->prefix + e->ndigits - 1;
	/* the 16 bytes that hold the last digit: from the start up to 16
	 * digits, then the next 16 (the prefix has 64 bytes) */
	unsigned base = (e->ndigits - 1) / 16 * 16;
	e->digit_vec = e->prefix + base;
	e->digit_one = one_at + 16 - (e->ndigits - base);
}

/* Add one to the decimal instruction index at the start of e->prefix; a new
 * digit (at 10, 100, ...) shifts " clk " (and "cpuN ") one place right. */
static inline void count_up(struct trawl_emu *e)
{
	char *d = e->last_digit;
#if defined(__SSE2__) && defined(__x86_64__)
	/* one 16-byte add and store, not a byte store: the next instruction's
	 * line loads these 16 bytes at once, and a load that spans a narrower
	 * store still in flight waits for it to reach the cache (a
	 * store-forwarding stall, a quarter of the writer's time when the
	 * digit was stored as a byte) */
	if (__builtin_expect(*d != '9', 1)) {   /* nine times in ten: no carry */
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)e->digit_vec);
		__m128i one = _mm_loadu_si128((const __m128i *)(const void *)e->digit_one);
		_mm_storeu_si128((__m128i *)(void *)e->digit_vec, _mm_add_epi8(v, one));
		e->n++;
		return;
	}
#else
	if (*d != '9') {   /* nine times in ten: no carry */
		(*d)++;
		e->n++;
		return;
	}
#endif
	while (d >= e->prefix && *d == '9')
		*d-- = '0';
	if (d >= e->prefix) {
		(*d)++;
	} else {
		memmove(e->prefix + 1, e->prefix, e->plen);
		e->prefix[0] = '1';
		e->ndigits++;
		emu_prefix_set(e);
	}
	e->n++;
}

static void verify_writes(struct trawl_emu *e)
{
	uint64_t now[EMU_REG_COUNT][2];
	for (unsigned c = 0; c < EMU_REG_COUNT; c++)
		emu_read_reg(e, c, now[c]);
	const struct emu_insn *in = e->cur;
	for (unsigned c = 0; in && c < EMU_REG_COUNT; c++) {
		if (memcmp(now[c], e->verify_regs[c], 16) == 0)
			continue;
		if (c == EMU_REG_FPSR && in->fp)
			continue;   /* reported when it changes, see trace.c */
		unsigned k = 0;
		while (k < in->nwrites && in->writes[k] != c)
			k++;
		if (k == in->nwrites) {
			emu_fault(e, in->pc, 0,
				  "internal check: instruction %08x writes %s but its decoded "
				  "write set does not say so",
				  in->enc, emu_reg_name(c));
			return;
		}
	}
	memcpy(e->verify_regs, now, sizeof now);
}

static struct emu_insn *lookup(struct trawl_emu *e, uint64_t addr)
{
	struct emu_insn *in = emu_decoder_find(e->dec, addr);
	if (in)
		return in;
	uint32_t enc = 0;
	if (uc_mem_read(e->uc, addr, &enc, 4) != UC_ERR_OK) {
		emu_fault(e, addr, addr, "cannot read the instruction");
		return NULL;
	}
	in = emu_decoder_add(e->dec, addr, enc);
	if (!in) {
		emu_fault(e, addr, 0, "out of memory decoding");
		return NULL;
	}
	if (addr < e->code_lo)
		e->code_lo = addr;
	if (addr + 4 > e->code_hi)
		e->code_hi = addr + 4;
	return in;
}

void emu_code_note(struct trawl_emu *e, uint64_t addr, uint64_t len)
{
	struct emu_range *r = e->codew;
	if (e->ncodew < sizeof e->codew / sizeof e->codew[0]) {
		e->codew[e->ncodew++] = (struct emu_range){ addr, len };
		return;
	}
	/* full: widen the last range to cover this one too */
	r = &e->codew[e->ncodew - 1];
	uint64_t lo = addr < r->addr ? addr : r->addr;
	uint64_t hi = addr + len > r->addr + r->len ? addr + len : r->addr + r->len;
	*r = (struct emu_range){ lo, hi - lo };
}

static void refresh_one(struct emu_insn *in, void *arg)
{
	struct trawl_emu *e = arg;
	uint32_t enc = 0;
	/* unreadable now (unmapped): kept until code is written there again */
	if (uc_mem_read(e->uc, in->pc, &enc, 4) != UC_ERR_OK || enc == in->enc)
		return;
	if (!emu_decoder_refresh(e->dec, in, enc))
		emu_fault(e, in->pc, 0, "out of memory decoding");
}

/* The program rewrote (or remapped) memory the decode cache has
 * instructions for: decode those again, so the trace shows the code that
 * runs. Done at an instruction boundary, after the writing instruction
 * was written with its own (old) text. */
static void code_refresh(struct trawl_emu *e)
{
	for (unsigned i = 0; i < e->ncodew; i++)
		emu_decoder_visit(e->dec, e->codew[i].addr, e->codew[i].addr + e->codew[i].len,
				  refresh_one, e);
	e->ncodew = 0;
}

/* DC ZVA Xt zeroes the aligned block around Xt (64 bytes: DCZID_EL0.BS =
 * 4 on the emulated core) without going through the memory hooks; its
 * stores are recorded here, before it runs, as eight 8-byte writes of 0. */
#define EMU_ZVA_BYTES 64u
#define EMU_IS_DC_ZVA(enc) (((enc) & ~UINT32_C(31)) == UINT32_C(0xd50b7420))
static void dc_zva_stores(struct trawl_emu *e, const struct emu_insn *in)
{
	uint64_t xt = 0;
	unsigned rt = in->enc & 31;
	if (rt == 31 || e->nmem + EMU_ZVA_BYTES / 8 > EMU_MAX_MEM)
		return;   /* XZR: block 0, which faults as unmapped anyway */
	/* X29 and X30 are not after X28 in Unicorn's numbering */
	int id = rt == 29 ? UC_ARM64_REG_X29 : rt == 30 ? UC_ARM64_REG_X30 : UC_ARM64_REG_X0 + (int)rt;
	uc_reg_read(e->uc, id, &xt);
	uint64_t base = xt & ~(uint64_t)(EMU_ZVA_BYTES - 1);
	for (unsigned k = 0; k < EMU_ZVA_BYTES / 8; k++)
		e->mem[e->nmem++] = (struct emu_access){ base + 8 * k, 0, 8, 1 };
	emu_code_written(e, base, EMU_ZVA_BYTES);
}

/* The code hook's general case, before an instruction: writes the previous
 * one (whose effects are complete now), then stops at the limit or the end of a thread's
 * quantum before this one runs (Unicorn checks for a stop right after the
 * hook), and finds this one's decode by the successor shortcut or the
 * cache (code_hook below takes the common case itself). */
static __attribute__((noinline)) void code_hook_full(uc_engine *uc, uint64_t addr,
						     uint32_t size, void *user)
{
	struct trawl_emu *e = user;
	if (e->stopped)
		return;
	if (e->opt.verify_writes)
		verify_writes(e);
	if (e->cur) {
		emu_trace_line(e, addr);   /* emu_trace_finish, inline */
		e->cur = NULL;
	}
	if (e->ncodew)
		code_refresh(e);
	/* most instructions follow the previous one or its usual branch
	 * target: try those before the hash table */
	struct emu_insn *prev = e->prev, *in;
	if (prev && prev->next_seq && prev->next_seq->pc == addr) {
		in = prev->next_seq;
	} else if (prev && prev->next_jump && prev->next_jump->pc == addr) {
		in = prev->next_jump;
	} else {
		/* remember it as the successor only when the shortcut missed */
		in = lookup(e, addr);
		if (!in)
			return;
		if (prev && addr == prev->pc + 4)
			prev->next_seq = in;
		else if (prev)
			prev->next_jump = in;
	}
	if (e->n >= e->stop_at) {
		if (e->opt.max_insns && e->n >= e->opt.max_insns) {
			e->res.stop = TRAWL_EMU_LIMIT;
			e->stopped = 1;
		} else {
			/* the thread's quantum: switch before this instruction */
			e->slice_over = 1;
			e->stopped = EMU_PAUSED;
		}
		uc_emu_stop(uc);
		return;
	}
	if (in->mem.cls == EMU_MEM_UNKNOWN && (e->memcalc || e->mem_hooks)) {
		if (!e->mem_hooks) {
			/* not modelled: stop before it, the run loop installs the
			 * memory hooks (see boundary) and it runs again with them */
			e->want_hooks = 1;
			e->stopped = EMU_PAUSED;
			uc_emu_stop(uc);
			return;
		}
		e->res.mem_unmodelled++;
	}
	count_up(e);
	e->prev = in;
	e->cur = in;
	if (in->mem.cls >= EMU_MEM_GPR && e->memcalc)
		emu_mem_before(e, in);
	else if (in->dc_zva)   /* EMU_IS_DC_ZVA, found by the decoder */
		dc_zva_stores(e, in);
	(void)size;
}

/* The code hook. Its common case (the previous instruction a plain one
 * whose line the FM writer makes without tests, this one found by the
 * successor shortcut, nothing pending) is done here, in a function that
 * calls nothing but its last step: without the general path's calls it
 * saves no registers, and the tests are the fewest that pick the case.
 * Everything else, checked before anything changes, goes to
 * code_hook_full, which does the same in general. */
static void code_hook(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	struct trawl_emu *e = user;
	struct emu_insn *cur = e->prev, *in;
	if (__builtin_expect(e->hook_slow || !e->cur, 0))
		goto full;
	in = cur->next_seq;   /* never NULL: emu_insn_none */
	if (__builtin_expect(in->pc != addr, 0)) {
		in = cur->next_jump;
		if (in->pc != addr)
			goto full;
	}
	int gpr = 0;
	if (e->nmem) {
		if (!cur->gpr_mem || e->nmem != cur->mem.nregs)
			goto full;
		gpr = 1;
	} else if (e->mem_after) {
		goto full;
	}
	if (__builtin_expect(!(cur->hook_bits & EMU_HOOK_PLAIN_LINE) ||
				     !(in->hook_bits & EMU_HOOK_MODELLED) || e->n >= e->stop_at ||
				     e->wp >= e->flush_ptr,
			     0))
		goto full;
	/* the next one noted first and read back after the lines: a register
	 * fewer held across them (each one held costs a save and a restore) */
	e->prev = in;
	e->cur = in;
	const char *prefix = e->prefix;
	size_t plen = e->plen;
	char *p = put_insn_line(e->wp, cur, addr == cur->fail_pc, prefix, plen, e->ndigits);
	if (gpr) {
		e->mem_after = NULL;   /* put_gpr_memory reads the loaded values */
		p = put_gpr_memory(e, p, cur, prefix, plen);
	}
	p = put_plain_writes(e, p, cur, prefix, plen, e->xregs);
	e->wp = p;
	e->nmem = 0;
	count_up(e);
	in = e->prev;
	if (in->mem.cls >= EMU_MEM_GPR)
		emu_mem_before(e, in);   /* a tail call */
	else if (in->dc_zva)
		dc_zva_stores(e, in);
	return;
full:
	code_hook_full(uc, addr, size, user);
}

static void mem_hook(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value,
		     void *user)
{
	struct trawl_emu *e = user;
	(void)uc;
	if (e->stopped || !e->cur)
		return;
	/* QEMU probes a DC ZVA block with a 1-byte write; the block's stores
	 * are already recorded */
	if (EMU_IS_DC_ZVA(e->cur->enc))
		return;
	if (e->nmem == EMU_MAX_MEM) {
		emu_fault(e, e->cur->pc, addr, "more than %u memory accesses in one instruction",
			  EMU_MAX_MEM);
		return;
	}
	struct emu_access *a = &e->mem[e->nmem++];
	a->addr = addr;
	a->size = (uint32_t)size;
	a->value = (uint64_t)value;
	a->write = type == UC_MEM_WRITE;
	if (a->write)
		emu_code_written(e, addr, (uint64_t)size);
}

/* A bad access: SIGSEGV to the program's handler when it has one (the run
 * loop delivers it), else a fault that ends the run. A bad fetch keeps the
 * branch that got there in the trace. */
static bool invalid_hook(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
			 int64_t value, void *user)
{
	struct trawl_emu *e = user;
	(void)uc;
	(void)value;
	uint64_t pc = e->cur ? e->cur->pc : addr;
	const char *what;
	switch (type) {
	case UC_MEM_READ_UNMAPPED: what = "read of unmapped memory"; break;
	case UC_MEM_WRITE_UNMAPPED: what = "write to unmapped memory"; break;
	case UC_MEM_FETCH_UNMAPPED: what = "jump to unmapped memory"; pc = addr; break;
	case UC_MEM_WRITE_PROT: what = "write to read-only memory"; break;
	case UC_MEM_READ_PROT: what = "read of unreadable memory"; break;
	case UC_MEM_FETCH_PROT: what = "jump to non-executable memory"; pc = addr; break;
	default: what = "bad memory access"; break;
	}
	int fetch = type == UC_MEM_FETCH_UNMAPPED || type == UC_MEM_FETCH_PROT;
	if (fetch) {
		/* the branch that got here did complete: keep it in the trace */
		if (e->cur && !e->stopped) {
			emu_trace_finish(e, addr);
			e->cur = NULL;
		}
	} else if (!e->cur) {
		uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
	}
	int unmapped = type == UC_MEM_READ_UNMAPPED || type == UC_MEM_WRITE_UNMAPPED ||
		       type == UC_MEM_FETCH_UNMAPPED;
	/* SIGSEGV as Linux sends it: SEGV_MAPERR or SEGV_ACCERR, the ESR of
	 * an abort from EL0 (instruction 0x20 or data 0x24, WnR, a level 3
	 * translation or permission fault) */
	struct emu_siginfo si = {
		.signo = 11, .code = unmapped ? 1 : 2, .fault = 1, .mem = 1, .addr = addr, .pc = pc,
		.esr = ((uint64_t)(fetch ? 0x20 : 0x24) << 26) | (1u << 25) |
		       (type == UC_MEM_WRITE_UNMAPPED || type == UC_MEM_WRITE_PROT ? 1u << 6 : 0) |
		       (unmapped ? 0x07u : 0x0fu),
	};
	if (!e->stopped && emu_signal_catch_fault(e, &si)) {
		e->stopped = EMU_PAUSED;
		return false;
	}
	char msg[120];
	snprintf(msg, sizeof msg, "%s: %d bytes at 0x%llx", what, size, (unsigned long long)addr);
	fault_kill(e, 11, pc, addr, msg);
	return false;
}

/* SIGILL (ILL_ILLOPC) or SIGTRAP (TRAP_BRKPT, with the BRK's ESR) to a
 * handler; 1 when one takes it */
static int catch_exception(struct trawl_emu *e, int sig, uint64_t pc)
{
	uint32_t enc = e->cur ? e->cur->enc : 0;
	struct emu_siginfo si = { .signo = sig, .code = 1, .fault = 1, .addr = pc, .pc = pc };
	if (sig == 5)
		si.esr = (UINT64_C(0x3c) << 26) | (1u << 25) | ((enc >> 5) & 0xffff);
	if (!emu_signal_catch_fault(e, &si))
		return 0;
	e->stopped = EMU_PAUSED;
	uc_emu_stop(e->uc);
	return 1;
}

static void intr_hook(uc_engine *uc, uint32_t intno, void *user)
{
	struct trawl_emu *e = user;
	uint64_t pc = e->cur ? e->cur->pc : 0;
	if (!e->cur)
		uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
	if (e->stopped)
		return;
	switch (intno) {
	case EXCP_SWI: {
		int r = emu_syscall(e);
		if (r == 0 && e->resched) {
			e->stopped = EMU_PAUSED; /* a signal, a thread switch: see run_loop */
			uc_emu_stop(uc);
		}
		if (r == 1) {
			e->res.stop = TRAWL_EMU_EXITED;
			e->stopped = 1;
			if (e->cur) {
				emu_trace_finish(e, 0);
				e->cur = NULL;
			}
			uc_emu_stop(uc);
		}
		return;
	}
	case EXCP_UDEF:
		if (!catch_exception(e, 4, pc)) {
			char msg[40];
			snprintf(msg, sizeof msg, "undefined instruction %08x", e->cur ? e->cur->enc : 0);
			fault_kill(e, 4, pc, 0, msg);
		}
		return;
	case EXCP_BKPT:
		if (!catch_exception(e, 5, pc))
			fault_kill(e, 5, pc, 0, "breakpoint instruction (BRK) reached");
		return;
	default:
		emu_fault(e, pc, 0, "exception %u raised", intno);
		return;
	}
}

/* ---- loading ----------------------------------------------------------- */

static uint64_t page_down(uint64_t a)
{
	return a & ~(uint64_t)(EMU_PAGE - 1);
}

static uint64_t page_up(uint64_t a)
{
	return (a + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1);
}

/* Map the segments' pages (merged where they share pages) and copy the
 * file bytes in; the rest of each mapping stays zero, which is the bss. */
static enum trawl_status load_segments(struct trawl_emu *e, struct trawl_error *err)
{
	uint64_t lo[TRAWL_ELF_MAX_SEGMENTS], hi[TRAWL_ELF_MAX_SEGMENTS];
	unsigned n = e->img.nsegments;
	for (unsigned i = 0; i < n; i++) {
		lo[i] = page_down(e->img.segments[i].vaddr);
		hi[i] = page_up(e->img.segments[i].vaddr + e->img.segments[i].memsz);
	}
	/* insertion sort by start, then merge overlapping ranges */
	for (unsigned i = 1; i < n; i++)
		for (unsigned k = i; k > 0 && lo[k] < lo[k - 1]; k--) {
			uint64_t t = lo[k]; lo[k] = lo[k - 1]; lo[k - 1] = t;
			t = hi[k]; hi[k] = hi[k - 1]; hi[k - 1] = t;
		}
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++) {
		if (m && lo[i] <= hi[m - 1]) {
			if (hi[i] > hi[m - 1])
				hi[m - 1] = hi[i];
			continue;
		}
		lo[m] = lo[i];
		hi[m] = hi[i];
		m++;
	}
	for (unsigned i = 0; i < m; i++) {
		uc_err ue = uc_mem_map(e->uc, lo[i], hi[i] - lo[i], UC_PROT_ALL);
		if (ue != UC_ERR_OK)
			return trawl_error_set(err, TRAWL_ERR_FORMAT,
					       "cannot map segment pages 0x%llx-0x%llx: %s",
					       (unsigned long long)lo[i], (unsigned long long)hi[i],
					       uc_strerror(ue));
	}
	for (unsigned i = 0; i < n; i++) {
		const struct trawl_elf_segment *s = &e->img.segments[i];
		if (s->filesz &&
		    uc_mem_write(e->uc, s->vaddr, e->file + s->offset, s->filesz) != UC_ERR_OK)
			return trawl_error_set(err, TRAWL_ERR_INTERNAL, "cannot copy segment %u", i);
	}
	e->brk_start = e->brk_cur = e->brk_mapped = page_up(e->img.highest);
	e->mmap_next = EMU_MMAP_BASE;
	return TRAWL_OK;
}

static const char *const default_env[] = { "PATH=/usr/bin:/bin", "LANG=C", "HOME=/", NULL };

/* The initial stack as Linux builds it for an ELF program:
 *   sp -> argc, argv[0..argc-1], NULL, envp[..], NULL, auxv pairs, AT_NULL
 * with the strings, AT_RANDOM's 16 bytes and the platform name above. */
static enum trawl_status build_stack(struct trawl_emu *e, struct trawl_error *err)
{
	uint64_t stack_top = e->opt.stack_top ? e->opt.stack_top : EMU_STACK_TOP;
	uint64_t base = stack_top - EMU_STACK_SIZE;
	/* at most EMU_STACK_TOP: the page above it is map_sigtramp's */
	if (stack_top % EMU_PAGE || stack_top < EMU_STACK_SIZE || stack_top > EMU_STACK_TOP)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "stack top 0x%llx is not a page boundary in 0x%llx..0x%llx",
				       (unsigned long long)stack_top, (unsigned long long)EMU_STACK_SIZE,
				       (unsigned long long)EMU_STACK_TOP);
	if (uc_mem_map(e->uc, base, EMU_STACK_SIZE, UC_PROT_READ | UC_PROT_WRITE) != UC_ERR_OK)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "the program's segments overlap the stack");
	char **envp = e->opt.envp ? e->opt.envp : (char **)default_env;
	int envc = 0;
	while (envp[envc])
		envc++;
	int argc = e->opt.argc;

	/* strings, from the top down */
	/* one word free at the very top, as Linux (and qemu) leave it */
	uint64_t top = stack_top - 8, strings_size = 0;
	for (int i = 0; i < argc; i++)
		strings_size += strlen(e->opt.argv[i]) + 1;
	for (int i = 0; i < envc; i++)
		strings_size += strlen(envp[i]) + 1;
	strings_size += strlen(e->path) + 1 + 8 + 16;
	if (strings_size > EMU_STACK_SIZE / 2)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "arguments and environment too large");
	uint64_t *ptrs = calloc((size_t)(argc + envc + 2), sizeof *ptrs);
	if (!ptrs)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	uint64_t p = top;
#define PUSH_STR(s, slot)                                                   \
	do {                                                                \
		size_t l_ = strlen(s) + 1;                                  \
		p -= l_;                                                    \
		uc_mem_write(e->uc, p, (s), l_);                            \
		slot = p;                                                   \
	} while (0)
	uint64_t execfn, platform, random;
	PUSH_STR(e->path, execfn);
	for (int i = envc - 1; i >= 0; i--)
		PUSH_STR(envp[i], ptrs[argc + 1 + i]);
	for (int i = argc - 1; i >= 0; i--)
		PUSH_STR(e->opt.argv[i], ptrs[i]);
#undef PUSH_STR
	/* the platform name right below the strings (unaligned) and AT_RANDOM's
	 * bytes below it at a 16-byte boundary, as qemu-aarch64 lays them out:
	 * string functions that read whole aligned blocks around argv[0] then
	 * see the same bytes in both (the register oracle compares from main) */
	p -= 8;
	platform = p;
	uc_mem_write(e->uc, platform, "aarch64", 8);
	/* AT_RANDOM: fixed bytes so that traces are reproducible */
	uint8_t rnd[16];
	for (int i = 0; i < 16; i++)
		rnd[i] = (uint8_t)(0x5a ^ (i * 37));
	p = (p - 16) & ~(uint64_t)15;
	random = p;
	uc_mem_write(e->uc, random, rnd, 16);

	uint64_t auxv[][2] = {
		{ AT_PHDR, e->img.phdr_vaddr }, { AT_PHENT, e->img.phentsize },
		{ AT_PHNUM, e->img.phnum }, { AT_PAGESZ, EMU_PAGE }, { AT_BASE, 0 },
		{ AT_FLAGS, 0 }, { AT_ENTRY, e->img.entry }, { AT_UID, 1000 }, { AT_EUID, 1000 },
		{ AT_GID, 1000 }, { AT_EGID, 1000 }, { AT_PLATFORM, platform },
		{ AT_HWCAP, EMU_HWCAP }, { AT_HWCAP2, 0 }, { AT_CLKTCK, 100 }, { AT_SECURE, 0 },
		{ AT_RANDOM, random }, { AT_EXECFN, execfn }, { AT_NULL, 0 },
	};
	size_t nwords = 1 + (size_t)argc + 1 + (size_t)envc + 1 + 2 * (sizeof auxv / sizeof auxv[0]);
	uint64_t sp = (p - nwords * 8) & ~(uint64_t)15; /* the words below the bytes */
	uint64_t *words = calloc(nwords, 8);
	if (!words) {
		free(ptrs);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	size_t w = 0;
	words[w++] = (uint64_t)argc;
	for (int i = 0; i < argc; i++)
		words[w++] = ptrs[i];
	words[w++] = 0;
	for (int i = 0; i < envc; i++)
		words[w++] = ptrs[argc + 1 + i];
	words[w++] = 0;
	memcpy(words + w, auxv, sizeof auxv);
	uc_mem_write(e->uc, sp, words, nwords * 8);
	free(words);
	free(ptrs);
	e->sp0 = sp;
	return TRAWL_OK;
}

/* The page above the stack holds rt_sigreturn's trampoline, the return
 * address of handlers installed without SA_RESTORER (there is no vDSO):
 * mov x8, #139; svc #0 */
static enum trawl_status map_sigtramp(struct trawl_emu *e, struct trawl_error *err)
{
	static const uint32_t code[2] = { 0xd2801168u, 0xd4000001u };
	e->sigtramp = EMU_STACK_TOP;
	if (uc_mem_map(e->uc, e->sigtramp, EMU_PAGE, UC_PROT_READ | UC_PROT_EXEC) != UC_ERR_OK ||
	    uc_mem_write(e->uc, e->sigtramp, code, sizeof code) != UC_ERR_OK)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "the program's segments overlap the signal trampoline page");
	return TRAWL_OK;
}

/* Everything that can fail (file, ELF checks, Unicorn, Capstone, segments,
 * stack) is done here, before the caller opens the output, so a program that
 * cannot run does not truncate an existing trace; every failure goes through
 * trawl_emu_close, which copes with a half-built emulator. The registers are
 * then set as Linux starts a program at EL0. */
enum trawl_status trawl_emu_open(struct trawl_emu **out, const char *elf_path,
				 const struct trawl_emu_options *opt, struct trawl_error *err)
{
	enum trawl_status st;
	*out = NULL;
	struct trawl_emu *e = calloc(1, sizeof *e);
	if (!e)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	e->opt = *opt;
	if (!e->opt.guest_stdout)
		e->opt.guest_stdout = 1;
	if (!e->opt.guest_stderr)
		e->opt.guest_stderr = 2;
	for (int i = 0; i < EMU_MAX_FDS; i++)
		e->host_fd[i] = -1;
	e->host_fd[0] = e->opt.guest_stdin;
	e->host_fd[1] = e->opt.guest_stdout;
	e->host_fd[2] = e->opt.guest_stderr;
	for (int i = 0; i < 3; i++) {
		int fl = fcntl(e->host_fd[i], F_GETFL);
		e->shared_fd[i] = 1;
		e->shadow_fl[i] = fl < 0 ? 0 : fl & (O_NONBLOCK | O_APPEND);
	}
	e->rng = UINT64_C(0x9e3779b97f4a7c15);
	e->code_lo = UINT64_MAX;
	e->cwd_fd = -1;
	e->root_fd = -1;
	e->umask = 022;
	const char *base = strrchr(elf_path, '/');
	snprintf(e->comm, sizeof e->comm, "%s", base ? base + 1 : elf_path);
	e->altstack[8] = 2; /* ss_flags = SS_DISABLE */
	e->path = strdup(elf_path);
	if (!e->path) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto fail;
	}
	st = trawl_file_read(elf_path, &e->file, &e->file_len, err);
	if (st)
		goto fail;
	if (e->opt.root && (st = emu_root_setup(e, e->opt.root, err)) != TRAWL_OK)
		goto fail;
	st = trawl_elf_parse(e->file, e->file_len, &e->img, err);
	if (st) {
		if (err)
			snprintf(err->file, sizeof err->file, "%s", elf_path);
		goto fail;
	}
	st = emu_unicorn_load(err);
	if (st)
		goto fail;
	uc_err ue = uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &e->uc);
	if (ue != UC_ERR_OK) {
		st = trawl_error_set(err, TRAWL_ERR_INTERNAL, "cannot start Unicorn: %s",
				     uc_strerror(ue));
		goto fail;
	}
	emu_regs_locate(e);
	st = emu_decoder_create(&e->dec, err);
	if (st)
		goto fail;
	st = load_segments(e, err);
	if (!st)
		st = build_stack(e, err);
	if (!st)
		st = map_sigtramp(e, err);
	if (st) {
		if (err)
			snprintf(err->file, sizeof err->file, "%s", elf_path);
		goto fail;
	}
	/* What Linux allows EL0 in SCTLR_EL1: reading CTR_EL0 (UCT), cache
	 * maintenance by address (UCI), as __clear_cache needs, and DC ZVA
	 * (DZE), so glibc picks the same memset as on Linux (and under
	 * qemu-aarch64). QEMU zeroes a DC ZVA block without calling memory
	 * hooks: code_hook records its stores itself (dc_zva_stores). */
	uc_arm64_cp_reg sctlr = { .crn = 1, .crm = 0, .op0 = 3, .op1 = 0, .op2 = 0 };
	if (uc_reg_read(e->uc, UC_ARM64_REG_CP_REG, &sctlr) == UC_ERR_OK) {
		sctlr.val |= (UINT64_C(1) << 14) | (UINT64_C(1) << 15) | (UINT64_C(1) << 26);
		uc_reg_write(e->uc, UC_ARM64_REG_CP_REG, &sctlr);
	}
	/* EL0, AArch64, interrupts unmasked: where Linux starts a program */
	uint64_t pstate = 0;
	uc_reg_write(e->uc, UC_ARM64_REG_PSTATE, &pstate);
	uc_reg_write(e->uc, UC_ARM64_REG_SP, &e->sp0);
	uc_reg_write(e->uc, UC_ARM64_REG_PC, &e->img.entry);
	memcpy(e->prefix, "0 clk ", 6);
	e->ndigits = 1;
	emu_prefix_set(e);
	*out = e;
	return TRAWL_OK;
fail:
	trawl_emu_close(e);
	return st;
}

/* The pages of the code run so far: every instruction Unicorn executed
 * went through the decode cache. */
struct code_pages {
	uint64_t *page;
	size_t n, cap;
	int failed;
};

static void note_page(struct emu_insn *in, void *arg)
{
	struct code_pages *c = arg;
	uint64_t pg = in->pc / EMU_PAGE;
	if (c->n && c->page[c->n - 1] == pg)
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		uint64_t *p = realloc(c->page, cap * sizeof *p);
		if (!p) {
			c->failed = 1;
			return;
		}
		c->page = p;
		c->cap = cap;
	}
	c->page[c->n++] = pg;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The first instruction the decoder does not model (memop.c) is about to
 * run: from here on the memory hooks report every access. Unicorn decides
 * when it translates a block whether its loads and stores call hooks, so
 * the blocks of every page code ran from are dropped (a block that
 * crosses into the next page is dropped with its first); a whole flush of
 * the translation cache (UC_CTL_TB_FLUSH) cost seconds and a gigabyte of
 * memory. */
static void hooks_on(struct trawl_emu *e)
{
	uc_hook h;
	struct code_pages c = { 0 };
	e->want_hooks = 0;
	emu_decoder_visit(e->dec, 0, UINT64_MAX, note_page, &c);
	int bad = c.failed;
	if (!bad && c.n)
		qsort(c.page, c.n, sizeof *c.page, cmp_u64);
	/* page by page: Unicorn turns the start address into a RAM offset
	 * and takes the range from there, which is only right within a page;
	 * only pages still mapped executable (Unicorn looks the page up as a
	 * code fetch, and a failing one would raise a guest exception outside
	 * the run); the others' blocks cannot run again anyway */
	uc_mem_region *reg = NULL;
	uint32_t nreg = 0;
	if (!bad && uc_mem_regions(e->uc, &reg, &nreg) != UC_ERR_OK)
		bad = 1;
	for (size_t i = 0; !bad && i < c.n; i++) {
		if (i && c.page[i] == c.page[i - 1])
			continue;
		uint64_t a = c.page[i] * EMU_PAGE;
		uint32_t k = 0;
		while (k < nreg && !(reg[k].begin <= a && a < reg[k].end))
			k++;
		if (k == nreg || !(reg[k].perms & UC_PROT_EXEC))
			continue;
		bad = emu_uc_drop_tb(e->uc, a, a + EMU_PAGE) != UC_ERR_OK;
	}
	if (reg)
		uc_free(reg);
	free(c.page);
	if (bad || uc_hook_add(e->uc, &h, UC_HOOK_MEM_READ_AFTER, (void *)mem_hook, e, 1, 0) != UC_ERR_OK ||
	    uc_hook_add(e->uc, &h, UC_HOOK_MEM_WRITE, (void *)mem_hook, e, 1, 0) != UC_ERR_OK) {
		emu_fault(e, 0, 0, "cannot hook Unicorn's memory accesses");
		return;
	}
	e->mem_hooks = 1;
	e->memcalc = 0;
	e->mem_fast = 0;
	e->no_fast = 1;
	e->res.mem_hooks_from = e->n + 1;
}

/* Unicorn stopped at an instruction boundary for the emulator to act
 * (e->stopped == EMU_PAUSED): finish the instruction before it (an SVC),
 * or drop it when it faulted into a handler (it did not complete; the
 * frame then shows as a state event at its time), write what changed
 * outside instructions, deliver signals. Returns where to go on. */
static uint64_t boundary(struct trawl_emu *e, int tracing)
{
	uint64_t pc = 0;
	uc_reg_read(e->uc, UC_ARM64_REG_PC, &pc);
	e->resched = 0;
	const struct emu_insn *done = NULL;
	if (e->sync_signal) {
		pc = e->siginfo[e->sync_signal].pc;
		e->nmem = 0;
		e->mem_after = NULL;
		e->nsysw = 0;
	} else if (e->cur && tracing) {
		emu_trace_finish(e, pc);
		done = e->cur;
	}
	e->cur = NULL;
	if (e->resume) {
		/* rt_sigreturn's PC, set here: a PC written inside a Unicorn
		 * hook can make it raise the last exception again */
		pc = e->resume_pc;
		e->resume = 0;
		uc_reg_write(e->uc, UC_ARM64_REG_PC, &pc);
	}
	if (e->regs_changed && tracing)
		emu_trace_state(e, done, 0);
	e->regs_changed = 0;
	emu_signal_boundary(e, pc);
	if (e->regs_changed && tracing)
		emu_trace_state(e, NULL, 0);
	e->regs_changed = 0;
	if (!e->stopped && e->thr) {
		emu_thread_schedule(e, tracing);
		/* the thread switched to may have unblocked what is pending */
		uc_reg_read(e->uc, UC_ARM64_REG_PC, &pc);
		emu_signal_boundary(e, pc);
		if (e->regs_changed && tracing)
			emu_trace_state(e, NULL, 0);
		e->regs_changed = 0;
	}
	if (e->want_hooks)
		hooks_on(e);
	if (e->thr && !e->code_hooked) {
		/* threads need the code hook for their quanta, traced or not */
		uc_hook h;
		if (uc_hook_add(e->uc, &h, UC_HOOK_CODE, (void *)code_hook, e, 1, 0) == UC_ERR_OK)
			e->code_hooked = 1;
		e->stop_at = e->n + e->quantum;
		if (e->opt.max_insns && e->opt.max_insns < e->stop_at)
			e->stop_at = e->opt.max_insns;
	}
	if (e->opt.verify_writes)
		for (unsigned c = 0; c < EMU_REG_COUNT; c++)
			emu_read_reg(e, c, e->verify_regs[c]);
	uc_reg_read(e->uc, UC_ARM64_REG_PC, &pc);
	return pc;
}

/* Unicorn runs until the program ends or the emulator needs a boundary. */
static uc_err run_loop(struct trawl_emu *e, int tracing)
{
	uint64_t pc = e->img.entry;
	for (;;) {
		uc_err ue = uc_emu_start(e->uc, pc, 0, 0, 0);
		if (e->stopped != EMU_PAUSED)
			return ue;
		e->stopped = 0;
		pc = boundary(e, tracing);
		if (e->stopped) {
			if (e->res.stop == TRAWL_EMU_EXITED)
				e->stopped = 1;
			return UC_ERR_OK;
		}
	}
}

/* Hooks are added only for what is asked (no memory hooks without a trace),
 * since each one costs per instruction. The code hook writes the previous
 * instruction, so the last one is written here after Unicorn stops. An
 * output error is reported before an emulation fault: the trace the user
 * asked for is then incomplete whatever the program did. */
enum trawl_status trawl_emu_run(struct trawl_emu *e, struct trawl_outfile *out,
				struct trawl_emu_result *res, struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	int tracing = e->opt.style != TRAWL_EMU_STYLE_NONE;
	memset(&e->res, 0, sizeof e->res);
	e->out = out;
	/* a buffer that stays in the CPU cache beats a huge one: the text is
	 * written once and handed to write(2) or the compressor right away
	 * (the flush margin: emu_trace_buffer_reset) */
	e->cap = e->opt.buffer_size ? e->opt.buffer_size : (size_t)512 << 10;
	if (e->cap < (size_t)256 << 10)
		e->cap = (size_t)256 << 10;
	e->buf = malloc(e->cap);
	if (!e->buf)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	emu_trace_buffer_reset(e);

	uc_hook h;
	int mem_hooks = tracing && e->opt.mem_hooks;
	struct { int type; void *cb; } hooks[] = {
		{ UC_HOOK_INTR, (void *)intr_hook },
		{ UC_HOOK_MEM_INVALID, (void *)invalid_hook },
		{ tracing || e->opt.max_insns || e->opt.verify_writes ? UC_HOOK_CODE : 0,
		  (void *)code_hook },
		{ mem_hooks ? UC_HOOK_MEM_READ_AFTER : 0, (void *)mem_hook },
		{ mem_hooks ? UC_HOOK_MEM_WRITE : 0, (void *)mem_hook },
	};
	e->mem_hooks = mem_hooks;
	e->memcalc = tracing && !mem_hooks;
	e->mem_fast = e->memcalc && e->opt.style == TRAWL_EMU_STYLE_FM && e->xregs;
	e->no_fast = !(e->mem_fast && e->flagw && !e->opt.insn_fn && !e->opt.verify_writes && out);
	if (mem_hooks)
		e->res.mem_hooks_from = 1;
	e->stop_at = e->opt.max_insns ? e->opt.max_insns : UINT64_MAX;
	e->quantum = e->opt.quantum ? e->opt.quantum : TRAWL_EMU_QUANTUM;
	for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++) {
		if (!hooks[i].type)
			continue;
		e->code_hooked |= hooks[i].type == UC_HOOK_CODE;
		uc_err ue = uc_hook_add(e->uc, &h, hooks[i].type, hooks[i].cb, e, 1, 0);
		if (ue != UC_ERR_OK) {
			st = trawl_error_set(err, TRAWL_ERR_INTERNAL, "cannot hook Unicorn: %s",
					     uc_strerror(ue));
			goto out;
		}
	}
	if (e->opt.verify_writes)
		for (unsigned c = 0; c < EMU_REG_COUNT; c++)
			emu_read_reg(e, c, e->verify_regs[c]);
	if (tracing)
		emu_trace_header(e);

	uc_err ue = run_loop(e, tracing);
	if (ue != UC_ERR_OK && e->fault_status == TRAWL_OK && e->out_status == TRAWL_OK) {
		uint64_t pc = 0;
		uc_reg_read(e->uc, UC_ARM64_REG_PC, &pc);
		emu_fault(e, e->cur ? e->cur->pc : pc, 0, "emulation stopped: %s", uc_strerror(ue));
	}
	if (e->fault_status == TRAWL_OK && !e->stopped) {
		/* Unicorn returned without an exit: the program ran off (PC 0) */
		uint64_t pc = 0;
		uc_reg_read(e->uc, UC_ARM64_REG_PC, &pc);
		if (e->cur && tracing) {
			emu_trace_finish(e, pc);
			e->cur = NULL;
		}
		emu_fault(e, pc, pc, "jump to address 0");
	}
	if (e->cur && e->fault_status == TRAWL_OK && e->out_status == TRAWL_OK && tracing) {
		emu_trace_finish(e, 0);
		e->cur = NULL;
	}
	e->res.insns = e->n - (e->fault_status != TRAWL_OK && e->cur ? 1 : 0);
	if (tracing)
		emu_trace_flush(e);
	if (e->out_status != TRAWL_OK) {
		*err = e->out_err;
		st = e->out_status;
	} else if (e->fault_status != TRAWL_OK) {
		*err = e->fault;
		st = e->fault_status;
	}
out:
	if (res)
		*res = e->res;
	free(e->buf);
	e->buf = e->wp = e->flush_ptr = NULL;
	return st;
}

void trawl_emu_close(struct trawl_emu *e)
{
	if (!e)
		return;
	for (int i = 0; i < EMU_MAX_FDS; i++)
		if (e->own_fd[i])
			close(e->host_fd[i]);
	if (e->cwd_fd >= 0)
		close(e->cwd_fd);
	if (e->root_fd >= 0)
		close(e->root_fd);
	emu_decoder_destroy(e->dec);
	if (e->uc)
		uc_close(e->uc);
	free(e->thr);
	free(e->file);
	free(e->path);
	free(e);
}

#else /* built without Unicorn or Capstone */

enum trawl_status trawl_emu_open(struct trawl_emu **out, const char *elf_path,
				 const struct trawl_emu_options *opt, struct trawl_error *err)
{
	(void)elf_path;
	(void)opt;
	*out = NULL;
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
			       "trawl was built without Unicorn and Capstone (libunicorn-dev, "
			       "libcapstone-dev)");
}

enum trawl_status trawl_emu_run(struct trawl_emu *e, struct trawl_outfile *out,
				struct trawl_emu_result *res, struct trawl_error *err)
{
	(void)e;
	(void)out;
	(void)res;
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "built without Unicorn");
}

void trawl_emu_close(struct trawl_emu *e)
{
	(void)e;
}

#endif
