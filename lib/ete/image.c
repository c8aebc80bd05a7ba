/* Program image for the instruction-flow decoder, and instruction
 * classification (which instructions end a traced block, and where direct
 * branches go).
 *
 * The image is a sorted list of disjoint memory regions (snapshot dumps,
 * ELF segments; where two overlap the first added keeps its bytes).
 * Lookups remember the last region hit, since consecutive fetches almost
 * always fall in the same one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef TRAWL_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "trawl/ete.h"
#include "trawl/event.h"
#include "trawl/image.h"
#include "trawl/number.h"

struct region {
	uint64_t addr;
	uint64_t len;
	uint8_t *data;
	char name[64];
};

struct trawl_ete_image {
	struct region *r;       /* sorted by address, never overlapping */
	size_t n, cap;
	size_t last;    /* index of the last region hit */
	uint64_t gen;   /* changes with every region added (caches check it) */
	unsigned conflicts;     /* additions whose bytes differed from earlier ones */
	char conflict[320];     /* the latest of them, described */
};

enum trawl_status trawl_ete_image_create(struct trawl_ete_image **out, struct trawl_error *err)
{
	*out = calloc(1, sizeof **out);
	return *out ? TRAWL_OK : trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
}

void trawl_ete_image_destroy(struct trawl_ete_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->n; i++)
		free(img->r[i].data);
	free(img->r);
	free(img);
}

size_t trawl_ete_image_regions(const struct trawl_ete_image *img)
{
	return img->n;
}

unsigned trawl_ete_image_conflicts(const struct trawl_ete_image *img, char *buf, size_t size)
{
	if (buf && size)
		snprintf(buf, size, "%s", img->conflicts ? img->conflict : "");
	return img->conflicts;
}

/* Region i becomes bytes [addr, addr+len) of data (copied). */
static enum trawl_status insert_piece(struct trawl_ete_image *img, size_t i, uint64_t addr,
				      const uint8_t *data, uint64_t len, const char *name,
				      struct trawl_error *err)
{
	if (img->n == img->cap) {
		size_t nc = img->cap ? img->cap * 2 : 8;
		void *nr = realloc(img->r, nc * sizeof *img->r);
		if (!nr)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		img->r = nr;
		img->cap = nc;
	}
	uint8_t *copy = malloc((size_t)len);
	if (!copy)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	memcpy(copy, data, (size_t)len);
	memmove(&img->r[i + 1], &img->r[i], (img->n - i) * sizeof *img->r);
	img->r[i].addr = addr;
	img->r[i].len = len;
	img->r[i].data = copy;
	snprintf(img->r[i].name, sizeof img->r[i].name, "%s", name ? name : "");
	img->n++;
	return TRAWL_OK;
}

/* The index of the first region starting above addr (n: none); regions
 * are sorted by start. */
