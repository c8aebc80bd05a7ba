/* The index builder: event batches in, an index file (format.h) out.
 *
 * One pass over the events. Per event it appends a fixed-size record to the
 * event spool and the event's register and memory effects to the delta
 * spool; it keeps the current register files and memory (64-byte blocks in
 * a hash table) so that every K events it can write a checkpoint of the
 * register files and a snapshot of each block written since the last one.
 * Write lists, snapshots and by-PC pairs go to external sorters. finish()
 * assembles the sections into a temporary file and renames it into place.
 *
 * Memory use: sorter buffers (bounded) + the state of the memory the trace
 * touched (its footprint, not its length).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xxhash.h>

#include "core/grow.h"
#include "index/evpack.h"
#include "index/format.h"
#include "index/spool.h"
#include "index/sw.h"
#include "index/zblock.h"
#include "trawl/index.h"

#define NONE32 UINT32_MAX
#define MAX_CPUS 4096u
#define MAX_SYSREGS 65536u

/* One 64-byte block of memory as it is now. */
struct mblock {
	uint64_t addr;
	uint64_t known;         /* bytes whose value is known now */
	uint64_t start;         /* bytes never written: reads back-date to the start */
	uint64_t clob;          /* bytes unwritten since a clobber (see civ) */
	uint64_t bdk;           /* which bytes of bd are known */
	uint64_t dirty;         /* epoch + 1 of the last write */
	uint32_t civ;           /* newest clobber interval of this block, or NONE32 */
	uint8_t val[BLOCK];
	uint8_t bd[BLOCK];      /* values learnt for the start interval */
};

/* A clobber interval: bytes of a block made unknown at event `ev`, whose
 * value a later read (before any write) reveals back to that event. */
struct civ {
	uint64_t block, ev;
	uint64_t open;          /* bytes still unwritten since ev */
	uint64_t known;
	uint32_t next;          /* older interval of the same block */
	uint8_t val[BLOCK];
};

struct rfile {
	uint8_t *val, *kn;      /* one byte per register byte; kn is 0/1 */
	uint32_t nsys;
	int32_t depth;
	int used;
	/* per register slot (rf_slot): ever written. A checkpoint visits only
	 * these: scanning every byte of the ~9 KB file each K events cost
	 * more than the rest of an event without registers (decoded trace) */
	uint8_t *written;
	uint32_t nwritten;
};

struct trawl_index_builder {
	char *path, *tmp_path, *dir;
	struct trawl_index_build_options opt;
	uint32_t K;
	double t0;

	struct idx_file ev, dl;
	struct idx_file evb;    /* EVBLK records, spooled */
	struct idx_evpack evp;  /* the block of events being gathered */
	uint32_t kind;          /* enum trawl_index_kind */
	int out_fd;             /* compact: the output file (ev is a spool) */
	struct idx_zsink *zs;   /* compact: the compressing sink */
	int memory;             /* built in memory (no path): nothing is named */
	int mem_fd;             /* memory: the finished index, until taken */
	int textless;           /* some event had no text line (line 0) */
	uint8_t *ck;            /* checkpoint being assembled */
	size_t nck, cap_ck;
	int last_cpu;
	struct idx_sorter memw, snap, clob, regw, pcs;
	struct idx_sw sw;       /* software events (kind 2) */

	uint64_t nev, last_line;
	uint32_t time_unit;
	/* times that went backwards: the events where each run of
	 * non-decreasing times starts again (the first ID_TIME_BACK_MAX), so
	 * a search by time can bisect each run (query.c) */
	uint64_t tprev, nback;
	uint64_t *back;
	size_t cap_back;
	uint64_t nclob;

	struct rfile *rf;
	uint32_t ncpu;

	struct mblock *blocks;
	size_t nblocks, cap_blocks;
	uint32_t *slots;        /* hash: block index + 1, 0 = empty */
	size_t nslots;
	uint32_t *dirty;
	size_t ndirty, cap_dirty;

	struct civ *civs;
	size_t nciv, cap_civ;

	struct trawl_reg_names names;
	uint8_t *scratch;
	size_t scratch_cap;
};

/* ---- register files ---- */

int32_t rf_core_offset(uint32_t reg)
{
	if (reg <= TRAWL_REG_FPSCR)
		return (int32_t)(reg * 8);
	if (reg >= TRAWL_REG_V0 && reg < TRAWL_REG_V0 + 32)
		return (int32_t)(37 * 8 + (reg - TRAWL_REG_V0) * 256);
	if (reg >= TRAWL_REG_P0 && reg <= TRAWL_REG_FFR)
		return (int32_t)(37 * 8 + 32 * 256 + (reg - TRAWL_REG_P0) * 32);
	return -1;
}

/* A register's slot in rfile.written: core registers by id, system
 * registers after them. */
static uint32_t rf_slot(uint32_t reg)
{
	return reg < TRAWL_REG_SYS_BASE ? reg : TRAWL_REG_FFR + 1 + (reg - TRAWL_REG_SYS_BASE);
}

static uint32_t rf_width(uint32_t reg)
{
	if (reg <= TRAWL_REG_FPSCR)
		return 8;
	return trawl_reg_width(reg);
}

static enum trawl_status rf_get(struct trawl_index_builder *b, uint16_t cpu, struct rfile **out,
				struct trawl_error *err)
{
	if (cpu >= MAX_CPUS)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "cpu %u: at most %u cpus are indexed",
				       cpu, MAX_CPUS);
	if (cpu >= b->ncpu) {
		struct rfile *rf = realloc(b->rf, (cpu + 1u) * sizeof *rf);
		if (!rf)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		memset(rf + b->ncpu, 0, (cpu + 1u - b->ncpu) * sizeof *rf);
		b->rf = rf;
		b->ncpu = cpu + 1u;
	}
	struct rfile *r = &b->rf[cpu];
	if (!r->val) {
		r->val = calloc(1, RF_CORE_BYTES);
		r->kn = calloc(1, RF_CORE_BYTES);
		r->written = calloc(1, TRAWL_REG_FFR + 1);
		if (!r->val || !r->kn || !r->written)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	r->used = 1;
	*out = r;
	return TRAWL_OK;
}

static enum trawl_status rf_grow_sys(struct rfile *r, uint32_t nsys, struct trawl_error *err)
{
	if (nsys <= r->nsys)
		return TRAWL_OK;
	size_t bytes = RF_CORE_BYTES + (size_t)nsys * TRAWL_REG_SYS_BYTES;
	uint8_t *v = realloc(r->val, bytes);
	if (!v)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	r->val = v;
	uint8_t *k = realloc(r->kn, bytes);
	if (!k)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	r->kn = k;
	uint8_t *wr = realloc(r->written, TRAWL_REG_FFR + 1 + (size_t)nsys);
	if (!wr)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	r->written = wr;
	memset(wr + TRAWL_REG_FFR + 1 + r->nsys, 0, nsys - r->nsys);
	size_t old = RF_CORE_BYTES + (size_t)r->nsys * TRAWL_REG_SYS_BYTES;
	memset(r->val + old, 0, bytes - old);
	memset(r->kn + old, 0, bytes - old);
	r->nsys = nsys;
	return TRAWL_OK;
}

/* ---- memory blocks ---- */

static uint64_t block_hash(uint64_t a)
{
	a >>= 6;
	a *= 0x9e3779b97f4a7c15ull;
	return a ^ (a >> 31);
}

static enum trawl_status rehash(struct trawl_index_builder *b, size_t nslots,
				struct trawl_error *err)
{
	uint32_t *s = calloc(nslots, sizeof *s);
	if (!s)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory for memory state");
	for (size_t i = 0; i < b->nblocks; i++) {
		size_t h = block_hash(b->blocks[i].addr) & (nslots - 1);
		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = (uint32_t)i + 1;
	}
	free(b->slots);
	b->slots = s;
	b->nslots = nslots;
	return TRAWL_OK;
}

