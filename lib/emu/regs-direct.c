/* Reading X0-X30, SP and NZCV straight from Unicorn's CPU state.
 *
 * The trace writer reads about one register per instruction; through
 * uc_reg_read that is five calls deep (our switch, the lazy stub,
 * uc_reg_read, uc_reg_read_batch, the architecture's reg_read) and cost
 * about 7 ns, a sixth of the whole per-instruction budget. Unicorn keeps
 * the general-purpose registers as 32 consecutive 64-bit words (QEMU's
 * CPUARMState.xregs, SP as xregs[31]) inside its CPU object, which it
 * does not expose, so they are found once per run: distinct values are
 * written with uc_reg_write and looked for in the memory the engine's
 * own pointers lead to, then a second set of values confirms the place.
 * When anything does not match (another Unicorn, another layout) the
 * emulator keeps using uc_reg_read; the result is the same either way,
 * uc_reg_read reads the very same words.
 *
 * Only readable anonymous mappings (and the heap) named by
 * /proc/self/maps are read, so the search cannot fault.
 */
#include <stdio.h>
#include <string.h>

#include "emu/emu-int.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

#define MAX_MAPS 256
#define WINDOW ((uintptr_t)256 << 10)   /* how far past a pointer to look */
#define UC_WORDS 2048                  /* words of the engine struct to follow */
#define FLAG_WORDS 256                 /* 32-bit words after X0-SP holding NZCV */

struct span {
	uintptr_t lo, hi;
};

/* The readable private anonymous mappings (and [heap]) below 1 GiB each. */
static unsigned read_maps(struct span *s, unsigned cap)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	char line[512];
	unsigned n = 0;
	while (n < cap && fgets(line, sizeof line, f)) {
		unsigned long lo, hi, inode;
		char perms[8], path[256] = "";
		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %255s", &lo, &hi, perms, &inode, path) < 4)
			continue;
		if (perms[0] != 'r' || perms[3] != 'p' || hi - lo > (1ul << 30))
			continue;
		if (inode != 0 || (path[0] && strcmp(path, "[heap]") != 0))
			continue;
		s[n++] = (struct span){ lo, hi };
	}
	fclose(f);
	return n;
}

static const struct span *span_of(const struct span *s, unsigned n, uintptr_t a)
{
	for (unsigned i = 0; i < n; i++)
		if (a >= s[i].lo && a < s[i].hi)
			return &s[i];
	return NULL;
}

static int uc_id(unsigned i)
{
	return i < 29 ? UC_ARM64_REG_X0 + (int)i : i == 29 ? UC_ARM64_REG_X29
	       : i == 30 ? UC_ARM64_REG_X30 : UC_ARM64_REG_SP;
}

static void put_all(uc_engine *uc, const uint64_t *v)
{
	for (unsigned i = 0; i < 32; i++)
		uc_reg_write(uc, uc_id(i), &v[i]);
}

/* The search reads past the ends of Unicorn's allocations on purpose
 * (inside readable mappings only): AddressSanitizer must not check it,
 * and it compares by hand, since ASan's memcmp would check anyway. */
#if defined(__GNUC__)
#define NO_ASAN __attribute__((no_sanitize_address, noinline))
#else
#define NO_ASAN
#endif

/* Where the 32 words `pat` are, at a pointer's distance from the engine. */
NO_ASAN static const uint64_t *search(uc_engine *uc, const struct span *s, unsigned n,
				      const uint64_t *pat)
{
	const struct span *home = span_of(s, n, (uintptr_t)uc);
	if (!home)
		return NULL;
	const uintptr_t *w = (const uintptr_t *)(void *)uc;
	size_t words = (home->hi - (uintptr_t)uc) / sizeof *w;
	if (words > UC_WORDS)
		words = UC_WORDS;
	for (size_t k = 0; k < words; k++) {
		const struct span *t = span_of(s, n, w[k]);
		if (!t || w[k] % 8)
			continue;
		uintptr_t end = t->hi - w[k] > WINDOW ? w[k] + WINDOW : t->hi;
		for (uintptr_t a = w[k]; a + 32 * 8 <= end; a += 8) {
			const uint64_t *x = (const uint64_t *)a;
			unsigned i = 0;
			while (i < 32 && x[i] == pat[i])
				i++;
			if (i == 32)
				return x;
		}
	}
	return NULL;
}