static size_t first_above(const struct trawl_ete_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->r[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first region added wins where two overlap: a later one only fills
 * what is not yet covered. OpenCSD decides so too (its memory map refuses
 * an accessor that overlaps one it has, OCSD_ERR_MEM_ACC_OVERLAP), so a
 * snapshot's dumps decode alike in both. Keeping the regions disjoint
 * makes a lookup one bisection and a read of adjacent regions one copy.
 * Bytes that differ from those already there are counted as a conflict
 * (trawl_ete_image_conflicts), for the caller to warn about. */
enum trawl_status trawl_ete_image_add(struct trawl_ete_image *img, uint64_t addr,
				      const uint8_t *data, size_t len, const char *name,
				      struct trawl_error *err)
{
	if (len == 0)
		return TRAWL_OK;
	if (addr + len < addr)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "region at 0x%llx wraps the address space",
				       (unsigned long long)addr);
	uint64_t end = addr + len, pos = addr;
	/* the first region that ends after addr (ends are sorted too) */
	size_t lo = 0, hi = img->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->r[mid].addr + img->r[mid].len <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t i = lo;
	int differs = 0;
	uint64_t diff_at = 0;
	char other[64] = "";
	while (pos < end) {
		const struct region *r = i < img->n ? &img->r[i] : NULL;
		if (r && r->addr <= pos) { /* covered already: compare */
			uint64_t e = r->addr + r->len < end ? r->addr + r->len : end;
			const uint8_t *mine = data + (pos - addr), *theirs = r->data + (pos - r->addr);
			if (!differs && memcmp(mine, theirs, (size_t)(e - pos))) {
				size_t k = 0;
				while (mine[k] == theirs[k])
					k++;
				differs = 1;
				diff_at = pos + k;
				snprintf(other, sizeof other, "%s", r->name);
			}
			pos = e;
			i++;
			continue;
		}
		uint64_t e = r && r->addr < end ? r->addr : end;
		enum trawl_status st = insert_piece(img, i, pos, data + (pos - addr), e - pos, name, err);
		if (st)
			return st;
		i++;
		pos = e;
	}
	if (differs) {
		img->conflicts++;
		snprintf(img->conflict, sizeof img->conflict,
			 "'%s' (0x%llx-0x%llx) holds other bytes than '%s', added before it, from 0x%llx: "
			 "the first one's are used", name ? name : "", (unsigned long long)addr,
			 (unsigned long long)(end - 1), other, (unsigned long long)diff_at);
	}
	img->last = 0;
	img->gen++;
	return TRAWL_OK;
}

uint64_t trawl_ete_image_generation(const struct trawl_ete_image *img)
{
	return img ? img->gen : 0;
}

enum trawl_status trawl_ete_image_add_file(struct trawl_ete_image *img, const char *path,
					   uint64_t addr, uint64_t offset, uint64_t len,
					   struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	uint8_t *buf = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	struct stat sb;
	if (fstat(fileno(f), &sb) != 0) {
		st = trawl_error_errno(err, errno, "cannot stat '%s'", path);
		goto out;
	}
	uint64_t size = (uint64_t)sb.st_size;
	if (offset > size) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s': offset 0x%llx beyond its %llu bytes",
				     path, (unsigned long long)offset, (unsigned long long)size);
		goto out;
	}
	if (len == 0 || len > size - offset)
		len = size - offset; /* snapshots may give a length longer than the file */
	if (len > (1ull << 32)) {
		st = trawl_error_set(err, TRAWL_ERR_LIMIT, "'%s': region too large", path);
		goto out;
	}
	buf = malloc(len ? len : 1);
	if (!buf) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (fseek(f, (long)offset, SEEK_SET) != 0 || fread(buf, 1, len, f) != len) {
		st = trawl_error_errno(err, errno, "cannot read '%s'", path);
		goto out;
	}
	const char *base = strrchr(path, '/');
	st = trawl_ete_image_add(img, addr, buf, len, base ? base + 1 : path, err);
out:
	free(buf);
	fclose(f);
	return st;
}

enum trawl_status trawl_ete_image_add_elf(struct trawl_ete_image *img, const char *path,
					  uint64_t bias, struct trawl_error *err)
{
#ifdef TRAWL_HAVE_LIBELF
	enum trawl_status st = TRAWL_OK;
	Elf *e = NULL;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph) != 0) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is not an ELF file", path);
		goto out;
	}
	int added = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		st = trawl_ete_image_add_file(img, path, ph.p_vaddr + bias, ph.p_offset,
					      ph.p_filesz, err);
		if (st != TRAWL_OK)
			goto out;
		added++;
	}
	if (!added)
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' has no loadable segments", path);
out:
	if (e)
		elf_end(e);
	close(fd);
	return st;
#else
	(void)img;
	(void)bias;
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "'%s': built without libelf", path);
#endif
}

static const struct region *find(const struct trawl_ete_image *img, uint64_t addr)
{
	struct trawl_ete_image *m = (struct trawl_ete_image *)img;
	if (m->last < m->n) {
		const struct region *r = &m->r[m->last];
		if (addr >= r->addr && addr - r->addr < r->len)
			return r;
	}
	/* the last region starting at or below addr is the only one that can
	 * hold it: regions do not overlap */
	size_t lo = first_above(m, addr);
	if (lo == 0 || addr - m->r[lo - 1].addr >= m->r[lo - 1].len)
		return NULL;
	m->last = lo - 1;
	return &m->r[lo - 1];
}