static struct mblock *block_find(struct trawl_index_builder *b, uint64_t addr)
{
	if (!b->nslots)
		return NULL;
	for (size_t h = block_hash(addr) & (b->nslots - 1);; h = (h + 1) & (b->nslots - 1)) {
		uint32_t s = b->slots[h];
		if (!s)
			return NULL;
		if (b->blocks[s - 1].addr == addr)
			return &b->blocks[s - 1];
	}
}

static enum trawl_status block_get(struct trawl_index_builder *b, uint64_t addr,
				   struct mblock **out, struct trawl_error *err)
{
	struct mblock *m = block_find(b, addr);
	if (m) {
		*out = m;
		return TRAWL_OK;
	}
	if (b->nblocks >= UINT32_MAX - 1)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "too much memory touched");
	if ((b->nblocks + 1) * 2 > b->nslots) {
		enum trawl_status st = rehash(b, b->nslots ? b->nslots * 2 : 1024, err);
		if (st)
			return st;
	}
	if (b->nblocks == b->cap_blocks) {
		size_t c = b->cap_blocks ? b->cap_blocks * 2 : 1024;
		struct mblock *nb = realloc(b->blocks, c * sizeof *nb);
		if (!nb)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory for memory state");
		b->blocks = nb;
		b->cap_blocks = c;
	}
	m = &b->blocks[b->nblocks];
	memset(m, 0, sizeof *m);
	m->addr = addr;
	m->start = ~(uint64_t)0;
	m->civ = NONE32;
	size_t h = block_hash(addr) & (b->nslots - 1);
	while (b->slots[h])
		h = (h + 1) & (b->nslots - 1);
	b->slots[h] = (uint32_t)++b->nblocks;
	*out = m;
	return TRAWL_OK;
}

static enum trawl_status mark_dirty(struct trawl_index_builder *b, struct mblock *m,
				    struct trawl_error *err)
{
	uint64_t epoch = b->nev / b->K + 1;
	if (m->dirty == epoch)
		return TRAWL_OK;
	m->dirty = epoch;
	if (b->ndirty == b->cap_dirty) {
		size_t c = b->cap_dirty ? b->cap_dirty * 2 : 1024;
		uint32_t *d = realloc(b->dirty, c * sizeof *d);
		if (!d)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		b->dirty = d;
		b->cap_dirty = c;
	}
	b->dirty[b->ndirty++] = (uint32_t)(m - b->blocks);
	return TRAWL_OK;
}

/* A read of bytes `m` (known in the access) of block mb with values v[]
 * (indexed by byte in block): bytes nobody wrote since the start or since a
 * clobber get their value for that whole interval. */
static void block_read(struct trawl_index_builder *b, struct mblock *mb, uint64_t m,
		       const uint8_t *v)
{
	uint64_t fresh = m & ~mb->known;
	if (!fresh)
		return;
	uint64_t s = fresh & mb->start;
	uint64_t c = fresh & mb->clob;
	for (unsigned i = 0; i < BLOCK; i++) {
		uint64_t bit = (uint64_t)1 << i;
		if (!(fresh & bit))
			continue;
		mb->val[i] = v[i];
		if (s & bit)
			mb->bd[i] = v[i];
	}
	mb->bdk |= s;
	for (uint32_t ci = mb->civ; c && ci != NONE32; ci = b->civs[ci].next) {
		struct civ *cv = &b->civs[ci];
		uint64_t k = c & cv->open & ~cv->known;
		for (unsigned i = 0; i < BLOCK; i++)
			if ((k >> i) & 1)
				cv->val[i] = v[i];
		cv->known |= k;
		c &= ~cv->open;
	}
	mb->known |= fresh;
}

/* A write of bytes `m` of block mb: `vm` of them with values v[], the rest
 * made unknown (a clobber, opening a new back-dating interval). */
static enum trawl_status block_write(struct trawl_index_builder *b, struct mblock *mb,
				     uint64_t m, uint64_t vm, const uint8_t *v,
				     struct trawl_error *err)
{
	enum trawl_status st = mark_dirty(b, mb, err);
	if (st)
		return st;
	for (unsigned i = 0; i < BLOCK; i++)
		if ((vm >> i) & 1)
			mb->val[i] = v[i];
	uint64_t um = m & ~vm;
	mb->known = (mb->known | vm) & ~um;
	mb->start &= ~m;
	if (mb->clob & m) {
		for (uint32_t ci = mb->civ; ci != NONE32; ci = b->civs[ci].next)
			b->civs[ci].open &= ~m;
		mb->clob &= ~m;
	}
	if (!um)
		return TRAWL_OK;
	/* CLOB record for the query side, and a new interval here */
	uint8_t *r;
	st = idx_sorter_add(&b->clob, &r, err);
	if (st)
		return st;
	st64(r, mb->addr);
	st64(r + 8, b->nev);
	st64(r + 16, um);
	b->nclob++;
	if (mb->civ != NONE32 && b->civs[mb->civ].ev == b->nev) {
		b->civs[mb->civ].open |= um;
	} else {
		if (b->nciv == b->cap_civ) {
			size_t c = b->cap_civ ? b->cap_civ * 2 : 64;
			struct civ *nc = realloc(b->civs, c * sizeof *nc);
			if (!nc)
				return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
			b->civs = nc;
			b->cap_civ = c;
		}
		if (b->nciv >= NONE32)
			return trawl_error_set(err, TRAWL_ERR_LIMIT, "too many clobbered ranges");
		struct civ *cv = &b->civs[b->nciv];
		memset(cv, 0, sizeof *cv);
		cv->block = mb->addr;
		cv->ev = b->nev;
		cv->open = um;
		cv->next = mb->civ;
		mb->civ = (uint32_t)b->nciv++;
	}
	mb->clob |= um;
	return TRAWL_OK;
}

/* Pieces of [addr, addr+size) by 64-byte block: calls fn per piece with the
 * block address, first byte in block, byte count, index of that piece's
 * first byte in the access. */
#define FOR_EACH_PIECE(addr, size, blk, off, cnt, idx)                                   \
	for (uint64_t idx = 0, blk, off, cnt; idx < (size) &&                              \
	     ((blk = ((addr) + idx) & BLOCK_MASK), (off = ((addr) + idx) - blk),              \
	      (cnt = BLOCK - off < (size) - idx ? BLOCK - off : (size) - idx), 1);          \
	     idx += cnt)

static uint64_t piece_mask(uint64_t off, uint64_t cnt)
{
	return (cnt >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << cnt) - 1)) << off;
}

static enum trawl_status add_memw(struct trawl_index_builder *b, uint64_t blk, uint64_t dloff,
				  uint64_t off, uint64_t cnt, unsigned flags,
				  struct trawl_error *err)
{
	uint8_t *r;
	enum trawl_status st = idx_sorter_add(&b->memw, &r, err);
	if (st)
		return st;
	st64(r, blk);
	st64(r + 8, b->nev);
	st64(r + 16, dloff);
	r[24] = (uint8_t)off;
	r[25] = (uint8_t)cnt;
	r[26] = (uint8_t)flags;
	memset(r + 27, 0, 5);
	return TRAWL_OK;
}

static enum trawl_status scratch(struct trawl_index_builder *b, size_t n, struct trawl_error *err)
{
	if (n <= b->scratch_cap)
		return TRAWL_OK;
	size_t c = n < 4096 ? 4096 : n;
	uint8_t *s = realloc(b->scratch, c);
	if (!s)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	b->scratch = s;
	b->scratch_cap = c;
	return TRAWL_OK;
}

/* A memory write: one delta record (mask only if some byte is unknown),
 * then each block it touches gets a write record and its new bytes. The
 * piece loop shares the mask and value arrays of the record above. */
