/* Register catalogue: names -> canonical storage registers (see reg.h). */
#include "trawl/reg.h"

#include <stdlib.h>
#include <string.h>

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* Case-insensitive prefix match of a whole word: name[0..len) == word. */
static int word_eq(const char *name, size_t len, const char *word)
{
	size_t n = strlen(word);
	if (n != len)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)name[i]) != word[i])
			return 0;
	return 1;
}

/* Parse a decimal register number in name[0..len), max two digits. */
static int reg_number(const char *s, size_t len, unsigned max, unsigned *out)
{
	unsigned v = 0;
	if (len == 0 || len > 2)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (len == 2 && s[0] == '0')
		return 0;
	if (v > max)
		return 0;
	*out = v;
	return 1;
}

static void set_ref(struct trawl_reg_ref *o, uint32_t reg, unsigned off, unsigned size,
		    unsigned zext)
{
	o->reg = reg;
	o->offset = (uint16_t)off;
	o->size = (uint16_t)size;
	o->zext = (uint16_t)zext;
}

/* Names with a banked suffix (r14_svc, SP_EL3, MSP_S): compare the part
 * before the first underscore. */
static size_t base_len(const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (name[i] == '_')
			return i;
	return len;
}

/* Registers known by a word: the stack pointers (SP, WSP, SP_ELn, MSP/PSP,
 * any banking), LR, PC, the status registers and the FP/SVE controls. A
 * word marked `banked` also matches with a suffix after '_' (SP_EL3,
 * MSP_S, lr_svc, cpsr_fsxc). AArch32 reads SP and LR as 32 bits (size32). */
static const struct named_reg {
	const char *word;
	uint8_t banked;
	uint8_t zext;
	uint16_t size64, size32;
	uint32_t reg64, reg32;
} named_regs[] = {
	{ "sp", 1, 0, 0, 4, TRAWL_REG_SP, TRAWL_REG_SP },
	{ "msp", 1, 0, 0, 4, TRAWL_REG_SP, TRAWL_REG_SP },
	{ "psp", 1, 0, 0, 4, TRAWL_REG_SP, TRAWL_REG_SP },
	{ "wsp", 0, 8, 4, 4, TRAWL_REG_SP, TRAWL_REG_SP },
	{ "lr", 1, 0, 0, 4, TRAWL_REG_X0 + 30, TRAWL_REG_X0 + 14 },
	{ "pc", 0, 0, 0, 0, TRAWL_REG_PC, TRAWL_REG_PC },
	{ "cpsr", 1, 0, 0, 0, TRAWL_REG_PSR, TRAWL_REG_PSR },
	{ "psr", 0, 0, 0, 0, TRAWL_REG_PSR, TRAWL_REG_PSR },
	{ "xpsr", 0, 0, 0, 0, TRAWL_REG_PSR, TRAWL_REG_PSR },
	{ "apsr", 0, 0, 0, 0, TRAWL_REG_PSR, TRAWL_REG_PSR },
	{ "nzcv", 0, 0, 0, 0, TRAWL_REG_PSR, TRAWL_REG_PSR },
	{ "fpsr", 0, 0, 4, 4, TRAWL_REG_FPSR, TRAWL_REG_FPSR },
	{ "fpcr", 0, 0, 0, 0, TRAWL_REG_FPCR, TRAWL_REG_FPCR },
	{ "fpscr", 0, 0, 4, 4, TRAWL_REG_FPSCR, TRAWL_REG_FPSCR },
	{ "ffr", 0, 0, 0, 0, TRAWL_REG_FFR, TRAWL_REG_FFR },
};

/* Registers named by a letter and a number (x3, d17, r14_svc): one setter
 * per letter, since each view lays its bytes out differently. */
static void set_x(struct trawl_reg_ref *o, unsigned n, int a32)
{
	(void)a32;
	set_ref(o, TRAWL_REG_X0 + n, 0, 8, 0);
}

static void set_w(struct trawl_reg_ref *o, unsigned n, int a32)
{
	(void)a32;
	set_ref(o, TRAWL_REG_X0 + n, 0, 4, 8);
}