/* Which 32-bit word after the registers changes, alone but for word
 * `ignore`, when NZCV goes from 0 to `bit`; -1 when none or several do. */
static int flag_word(struct trawl_emu *e, const uint32_t *w, uint32_t bit, int ignore)
{
	uint32_t zero = 0, before[FLAG_WORDS];
	uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &zero);
	memcpy(before, w, sizeof before);
	uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &bit);
	int found = -1;
	for (int i = 0; i < FLAG_WORDS; i++) {
		if (w[i] == before[i] || i == ignore)
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	return found;
}

/* QEMU keeps NZCV as four words (N and V in bit 31 of theirs, Z as a
 * word that is 0 when Z is set, C as 0 or 1: QEMU's target/arm/cpu.h). The words are found by
 * setting one flag at a time, and the reading is checked against
 * uc_reg_read for all 16 values before it is used. */
static void locate_flags(struct trawl_emu *e, const struct span *home)
{
	const uint32_t *w = (const uint32_t *)(const void *)(e->xregs + 32);
	uint32_t save = 0;
	e->flagw = NULL;
	if ((uintptr_t)(w + FLAG_WORDS) > home->hi)
		return;
	uc_reg_read(e->uc, UC_ARM64_REG_NZCV, &save);
	/* N's word is the whole value written (only its bit 31 counts), so it
	 * changes with every flag */
	int k[4];
	k[0] = flag_word(e, w, UINT32_C(0x80000000), -1);
	for (int f = 1; f < 4; f++)
		k[f] = flag_word(e, w, UINT32_C(0x80000000) >> f, k[0]);
	int ok = k[0] >= 0 && k[1] >= 0 && k[2] >= 0 && k[3] >= 0;
	if (ok) {
		e->flagw = w;
		memcpy(e->flagk, k, sizeof k);
	}
	for (uint32_t v = 0; ok && v < 16; v++) {
		uint32_t want = v << 28, got = 0;
		uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &want);
		uc_reg_read(e->uc, UC_ARM64_REG_NZCV, &got);
		ok = (got & 0xf0000000u) == want && emu_nzcv_direct(e) == want;
	}
	if (!ok)
		e->flagw = NULL;
	e->flag4 = NULL;
	if (e->flagw && k[1] == k[2] + 3 && k[0] == k[2] + 2 && k[3] == k[2] + 1)
		e->flag4 = w + k[2];
	uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &save);
}

/* Find the registers; e->xregs stays NULL when they cannot be found. */
void emu_regs_locate(struct trawl_emu *e)
{
	uint64_t save[32], pat[32], pat2[32];
	struct span s[MAX_MAPS];
	e->xregs = NULL;
	/* the first register access makes Unicorn build its CPU: read the
	 * mappings after it */
	for (unsigned i = 0; i < 32; i++) {
		uc_reg_read(e->uc, uc_id(i), &save[i]);
		pat[i] = UINT64_C(0x6b1d3e5f7a9c2e40) ^ (i * UINT64_C(0x9e3779b97f4a7c15));
		pat2[i] = ~pat[i] * UINT64_C(0xff51afd7ed558ccd);
	}
	pat[31] &= ~(uint64_t)15;   /* SP: keep it plausible */
	pat2[31] &= ~(uint64_t)15;
	unsigned n = read_maps(s, MAX_MAPS);
	if (!n)
		return;
	put_all(e->uc, pat);
	const uint64_t *x = search(e->uc, s, n, pat);
	if (x) {
		put_all(e->uc, pat2);
		if (memcmp(x, pat2, sizeof pat2) == 0)
			e->xregs = x;
	}
	put_all(e->uc, save);
	if (e->xregs)
		locate_flags(e, span_of(s, n, (uintptr_t)e->xregs));
}

#endif