static enum trawl_status do_mem_write(struct trawl_index_builder *b, uint64_t addr,
				      uint64_t size, const uint8_t *value, const uint8_t *pool,
				      uint32_t known, struct trawl_error *err)
{
	enum trawl_status st;
	int all = known == TRAWL_ALL_KNOWN;
	if (all) {
		for (uint64_t i = 0; i < size && all; i++)
			all = trawl_known_bit(pool, known, (uint32_t)i);
	}
	size_t mlen = all ? 0 : (size_t)((size + 7) / 8);
	uint64_t dloff = b->dl.pos;
	st = scratch(b, 13 + mlen, err);
	if (st)
		return st;
	uint8_t *h = b->scratch;
	h[0] = (uint8_t)(DT_MEM | (all ? 0 : DT_MASK));
	st64(h + 1, addr);
	st32(h + 9, (uint32_t)size);
	if ((st = idx_file_write(&b->dl, h, 13, err)) ||
	    (st = idx_file_write(&b->dl, value, (size_t)size, err)))
		return st;
	if (!all) {
		memset(h, 0, mlen);
		for (uint64_t i = 0; i < size; i++)
			if (trawl_known_bit(pool, known, (uint32_t)i))
				h[i / 8] |= (uint8_t)(1u << (i % 8));
		if ((st = idx_file_write(&b->dl, h, mlen, err)))
			return st;
	}
	FOR_EACH_PIECE(addr, size, blk, off, cnt, idx) {
		struct mblock *mb;
		if ((st = block_get(b, blk, &mb, err)) ||
		    (st = add_memw(b, blk, dloff, off, cnt, 0, err)))
			return st;
		uint8_t v[BLOCK];
		uint64_t vm = 0;
		for (uint64_t i = 0; i < cnt; i++) {
			v[off + i] = value[idx + i];
			if (all || trawl_known_bit(pool, known, (uint32_t)(idx + i)))
				vm |= (uint64_t)1 << (off + i);
		}
		if ((st = block_write(b, mb, piece_mask(off, cnt), vm, v, err)))
			return st;
	}
	return TRAWL_OK;
}

static enum trawl_status do_clobber(struct trawl_index_builder *b, uint64_t addr, uint64_t size,
				    struct trawl_error *err)
{
	enum trawl_status st;
	if (size == 0 || size > IDX_MAX_CLOBBER || addr + (size - 1) < addr)
		return TRAWL_OK;
	uint8_t h[17];
	uint64_t dloff = b->dl.pos;
	h[0] = DT_CLOB;
	st64(h + 1, addr);
	st64(h + 9, size);
	if ((st = idx_file_write(&b->dl, h, 17, err)))
		return st;
	FOR_EACH_PIECE(addr, size, blk, off, cnt, idx) {
		struct mblock *mb;
		(void)idx;
		if ((st = block_get(b, blk, &mb, err)) ||
		    (st = add_memw(b, blk, dloff, off, cnt, MEMW_CLOBBER, err)) ||
		    (st = block_write(b, mb, piece_mask(off, cnt), 0, NULL, err)))
			return st;
	}
	return TRAWL_OK;
}

static enum trawl_status do_mem_read(struct trawl_index_builder *b, uint64_t addr,
				     uint64_t size, const uint8_t *value, const uint8_t *pool,
				     uint32_t known, struct trawl_error *err)
{
	FOR_EACH_PIECE(addr, size, blk, off, cnt, idx) {
		struct mblock *mb;
		enum trawl_status st = block_get(b, blk, &mb, err);
		if (st)
			return st;
		uint8_t v[BLOCK];
		uint64_t m = 0;
		for (uint64_t i = 0; i < cnt; i++) {
			v[off + i] = value[idx + i];
			if (trawl_known_bit(pool, known, (uint32_t)(idx + i)))
				m |= (uint64_t)1 << (off + i);
		}
		block_read(b, mb, m, v);
	}
	return TRAWL_OK;
}

/* Current value of memory, when every byte is known (semihosting). */
static int mem_peek(struct trawl_index_builder *b, uint64_t addr, unsigned len, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < len; i++) {
		uint64_t a = addr + i;
		struct mblock *mb = block_find(b, a & BLOCK_MASK);
		unsigned o = (unsigned)(a & (BLOCK - 1));
		if (!mb || !((mb->known >> o) & 1))
			return 0;
		v |= (uint64_t)mb->val[o] << (8 * i);
	}
	*out = v;
	return 1;
}

static int reg_peek(const struct rfile *r, uint32_t reg, unsigned len, uint64_t *out)
{
	int32_t o = rf_core_offset(reg);
	uint64_t v = 0;
	for (unsigned i = 0; i < len; i++) {
		if (!r->kn[o + i])
			return 0;
		v |= (uint64_t)r->val[o + i] << (8 * i);
	}
	*out = v;
	return 1;
}

/* Semihosting calls write memory the trace does not log. Recognise the
 * trap (HLT #0xF000 on A64; SVC 0x123456 / HLT #0xF000 on A32; SVC, BKPT
 * or HLT with 0xAB/0x3C on T32), and return the range the operation in
 * r0 fills, from the parameter block r1 points at. */
static int semihosting_range(struct trawl_index_builder *b, const struct trawl_event *e,
			     const struct rfile *r, uint64_t *addr, uint64_t *size)
{
	if (e->kind != TRAWL_EV_INSN || (e->flags & TRAWL_EVF_CCFAIL))
		return 0;
	uint32_t enc = e->u.insn.encoding;
	unsigned w;
	if (e->u.insn.iset == TRAWL_ISET_A64 && enc == 0xd45e0000u)
		w = 8;
	else if (e->u.insn.iset == TRAWL_ISET_A32 &&
		 ((enc & 0x0fffffffu) == 0x0f123456u || (enc & 0x0fffffffu) == 0x010f0070u))
		w = 4;
	else if (e->u.insn.iset == TRAWL_ISET_T32 &&
		 (enc == 0xdfabu || enc == 0xbeabu || enc == 0xbabcu))
		w = 4;
	else
		return 0;
	uint64_t op, p, a, l;
	if (!reg_peek(r, TRAWL_REG_X0, 4, &op) || !reg_peek(r, TRAWL_REG_X0 + 1, w, &p))
		return 0;
	switch (op) {
	case 0x06: /* SYS_READ {handle, buf, len} */
	case 0x0d: /* SYS_TMPNAM {buf, id, len} */
		if (!mem_peek(b, op == 0x06 ? p + w : p, w, &a) || !mem_peek(b, p + 2 * w, w, &l))
			return 0;
		break;
	case 0x15: /* SYS_GET_CMDLINE {buf, len} */
		if (!mem_peek(b, p, w, &a) || !mem_peek(b, p + w, w, &l))
			return 0;
		break;
	case 0x16: /* SYS_HEAPINFO: *block points at 4 words */
		if (!mem_peek(b, p, w, &a))
			return 0;
		l = 4 * w;
		break;
	case 0x30: /* SYS_ELAPSED: 8 bytes at the block */
		a = p;
		l = 8;
		break;
	default:
		return 0;
	}
	*addr = a;
	*size = l;
	return 1;
}

/* Call depth heuristics: calls are BL/BLR (and A32/T32 BL/BLX), returns are
 * RET (and BX LR, POP {..., pc}). */