/* AArch32 core registers: r13 is the stack pointer, r15 the PC */
static void set_r(struct trawl_reg_ref *o, unsigned n, int a32)
{
	(void)a32;
	uint32_t reg = n == 13 ? TRAWL_REG_SP : n == 15 ? TRAWL_REG_PC : TRAWL_REG_X0 + n;
	set_ref(o, reg, 0, 4, 0);
}

static void set_q(struct trawl_reg_ref *o, unsigned n, int a32)
{
	(void)a32;
	set_ref(o, TRAWL_REG_V0 + n, 0, 16, 0);
}

static void set_z(struct trawl_reg_ref *o, unsigned n, int a32)
{
	(void)a32;
	set_ref(o, TRAWL_REG_V0 + n, 0, 0, 0);
}

static void set_p(struct trawl_reg_ref *o, unsigned n, int a32)
{
	(void)a32;
	set_ref(o, TRAWL_REG_P0 + n, 0, 0, 0);
}

/* AArch32 d<n> is half of q<n/2> and s<n> a quarter; AArch64 scalar views
 * are the bottom of V<n> and a write clears the rest */
static void set_d(struct trawl_reg_ref *o, unsigned n, int a32)
{
	if (a32)
		set_ref(o, TRAWL_REG_V0 + n / 2, (n % 2) * 8, 8, 0);
	else
		set_ref(o, TRAWL_REG_V0 + n, 0, 8, 16);
}

static void set_s(struct trawl_reg_ref *o, unsigned n, int a32)
{
	if (a32)
		set_ref(o, TRAWL_REG_V0 + n / 4, (n % 4) * 4, 4, 0);
	else
		set_ref(o, TRAWL_REG_V0 + n, 0, 4, 16);
}

static void set_h(struct trawl_reg_ref *o, unsigned n, int a32)
{
	(void)a32;
	set_ref(o, TRAWL_REG_V0 + n, 0, 2, 16);
}

static void set_b(struct trawl_reg_ref *o, unsigned n, int a32)
{
	(void)a32;
	set_ref(o, TRAWL_REG_V0 + n, 0, 1, 16);
}

/* `banked`: the number ends at the first '_' (r14_svc); `a64_only`: no
 * AArch32 form. Some producers print E0..E30 for X registers. */
static const struct numbered_reg {
	char letter;
	uint8_t max, banked, a64_only;
	void (*set)(struct trawl_reg_ref *o, unsigned n, int a32);
} numbered_regs[] = {
	{ 'x', 30, 0, 0, set_x }, { 'e', 30, 0, 0, set_x }, { 'w', 30, 0, 0, set_w },
	{ 'r', 15, 1, 0, set_r }, { 'q', 31, 0, 0, set_q }, { 'v', 31, 0, 0, set_q },
	{ 'z', 31, 0, 0, set_z }, { 'p', 31, 0, 0, set_p }, { 'd', 31, 0, 0, set_d },
	{ 's', 31, 0, 0, set_s }, { 'h', 31, 0, 1, set_h }, { 'b', 31, 0, 1, set_b },
};

/* Every producer's spelling of a register maps to one storage register, an
 * offset and a size, so that "W3", "X3" and "R3" writes land in the same
 * bytes and queries see one history per register. The two tables above say
 * it once per view; the execution state decides the views that differ (D
 * and S registers, LR, SP's width); a name this does not know returns 0 and
 * the caller keeps it as a system register. */
int trawl_reg_parse(const char *name, size_t len, enum trawl_reg_state state,
		    struct trawl_reg_ref *out)
{
	size_t blen = base_len(name, len);
	int a32 = state == TRAWL_REG_STATE_A32;
	if (len == 0)
		return 0;
	for (size_t i = 0; i < sizeof named_regs / sizeof named_regs[0]; i++) {
		const struct named_reg *w = &named_regs[i];
		if (word_eq(name, w->banked ? blen : len, w->word)) {
			set_ref(out, a32 ? w->reg32 : w->reg64, 0, a32 ? w->size32 : w->size64, w->zext);
			return 1;
		}
	}
	if (len < 2)
		return 0;
	int c0 = lower((unsigned char)name[0]);
	for (size_t i = 0; i < sizeof numbered_regs / sizeof numbered_regs[0]; i++) {
		const struct numbered_reg *r = &numbered_regs[i];
		unsigned n;
		if (r->letter != c0)
			continue;
		if ((r->a64_only && a32) ||
		    !reg_number(name + 1, (r->banked ? blen : len) - 1, r->max, &n))
			return 0;
		r->set(out, n, a32);
		return 1;
	}
	return 0;
}