/* Regions that touch read as one: a later dump split around an earlier
 * one still gives whole instructions across the seam. */
size_t trawl_ete_image_read(const struct trawl_ete_image *img, uint64_t addr, uint8_t *out,
			    size_t n)
{
	size_t done = 0;
	while (done < n) {
		const struct region *r = find(img, addr + done);
		if (!r)
			break;
		uint64_t avail = r->len - (addr + done - r->addr);
		size_t k = avail < n - done ? (size_t)avail : n - done;
		memcpy(out + done, r->data + (addr + done - r->addr), k);
		done += k;
		if (addr + done < addr)
			break;
	}
	return done;
}

/* The lowest region start above addr (UINT64_MAX: none): where a read
 * can succeed next after addr found nothing. */
static uint64_t next_start(const struct trawl_ete_image *img, uint64_t addr)
{
	size_t lo = first_above(img, addr);
	return lo < img->n ? img->r[lo].addr : UINT64_MAX;
}

size_t trawl_ete_image_fill(const struct trawl_ete_image *img, uint64_t addr, size_t len,
			    uint8_t *val, uint8_t *known)
{
	size_t filled = 0, i = 0;
	uint8_t buf[256];
	while (img && i < len) {
		size_t want = len - i < sizeof buf ? len - i : sizeof buf;
		size_t got = trawl_ete_image_read(img, addr + i, buf, want);
		if (!got) {
			/* a hole: jump to the next region rather than byte by byte */
			uint64_t next = next_start(img, addr + i);
			if (next == UINT64_MAX || next - addr >= len)
				break;
			i = (size_t)(next - addr);
			continue;
		}
		for (size_t k = 0; k < got; k++, i++)
			if (!(known[i / 8] >> (i % 8) & 1)) {
				val[i] = buf[k];
				known[i / 8] |= (uint8_t)(1u << (i % 8));
				filled++;
			}
	}
	return filled;
}

unsigned trawl_ete_insn_fetch(const struct trawl_ete_image *img, uint64_t pc, int iset,
			      uint32_t *enc)
{
	uint8_t b[4];
	if (iset == TRAWL_ISET_T32) {
		if (trawl_ete_image_read(img, pc, b, 2) < 2)
			return 0;
		uint32_t h1 = (uint32_t)b[0] | ((uint32_t)b[1] << 8);
		if ((h1 >> 11) < 0x1d) {
			*enc = h1;
			return 2;
		}
		if (trawl_ete_image_read(img, pc + 2, b + 2, 2) < 2)
			return 0;
		*enc = h1 | (((uint32_t)b[2] | ((uint32_t)b[3] << 8)) << 16);
		return 4;
	}
	if (trawl_ete_image_read(img, pc, b, 4) < 4)
		return 0;
	*enc = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
	return 4;
}

unsigned trawl_ete_range_next(const struct trawl_ete_image *img, const struct trawl_ete_elem *e,
			      uint32_t done, uint64_t *pc, uint32_t *enc)
{
	if (done >= e->count || *pc >= e->end)
		return 0;
	unsigned size = trawl_ete_insn_fetch(img, *pc, e->isa, enc);
	if (e->isa == TRAWL_ISET_T32 && size == 4)
		*enc = *enc >> 16 | *enc << 16;
	*pc += size;
	return size;
}