static int call_effect(const struct trawl_event *e)
{
	if (e->kind != TRAWL_EV_INSN || (e->flags & TRAWL_EVF_CCFAIL))
		return 0;
	uint32_t x = e->u.insn.encoding;
	switch (e->u.insn.iset) {
	case TRAWL_ISET_A64:
		if ((x & 0xfc000000u) == 0x94000000u || (x & 0xfffffc1fu) == 0xd63f0000u)
			return 1;
		if ((x & 0xfffffc1fu) == 0xd65f0000u)
			return -1;
		return 0;
	case TRAWL_ISET_A32:
		if ((x & 0x0f000000u) == 0x0b000000u || (x & 0xfe000000u) == 0xfa000000u ||
		    (x & 0x0ffffff0u) == 0x012fff30u)
			return 1;
		if ((x & 0x0fffffffu) == 0x012fff1eu || (x & 0x0fff8000u) == 0x08bd8000u)
			return -1;
		return 0;
	case TRAWL_ISET_T32:
		if (e->u.insn.width == 4 && (x & 0xf800d000u) == 0xf000d000u)
			return 1;
		if (e->u.insn.width == 4 && (x & 0xf800d001u) == 0xf000c000u)
			return 1;
		if (e->u.insn.width == 2 && (x & 0xff87u) == 0x4780u)
			return 1;
		if (e->u.insn.width == 2 && ((x & 0xffffu) == 0x4770u || (x & 0xff00u) == 0xbd00u))
			return -1;
		return 0;
	default:
		return 0;
	}
}

static enum trawl_status copy_sysreg_names(struct trawl_index_builder *b,
					   const struct trawl_reg_names *src, uint32_t upto,
					   struct trawl_error *err)
{
	while (b->names.count < upto) {
		const char *n = src && b->names.count < src->count ? src->names[b->names.count] : NULL;
		char tmp[32];
		if (!n) {
			snprintf(tmp, sizeof tmp, "sysreg%zu", b->names.count);
			n = tmp;
		}
		size_t before = b->names.count;
		uint32_t id = trawl_reg_names_intern(&b->names, n, strlen(n));
		if (!id)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		if (b->names.count == before) {
			/* the same name twice: keep ids aligned with a unique name */
			snprintf(tmp, sizeof tmp, "sysreg%zu", before);
			if (!trawl_reg_names_intern(&b->names, tmp, strlen(tmp)))
				return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		}
	}
	return TRAWL_OK;
}

/* A register write: its place in the register file (core or system
 * register, checked against the width), the delta record with a known
 * mask only when some byte is unknown, then the file itself. One function
 * because each step needs the offsets the first computes. */
static enum trawl_status do_reg_write(struct trawl_index_builder *b, struct rfile *r,
				      const struct trawl_reg_write *w,
				      const struct trawl_event_batch *batch, uint16_t cpu,
				      struct trawl_error *err)
{
	enum trawl_status st;
	uint32_t width, base;
	if (w->reg >= TRAWL_REG_SYS_BASE) {
		uint32_t i = w->reg - TRAWL_REG_SYS_BASE;
		if (i >= MAX_SYSREGS)
			return trawl_error_set(err, TRAWL_ERR_LIMIT, "too many system registers");
		if ((st = copy_sysreg_names(b, batch->sysregs, i + 1, err)) ||
		    (st = rf_grow_sys(r, i + 1, err)))
			return st;
		width = TRAWL_REG_SYS_BYTES;
		base = RF_CORE_BYTES + i * TRAWL_REG_SYS_BYTES;
	} else {
		int32_t o = rf_core_offset(w->reg);
		if (o < 0)
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "write to unknown register %u",
					       w->reg);
		width = rf_width(w->reg);
		base = (uint32_t)o;
	}
	uint32_t end = (uint32_t)w->offset + w->size;
	if (end > width || w->zext > width)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "register write outside %s (bytes %u-%u of %u)",
				       trawl_reg_names_get(&b->names, w->reg), w->offset, end, width);
	const uint8_t *val = batch->pool + w->value;
	int all = 1;
	for (uint32_t i = 0; i < w->size && all; i++)
		all = trawl_known_bit(batch->pool, w->known, i);
	size_t mlen = all ? 0 : (w->size + 7u) / 8u;
	if ((st = scratch(b, 11 + w->size + mlen, err)))
		return st;
	uint8_t *h = b->scratch;
	h[0] = (uint8_t)(DT_REG | (all ? 0 : DT_MASK));
	st32(h + 1, w->reg);
	st16(h + 5, w->offset);
	st16(h + 7, w->size);
	st16(h + 9, w->zext);
	memcpy(h + 11, val, w->size);
	if (!all) {
		memset(h + 11 + w->size, 0, mlen);
		for (uint32_t i = 0; i < w->size; i++)
			if (trawl_known_bit(batch->pool, w->known, i))
				h[11 + w->size + i / 8] |= (uint8_t)(1u << (i % 8));
	}
	if ((st = idx_file_write(&b->dl, h, 11 + w->size + mlen, err)))
		return st;
	for (uint32_t i = 0; i < w->size; i++) {
		int k = all || trawl_known_bit(batch->pool, w->known, i);
		r->val[base + w->offset + i] = k ? val[i] : 0;
		r->kn[base + w->offset + i] = (uint8_t)k;
	}
	for (uint32_t i = end; i < w->zext; i++) {
		r->val[base + i] = 0;
		r->kn[base + i] = 1;
	}
	uint32_t slot = rf_slot(w->reg);
	if (!r->written[slot]) {
		r->written[slot] = 1;
		r->nwritten++;
	}
	uint8_t *rec;
	if (b->nev > REGW_EV_MASK)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "trace too large for an index (more than 2^40 events)");
	if ((st = idx_sorter_add(&b->regw, &rec, err)))
		return st;
	st64(rec, (uint64_t)cpu << 32 | w->reg);
	/* byte ranges end at most at 256 (a 2048-bit register): 12 bits each */
	uint64_t hi = w->zext > end ? w->zext : end;
	st64(rec + 8, b->nev | (uint64_t)w->offset << REGW_EV_BITS | hi << (REGW_EV_BITS + 12));
	return TRAWL_OK;
}

/* Register files of every cpu, as they are before event b->nev. */
static enum trawl_status ck_put(struct trawl_index_builder *b, const void *p, size_t n,
				struct trawl_error *err)
{
	if (b->nck + n > b->cap_ck) {
		size_t c = b->cap_ck ? b->cap_ck * 2 : 4096;
		while (c < b->nck + n)
			c *= 2;
		uint8_t *k = realloc(b->ck, c);
		if (!k)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		b->ck = k;
		b->cap_ck = c;
	}
	memcpy(b->ck + b->nck, p, n);
	b->nck += n;
	return TRAWL_OK;
}

/* A CKPT delta record: the register files of every cpu as they are before
 * event b->nev, assembled in memory, then appended with its length. */
static enum trawl_status write_checkpoint(struct trawl_index_builder *b, struct trawl_error *err)
{
	enum trawl_status st;
	uint8_t tmp[8];
	b->nck = 0;
	uint32_t n = 0;
	for (uint32_t c = 0; c < b->ncpu; c++)
		n += b->rf[c].used;
	st32(tmp, n);
	if ((st = ck_put(b, tmp, 4, err)))
		return st;
	for (uint32_t c = 0; c < b->ncpu; c++) {
		struct rfile *r = &b->rf[c];
		if (!r->used)
			continue;
		/* count first, then write: registers with any known byte */
		uint32_t nregs = 0;
		for (int pass = 0; pass < 2; pass++) {
			if (pass == 1) {
				st16(tmp, (uint16_t)c);
				st16(tmp + 2, 0);
				st32(tmp + 4, nregs);
				if ((st = ck_put(b, tmp, 8, err)))
					return st;
			}
			for (uint32_t reg = 0; r->nwritten && reg <= TRAWL_REG_FFR + r->nsys; reg++) {
				/* a register never written has no known byte */
				if (!r->written[reg])
					continue;
				uint32_t id = reg <= TRAWL_REG_FFR ? reg
					: TRAWL_REG_SYS_BASE + (reg - TRAWL_REG_FFR - 1);
				uint32_t base, width;
				if (id >= TRAWL_REG_SYS_BASE) {
					base = RF_CORE_BYTES +
					       (id - TRAWL_REG_SYS_BASE) * TRAWL_REG_SYS_BYTES;
					width = TRAWL_REG_SYS_BYTES;
				} else {
					int32_t o = rf_core_offset(id);
					if (o < 0)
						continue;
					base = (uint32_t)o;
					width = rf_width(id);
				}
				uint32_t size = width;
				while (size && !r->kn[base + size - 1])
					size--;
				if (!size)
					continue;
				if (pass == 0) {
					nregs++;
					continue;
				}
				int all = 1;
				for (uint32_t i = 0; i < size; i++)
					all &= r->kn[base + i];
				uint8_t h[8 + 256 + 32];
				st32(h, id);
				st16(h + 4, (uint16_t)size);
				h[6] = (uint8_t)all;
				h[7] = 0;
				for (uint32_t i = 0; i < size; i++)
					h[8 + i] = r->kn[base + i] ? r->val[base + i] : 0;
				size_t len = 8 + size;
				if (!all) {
					memset(h + len, 0, (size + 7) / 8);
					for (uint32_t i = 0; i < size; i++)
						if (r->kn[base + i])
							h[len + i / 8] |= (uint8_t)(1u << (i % 8));
					len += (size + 7) / 8;
				}
				if ((st = ck_put(b, h, len, err)))
					return st;
			}
		}
	}
	if (b->nck > UINT32_MAX)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "checkpoint too large");
	tmp[0] = DT_CKPT;
	st32(tmp + 1, (uint32_t)b->nck);
	if ((st = idx_file_write(&b->dl, tmp, 5, err)) ||
	    (st = idx_file_write(&b->dl, b->ck, b->nck, err)))
		return st;
	return TRAWL_OK;
}