const char *trawl_reg_name(uint32_t reg)
{
	static const char *xn[31] = {
		"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",
		"x8",  "x9",  "x10", "x11", "x12", "x13", "x14", "x15",
		"x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
		"x24", "x25", "x26", "x27", "x28", "x29", "x30",
	};
	static const char *vn[32] = {
		"v0",  "v1",  "v2",  "v3",  "v4",  "v5",  "v6",  "v7",
		"v8",  "v9",  "v10", "v11", "v12", "v13", "v14", "v15",
		"v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
		"v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31",
	};
	static const char *pn[32] = {
		"p0",  "p1",  "p2",  "p3",  "p4",  "p5",  "p6",  "p7",
		"p8",  "p9",  "p10", "p11", "p12", "p13", "p14", "p15",
		"p16", "p17", "p18", "p19", "p20", "p21", "p22", "p23",
		"p24", "p25", "p26", "p27", "p28", "p29", "p30", "p31",
	};
	if (reg <= 30)
		return xn[reg];
	if (reg >= TRAWL_REG_V0 && reg < TRAWL_REG_V0 + 32)
		return vn[reg - TRAWL_REG_V0];
	if (reg >= TRAWL_REG_P0 && reg < TRAWL_REG_P0 + 32)
		return pn[reg - TRAWL_REG_P0];
	switch (reg) {
	case TRAWL_REG_SP: return "sp";
	case TRAWL_REG_PC: return "pc";
	case TRAWL_REG_PSR: return "psr";
	case TRAWL_REG_FPSR: return "fpsr";
	case TRAWL_REG_FPCR: return "fpcr";
	case TRAWL_REG_FPSCR: return "fpscr";
	case TRAWL_REG_FFR: return "ffr";
	default: return NULL;
	}
}

uint32_t trawl_reg_width(uint32_t reg)
{
	if (reg <= TRAWL_REG_PSR)
		return 8;
	if (reg == TRAWL_REG_FPSR || reg == TRAWL_REG_FPSCR)
		return 4;
	if (reg == TRAWL_REG_FPCR)
		return 8;
	if (reg >= TRAWL_REG_V0 && reg < TRAWL_REG_V0 + 32)
		return TRAWL_REG_V_BYTES;
	if ((reg >= TRAWL_REG_P0 && reg < TRAWL_REG_P0 + 32) || reg == TRAWL_REG_FFR)
		return TRAWL_REG_P_BYTES;
	if (reg >= TRAWL_REG_SYS_BASE)
		return TRAWL_REG_SYS_BYTES;
	return 0;
}

/* Storage is sized for the widest form a register can take (PSR: 8 bytes,
 * as Fast Models may print more than 32 bits; FPCR: 64-bit since Armv8.x;
 * system registers: 16 for 128-bit ones), while most traces write fewer
 * bytes (A64 "R cpsr 20000000", "R TPIDR_EL0" as 8). Tarmac writes these
 * registers whole, so bytes above the highest byte ever known were never
 * part of the value the trace uses: show the known width rounded up to a
 * power of two (at least 4, the narrowest such register), and keep ?? only
 * for unknown bytes inside that width. Core registers keep their
 * architectural width (X, SP, PC are 64-bit in AArch64, so an unknown upper
 * half there is a real unknown); vectors show whole 128-bit granules,
 * predicates whole 16-bit granules. */