static inline int64_t sext(uint64_t v, int bits)
{
	uint64_t m = 1ull << (bits - 1);
	v &= (1ull << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

/* One chain of mask tests over the A64 branch, exception-return and
 * barrier encodings, each a few lines: whatever matches none of them is an
 * ordinary instruction. Kept as one chain so the order of precedence (the
 * wider CMPBR and PAuth_LR spaces before branch-to-register) is visible. */
static void classify_a64(uint32_t i, uint64_t pc, int is_ete, struct trawl_ete_insn_info *o)
{
	if ((i & 0x7c000000) == 0x14000000) { /* B, BL */
		o->cls = TRAWL_ETE_INSN_BR;
		o->target = pc + (uint64_t)(sext(i, 26) * 4);
		if (i & 0x80000000)
			o->flags |= TRAWL_ETE_INSN_LINK;
	} else if ((i & 0xff000000) == 0x54000000) { /* B.cond, BC.cond */
		o->cls = TRAWL_ETE_INSN_BR;
		o->flags |= TRAWL_ETE_INSN_COND;
		o->target = pc + (uint64_t)(sext(i >> 5, 19) * 4);
	} else if ((i & 0x7e000000) == 0x34000000) { /* CBZ, CBNZ */
		o->cls = TRAWL_ETE_INSN_BR;
		o->flags |= TRAWL_ETE_INSN_COND;
		o->target = pc + (uint64_t)(sext(i >> 5, 19) * 4);
	} else if ((i & 0x7e000000) == 0x36000000) { /* TBZ, TBNZ */
		o->cls = TRAWL_ETE_INSN_BR;
		o->flags |= TRAWL_ETE_INSN_COND;
		o->target = pc + (uint64_t)(sext(i >> 5, 14) * 4);
	} else if ((i & 0x7e000000) == 0x74000000 &&
		   ((i & 0x01000000) ? !(i & 0x4000) : (i & 0xc000) != 0x4000)) {
		/* FEAT_CMPBR CB<cc>, CBB<cc>, CBH<cc> (register, immediate) */
		o->cls = TRAWL_ETE_INSN_BR;
		o->flags |= TRAWL_ETE_INSN_COND;
		o->target = pc + (uint64_t)(sext(i >> 5, 9) * 4);
	} else if ((i & 0xffc0001f) == 0x5500001f) {
		/* FEAT_PAuth_LR RETAASPPC, RETABSPPC: returns (the label is the
		 * authentication modifier, not a target) */
		o->cls = TRAWL_ETE_INSN_IBR;
		o->flags |= TRAWL_ETE_INSN_RET;
	} else if ((i & 0xfe000000) == 0xd6000000) { /* branch to register */
		uint32_t opc = (i >> 21) & 0xf;
		switch (opc & 7) {
		case 0: o->cls = TRAWL_ETE_INSN_IBR; break;
		case 1: o->cls = TRAWL_ETE_INSN_IBR; o->flags |= TRAWL_ETE_INSN_LINK; break;
		case 2: o->cls = TRAWL_ETE_INSN_IBR; o->flags |= TRAWL_ETE_INSN_RET; break;
		case 4: o->cls = TRAWL_ETE_INSN_IBR; o->flags |= TRAWL_ETE_INSN_ERET; break;
		case 5: o->cls = TRAWL_ETE_INSN_IBR; break; /* DRPS */
		default: break;
		}
		if ((i & 0xfffffbff) == 0xd6ff03e0) { /* FEAT_TEV TEXIT {NB}: exception-like return */
			o->cls = TRAWL_ETE_INSN_IBR;
			o->flags |= TRAWL_ETE_INSN_ERET;
		}
	} else if ((i & 0xfffff0ff) == 0xd50330df) {
		o->cls = TRAWL_ETE_INSN_ISB;
	} else if (is_ete && ((i & 0xffffffdf) == 0xd503205f || (i & 0xffffffc0) == 0xd5031000)) {
		o->cls = TRAWL_ETE_INSN_WFI; /* WFE/WFI, WFET/WFIT */
	} else if (is_ete && (i & 0xffffffe0) == 0xd5233060) {
		o->cls = TRAWL_ETE_INSN_TSTART;
	}
}

/* Only what the flow decoder needs from an A32 word: whether it is a P0
 * instruction (branch, ISB, WFI in ETE), its direct target, and link/return
 * hints for the return stack. Any write to pc is an indirect branch (LDR, LDM,
 * data processing) except TST/TEQ/CMP/CMN (ops 8-11), which set flags only.
 * The unconditional space (cond 0xf) holds BLX imm, which goes to Thumb. */
static void classify_a32(uint32_t i, uint64_t pc, int is_ete, struct trawl_ete_insn_info *o)
{
	uint32_t cond = i >> 28;
	if (cond != 0xe && cond != 0xf)
		o->flags |= TRAWL_ETE_INSN_COND;
	if (cond == 0xf) {
		if ((i & 0xfe000000) == 0xfa000000) { /* BLX imm: to Thumb */
			o->cls = TRAWL_ETE_INSN_BR;
			o->flags |= TRAWL_ETE_INSN_LINK | TRAWL_ETE_INSN_XISA;
			o->target = pc + 8 + (uint64_t)(sext(i, 24) * 4) + ((i >> 23) & 2);
		} else if ((i & 0xfffffff0) == 0xf57ff060) {
			o->cls = TRAWL_ETE_INSN_ISB;
		}
		return;
	}
	if ((i & 0x0e000000) == 0x0a000000) { /* B, BL */
		o->cls = TRAWL_ETE_INSN_BR;
		o->target = pc + 8 + (uint64_t)(sext(i, 24) * 4);
		if (i & 0x01000000)
			o->flags |= TRAWL_ETE_INSN_LINK;
	} else if ((i & 0x0ffffff0) == 0x012fff10 || (i & 0x0ffffff0) == 0x012fff30) { /* BX, BLX */
		o->cls = TRAWL_ETE_INSN_IBR;
		if (i & 0x20)
			o->flags |= TRAWL_ETE_INSN_LINK;
		else if ((i & 0xf) == 14)
			o->flags |= TRAWL_ETE_INSN_RET;
	} else if ((i & 0x0c50f000) == 0x0410f000) { /* LDR pc */
		o->cls = TRAWL_ETE_INSN_IBR;
		if (((i >> 16) & 0xf) == 13)
			o->flags |= TRAWL_ETE_INSN_RET;
	} else if ((i & 0x0e108000) == 0x08108000) { /* LDM with pc */
		o->cls = TRAWL_ETE_INSN_IBR;
		if (((i >> 16) & 0xf) == 13)
			o->flags |= TRAWL_ETE_INSN_RET;
	} else if ((i & 0x0c00f000) == 0x0000f000 && !((i & 0x01900000) == 0x01000000) &&
		   !((i & 0x0e000090) == 0x00000090)) { /* data processing to pc */
		uint32_t op = (i >> 21) & 0xf;
		if (!(op >= 8 && op <= 11)) {
			o->cls = TRAWL_ETE_INSN_IBR;
			if (op == 13 && (i & 0x0200000f) == 0x0000000e)
				o->flags |= TRAWL_ETE_INSN_RET; /* MOV pc, lr */
		}
	} else if (is_ete && ((i & 0x0ffffffe) == 0x0320f002)) {
		o->cls = TRAWL_ETE_INSN_WFI;
	}
}

/* Armv8.1-M low-overhead loops and branch future, the T32 space where BLX
 * imm would have bit 0 set (undefined): WLS/WLSTP branch forward when the
 * count is zero, LE/LETP back while it is not, LE without LR always; DLS,
 * DLSTP, LCTP and BF* are not branches. LE has Rn = 15, so it is matched
 * before WLSTP. Offset: immh (bits 10:1), imml (bit 11), times 2. */
static void classify_t32_lob(uint32_t h1, uint32_t h2, uint64_t pc, struct trawl_ete_insn_info *o)
{
	uint32_t w = (h1 << 16) | h2;
	uint64_t off = ((uint64_t)((h2 >> 1) & 0x3ff) << 2) | ((uint64_t)((h2 >> 11) & 1) << 1);
	if ((w & 0xffeff001) == 0xf00fc001 || (w & 0xfffff001) == 0xf02fc001) {
		o->cls = TRAWL_ETE_INSN_BR;
		if ((w & 0xfffff001) != 0xf02fc001)
			o->flags |= TRAWL_ETE_INSN_COND;
		o->target = pc + 4 - off;
	} else if ((w & 0xfff0f001) == 0xf040c001 || (w & 0xffc0f001) == 0xf000c001) {
		o->cls = TRAWL_ETE_INSN_BR;
		o->flags |= TRAWL_ETE_INSN_COND;
		o->target = pc + 4 + off;
	}
}

/* A T32 instruction arrives as one 32-bit value, first halfword low. That
 * halfword alone gives the size (top five bits 0b11101 or above: 32-bit),
 * so size is set before anything else and the walker can always step by it.
 * Branch immediates rebuild I1/I2 from J1/J2 and S as the ARM ARM does; BLX
 * aligns pc down to 4, since its target is A32. */
static void classify_t32(uint32_t enc, uint64_t pc, int is_ete, struct trawl_ete_insn_info *o)
{
	uint32_t h1 = enc & 0xffff, h2 = enc >> 16;
	if ((h1 >> 11) < 0x1d) {
		o->size = 2;
		if ((h1 & 0xf000) == 0xd000 && ((h1 >> 8) & 0xf) < 0xe) {
			o->cls = TRAWL_ETE_INSN_BR;
			o->flags |= TRAWL_ETE_INSN_COND;
			o->target = pc + 4 + (uint64_t)(sext(h1, 8) * 2);
		} else if ((h1 & 0xf800) == 0xe000) {
			o->cls = TRAWL_ETE_INSN_BR;
			o->target = pc + 4 + (uint64_t)(sext(h1, 11) * 2);
		} else if ((h1 & 0xf500) == 0xb100) { /* CBZ, CBNZ */
			o->cls = TRAWL_ETE_INSN_BR;
			o->flags |= TRAWL_ETE_INSN_COND;
			o->target = pc + 4 + ((((h1 >> 9) & 1) << 6) | (((h1 >> 3) & 0x1f) << 1));
		} else if ((h1 & 0xff00) == 0x4700) { /* BX, BLX */
			o->cls = TRAWL_ETE_INSN_IBR;
			if (h1 & 0x80)
				o->flags |= TRAWL_ETE_INSN_LINK;
			else if (((h1 >> 3) & 0xf) == 14)
				o->flags |= TRAWL_ETE_INSN_RET;
		} else if ((h1 & 0xff00) == 0xbd00) { /* POP {..., pc} */
			o->cls = TRAWL_ETE_INSN_IBR;
			o->flags |= TRAWL_ETE_INSN_RET;
		} else if ((h1 & 0xff87) == 0x4687 || (h1 & 0xff87) == 0x4487) { /* MOV/ADD pc */
			o->cls = TRAWL_ETE_INSN_IBR;
		} else if (is_ete && (h1 == 0xbf20 || h1 == 0xbf30)) {
			o->cls = TRAWL_ETE_INSN_WFI;
		}
		return;
	}
	o->size = 4;
	if (((h1 << 16 | h2) & 0xf800d001) == 0xf000c001) {
		classify_t32_lob(h1, h2, pc, o);
		return;
	}
	if ((h1 & 0xf800) == 0xf000 && (h2 & 0x8000)) {
		uint32_t s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
		uint32_t op = h2 & 0xd000;
		if (op == 0x8000) {
			if (((h1 >> 7) & 7) != 7) { /* B<c>.W */
				uint64_t imm = (s << 20) | (j2 << 19) | (j1 << 18) |
					       ((h1 & 0x3f) << 12) | ((h2 & 0x7ff) << 1);
				o->cls = TRAWL_ETE_INSN_BR;
				o->flags |= TRAWL_ETE_INSN_COND;
				o->target = pc + 4 + (uint64_t)sext(imm, 21);
			} else if ((h1 & 0xfff0) == 0xf3b0 && (h2 & 0xfff0) == 0x8f60) {
				o->cls = TRAWL_ETE_INSN_ISB;
			} else if (h1 == 0xf3de && (h2 & 0xff00) == 0x8f00) {
				o->cls = TRAWL_ETE_INSN_IBR; /* SUBS pc, lr */
				o->flags |= TRAWL_ETE_INSN_ERET;
			} else if (is_ete && h1 == 0xf3af && (h2 == 0x8002 || h2 == 0x8003)) {
				o->cls = TRAWL_ETE_INSN_WFI;
			}
			return;
		}
		uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
		uint64_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((h1 & 0x3ff) << 12) |
			       ((h2 & 0x7ff) << 1);
		int64_t off = sext(imm, 25);
		o->cls = TRAWL_ETE_INSN_BR;
		if (op == 0x9000) {
			o->target = pc + 4 + (uint64_t)off;
		} else if (op == 0xd000) {
			o->flags |= TRAWL_ETE_INSN_LINK;
			o->target = pc + 4 + (uint64_t)off;
		} else { /* BLX imm: to A32 */
			o->flags |= TRAWL_ETE_INSN_LINK | TRAWL_ETE_INSN_XISA;
			o->target = ((pc + 4) & ~3ull) + (uint64_t)off;
		}
		return;
	}
	if ((h1 & 0xfe50) == 0xe810 && (h2 & 0x8000)) { /* LDM with pc */
		o->cls = TRAWL_ETE_INSN_IBR;
		if ((h1 & 0xf) == 13)
			o->flags |= TRAWL_ETE_INSN_RET;
	} else if (((h1 & 0xfff0) == 0xf8d0 || (h1 & 0xfff0) == 0xf850) && (h2 >> 12) == 0xf) {
		o->cls = TRAWL_ETE_INSN_IBR; /* LDR pc */
		if ((h1 & 0xf) == 13)
			o->flags |= TRAWL_ETE_INSN_RET;
	} else if ((h1 & 0xfff0) == 0xe8d0 && (h2 & 0xffe0) == 0xf000) {
		o->cls = TRAWL_ETE_INSN_IBR; /* TBB, TBH */
	}
}

void trawl_ete_insn_classify(uint32_t enc, int iset, uint64_t pc, int is_ete,
			     struct trawl_ete_insn_info *info)
{
	info->cls = TRAWL_ETE_INSN_OTHER;
	info->flags = 0;
	info->size = 4;
	info->target = 0;
	if (iset == TRAWL_ISET_T32)
		classify_t32(enc, pc, is_ete, info);
	else if (iset == TRAWL_ISET_A32)
		classify_a32(enc, pc, is_ete, info);
	else
		classify_a64(enc, pc, is_ete, info);
}

enum trawl_status trawl_ete_image_spec_parse(const char *spec, char *path, size_t size,
					     uint64_t *addr, int *is_elf, struct trawl_error *err)
{
	const char *eq = strchr(spec, '=');
	*is_elf = 1;
	if (eq && (size_t)(eq - spec) < 32) {
		char num[32];
		memcpy(num, spec, (size_t)(eq - spec));
		num[eq - spec] = 0;
		if (trawl_u64_parse(num, addr)) {
			*is_elf = 0;
			if (strlen(eq + 1) >= size)
				return trawl_error_set(err, TRAWL_ERR_USAGE, "image path too long");
			memcpy(path, eq + 1, strlen(eq + 1) + 1);
			return TRAWL_OK;
		}
	}
	return trawl_image_spec_parse(spec, path, size, addr, err);
}

enum trawl_status trawl_ete_image_add_spec(struct trawl_ete_image *img, const char *spec,
					   struct trawl_error *err)
{
	char path[4096];
	uint64_t addr;
	int elf;
	enum trawl_status st = trawl_ete_image_spec_parse(spec, path, sizeof path, &addr, &elf, err);
	if (st)
		return st;
	return elf ? trawl_ete_image_add_elf(img, path, addr, err)
		   : trawl_ete_image_add_file(img, path, addr, 0, 0, err);
}