/* Snapshots of the blocks written in the epoch that just ended. */
static enum trawl_status write_snapshots(struct trawl_index_builder *b, struct trawl_error *err)
{
	for (size_t i = 0; i < b->ndirty; i++) {
		struct mblock *m = &b->blocks[b->dirty[i]];
		uint8_t *r;
		enum trawl_status st = idx_sorter_add(&b->snap, &r, err);
		if (st)
			return st;
		st64(r, m->addr);
		st64(r + 8, b->nev);
		for (unsigned k = 0; k < BLOCK; k++)
			r[16 + k] = ((m->known >> k) & 1) ? m->val[k] : 0;
		st64(r + 80, m->known);
	}
	b->ndirty = 0;
	return TRAWL_OK;
}

/* One event into every stream in the order the reader relies on: the
 * checkpoint (every K events) and a CPU switch first, then its register
 * and memory deltas, a semihosting clobber, and last its event record
 * (which points at where its deltas start). Kept together because that
 * order is the format. */
static enum trawl_status add_event(struct trawl_index_builder *b, const struct trawl_event *e,
				   const struct trawl_event_batch *batch, struct trawl_error *err)
{
	enum trawl_status st;
	uint64_t dloff = b->dl.pos;
	struct rfile *r = NULL;
	if ((st = rf_get(b, e->cpu, &r, err)))
		return st;
	int ckpt = b->nev % b->K == 0;
	if (ckpt && ((b->nev && (st = write_snapshots(b, err))) || (st = write_checkpoint(b, err))))
		return st;
	if (ckpt || e->cpu != b->last_cpu) {
		uint8_t c[3] = { DT_CPU, (uint8_t)e->cpu, (uint8_t)(e->cpu >> 8) };
		if ((st = idx_file_write(&b->dl, c, 3, err)))
			return st;
		b->last_cpu = e->cpu;
	}
	uint64_t sh_addr = 0, sh_size = 0;
	int sh = semihosting_range(b, e, r, &sh_addr, &sh_size);
	for (uint32_t i = 0; i < e->nregs; i++)
		if ((st = do_reg_write(b, r, &batch->regs[e->first_reg + i], batch, e->cpu, err)))
			return st;
	for (uint32_t i = 0; i < e->nmems; i++) {
		const struct trawl_mem_access *m = &batch->mems[e->first_mem + i];
		if (m->flags & (TRAWL_MEM_ABORTED | TRAWL_MEM_FETCH) || !m->size)
			continue;
		/* ending at 2^64 is fine (readers refuse past it: this is for
		 * sources that do not) */
		if (m->addr + (m->size - 1) < m->addr)
			return trawl_error_set(err, TRAWL_ERR_FORMAT,
					       "memory access wraps around the address space");
		const uint8_t *v = batch->pool + m->value;
		if (m->flags & TRAWL_MEM_WRITE)
			st = do_mem_write(b, m->addr, m->size, v, batch->pool, m->known, err);
		else if (m->flags & TRAWL_MEM_READ)
			st = do_mem_read(b, m->addr, m->size, v, batch->pool, m->known, err);
		if (st)
			return st;
	}
	if (sh && (st = do_clobber(b, sh_addr, sh_size, err)))
		return st;

	int isinsn = e->kind == TRAWL_EV_INSN;
	/* a source without text (decoded trace) numbers its events as lines */
	uint64_t line = e->line ? e->line : b->nev + 1;
	uint32_t nlines = e->line ? e->nlines : 1;
	b->textless |= !e->line || (e->flags & TRAWL_EVF_NO_TEXT);
	if (line > EV_MAX48 || e->offset > EV_MAX48 || dloff > EV_MAX48)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "trace too large for an index (line %llu, offset %llu)",
				       (unsigned long long)line, (unsigned long long)e->offset);
	uint64_t v[EVF_N];
	v[EVF_LINE] = line;
	v[EVF_OFFSET] = e->offset;
	v[EVF_TIME] = e->time;
	v[EVF_DELTA] = dloff;
	v[EVF_PC] = isinsn ? e->u.insn.pc : 0;
	v[EVF_NLINES] = nlines;
	v[EVF_LENGTH] = e->length > UINT32_MAX ? UINT32_MAX : (uint32_t)e->length;
	v[EVF_ENCODING] = isinsn ? e->u.insn.encoding : 0;
	v[EVF_DEPTH] = (uint32_t)r->depth ^ EVB_DEPTH_BIAS;
	v[EVF_CPU] = e->cpu;
	v[EVF_FLAGS] = (uint8_t)e->flags;
	v[EVF_KIND] = (uint8_t)e->kind;
	/* iset 0-3 and width 0, 2 or 4 share a byte */
	v[EVF_ISET] = isinsn ? (uint8_t)((e->u.insn.iset & 0xf) | (e->u.insn.width & 0xf) << 4) : 0;
	v[EVF_EL] = isinsn ? e->u.insn.el : 0xff;
	if ((st = idx_evpack_add(&b->evp, v, &b->ev, &b->evb, err)))
		return st;
	r->depth += call_effect(e);
	if ((st = idx_sw_add(&b->sw, e, b->nev, err)))
		return st;
	if (isinsn) {
		uint8_t *p;
		if ((st = idx_sorter_add(&b->pcs, &p, err)))
			return st;
		st64(p, e->u.insn.pc);
		st64(p + 8, b->nev);
	}
	if (!b->time_unit && e->time_unit)
		b->time_unit = e->time_unit;
	if (b->nev && e->time < b->tprev) {
		if (b->nback < ID_TIME_BACK_MAX) {
			if (!trawl_grow((void **)&b->back, &b->cap_back, b->nback + 1, sizeof *b->back))
				return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
			b->back[b->nback] = b->nev;
		}
		b->nback++;
	}
	b->tprev = e->time;
	if (line + (nlines ? nlines - 1 : 0) > b->last_line)
		b->last_line = line + (nlines ? nlines - 1 : 0);
	b->nev++;
	return TRAWL_OK;
}