uint32_t trawl_reg_shown_width(uint32_t reg, const uint8_t *known, uint32_t width, int a32)
{
	uint32_t w = width;
	if (a32 && reg <= TRAWL_REG_PC && w > 4)
		w = 4;
	uint32_t n = w;
	while (n && !known[n - 1])
		n--;
	if (!n)
		return 0;
	if (reg >= TRAWL_REG_V0 && reg < TRAWL_REG_V0 + 32)
		return (n + 15) / 16 * 16;
	if ((reg >= TRAWL_REG_P0 && reg < TRAWL_REG_P0 + 32) || reg == TRAWL_REG_FFR)
		return (n + 1) / 2 * 2;
	if (reg == TRAWL_REG_FPSR || reg == TRAWL_REG_FPSCR)
		return w < 4 ? w : 4;
	if (reg == TRAWL_REG_PSR || reg == TRAWL_REG_FPCR || reg >= TRAWL_REG_SYS_BASE) {
		uint32_t p = 4;
		while (p < n)
			p *= 2;
		return p < w ? p : w;
	}
	return w;
}

/* ---- interned system register names ---- */

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++) {
		h ^= (uint32_t)lower((unsigned char)s[i]);
		h *= 16777619u;
	}
	return h;
}

static int name_eq(const char *a, const char *b, size_t blen)
{
	size_t i;
	for (i = 0; i < blen; i++)
		if (a[i] == 0 || lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
			return 0;
	return a[i] == 0;
}

void trawl_reg_names_init(struct trawl_reg_names *t)
{
	memset(t, 0, sizeof *t);
}

void trawl_reg_names_release(struct trawl_reg_names *t)
{
	for (size_t i = 0; i < t->count; i++)
		free(t->names[i]);
	free(t->names);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

uint32_t trawl_reg_names_find(const struct trawl_reg_names *t, const char *name, size_t len)
{
	if (t->nslots == 0)
		return 0;
	size_t mask = t->nslots - 1;
	for (size_t i = name_hash(name, len) & mask;; i = (i + 1) & mask) {
		uint32_t s = t->slots[i];
		if (s == 0)
			return 0;
		if (name_eq(t->names[s - 1], name, len))
			return TRAWL_REG_SYS_BASE + s - 1;
	}
}

static int rehash(struct trawl_reg_names *t, size_t nslots)
{
	uint32_t *slots = calloc(nslots, sizeof *slots);
	if (!slots)
		return 0;
	for (size_t k = 0; k < t->count; k++) {
		size_t i = name_hash(t->names[k], strlen(t->names[k])) & (nslots - 1);
		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = (uint32_t)k + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 1;
}

uint32_t trawl_reg_names_intern(struct trawl_reg_names *t, const char *name, size_t len)
{
	uint32_t id = trawl_reg_names_find(t, name, len);
	if (id)
		return id;
	if ((t->count + 1) * 2 > t->nslots && !rehash(t, t->nslots ? t->nslots * 2 : 64))
		return 0;
	char **names = realloc(t->names, (t->count + 1) * sizeof *names);
	if (!names)
		return 0;
	t->names = names;
	char *copy = malloc(len + 1);
	if (!copy)
		return 0;
	memcpy(copy, name, len);
	copy[len] = 0;
	names[t->count] = copy;
	size_t i = name_hash(name, len) & (t->nslots - 1);
	while (t->slots[i])
		i = (i + 1) & (t->nslots - 1);
	t->slots[i] = (uint32_t)t->count + 1;
	t->count++;
	return TRAWL_REG_SYS_BASE + (uint32_t)t->count - 1;
}

const char *trawl_reg_state_name(uint32_t reg, int a32)
{
	/* AArch32 names the low halves of x0-x14 r0-r12 and lr (r13 is sp,
	 * kept in the SP storage register, and r15 is pc) */
	static const char *rn[15] = {
		"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7",
		"r8", "r9", "r10", "r11", "r12", "r13", "lr",
	};
	if (a32 && reg < 15)
		return rn[reg];
	return trawl_reg_name(reg);
}

const char *trawl_reg_names_get(const struct trawl_reg_names *t, uint32_t reg)
{
	if (reg >= TRAWL_REG_SYS_BASE) {
		if (t && reg - TRAWL_REG_SYS_BASE < t->count)
			return t->names[reg - TRAWL_REG_SYS_BASE];
		return "?";
	}
	const char *n = trawl_reg_name(reg);
	return n ? n : "?";
}
