/* Instruction decoding for the trace writer.
 *
 * Capstone gives the disassembly and the operands; what an instruction
 * *writes* is decided here, because Capstone 4's own list is wrong for
 * several classes (CMP/CMN/TST report their first operand as written, SVC
 * reports X30, ST1-ST4 report the stored vectors, LD3/LD4 list only two
 * registers, BL/BLR and base writeback are missing). The rules:
 *
 *   branches B, BR, RET, B.cond, CBZ/CBNZ, TBZ/TBNZ   nothing
 *   BL, BLR                                          X30
 *   SVC                                              X0 (the system call result)
 *   compares CMP CMN TST CCMP CCMN FCMP(E) FCCMP(E)  NZCV only
 *   stores ST*                                       nothing, except the
 *                                                    status register of STXR/STLXR/STXP/STLXP
 *   vector LD1-LD4 (multiple/single structures)      the listed registers,
 *                                                    counted from the encoding
 *   other loads                                      the registers before the address
 *   MSR NZCV/FPCR/FPSR/TPIDR_EL0                     that register
 *   hints, barriers, SYS, PRFM                       nothing
 *   everything else                                  the first operand
 *   flag-setting forms (ADDS, ANDS, ...)             also NZCV
 *   pre/post-indexed loads and stores                also the base register
 *   FP/SIMD data processing                          also FPSR, when its
 *                                                    cumulative flags change
 *
 * Writeback and vector register counts come from the encoding (Arm ARM,
 * "Loads and Stores" encoding tables), not from Capstone. A slow self-check
 * in the emulator (verify_writes) compares these sets with the real register
 * file and is run by the tests.
 */
#include "emu/decode.h"
#include "trawl/disasm.h"
#include "trawl/tarmac.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(TRAWL_HAVE_CAPSTONE)
#include <capstone/capstone.h>
#endif