enum trawl_status trawl_index_builder_add(struct trawl_index_builder *b,
					  const struct trawl_event_batch *batch,
					  struct trawl_error *err)
{
	for (size_t i = 0; i < batch->count; i++) {
		const struct trawl_event *e = &batch->events[i];
		enum trawl_status st = add_event(b, e, batch, err);
		if (st) {
			/* a failure of the index file (disk full, out of memory)
			 * is not a problem of the trace: say where the build was
			 * rather than point at a line as a parse error does */
			if (e->line && (st == TRAWL_ERR_IO || st == TRAWL_ERR_NOMEM) && err) {
				size_t n = strlen(err->message);
				snprintf(err->message + n, sizeof err->message - n,
					 " (indexing line %llu of the trace)",
					 (unsigned long long)e->line);
			} else if (e->line) {
				trawl_error_at(err, NULL, e->line, 0, e->offset);
			}
			return st;
		}
	}
	return TRAWL_OK;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The temporary file beside the final one (with stale ones from dead
 * builds removed). */
static enum trawl_status create_file(struct trawl_index_builder *b, const char *path, int *fd,
				     struct trawl_error *err)
{
	b->path = strdup(path);
	b->tmp_path = malloc(strlen(path) + 32);
	b->dir = strdup(path);
	if (!b->path || !b->tmp_path || !b->dir)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	snprintf(b->tmp_path, strlen(path) + 32, "%s.tmp%ld", path, (long)getpid());
	char *slash = strrchr(b->dir, '/');
	if (!slash)
		strcpy(b->dir, ".");
	else if (slash == b->dir)
		slash[1] = 0;
	else
		*slash = 0;
	idx_remove_stale_tmp(b->dir, b->path);
	/* events go straight to the output file, right after its header;
	 * the other streams are spooled and appended by finish() */
	*fd = open(b->tmp_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*fd < 0)
		return trawl_error_errno(err, errno, "cannot create '%s'", b->tmp_path);
	return TRAWL_OK;
}

/* Everything a build needs before the first event, each failure undone
 * through one exit: names, the temporary file beside the final one (with
 * stale ones from dead builds removed), its zeroed header, the delta spool
 * and the sorters. */
enum trawl_status trawl_index_builder_create(struct trawl_index_builder **out, const char *path,
					     const struct trawl_index_build_options *opt,
					     struct trawl_error *err)
{
	enum trawl_status st = TRAWL_ERR_NOMEM;
	struct trawl_index_builder *b = calloc(1, sizeof *b);
	if (!b)
		return trawl_error_set(err, st, "out of memory");
	if (opt)
		b->opt = *opt;
	b->K = b->opt.checkpoint_interval ? b->opt.checkpoint_interval : 128;
	b->kind = b->opt.kind ? b->opt.kind : TRAWL_INDEX_KIND_FULL;
	b->out_fd = -1;
	if (!trawl_index_kind_name(b->kind)) {
		uint32_t k = b->kind;
		free(b);
		return trawl_error_set(err, TRAWL_ERR_USAGE, "unknown index kind %u", k);
	}
	size_t mem = b->opt.sort_memory ? b->opt.sort_memory : (64u << 20);
	b->t0 = now_s();
	trawl_reg_names_init(&b->names);
	b->ev.fd = b->dl.fd = b->evb.fd = -1;
	idx_evpack_init(&b->evp);
	b->mem_fd = -1;
	int fd = -1;
	if (!path) {
		/* in memory: the output and every spool are memfds */
		b->memory = 1;
		b->path = strdup("(index in memory)");
		b->tmp_path = strdup(b->path);
		if (!b->path || !b->tmp_path) {
			st = trawl_error_set(err, st, "out of memory");
			goto fail;
		}
		if ((fd = memfd_create("trawl-index", MFD_CLOEXEC)) < 0) {
			st = trawl_error_errno(err, errno, "cannot build an index in memory");
			goto fail;
		}
	} else if ((st = create_file(b, path, &fd, err))) {
		goto fail;
	}
	static const uint8_t zero[IDX_HEADER_SIZE];
	if (b->kind == TRAWL_INDEX_KIND_COMPACT) {
		/* events are spooled, and compressed into the output at the end */
		b->out_fd = fd;
		if ((st = idx_zsink_create(&b->zs, err)) ||
		    (st = idx_file_temp(&b->ev, b->dir, "event spool", err)))
			goto fail;
	} else if ((st = idx_file_fd(&b->ev, fd, b->tmp_path, err))) {
		close(fd);
		goto fail;
	}
	if (b->kind != TRAWL_INDEX_KIND_COMPACT &&
	    (st = idx_file_write(&b->ev, zero, IDX_HEADER_SIZE, err)))
		goto fail;
	idx_file_mark(&b->ev);
	if ((st = idx_file_temp(&b->dl, b->dir, "delta spool", err)) ||
	    (st = idx_file_temp(&b->evb, b->dir, "event block spool", err)))
		goto fail;
	idx_sorter_init(&b->memw, MEMW_REC, mem, b->dir, err);
	idx_sorter_init(&b->snap, SNAP_REC, mem, b->dir, err);
	idx_sorter_init(&b->clob, CLOB_REC, mem / 4, b->dir, err);
	idx_sorter_init(&b->regw, REGW_REC, mem, b->dir, err);
	idx_sorter_init(&b->pcs, PCS_REC, mem, b->dir, err);
	idx_sw_init(&b->sw, mem, b->dir, err);
	*out = b;
	return TRAWL_OK;
fail:
	trawl_index_builder_destroy(b);
	return st;
}

int idx_builder_take_memfd(struct trawl_index_builder *b)
{
	int fd = b->mem_fd;
	b->mem_fd = -1;
	return fd;
}

void trawl_index_builder_destroy(struct trawl_index_builder *b)
{
	if (!b)
		return;
	idx_file_close(&b->ev);
	idx_file_close(&b->dl);
	idx_file_close(&b->evb);
	if (b->out_fd >= 0)
		close(b->out_fd);
	idx_zsink_destroy(b->zs);
	free(b->ck);
	idx_sorter_release(&b->memw);
	idx_sorter_release(&b->snap);
	idx_sorter_release(&b->clob);
	idx_sorter_release(&b->regw);
	idx_sorter_release(&b->pcs);
	idx_sw_release(&b->sw);
	free(b->back);
	if (b->tmp_path && !b->memory)
		unlink(b->tmp_path);
	if (b->mem_fd >= 0)
		close(b->mem_fd);
	for (uint32_t c = 0; c < b->ncpu; c++) {
		free(b->rf[c].val);
		free(b->rf[c].kn);
		free(b->rf[c].written);
	}
	free(b->rf);
	free(b->blocks);
	free(b->slots);
	free(b->dirty);
	free(b->civs);
	free(b->scratch);
	trawl_reg_names_release(&b->names);
	free(b->path);
	free(b->tmp_path);
	free(b->dir);
	free(b);
}

/* ---- writing the file ---- */

/* Back-dated values: start-of-trace records for every block, then clobber
 * intervals in creation order; the stable sort keeps that order per block,
 * which is (block, key) order. */
static enum trawl_status write_backdate(struct trawl_index_builder *b, struct idx_file *f,
					struct idx_fence *fence, uint64_t *count,
					struct trawl_error *err)
{
	size_t n = 0;
	for (size_t i = 0; i < b->nblocks; i++)
		n += b->blocks[i].bdk != 0;
	for (size_t i = 0; i < b->nciv; i++)
		n += b->civs[i].known != 0;
	*count = n;
	if (!n)
		return TRAWL_OK;
	uint8_t *recs = malloc(n * BD_REC);
	if (!recs)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	size_t k = 0;
	for (size_t i = 0; i < b->nblocks; i++) {
		struct mblock *m = &b->blocks[i];
		if (!m->bdk)
			continue;
		uint8_t *r = recs + k++ * BD_REC;
		st64(r, m->addr);
		st64(r + 8, 0);
		for (unsigned j = 0; j < BLOCK; j++)
			r[16 + j] = ((m->bdk >> j) & 1) ? m->bd[j] : 0;
		st64(r + 80, m->bdk);
	}
	for (size_t i = 0; i < b->nciv; i++) {
		struct civ *c = &b->civs[i];
		if (!c->known)
			continue;
		uint8_t *r = recs + k++ * BD_REC;
		st64(r, c->block);
		st64(r + 8, c->ev + 1);
		for (unsigned j = 0; j < BLOCK; j++)
			r[16 + j] = ((c->known >> j) & 1) ? c->val[j] : 0;
		st64(r + 80, c->known);
	}
	enum trawl_status st = TRAWL_OK;
	if (idx_sort_records(recs, n, BD_REC))
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && !st; i++)
		st = idx_fence_add(fence, recs + i * BD_REC, err);
	if (!st)
		st = idx_file_write(f, recs, n * BD_REC, err);
	free(recs);
	return st;
}

/* IDENTITY: key/value records (format.h); nothing without an id. */
static enum trawl_status write_identity(struct idx_file *f, const struct trawl_index_builder *b,
					const struct trawl_trace_id *id, struct trawl_error *err)
{
	uint8_t r[160], *p = r;
	if (!id)
		return TRAWL_OK;
#define KV(key, n, store, v)                                                               \
	do {                                                                               \
		st16(p, key);                                                              \
		st16(p + 2, n);                                                            \
		store(p + 4, v);                                                           \
		p += 4 + (n);                                                              \
	} while (0)
	KV(ID_KEY_SOURCE, 4, st32, id->source);
	if (id->hashed)
		KV(ID_KEY_CONTENT, 8, st64, id->hash);
	KV(ID_KEY_READER, 4, st32, id->reader);
	KV(ID_KEY_FORMAT, 4, st32, id->format);
	if (id->has_defs)
		KV(ID_KEY_DEFS, 8, st64, id->defs_hash);
	if (id->reader_hash)
		KV(ID_KEY_READER_HASH, 8, st64, id->reader_hash);
	if (id->reader_version)
		KV(ID_KEY_READER_VERSION, 4, st32, id->reader_version);
	KV(ID_KEY_SKIPPED, 8, st64, id->skipped);
	if (id->cut)
		KV(ID_KEY_CUT, 8, st64, id->cut);
	if (id->damaged)
		KV(ID_KEY_DAMAGED, 8, st64, id->damaged);
#undef KV
	/* always written, none too: an index without it is from before it
	 * (open.c rebuilds those) */
	uint64_t nl = b->nback < ID_TIME_BACK_MAX ? b->nback : ID_TIME_BACK_MAX;
	st16(p, ID_KEY_TIME_BACK);
	st16(p + 2, (uint16_t)(8 + 8 * nl));
	st64(p + 4, b->nback);
	p += 12;
	enum trawl_status st = idx_file_write(f, r, (size_t)(p - r), err);
	for (uint64_t i = 0; i < nl && !st; i++) {
		uint8_t v[8];
		st64(v, b->back[i]);
		st = idx_file_write(f, v, 8, err);
	}
	return st;
}

/* SUMS and SUMS_TOP for the bytes [IDX_HEADER_SIZE, covered) already in
 * the file, read back (from the page cache) in 1 MiB pieces. */
static enum trawl_status write_sums(struct idx_file *o, uint64_t covered, struct idx_secent *s,
				    uint64_t *top_sum, struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	uint64_t nblocks = (covered + IDX_BLOCK - 1) >> IDX_BLOCK_LOG;
	size_t chunk = 1u << 20;
	uint8_t *buf = malloc(chunk), *sums = malloc(nblocks * 4 + IDX_BLOCK);
	uint64_t ntop = (nblocks + IDX_SUMS_PER_TOP - 1) / IDX_SUMS_PER_TOP;
	uint8_t *top = malloc(ntop * 8 + 8);
	if (!buf || !sums || !top) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* the header's block is never summed (it is written last, checked on
	 * its own): zero, so the same trace always gives the same file */
	st32(sums, 0);
	for (uint64_t at = 0; at < covered; at += chunk) {
		uint64_t lo = at < IDX_HEADER_SIZE ? IDX_HEADER_SIZE : at;
		uint64_t hi = at + chunk < covered ? at + chunk : covered;
		for (uint64_t done = lo; done < hi;) {
			ssize_t n = pread(o->fd, buf + (done - at), (size_t)(hi - done), (off_t)done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				st = trawl_error_errno(err, n < 0 ? errno : EIO, "cannot read back %s",
						       o->what);
				goto out;
			}
			done += (uint64_t)n;
		}
		for (uint64_t blo = lo; blo < hi;) {
			uint64_t b = blo >> IDX_BLOCK_LOG, bhi = (b + 1) << IDX_BLOCK_LOG;
			if (bhi > hi)
				bhi = hi;
			st32(sums + 4 * b, idx_block_sum(buf + (blo - at), (size_t)(bhi - blo), b));
			blo = bhi;
		}
	}
	for (uint64_t j = 0; j < ntop; j++) {
		uint64_t lo = j * IDX_PIECE, hi = lo + IDX_PIECE < nblocks * 4 ? lo + IDX_PIECE
								  : nblocks * 4;
		st64(top + 8 * j, idx_top_sum(sums + lo, (size_t)(hi - lo), j));
	}
	*top_sum = XXH3_64bits(top, (size_t)(ntop * 8));
	if ((st = idx_sec_begin(o, s, SEC_SUMS, 4, err)) ||
	    (st = idx_file_write(o, sums, (size_t)(nblocks * 4), err)))
		goto out;
	idx_sec_end(o, s);
	if ((st = idx_sec_begin(o, s + 1, SEC_SUMS_TOP, 8, err)) ||
	    (st = idx_file_write(o, top, (size_t)(ntop * 8), err)))
		goto out;
	idx_sec_end(o, s + 1);
	st = idx_file_flush(o, err);
out:
	free(buf);
	free(sums);
	free(top);
	return st;
}

/* The software-event sections (IDX_FLAG_SW, either kind). SW_EVENTS gets a record for every
 * event (zero for events of other kinds), so record i is event i; the
 * per-cpu and per-thread lists have no fences: they are searched by
 * bisection over their own records. */
static enum trawl_status write_sw_sections(struct trawl_index_builder *b, struct idx_file *o,
					   struct idx_secent **sp, struct trawl_error *err)
{
	static const uint8_t zero[SW_REC];
	enum trawl_status st = TRAWL_OK;
	struct idx_fence nf[2];
	memset(nf, 0, sizeof nf);
	for (; b->sw.recs < b->nev && !st; b->sw.recs++)
		st = idx_file_write(&b->sw.ev, zero, SW_REC, err);
	struct idx_secent *s = *sp;
	if (st || (st = idx_sec_begin(o, s, SEC_SW_EVENTS, SW_REC, err)) ||
	    (st = idx_file_copy(o, &b->sw.ev, err)))
		goto out;
	idx_sec_end(o, s++);
	if ((st = idx_sec_begin(o, s, SEC_SW_CPU, SW_REC, err)) ||
	    (st = idx_sorter_output(&b->sw.cpu, o, &nf[0], err)))
		goto out;
	idx_sec_end(o, s++);
	if ((st = idx_sec_begin(o, s, SEC_SW_THREAD, SW_REC, err)) ||
	    (st = idx_sorter_output(&b->sw.thread, o, &nf[1], err)))
		goto out;
	idx_sec_end(o, s++);
out:
	*sp = s;
	free(nf[0].p);
	free(nf[1].p);
	return st;
}

/* Every section after the events, in file order, each recorded in secs
 * (advancing *sp); the fences the sorted sections fill are freed by the
 * caller. One list so the order the reader expects is written in one place. */