const char emu_hex[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

static const char *const reg_names[EMU_REG_COUNT] = {
	"X0", "X1", "X2", "X3", "X4", "X5", "X6", "X7", "X8", "X9", "X10", "X11", "X12",
	"X13", "X14", "X15", "X16", "X17", "X18", "X19", "X20", "X21", "X22", "X23", "X24",
	"X25", "X26", "X27", "X28", "X29", "X30", "SP_EL0", "cpsr", "FPCR", "FPSR", "TPIDR_EL0",
	[EMU_REG_V0] = "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11",
	"q12", "q13", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22", "q23",
	"q24", "q25", "q26", "q27", "q28", "q29", "q30", "q31",
};

const char *emu_reg_name(unsigned code)
{
	return code < EMU_REG_COUNT && reg_names[code] ? reg_names[code] : "?";
}

/* Cache: open addressing on the PC, entries and their text in arenas. */
struct arena {
	struct arena *next;
	size_t used, cap;
	char data[];
};

struct emu_decoder {
#if defined(TRAWL_HAVE_CAPSTONE)
	csh cs;
	cs_insn *insn;
	uint8_t reg_code[ARM64_REG_ENDING];
#endif
	struct emu_insn **slots;
	size_t nslots, count;
	struct arena *arena;
};

static void *arena_alloc(struct emu_decoder *d, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if (!d->arena || d->arena->cap - d->arena->used < n) {
		size_t cap = n > 60000 ? n : 60000;
		struct arena *a = malloc(sizeof *a + cap);
		if (!a)
			return NULL;
		a->next = d->arena;
		a->used = 0;
		a->cap = cap;
		d->arena = a;
	}
	void *p = d->arena->data + d->arena->used;
	d->arena->used += n;
	return p;
}

static size_t slot_of(uint64_t pc, size_t nslots)
{
	return (size_t)(((pc >> 2) * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (nslots - 1);
}

struct emu_insn *emu_decoder_find(const struct emu_decoder *d, uint64_t pc)
{
	size_t i = slot_of(pc, d->nslots);
	for (;;) {
		struct emu_insn *e = d->slots[i];
		if (!e || e->pc == pc)
			return e;
		i = (i + 1) & (d->nslots - 1);
	}
}

static int grow(struct emu_decoder *d)
{
	size_t n = d->nslots * 2;
	struct emu_insn **s = calloc(n, sizeof *s);
	if (!s)
		return 0;
	for (size_t i = 0; i < d->nslots; i++) {
		struct emu_insn *e = d->slots[i];
		if (!e)
			continue;
		size_t k = slot_of(e->pc, n);
		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = e;
	}
	free(d->slots);
	d->slots = s;
	d->nslots = n;
	return 1;
}

/* Decode enc at pc into *e with its IT line's tail in the arena; the
 * successor shortcuts are left as they are (they are checked by PC). */
static int decode_into(struct emu_decoder *d, uint64_t pc, uint32_t enc, struct emu_insn *e)
{
	char text[160];
	struct emu_insn tmp;
	emu_decode(d, pc, enc, &tmp, text, sizeof text);
	size_t tlen = strlen(text);
	/* " " pc " " enc(8) " O EL0t_n : " text "\n" */
	size_t n = 40 + 6 + tlen;
	/* padded: the writer copies the tail in whole 16-byte blocks */
	char *t = arena_alloc(d, n < EMU_TAIL_MIN ? EMU_TAIL_MIN : (n + 15) / 16 * 16);
	if (!t)
		return 0;
	const struct emu_memop *m = &tmp.mem;
	tmp.gpr_mem = m->cls == EMU_MEM_GPR && !m->status && !tmp.simd_mem &&
		      (m->store || (m->rt != EMU_MEM_XZR && (m->nregs == 1 || m->rt2 != EMU_MEM_XZR)));
	unsigned nx = tmp.nwrites;
	if (nx && tmp.writes[nx - 1] == EMU_REG_CPSR)
		nx--;
	tmp.plain_writes = nx < tmp.nwrites ? 2 : 1;
	for (unsigned i = 0; i < nx; i++)
		if (tmp.writes[i] > EMU_REG_SP)
			tmp.plain_writes = 0;
	tmp.dc_zva = (enc & ~UINT32_C(31)) == UINT32_C(0xd50b7420);
	tmp.fail_pc = tmp.kind == EMU_INSN_COND_BRANCH ? pc + 4 : 1;
	tmp.nx = (uint8_t)nx;
	tmp.hook_bits = (uint8_t)((tmp.plain_writes && !tmp.fp ? EMU_HOOK_PLAIN_LINE : 0) |
				  (m->cls != EMU_MEM_UNKNOWN ? EMU_HOOK_MODELLED : 0));
	tmp.next_seq = e->next_seq;
	tmp.next_jump = e->next_jump;
	*e = tmp;
	char *p = trawl_tarmac_put_insn_tail(t, pc, enc, 4, TRAWL_ISET_A64, "EL0t_n", text, tlen);
	e->tail = t;
	e->tail_len = (uint16_t)(p - t);
	return 1;
}

struct emu_insn emu_insn_none = { .pc = 1 };

struct emu_insn *emu_decoder_add(struct emu_decoder *d, uint64_t pc, uint32_t enc)
{
	if ((d->count + 1) * 2 > d->nslots && !grow(d))
		return NULL;
	struct emu_insn *e = arena_alloc(d, sizeof *e);
	if (!e)
		return NULL;
	e->next_seq = e->next_jump = &emu_insn_none;
	if (!decode_into(d, pc, enc, e))
		return NULL;
	size_t i = slot_of(pc, d->nslots);
	while (d->slots[i])
		i = (i + 1) & (d->nslots - 1);
	d->slots[i] = e;
	d->count++;
	return e;
}

int emu_decoder_refresh(struct emu_decoder *d, struct emu_insn *in, uint32_t enc)
{
	return decode_into(d, in->pc, enc, in);
}

void emu_decoder_visit(struct emu_decoder *d, uint64_t lo, uint64_t hi,
		       void (*fn)(struct emu_insn *, void *), void *arg)
{
	lo &= ~(uint64_t)3;
	if (hi <= lo)
		return;
	if ((hi - lo) / 4 <= d->count) {
		/* a few words: look each up */
		for (uint64_t a = lo; a < hi; a += 4) {
			struct emu_insn *in = emu_decoder_find(d, a);
			if (in)
				fn(in, arg);
		}
		return;
	}
	for (size_t i = 0; i < d->nslots; i++)
		if (d->slots[i] && d->slots[i]->pc >= lo && d->slots[i]->pc < hi)
			fn(d->slots[i], arg);
}

static void add_write(struct emu_insn *out, unsigned code)
{
	if (code == EMU_REG_NONE || code >= EMU_REG_COUNT)
		return;
	for (unsigned i = 0; i < out->nwrites; i++)
		if (out->writes[i] == code)
			return;
	if (out->nwrites < EMU_INSN_MAX_WRITES)
		out->writes[out->nwrites++] = (uint8_t)code;
}

/* The general-purpose register field at `shift`, where 31 is SP (base
 * registers) . */
static unsigned base_reg(uint32_t enc)
{
	return (enc >> 5) & 31;  /* 31 = SP = EMU_REG_SP */
}

/* Writeback and vector-structure facts straight from the encoding. Returns
 * 1 when the encoding is an AdvSIMD structure load/store (already handled). */
static int encoding_rules(uint32_t enc, struct emu_insn *out)
{
	/* load/store register, immediate post-index (..01) or pre-index (..11) */
	if ((enc & 0x3b200c00) == 0x38000400 || (enc & 0x3b200c00) == 0x38000c00)
		add_write(out, base_reg(enc));
	/* load/store pair, post-index or pre-index */
	if ((enc & 0x3b800000) == 0x28800000 || (enc & 0x3b800000) == 0x29800000)
		add_write(out, base_reg(enc));
	int multi = (enc & 0xbfbf0000) == 0x0c000000 || (enc & 0xbfa00000) == 0x0c800000;
	int single = (enc & 0xbf9f0000) == 0x0d000000 || (enc & 0xbf800000) == 0x0d800000;
	if (!multi && !single)
		return 0;
	int load = (enc >> 22) & 1;
	unsigned nregs;
	if (multi) {
		static const uint8_t count[16] = { 4, 0, 4, 0, 3, 0, 3, 1, 2, 0, 2 };
		nregs = count[(enc >> 12) & 15];
	} else {
		nregs = ((((enc >> 13) & 1) << 1) | ((enc >> 21) & 1)) + 1;
	}
	if (load)
		for (unsigned i = 0; i < nregs; i++)
			add_write(out, EMU_REG_V0 + (((enc & 31) + i) & 31));
	if (enc & 0x00800000) /* post-index form */
		add_write(out, base_reg(enc));
	out->simd_mem = 1;
	return 1;
}

/* MSR (register) to a system register we track. */
static unsigned msr_target(uint32_t enc)
{
	switch ((enc >> 5) & 0x7fff) {
	case 0x5a10: return EMU_REG_CPSR;   /* NZCV:      S3_3_C4_C2_0 */
	case 0x5a20: return EMU_REG_FPCR;   /* FPCR:      S3_3_C4_C4_0 */
	case 0x5a21: return EMU_REG_FPSR;   /* FPSR:      S3_3_C4_C4_1 */
	case 0x5e82: return EMU_REG_TPIDR;  /* TPIDR_EL0: S3_3_C13_C0_2 */
	}
	return EMU_REG_NONE;
}

static int in_list(const char *m, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(m, *list) == 0)
			return 1;
	return 0;
}

static int starts(const char *m, const char *prefix)
{
	return strncmp(m, prefix, strlen(prefix)) == 0;
}

static const char *const no_write[] = {
	"b", "br", "ret", "cbz", "cbnz", "tbz", "tbnz", "nop", "hint", "yield", "wfe", "wfi",
	"sev", "sevl", "dmb", "dsb", "isb", "clrex", "brk", "hlt", "sys", "dc", "ic", "at",
	"tlbi", "prfm", "prfum", "esb", "psb", "csdb", "bti", "udf", "hvc", "smc", "eret",
	NULL,
};
static const char *const flags_only[] = {
	"cmp", "cmn", "tst", "ccmp", "ccmn", "fcmp", "fcmpe", "fccmp", "fccmpe", "cfinv",
	"setf8", "setf16", "rmif", "axflag", "xaflag", NULL,
};
static const char *const flags_too[] = {
	"adds", "subs", "ands", "bics", "adcs", "sbcs", "negs", "ngcs", NULL,
};
static const char *const atomics[] = {
	"ldadd", "ldclr", "ldeor", "ldset", "ldsmax", "ldsmin", "ldumax", "ldumin", "swp", NULL,
};

#if defined(TRAWL_HAVE_CAPSTONE)
static unsigned op_reg(const struct emu_decoder *d, const cs_arm64_op *op)
{
	if (op->type != ARM64_OP_REG || op->reg <= 0 || op->reg >= ARM64_REG_ENDING)
		return EMU_REG_NONE;
	return d->reg_code[op->reg];
}

static int is_atomic(const char *m)
{
	for (const char *const *a = atomics; *a; a++)
		if (starts(m, *a))
			return 1;
	return 0;
}

/* The write set of one instruction, by the rules at the top of this file. The
 * order matters: encoding rules and the classes Capstone gets wrong (BL/BLR,
 * SVC, compares, MSR, atomics, CAS, stores) are decided before the general
 * rule "the first operand is written", which is only right for the rest.
 * Only registers read back after the instruction appear in its trace. */
static void classify(const struct emu_decoder *d, uint32_t enc, const cs_insn *in,
		     struct emu_insn *out)
{
	const char *m = in->mnemonic;
	const cs_arm64 *a = &in->detail->arm64;
	unsigned first = a->op_count > 0 ? op_reg(d, &a->operands[0]) : EMU_REG_NONE;
	int vector = 0;
	for (unsigned i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_REG && op_reg(d, &a->operands[i]) != EMU_REG_NONE &&
		    op_reg(d, &a->operands[i]) >= EMU_REG_V0)
			vector = 1;

	if (starts(m, "b.") || in_list(m, (const char *const[]){ "cbz", "cbnz", "tbz", "tbnz", NULL }))
		out->kind = EMU_INSN_COND_BRANCH;
	if (encoding_rules(enc, out))
		return;
	if (strcmp(m, "bl") == 0 || strcmp(m, "blr") == 0) {
		add_write(out, 30);
		return;
	}
	if (strcmp(m, "svc") == 0) {
		add_write(out, 0);
		return;
	}
	if (in_list(m, no_write))
		return;
	if (in_list(m, flags_only)) {
		add_write(out, EMU_REG_CPSR);
		out->fp = (uint8_t)vector;   /* FCMP may set IOC */
		return;
	}
	if ((enc & 0xfff00000) == 0xd5100000) {          /* MSR (register) */
		add_write(out, msr_target(enc));
		return;
	}
	if ((enc & 0xfff00000) == 0xd5000000)            /* MSR (immediate) and hints */
		return;
	if (is_atomic(m)) {                                 /* Rs, Rt, [Rn]: Rt gets the old value */
		if (a->op_count > 1)
			add_write(out, op_reg(d, &a->operands[1]));
		return;
	}
	if (starts(m, "cas")) {                             /* Rs gets the old value */
		add_write(out, first);
		if (starts(m, "casp") && first < 31)
			add_write(out, first + 1);
		return;
	}
	if (starts(m, "st")) {
		/* exclusive stores write their status register */
		if (starts(m, "stx") || starts(m, "stlx")) {
			add_write(out, first);
			out->no_reads = 1;
		}
		for (unsigned i = 0; i < a->op_count; i++)
			if (a->operands[i].type == ARM64_OP_REG) {
				/* xzr/wzr are EMU_REG_NONE (0xff), not a vector */
				unsigned r = op_reg(d, &a->operands[i]);
				if (r != EMU_REG_NONE && r >= EMU_REG_V0)
					out->simd_mem = 1;
			}
		return;
	}
	if (starts(m, "ld")) {
		for (unsigned i = 0; i < a->op_count && a->operands[i].type == ARM64_OP_REG; i++) {
			unsigned r = op_reg(d, &a->operands[i]);
			add_write(out, r);
			if (r != EMU_REG_NONE && r >= EMU_REG_V0)
				out->simd_mem = 1;
		}
		return;
	}
	add_write(out, first);
	if (in_list(m, flags_too))
		add_write(out, EMU_REG_CPSR);
	out->fp = (uint8_t)vector;
}
#endif

void emu_decode(struct emu_decoder *d, uint64_t pc, uint32_t enc, struct emu_insn *out,
		char *text, size_t textsz)
{
	memset(out, 0, sizeof *out);
	out->pc = pc;
	out->enc = enc;
	emu_memop_decode(enc, &out->mem);
#if defined(TRAWL_HAVE_CAPSTONE)
	uint8_t bytes[4] = { (uint8_t)enc, (uint8_t)(enc >> 8), (uint8_t)(enc >> 16),
			     (uint8_t)(enc >> 24) };
	const uint8_t *code = bytes;
	size_t size = 4;
	uint64_t addr = pc;
	if (d && cs_disasm_iter(d->cs, &code, &size, &addr, d->insn)) {
		trawl_disasm_join(text, textsz, d->insn->mnemonic, d->insn->op_str);
		classify(d, enc, d->insn, out);
		return;
	}
#endif
	out->kind = EMU_INSN_UNDEFINED;
	snprintf(text, textsz, ".inst    0x%08x ; undefined", enc);
}

/* Capstone's register ids are mapped to our codes once, by name rather than
 * by enum value, because the numbering differs between Capstone versions and
 * the library is loaded at run time. Registers with no code of ours (XZR,
 * system registers) map to EMU_REG_NONE and are never read back. */
enum trawl_status emu_decoder_create(struct emu_decoder **out, struct trawl_error *err)
{
	*out = NULL;
#if defined(TRAWL_HAVE_CAPSTONE)
	enum trawl_status st = trawl_disasm_load(err);
	if (st)
		return st;
	struct emu_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	d->nslots = 1 << 12;
	d->slots = calloc(d->nslots, sizeof *d->slots);
	if (!d->slots) {
		free(d);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->cs) != CS_ERR_OK) {
		free(d->slots);
		free(d);
		return trawl_error_set(err, TRAWL_ERR_INTERNAL, "cannot start Capstone for AArch64");
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		emu_decoder_destroy(d);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	/* Capstone register ids -> our codes, by name so the enum layout of the
	 * installed Capstone does not matter */
	for (unsigned r = 0; r < ARM64_REG_ENDING; r++) {
		const char *n = cs_reg_name(d->cs, r);
		unsigned code = EMU_REG_NONE;
		if (n && (n[0] == 'x' || n[0] == 'w') && n[1] >= '0' && n[1] <= '9')
			code = (unsigned)atoi(n + 1);
		else if (n && (strchr("vqdshb", n[0]) && n[1] >= '0' && n[1] <= '9'))
			code = EMU_REG_V0 + (unsigned)atoi(n + 1);
		else if (n && (strcmp(n, "sp") == 0 || strcmp(n, "wsp") == 0))
			code = EMU_REG_SP;
		else if (n && strcmp(n, "fp") == 0)
			code = 29;
		else if (n && strcmp(n, "lr") == 0)
			code = 30;
		if (code != EMU_REG_NONE && code > 30 && code != EMU_REG_SP &&
		    (code < EMU_REG_V0 || code >= EMU_REG_V0 + 32))
			code = EMU_REG_NONE;
		d->reg_code[r] = (uint8_t)code;
	}
	*out = d;
	return TRAWL_OK;
#else
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "built without Capstone");
#endif
}

void emu_decoder_destroy(struct emu_decoder *d)
{
	if (!d)
		return;
#if defined(TRAWL_HAVE_CAPSTONE)
	if (d->insn)
		cs_free(d->insn, 1);
	cs_close(&d->cs);
#endif
	while (d->arena) {
		struct arena *a = d->arena;
		d->arena = a->next;
		free(a);
	}
	free(d->slots);
	free(d);
}