static enum trawl_status write_sections(struct trawl_index_builder *b, struct idx_file *o,
					const struct trawl_trace_id *id, struct idx_secent **sp,
					struct idx_fence *fences, struct trawl_error *err)
{
	enum trawl_status st;
	struct idx_secent *s = *sp;
	uint64_t nbd = 0;
	/* compact kind: the big sections go through the compressing sink */
#define SEC(id_, rec_, body)                                                               \
	do {                                                                               \
		int zz_ = b->zs && idx_sec_compressed(id_);                                \
		if ((st = idx_sec_begin(o, s, id_, rec_, err)))                            \
			goto out;                                                          \
		if (zz_)                                                                   \
			idx_zsink_start(o, b->zs, id_, rec_);                              \
		if ((st = (body)) || (zz_ && (st = idx_zsink_end(o, err))))               \
			goto out;                                                          \
		idx_sec_end(o, s++);                                                       \
	} while (0)
	if (b->zs)
		SEC(SEC_EVENTS, 0, idx_file_copy(o, &b->ev, err));
	SEC(SEC_DELTAS, 0, idx_file_copy(o, &b->dl, err));
	SEC(SEC_EVBLK, EVB_REC, idx_file_copy(o, &b->evb, err));
	SEC(SEC_MEMW, MEMW_REC, idx_sorter_output(&b->memw, o, &fences[0], err));
	SEC(SEC_SNAP, SNAP_REC, idx_sorter_output(&b->snap, o, &fences[1], err));
	SEC(SEC_CLOB, CLOB_REC, idx_sorter_output(&b->clob, o, &fences[2], err));
	SEC(SEC_BACKDATE, BD_REC, write_backdate(b, o, &fences[3], &nbd, err));
	SEC(SEC_REGW, REGW_REC, idx_sorter_output(&b->regw, o, &fences[4], err));
	SEC(SEC_PCS, PCS_REC, idx_sorter_output(&b->pcs, o, &fences[5], err));
	if ((st = idx_sec_begin(o, s, SEC_SYSREGS, 0, err)))
		goto out;
	for (size_t i = 0; i < b->names.count; i++)
		if ((st = idx_file_write(o, b->names.names[i], strlen(b->names.names[i]) + 1, err)))
			goto out;
	idx_sec_end(o, s++);
	for (int i = 0; i < 6; i++)
		SEC(SEC_FENCE_MEMW + i, FENCE_REC, idx_file_write(o, fences[i].p, fences[i].n, err));
	SEC(SEC_IDENTITY, 0, write_identity(o, b, id, err));
	if (b->sw.n && (st = write_sw_sections(b, o, &s, err)))
		goto out;
	if (b->zs && (st = idx_zsink_table(o, b->zs, s++, err)))
		goto out;
#undef SEC
	(void)nbd;
out:
	*sp = s;
	return st;
}

/* The header: magic, version, trace identity, counts, build time and the
 * section table. */
static void fill_header(const struct trawl_index_builder *b, const struct trawl_trace_id *id,
			uint64_t file_len, uint64_t top_sum, const struct idx_secent *secs, size_t nsec,
			uint8_t *h)
{
	memset(h, 0, IDX_HEADER_SIZE);
	memcpy(h, IDX_MAGIC, 8);
	st32(h + 8, IDX_VERSION);
	st32(h + 12, b->kind);
	st32(h + 16, IDX_FLAG_COMPLETE | IDX_FLAG_EXC_FLAGS | (b->textless ? IDX_FLAG_NO_TEXT : 0) |
			     (b->sw.n ? IDX_FLAG_SW : 0));
	st32(h + 20, IDX_HEADER_SIZE);
	st64(h + 24, file_len);
	if (id) {
		st64(h + 32, id->size);
		st64(h + 40, id->mtime_ns);
		st64(h + 48, id->ctime_ns);
		st64(h + 104, id->ino);
		st64(h + 112, id->dev);
		st64(h + 904, id->taken_ns);
	}
	st32(h + 120, IDX_BLOCK_LOG);
	st64(h + 896, top_sum);
	st64(h + 56, b->nev);
	st64(h + 64, b->last_line);
	st32(h + 72, b->K);
	st32(h + 76, b->ncpu);
	st64(h + 80, (uint64_t)((now_s() - b->t0) * 1e9));
	st64(h + 88, (uint64_t)time(NULL));
	st32(h + 96, b->time_unit);
	st32(h + 100, (uint32_t)nsec);
	for (size_t i = 0; i < nsec; i++) {
		uint8_t *e = h + 128 + 32 * i;
		st32(e, secs[i].id);
		st32(e + 4, secs[i].rec);
		st64(e + 8, secs[i].off);
		st64(e + 16, secs[i].len);
		st64(e + 24, secs[i].sum);
	}
	st64(h + IDX_HDR_CHECKSUM_OFF, idx_hash(0, h, IDX_HDR_CHECKSUM_OFF));
}

/* The header (with the complete flag) is the last write; then the file is
 * closed and renamed into place, so a reader never sees a partial index
 * under the final name. */
static enum trawl_status commit_index_file(struct trawl_index_builder *b, struct idx_file *o,
					   const uint8_t *h, struct trawl_error *err)
{
	for (size_t done = 0; done < IDX_HEADER_SIZE;) {
		ssize_t n = pwrite(o->fd, h + done, IDX_HEADER_SIZE - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return trawl_error_errno(err, n < 0 ? errno : ENOSPC, "cannot write '%s'",
						 b->tmp_path);
		done += (size_t)n;
	}
	int fd = o->fd;
	o->fd = -1;
	if (b->memory) {
		b->mem_fd = fd;
		return TRAWL_OK;
	}
	if (close(fd) != 0)
		return trawl_error_errno(err, errno, "cannot write '%s'", b->tmp_path);
	if (rename(b->tmp_path, b->path) != 0)
		return trawl_error_errno(err, errno, "cannot rename '%s' to '%s'", b->tmp_path,
					 b->path);
	free(b->tmp_path);
	b->tmp_path = NULL;
	return TRAWL_OK;
}

/* Both kinds end the same way (sections, sums, header, rename); they differ
 * only in where the events are: already in the output after its header
 * (full), or in a spool copied through the compressing sink into a fresh
 * output file (compact). Kept in one function so the order of writes,
 * which the format relies on, is in one place. */
enum trawl_status trawl_index_builder_finish(struct trawl_index_builder *b,
					     const struct trawl_trace_id *id,
					     struct trawl_error *err)
{
	static const uint8_t zero[IDX_HEADER_SIZE];
	enum trawl_status st;
	struct idx_file *o = &b->ev, z;
	memset(&z, 0, sizeof z);
	z.fd = -1;
	struct idx_fence fences[6];
	memset(fences, 0, sizeof fences);
	struct idx_secent secs[SEC_COUNT_];
	memset(secs, 0, sizeof secs);
	struct idx_secent *s = secs;
	if ((st = idx_evpack_flush(&b->evp, &b->ev, &b->evb, err)))
		goto out;
	if (b->zs) {
		/* compact: a fresh output file; the events follow from their spool */
		int fd = b->out_fd;
		b->out_fd = -1;
		if ((st = idx_file_fd(&z, fd, b->tmp_path, err))) {
			close(fd);
			goto out;
		}
		o = &z;
		if ((st = idx_file_write(o, zero, IDX_HEADER_SIZE, err)))
			goto out;
	} else {
		s->id = SEC_EVENTS;
		s->rec = 0;
		s->off = IDX_HEADER_SIZE;
		idx_sec_end(o, s++);
	}
	if ((st = write_sections(b, o, id, &s, fences, err)))
		goto out;
	uint64_t top_sum = 0;
	if ((st = idx_file_align(o, err)) || (st = idx_file_flush(o, err)) ||
	    (st = write_sums(o, o->pos, s, &top_sum, err)))
		goto out;
	s += 2;
	uint8_t h[IDX_HEADER_SIZE];
	fill_header(b, id, o->pos, top_sum, secs, (size_t)(s - secs), h);
	st = commit_index_file(b, o, h, err);
out:
	idx_file_close(&z);
	for (int i = 0; i < 6; i++)
		free(fences[i].p);
	return st;
}
