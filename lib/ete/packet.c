/* ETE / ETMv4 instruction-trace packet decoder.
 *
 * Wire format (one header byte chooses the packet; payload follows):
 *
 *   header      packet                 payload
 *   00 00*10 80 A-Sync                 (11 or more zero bytes, then 0x80)
 *   00 03/05    Discard / Overflow     -
 *   01          Trace Info             PLCTL (cont.), then INFO, KEY, SPEC,
 *                                      CYCT, WNDW sections (cont. fields)
 *                                      present when PLCTL bit 0..4 is set
 *   02 / 03     Timestamp              TS: up to 9 bytes, 7 bits each with
 *                                      bit 7 = more (9th byte: 8 bits);
 *                                      03: then cycle count (cont., <=3 bytes)
 *   04          Trace On               -
 *   06          Exception              b1: E0[0] type[5:1] E1[6] more[7];
 *                                      b2 (if more): type[9:5]; ETE types
 *                                      0 (PE reset) and 0x18 (transaction
 *                                      failure) always carry b2
 *   07          Exception return       ETMv4 only
 *   09          ITE                    EL byte + 8-byte value (ETE >= 1.3)
 *   0A / 0B     Transaction start/commit (ETE)
 *   0C-0D       Cycle count F2         AAAA:BBBB (commit, count); hdr bit0
 *                                      selects commit offset MaxSpec-15
 *   0E-0F       Cycle count F1         [commit (cont.)] [count (cont.)],
 *                                      hdr bit0 = count unknown
 *   10-1F       Cycle count F3         hdr[3:2] commit-1, hdr[1:0] count
 *   2D          Commit                 count (cont.)
 *   2E-2F       Cancel F1 (2F: + mispredict)   count (cont.)
 *   30-33       Mispredict             hdr[1:0]: atoms none/E/EE/N
 *   34-37       Cancel F2              as mispredict, cancels 1
 *   38-3F       Cancel F3              hdr[0] = E atom, cancel hdr[2:1]+2
 *   70          Ignore
 *   71-7F       Event                  hdr[3:0]
 *   80 / 81     Context same / new     81: info byte EL[1:0] NSE[3] SF[4]
 *                                      NS[5] V[6] C[7], then VMID, CID
 *   82 83 85 86 Address + context      long address, then info byte ...
 *   88          Timestamp marker (ETE)
 *   90-92       Exact-match address    history index hdr[1:0]
 *   95 / 96     Short address IS0/IS1  b0[6:0] low bits, more[7]; b1
 *   9A 9B       Long address 32-bit    4 bytes
 *   9D 9E       Long address 64-bit    8 bytes
 *   A0-AF       Q                      [address], count (cont.)
 *   B0-B2 B4-B9 Source address (ETE)   as 90-9E
 *   C0-FF,D5-D7 Atoms F1-F6            see atom_decode()
 *
 * Address packets update a three-entry history (Trace Info clears it);
 * short forms replace only the low bits of the most recent address.
 *
 * Streaming: a packet cut by the end of a chunk is kept in a small carry
 * buffer and completed by the next chunk; without sync the decoder scans
 * for A-Sync byte by byte. Bad packets are reported with their offset and
 * the decoder resynchronises at the next A-Sync.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

#include "ete/packet-int.h"

/* header classes for the 256-entry table */
enum hclass {
	H_RES = 0, H_EXT, H_TINFO, H_TS, H_TRACE_ON, H_EXCEPT, H_EXC_RTN, H_ITE,
	H_TRANS_ST, H_TRANS_COMMIT, H_CC_F1, H_CC_F2, H_CC_F3, H_COMMIT, H_CANCEL_F1,
	H_MISPRED, H_CANCEL_F2, H_CANCEL_F3, H_IGNORE, H_EVENT, H_CTXT, H_ADDR_CTXT,
	H_TS_MARKER, H_ADDR_MATCH, H_ADDR_S, H_ADDR_L32, H_ADDR_L64, H_Q,
	H_SRC_MATCH, H_SRC_S, H_SRC_L32, H_SRC_L64, H_ATOM1, H_ATOM2, H_ATOM3,
	H_ATOM4, H_ATOM5, H_ATOM6, H_BAD_CFG,
};

static const char *const pkt_names[TRAWL_ETE_PKT_COUNT_] = {
	"NOTSYNC", "BAD", "INCOMPLETE", "ASYNC", "DISCARD", "OVERFLOW", "TRACE_INFO",
	"TIMESTAMP", "TRACE_ON", "EXCEPT", "EXCEPT_RTN", "PE_RESET", "TRANS_FAIL", "ITE",
	"TRANS_ST", "TRANS_COMMIT", "CCNT_F1", "CCNT_F2", "CCNT_F3", "COMMIT", "CANCEL_F1",
	"CANCEL_F1_MISPRED", "MISPREDICT", "CANCEL_F2", "CANCEL_F3", "IGNORE", "EVENT",
	"CTXT", "ADDR_CTXT_L_32IS0", "ADDR_CTXT_L_32IS1", "ADDR_CTXT_L_64IS0",
	"ADDR_CTXT_L_64IS1", "TS_MARKER", "ADDR_MATCH", "ADDR_S_IS0", "ADDR_S_IS1",
	"ADDR_L_32IS0", "ADDR_L_32IS1", "ADDR_L_64IS0", "ADDR_L_64IS1", "Q",
	"SRC_ADDR_MATCH", "SRC_ADDR_S_IS0", "SRC_ADDR_S_IS1", "SRC_ADDR_L_32IS0",
	"SRC_ADDR_L_32IS1", "SRC_ADDR_L_64IS0", "SRC_ADDR_L_64IS1", "ATOM_F1", "ATOM_F2",
	"ATOM_F3", "ATOM_F4", "ATOM_F5", "ATOM_F6",
};

const char *trawl_ete_pkt_name(enum trawl_ete_pkt_type t)
{
	return (unsigned)t < TRAWL_ETE_PKT_COUNT_ ? pkt_names[t] : "?";
}

const char *trawl_ete_security_name(const struct trawl_ete_ctx *c)
{
	if (c->nse)
		return c->ns ? "Realm" : "Root";
	return c->ns ? "NS" : "S";
}

const char *trawl_ete_exception_name(uint32_t type, int is_ete)
{
	static const char *const names[32] = {
		"Reset", "Debug Halt", "Call", "Trap", "System Error", "Reserved",
		"Inst Debug", "Data Debug", "Reserved", "Reserved", "Alignment", "Inst Fault",
		"Data Fault", "Reserved", "IRQ", "FIQ", "Impl 0", "Impl 1", "Impl 2",
		"Impl 3", "Impl 4", "Impl 5", "Impl 6", "Impl 7", "Reserved", "Reserved",
		"Reserved", "Reserved", "Reserved", "Reserved", "Reserved", "Reserved",
	};
	if (is_ete && type == 0)
		return "PE Reset";
	if (is_ete && type == 0x18)
		return "Transaction Failure";
	return type < 32 ? names[type] : "Unknown";
}

int trawl_ete_exception_text(uint32_t type, int is_ete, uint64_t ret, char *buf, size_t size)
{
	return snprintf(buf, size, "CoreEvent_EXCEPTION %s (return address %llx)",
			trawl_ete_exception_name(type, is_ete), (unsigned long long)ret);
}

void trawl_ete_config_default(struct trawl_ete_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->idr0 = 0x28000ea1;
	cfg->idr1 = 0x4100fff0;
	cfg->idr2 = 0x00000488;
	cfg->idr8 = 0;
	cfg->configr = 0x1;
	cfg->devarch = 0x47705a13;
	trawl_ete_config_derive(cfg, NULL);
}

enum trawl_status trawl_ete_config_derive(struct trawl_ete_config *cfg, struct trawl_error *err)
{
	uint32_t archver = (cfg->devarch >> 12) & 0xf;
	cfg->is_ete = cfg->devarch != 0 && archver >= 5;
	if (cfg->is_ete)
		cfg->arch_minor = (cfg->devarch >> 16) & 0xf;
	else
		cfg->arch_minor = (cfg->idr1 >> 4) & 0xf;
	uint32_t cid = (cfg->idr2 >> 5) & 0x1f, vmid = (cfg->idr2 >> 10) & 0x1f;
	if (cid != 0 && cid != 4)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "TRCIDR2 0x%08x: reserved context ID size %u", cfg->idr2, cid);
	if (vmid != 0 && vmid != 1 && vmid != 2 && vmid != 4)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "TRCIDR2 0x%08x: reserved VMID size %u", cfg->idr2, vmid);
	cfg->cid_bytes = cid ? 4 : 0;
	cfg->vmid_bytes = (uint8_t)vmid;
	cfg->cc_bits = (uint8_t)(((cfg->idr2 >> 25) & 0xf) + 12);
	cfg->q_supported = ((cfg->idr0 >> 15) & 3) != 0;
	cfg->commopt1 = ((cfg->idr0 >> 29) & 1) && ((cfg->idr0 >> 7) & 1);
	cfg->return_stack = (cfg->configr >> 12) & 1;
	cfg->max_spec = cfg->idr8;
	if (cfg->max_spec > 1024)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "TRCIDR8 0x%08x: speculation depth beyond 1024", cfg->idr8);
	return TRAWL_OK;
}

static void atom_decode(uint8_t h, int cls, struct trawl_ete_packet *p);
static inline int parse_one(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
			    struct trawl_ete_packet *p);

static void set_range(uint8_t *t, int lo, int hi, uint8_t c)
{
	for (int i = lo; i <= hi; i++)
		t[i] = c;
}

/* Header byte -> packet class for this configuration, as the ETE/ETMv4
 * header tables list them: one assignment per header or range, so each
 * line can be checked against the specification's table. Headers that
 * need a feature this trace unit lacks (ETE-only packets on ETMv4, Q
 * without TRCIDR0.QSUPP, ITE before ETE 1.3) stay reserved or H_BAD_CFG. */
static void build_table(struct trawl_ete_pkt_decoder *d)
{
	uint8_t *t = d->table;
	int ete = d->cfg.is_ete;
	memset(t, H_RES, 256);
	t[0x00] = H_EXT;
	t[0x01] = H_TINFO;
	t[0x02] = t[0x03] = H_TS;
	t[0x04] = H_TRACE_ON;
	t[0x06] = H_EXCEPT;
	t[0x07] = ete ? H_BAD_CFG : H_EXC_RTN;
	if (ete) {
		t[0x0A] = H_TRANS_ST;
		t[0x0B] = H_TRANS_COMMIT;
		if (d->cfg.arch_minor >= 3)
			t[0x09] = H_ITE;
	}
	t[0x0C] = t[0x0D] = H_CC_F2;
	t[0x0E] = t[0x0F] = H_CC_F1;
	set_range(t, 0x10, 0x1F, H_CC_F3);
	set_range(t, 0x20, 0x2C, H_BAD_CFG); /* data-trace markers */
	t[0x2D] = H_COMMIT;
	t[0x2E] = t[0x2F] = H_CANCEL_F1;
	set_range(t, 0x30, 0x33, H_MISPRED);
	set_range(t, 0x34, 0x37, H_CANCEL_F2);
	set_range(t, 0x38, 0x3F, H_CANCEL_F3);
	set_range(t, 0x40, 0x6F, H_BAD_CFG); /* conditional trace (not supported) */
	t[0x47] = t[0x4B] = t[0x4F] = H_RES;
	set_range(t, 0x60, 0x67, H_RES);
	t[0x70] = H_IGNORE;
	set_range(t, 0x71, 0x7F, H_EVENT);
	t[0x80] = t[0x81] = H_CTXT;
	t[0x82] = t[0x83] = t[0x85] = t[0x86] = H_ADDR_CTXT;
	if (ete)
		t[0x88] = H_TS_MARKER;
	set_range(t, 0x90, 0x92, H_ADDR_MATCH);
	t[0x95] = t[0x96] = H_ADDR_S;
	t[0x9A] = t[0x9B] = H_ADDR_L32;
	t[0x9D] = t[0x9E] = H_ADDR_L64;
	if (d->cfg.q_supported) {
		static const int qt[] = { 0x0, 0x1, 0x2, 0x5, 0x6, 0xA, 0xB, 0xC, 0xF };
		for (size_t i = 0; i < sizeof qt / sizeof qt[0]; i++)
			t[0xA0 + qt[i]] = H_Q;
	}
	if (ete) {
		set_range(t, 0xB0, 0xB2, H_SRC_MATCH);
		t[0xB4] = t[0xB5] = H_SRC_S;
		t[0xB6] = t[0xB7] = H_SRC_L32;
		t[0xB8] = t[0xB9] = H_SRC_L64;
	}
	set_range(t, 0xC0, 0xD4, H_ATOM6);
	set_range(t, 0xE0, 0xF4, H_ATOM6);
	set_range(t, 0xD5, 0xD7, H_ATOM5);
	t[0xF5] = H_ATOM5;
	set_range(t, 0xD8, 0xDB, H_ATOM2);
	set_range(t, 0xDC, 0xDF, H_ATOM4);
	t[0xF6] = t[0xF7] = H_ATOM1;
	set_range(t, 0xF8, 0xFF, H_ATOM3);
}

/* Kinds and types for the counting fast path. The type of each fast header
 * is taken from parse_one itself (on a zero payload) so the two paths
 * cannot disagree on it. */
static void build_fast(struct trawl_ete_pkt_decoder *d)
{
	for (int h = 0; h < 256; h++) {
		int c = d->table[h];
		uint8_t k = FK_SLOW;
		if (d->one_byte[h])
			k = FK_ONE;
		else if (c == H_CC_F2)
			k = FK_CC2;
		else if (c == H_CC_F1)
			k = FK_CC1;
		else if (c == H_ADDR_S || c == H_SRC_S)
			k = (h == 0x96 || h == 0xB5) ? FK_S1 : FK_S0;
		else if (c == H_ADDR_L32 || c == H_SRC_L32)
			k = (h == 0x9B || h == 0xB7) ? FK_L32_1 : FK_L32_0;
		else if (c == H_ADDR_L64 || c == H_SRC_L64)
			k = (h == 0x9E || h == 0xB9) ? FK_L64_1 : FK_L64_0;
		else if (c == H_ADDR_MATCH || c == H_SRC_MATCH)
			k = FK_MATCH;
		if (k == FK_SLOW)
			continue;
		uint8_t buf[16] = { (uint8_t)h };
		struct trawl_ete_packet p;
		memset(&p, 0, sizeof p);
		if (parse_one(d, buf, sizeof buf, &p) <= 0)
			continue;
		d->fast[h] = k;
		d->htype[h] = p.type;
	}
	for (int h = 0; h < 256; h++) {
		unsigned k = d->fast[h];
		if (k == FK_CC1 && d->cfg.commopt1)
			/* no commit field: odd headers (cycle count unknown) are
			 * one byte, even ones a cycle count field only */
			k = (h & 1) ? FK_ONE : CK_CC1C;
		d->crow[h] = (uint16_t)(k * 32);
		d->ccol[h] = (uint8_t)(k + ((h & 0x80) ? 16 : 0));
	}
}

static void reset_state(struct trawl_ete_pkt_decoder *d, uint64_t offset)
{
	d->offset = offset;
	d->synced = 0;
	d->zeros = 0;
	d->skip_start = offset;
	d->skipped = 0;
	memset(d->hist, 0, sizeof d->hist);
	d->ts = 0;
	d->ts_reset = 1;
	d->cc_threshold = 0;
	d->carry_len = 0;
}

/* Besides the class table, every one-byte packet whose record does not
 * depend on decoder state gets a template made by parse_one itself (so the
 * template and the general parser cannot disagree), with its atom counts
 * for the statistics; build_fast then derives the fast-path kinds. */
enum trawl_status trawl_ete_pkt_decoder_create(struct trawl_ete_pkt_decoder **out,
					       const struct trawl_ete_config *cfg,
					       trawl_ete_packet_fn fn, void *fn_ctx,
					       struct trawl_error *err)
{
	*out = NULL;
	struct trawl_ete_pkt_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	d->cfg = *cfg;
	d->fn = fn;
	d->fn_ctx = fn_ctx;
	build_table(d);
	for (int h = 0; h < 256; h++) {
		int c = d->table[h];
		struct trawl_ete_packet *p = &d->tmpl[h];
		uint8_t one = (uint8_t)h;
		if (c == H_CC_F3 || c == H_EVENT || c == H_IGNORE || c == H_TRACE_ON ||
		    c == H_TS_MARKER || c == H_TRANS_ST || c == H_TRANS_COMMIT) {
			memset(p, 0, sizeof *p);
			/* parse_one on a one-byte packet; thresholds are added later */
			uint32_t save = d->cc_threshold;
			d->cc_threshold = 0;
			if (parse_one(d, &one, 1, p) == 1) {
				p->header = one;
				p->len = 1;
				d->one_byte[h] = c == H_CC_F3 ? 2 : 1;
			}
			d->cc_threshold = save;
			continue;
		}
		if (c < H_ATOM1 || c > H_ATOM6)
			continue;
		memset(p, 0, sizeof *p);
		p->header = (uint8_t)h;
		p->len = 1;
		atom_decode((uint8_t)h, c, p);
		d->one_byte[h] = 1;
		for (unsigned i = 0; i < p->natoms; i++) {
			if ((p->atoms >> i) & 1)
				d->n_e[h]++;
			else
				d->n_n[h]++;
		}
	}
	build_fast(d);
	reset_state(d, 0);
	*out = d;
	return TRAWL_OK;
}

void trawl_ete_pkt_decoder_reset(struct trawl_ete_pkt_decoder *d, uint64_t offset)
{
	reset_state(d, offset);
}

void trawl_ete_pkt_decoder_set_generic(struct trawl_ete_pkt_decoder *d, int on)
{
	d->generic = on != 0;
}

void trawl_ete_pkt_decoder_destroy(struct trawl_ete_pkt_decoder *d)
{
	free(d);
}

const struct trawl_ete_pkt_stats *trawl_ete_pkt_decoder_stats(const struct trawl_ete_pkt_decoder *d)
{
	return &d->stats;
}

enum trawl_status trawl_ete_pkt_decoder_history(const struct trawl_ete_pkt_decoder *d, unsigned i,
						uint64_t *addr, uint8_t *is)
{
	if (i > 2)
		return TRAWL_ERR_USAGE;
	*addr = d->hist[i].addr;
	*is = d->hist[i].is;
	return TRAWL_OK;
}

/* Statistics are taken over each batch as it leaves, with four
 * interleaved histograms so runs of one packet type do not serialise on a
 * single counter. */
static void batch_stats(struct trawl_ete_pkt_decoder *d)
{
	uint32_t h[4][TRAWL_ETE_PKT_COUNT_];
	uint64_t ae = 0, an = 0;
	memset(h, 0, sizeof h);
	size_t n = d->nbatch, i = 0;
	const struct trawl_ete_packet *b = d->batch;
	for (; i + 4 <= n; i += 4) {
		h[0][b[i].type]++;
		h[1][b[i + 1].type]++;
		h[2][b[i + 2].type]++;
		h[3][b[i + 3].type]++;
		/* n_e/n_n are 0 for headers that are not atoms */
		ae += (uint64_t)d->n_e[b[i].header] + d->n_e[b[i + 1].header] +
		      d->n_e[b[i + 2].header] + d->n_e[b[i + 3].header];
		an += (uint64_t)d->n_n[b[i].header] + d->n_n[b[i + 1].header] +
		      d->n_n[b[i + 2].header] + d->n_n[b[i + 3].header];
	}
	for (; i < n; i++) {
		h[0][b[i].type]++;
		ae += d->n_e[b[i].header];
		an += d->n_n[b[i].header];
	}
	for (int t = 0; t < TRAWL_ETE_PKT_COUNT_; t++)
		d->stats.by_type[t] += (uint64_t)h[0][t] + h[1][t] + h[2][t] + h[3][t];
	d->stats.packets += n;
	d->stats.atoms_e += ae;
	d->stats.atoms_n += an;
}

static void flush(struct trawl_ete_pkt_decoder *d)
{
	if (d->nbatch) {
		batch_stats(d);
		if (d->fn)
			d->fn(d->fn_ctx, d->batch, d->nbatch);
		d->nbatch = 0;
	}
}

/* For the records fast path in packet-fast.c; flush itself stays static so
 * that the calls here compile as before. */
void ete_pkt_flush(struct trawl_ete_pkt_decoder *d)
{
	flush(d);
}

static inline struct trawl_ete_packet *new_pkt(struct trawl_ete_pkt_decoder *d)
{
	if (d->nbatch == BATCH_MAX)
		flush(d);
	struct trawl_ete_packet *p = &d->batch[d->nbatch];
	memset(p, 0, sizeof *p);
	return p;
}

static inline void commit_pkt(struct trawl_ete_pkt_decoder *d, struct trawl_ete_packet *p)
{
	(void)p;
	d->nbatch++;
}

/* Continuation field: 7 bits per byte, bit 7 = more. Returns bytes used,
 * 0 if the buffer ends first, -1 if longer than max bytes. */
static inline int cont_field(const uint8_t *p, size_t avail, int max, uint64_t *val)
{
	uint64_t v = 0;
	for (int i = 0; i < max; i++) {
		if ((size_t)i >= avail)
			return 0;
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*val = v;
			return i + 1;
		}
	}
	return -1;
}

static inline void push_addr(struct trawl_ete_pkt_decoder *d, uint64_t addr, uint8_t is)
{
	d->hist[2] = d->hist[1];
	d->hist[1] = d->hist[0];
	d->hist[0].addr = addr;
	d->hist[0].is = is;
}

/* Long address of nbytes (4 or 8), IS-dependent packing of the low bytes. */
static inline uint64_t long_addr(const struct trawl_ete_pkt_decoder *d, const uint8_t *b, int n,
				 int is)
{
	uint64_t v;
	if (is == 0)
		v = ((uint64_t)(b[0] & 0x7f) << 2) | ((uint64_t)(b[1] & 0x7f) << 9);
	else
		v = ((uint64_t)(b[0] & 0x7f) << 1) | ((uint64_t)b[1] << 8);
	v |= ((uint64_t)b[2] << 16) | ((uint64_t)b[3] << 24);
	if (n == 8) {
		for (int i = 4; i < 8; i++)
			v |= (uint64_t)b[i] << (8 * i);
		return v;
	}
	return (d->hist[0].addr & 0xffffffff00000000ull) | v;
}

/* Short address: 1 or 2 bytes. Returns bytes used or 0 if more needed. */
static inline int short_addr(const struct trawl_ete_pkt_decoder *d, const uint8_t *b,
			     size_t avail, int is, uint64_t *addr, uint8_t *bits)
{
	int shift = is ? 1 : 2;
	if (avail < 1)
		return 0;
	uint64_t v = (uint64_t)(b[0] & 0x7f) << shift;
	int used = 1, nb = 7 + shift;
	if (b[0] & 0x80) {
		if (avail < 2)
			return 0;
		v |= (uint64_t)b[1] << (7 + shift);
		used = 2;
		nb += 8;
	}
	uint64_t mask = (1ull << nb) - 1;
	*addr = (d->hist[0].addr & ~mask) | v;
	*bits = (uint8_t)nb;
	return used;
}

/* Context info byte plus optional VMID / CID. Returns bytes or 0. */
static inline int ctx_field(const struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
			    struct trawl_ete_ctx *c)
{
	if (avail < 1)
		return 0;
	uint8_t info = b[0];
	int vb = (info & 0x40) ? d->cfg.vmid_bytes : 0;
	int cb = (info & 0x80) ? d->cfg.cid_bytes : 0;
	if (avail < (size_t)(1 + vb + cb))
		return 0;
	c->el = info & 3;
	c->nse = (info >> 3) & 1;
	c->sf = (info >> 4) & 1;
	c->ns = (info >> 5) & 1;
	c->has_vmid = vb > 0;
	c->has_cid = cb > 0;
	c->vmid = 0;
	c->cid = 0;
	for (int i = 0; i < vb; i++)
		c->vmid |= (uint32_t)b[1 + i] << (8 * i);
	for (int i = 0; i < cb; i++)
		c->cid |= (uint32_t)b[1 + vb + i] << (8 * i);
	return 1 + vb + cb;
}

static void atom_decode(uint8_t h, int cls, struct trawl_ete_packet *p)
{
	static const uint8_t f4[4] = { 0xE, 0x0, 0xA, 0x5 };
	switch (cls) {
	case H_ATOM1: p->type = TRAWL_ETE_PKT_ATOM_F1; p->atoms = h & 1; p->natoms = 1; break;
	case H_ATOM2: p->type = TRAWL_ETE_PKT_ATOM_F2; p->atoms = h & 3; p->natoms = 2; break;
	case H_ATOM3: p->type = TRAWL_ETE_PKT_ATOM_F3; p->atoms = h & 7; p->natoms = 3; break;
	case H_ATOM4: p->type = TRAWL_ETE_PKT_ATOM_F4; p->atoms = f4[h & 3]; p->natoms = 4; break;
	case H_ATOM5: {
		p->type = TRAWL_ETE_PKT_ATOM_F5;
		p->natoms = 5;
		int idx = ((h & 0x20) >> 3) | (h & 3);
		p->atoms = idx == 5 ? 0x1E : idx == 2 ? 0x0A : idx == 3 ? 0x15 : 0;
		break;
	}
	default: { /* F6: n E atoms then one E or N */
		int n = (h & 0x1f) + 3;
		p->type = TRAWL_ETE_PKT_ATOM_F6;
		p->atoms = (1u << n) - 1;
		if (!(h & 0x20))
			p->atoms |= 1u << n;
		p->natoms = (uint8_t)(n + 1);
		break;
	}
	}
}

#define NEED(n) do { if (avail < (size_t)(n)) return 0; } while (0)
#define FIELD(r) do { if ((r) == 0) return 0; if ((r) < 0) return bad(p, TRAWL_ETE_BAD_FIELD); } while (0)
/* Packet parsers are inlined into parse_one, which is inlined into the
 * decoding loops: one switch in the generated code, as if written as one
 * function. Each returns what parse_one returns. */
#define PARSER static inline __attribute__((always_inline)) int

static inline int bad(struct trawl_ete_packet *p, uint32_t why)
{
	p->type = TRAWL_ETE_PKT_BAD;
	p->count = why;
	return -1;
}

/* 00: Discard, Overflow, or an A-Sync (eleven or more zeros, then 0x80),
 * which clears the address history */
PARSER parse_ext(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
		 struct trawl_ete_packet *p)
{
	NEED(2);
	if (b[1] == 0x03) { p->type = TRAWL_ETE_PKT_DISCARD; return 2; }
	if (b[1] == 0x05) { p->type = TRAWL_ETE_PKT_OVERFLOW; return 2; }
	if (b[1] != 0x00)
		return bad(p, TRAWL_ETE_BAD_SEQUENCE);
	for (int i = 2; i < CARRY_MAX - 1; i++) {
		NEED(i + 1);
		if (b[i] == 0x80 && i >= 11) {
			p->type = TRAWL_ETE_PKT_ASYNC;
			memset(d->hist, 0, sizeof d->hist);
			return i + 1;
		}
		if (b[i] != 0x00)
			return bad(p, TRAWL_ETE_BAD_SEQUENCE);
	}
	return bad(p, TRAWL_ETE_BAD_SEQUENCE);
}

/* Trace Info: control byte(s), then the sections it names; resets the
 * address history and timestamp and sets the cycle-count threshold */
PARSER parse_tinfo(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
		   struct trawl_ete_packet *p)
{
	uint64_t v;
	int r;
	NEED(2);
	int ctrl = 1;
	uint8_t sect = b[1] & 0x1f;
	if (b[1] & 0x80) { /* extended control bytes: skip them */
		for (ctrl = 2; ; ctrl++) {
			if (ctrl > 3)
				return bad(p, TRAWL_ETE_BAD_FIELD);
			NEED(ctrl + 1);
			if (!(b[ctrl] & 0x80))
				break;
		}
	}
	int pos = 1 + ctrl;
	uint32_t vals[5] = { 0 };
	for (int i = 0; i < 5; i++) {
		if (!(sect & (1u << i)))
			continue;
		r = cont_field(b + pos, avail - (size_t)pos, CONT_MAX, &v);
		FIELD(r);
		vals[i] = (uint32_t)v;
		pos += r;
	}
	p->type = TRAWL_ETE_PKT_TRACE_INFO;
	p->tinfo_sections = sect;
	p->value = vals[0];
	p->tinfo_key = vals[1];
	p->tinfo_spec = vals[2];
	p->tinfo_cyct = vals[3];
	memset(d->hist, 0, sizeof d->hist);
	d->ts_reset = 1;
	d->cc_threshold = vals[3];
	return pos;
}

/* Timestamp: the low bits it carries replace those of the last one (all
 * of them after a Trace Info); 03 adds a cycle count */
PARSER parse_ts(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
		struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	uint64_t ts = 0, v;
	int n, r;
	for (n = 0; n < 9; n++) {
		NEED(2 + n);
		uint8_t c = b[1 + n];
		if (n == 8) {
			ts |= (uint64_t)c << 56;
			n++;
			break;
		}
		ts |= (uint64_t)(c & 0x7f) << (7 * n);
		if (!(c & 0x80)) {
			n++;
			break;
		}
	}
	int pos = 1 + n;
	int bits = n < 9 ? 7 * n : 64;
	if (d->ts_reset || bits >= 64) {
		d->ts = ts;
		d->ts_reset = 0;
	} else {
		uint64_t mask = (1ull << bits) - 1;
		d->ts = (d->ts & ~mask) | ts;
	}
	p->type = TRAWL_ETE_PKT_TIMESTAMP;
	p->value = d->ts;
	p->addr_bits = (uint8_t)bits;
	if (h & 1) {
		r = cont_field(b + pos, avail - (size_t)pos, 3, &v);
		FIELD(r);
		pos += r;
		p->cc = (uint32_t)v & ((d->cfg.cc_bits >= 32) ? 0xffffffffu
						: ((1u << d->cfg.cc_bits) - 1));
		p->flags |= TRAWL_ETE_PF_HAS_CC;
	}
	return pos;
}

/* Exception: type in one or two bytes; ETE types 0 (PE reset) and 0x18
 * (transaction failure) always have the second byte and their own types */
PARSER parse_except(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
		    struct trawl_ete_packet *p)
{
	NEED(2);
	uint32_t type = (b[1] >> 1) & 0x1f;
	int len = (b[1] & 0x80) ? 3 : 2;
	if (d->cfg.is_ete && (type == 0 || type == 0x18))
		len = 3;
	NEED(len);
	if (b[1] & 0x80)
		type |= (uint32_t)(b[2] & 0x1f) << 5;
	p->type = TRAWL_ETE_PKT_EXCEPT;
	p->count = type;
	p->exc_addr_interp = (uint8_t)(((b[1] & 0x40) >> 5) | (b[1] & 1));
	if (d->cfg.is_ete && type == 0x18)
		p->type = TRAWL_ETE_PKT_TRANS_FAIL;
	else if (d->cfg.is_ete && type == 0)
		p->type = TRAWL_ETE_PKT_PE_RESET;
	return len;
}

PARSER parse_ite(const uint8_t *b, size_t avail, struct trawl_ete_packet *p)
{
	NEED(10);
	p->type = TRAWL_ETE_PKT_ITE;
	p->ite_el = b[1];
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b[2 + i] << (8 * i);
	p->value = v;
	return 10;
}

/* Cycle count format 2: commit AAAA (offset 1, or MaxSpec - 15 with hdr
 * bit 0) and count BBBB above the threshold */
PARSER parse_cc_f2(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
		   struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	NEED(2);
	p->type = TRAWL_ETE_PKT_CCNT_F2;
	int off = (h & 1) ? (int)d->cfg.max_spec - 15 : 1;
	int c = ((b[1] >> 4) & 0xf) + off;
	p->commit = (uint16_t)(c < 0 ? 0 : c);
	p->flags |= TRAWL_ETE_PF_HAS_COMMIT | TRAWL_ETE_PF_HAS_CC;
	p->cc = d->cc_threshold + (b[1] & 0xf);
	return 2;
}

PARSER parse_cc_f3(struct trawl_ete_pkt_decoder *d, uint8_t h, struct trawl_ete_packet *p)
{
	p->type = TRAWL_ETE_PKT_CCNT_F3;
	if (!d->cfg.commopt1) {
		p->commit = (uint16_t)(((h >> 2) & 3) + 1);
		p->flags |= TRAWL_ETE_PF_HAS_COMMIT;
	}
	p->cc = d->cc_threshold + (h & 3);
	p->flags |= TRAWL_ETE_PF_HAS_CC;
	return 1;
}

/* Cycle count format 1: [commit] unless commit option 1, [count] unless
 * hdr bit 0 says it is unknown */
PARSER parse_cc_f1(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
		   struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	uint64_t v;
	int r, pos = 1;
	p->type = TRAWL_ETE_PKT_CCNT_F1;
	if (!d->cfg.commopt1) {
		r = cont_field(b + pos, avail - 1, CONT_MAX, &v);
		FIELD(r);
		pos += r;
		p->commit = (uint16_t)(v > 0xffff ? 0xffff : v);
		p->flags |= TRAWL_ETE_PF_HAS_COMMIT;
	}
	if (!(h & 1)) {
		r = cont_field(b + pos, avail - (size_t)pos, 3, &v);
		FIELD(r);
		pos += r;
		p->cc = (uint32_t)v + d->cc_threshold;
		p->flags |= TRAWL_ETE_PF_HAS_CC;
	} else {
		p->flags |= TRAWL_ETE_PF_CC_UNKNOWN;
	}
	return pos;
}

/* Commit, Cancel format 1: a count */
PARSER parse_commit(int cls, const uint8_t *b, size_t avail, struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	uint64_t v;
	int r = cont_field(b + 1, avail - 1, CONT_MAX, &v);
	FIELD(r);
	p->type = cls == H_COMMIT ? TRAWL_ETE_PKT_COMMIT
		  : (h & 1) ? TRAWL_ETE_PKT_CANCEL_F1_MISPRED : TRAWL_ETE_PKT_CANCEL_F1;
	p->count = (uint32_t)v;
	return 1 + r;
}

/* A packet this decoder does not follow (ETMv4 conditional and data
 * trace, Exception Return in ETE): walked over by its length so the
 * stream stays in step, and reported as BAD (TRAWL_ETE_BAD_CONFIG) with
 * that length. Lengths from the ETMv4 header table: data sync markers
 * 20-2C, conditional instruction F2 40-42, flush 43, result F4 44-46 and
 * F2 48-4A/4C-4E are one byte; result F3 50-5F and instruction F3 6D two;
 * instruction F1 6C carries a key (continuation field); result F1 carries
 * two result+key fields (68-6B) or one (6E-6F), 6 bytes at most each. */
PARSER parse_unsupported(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
			 struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	int n = 1, fields = 0, max = 6;
	uint64_t v;
	if ((h >= 0x50 && h <= 0x5F) || h == 0x6D)
		n = 2;
	else if (h == 0x6C)
		fields = 1, max = CONT_MAX;
	else if (h >= 0x68 && h <= 0x6B)
		fields = 2;
	else if (h == 0x6E || h == 0x6F)
		fields = 1;
	NEED(n);
	for (int i = 0; i < fields; i++) {
		int r = cont_field(b + n, avail - (size_t)n, max, &v);
		FIELD(r);
		n += r;
	}
	p->type = TRAWL_ETE_PKT_BAD;
	p->count = TRAWL_ETE_BAD_CONFIG;
	d->stats.bad++;
	return n;
}

/* Mispredict, Cancel formats 2 and 3: atoms and a cancel count in the
 * header */
PARSER parse_mispred(int cls, uint8_t h, struct trawl_ete_packet *p)
{
	if (cls == H_CANCEL_F3) {
		p->type = TRAWL_ETE_PKT_CANCEL_F3;
		if (h & 1) {
			p->atoms = 1;
			p->natoms = 1;
		}
		p->count = ((h >> 1) & 3) + 2;
		return 1;
	}
	p->type = cls == H_MISPRED ? TRAWL_ETE_PKT_MISPREDICT : TRAWL_ETE_PKT_CANCEL_F2;
	switch (h & 3) {
	case 1: p->atoms = 1; p->natoms = 1; break;
	case 2: p->atoms = 3; p->natoms = 2; break;
	case 3: p->atoms = 0; p->natoms = 1; break;
	}
	p->count = cls == H_CANCEL_F2 ? 1 : 0;
	return 1;
}

PARSER parse_ctxt(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
		  struct trawl_ete_packet *p)
{
	p->type = TRAWL_ETE_PKT_CTXT;
	if (!(b[0] & 1))
		return 1;
	int r = ctx_field(d, b + 1, avail - 1, &p->ctx);
	if (!r)
		return 0;
	p->flags |= TRAWL_ETE_PF_HAS_CTX;
	return 1 + r;
}

PARSER parse_addr_ctxt(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
		       struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	int is = (h == 0x83 || h == 0x86), n = (h >= 0x85) ? 8 : 4;
	NEED(1 + n);
	int r = ctx_field(d, b + 1 + n, avail - 1 - (size_t)n, &p->ctx);
	if (!r)
		return 0;
	p->type = h == 0x82 ? TRAWL_ETE_PKT_ADDR_CTXT_L_32IS0 : h == 0x83 ? TRAWL_ETE_PKT_ADDR_CTXT_L_32IS1
		  : h == 0x85 ? TRAWL_ETE_PKT_ADDR_CTXT_L_64IS0 : TRAWL_ETE_PKT_ADDR_CTXT_L_64IS1;
	p->addr = long_addr(d, b + 1, n, is);
	p->is = (uint8_t)is;
	p->addr_bits = (uint8_t)(n * 8);
	p->flags |= TRAWL_ETE_PF_HAS_ADDR | TRAWL_ETE_PF_HAS_CTX;
	push_addr(d, p->addr, p->is);
	return 1 + n + r;
}

/* Exact match (plain or source): an entry of the history, pushed again */
PARSER parse_addr_match(struct trawl_ete_pkt_decoder *d, int cls, uint8_t h,
			struct trawl_ete_packet *p)
{
	int idx = h & 3;
	p->type = cls == H_ADDR_MATCH ? TRAWL_ETE_PKT_ADDR_MATCH : TRAWL_ETE_PKT_SRC_ADDR_MATCH;
	p->count = (uint32_t)idx;
	p->addr = d->hist[idx].addr;
	p->is = d->hist[idx].is;
	p->flags |= TRAWL_ETE_PF_HAS_ADDR;
	push_addr(d, p->addr, p->is);
	return 1;
}

PARSER parse_addr_s(struct trawl_ete_pkt_decoder *d, int cls, const uint8_t *b, size_t avail,
		    struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	int is = (h == 0x96 || h == 0xB5);
	int r = short_addr(d, b + 1, avail - 1, is, &p->addr, &p->addr_bits);
	if (!r)
		return 0;
	p->type = cls == H_ADDR_S ? (is ? TRAWL_ETE_PKT_ADDR_S_IS1 : TRAWL_ETE_PKT_ADDR_S_IS0)
				  : (is ? TRAWL_ETE_PKT_SRC_ADDR_S_IS1 : TRAWL_ETE_PKT_SRC_ADDR_S_IS0);
	p->is = (uint8_t)is;
	p->flags |= TRAWL_ETE_PF_HAS_ADDR;
	push_addr(d, p->addr, p->is);
	return 1 + r;
}

/* Long address, 32 or 64 bits, plain or source */
PARSER parse_addr_l(struct trawl_ete_pkt_decoder *d, int cls, const uint8_t *b, size_t avail,
		    struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	int n = (cls == H_ADDR_L64 || cls == H_SRC_L64) ? 8 : 4;
	int is = (h == 0x9B || h == 0x9E || h == 0xB7 || h == 0xB9);
	NEED(1 + n);
	p->addr = long_addr(d, b + 1, n, is);
	p->is = (uint8_t)is;
	p->addr_bits = (uint8_t)(n * 8);
	if (cls == H_ADDR_L32)
		p->type = is ? TRAWL_ETE_PKT_ADDR_L_32IS1 : TRAWL_ETE_PKT_ADDR_L_32IS0;
	else if (cls == H_ADDR_L64)
		p->type = is ? TRAWL_ETE_PKT_ADDR_L_64IS1 : TRAWL_ETE_PKT_ADDR_L_64IS0;
	else if (cls == H_SRC_L32)
		p->type = is ? TRAWL_ETE_PKT_SRC_ADDR_L_32IS1 : TRAWL_ETE_PKT_SRC_ADDR_L_32IS0;
	else
		p->type = is ? TRAWL_ETE_PKT_SRC_ADDR_L_64IS1 : TRAWL_ETE_PKT_SRC_ADDR_L_64IS0;
	p->flags |= TRAWL_ETE_PF_HAS_ADDR;
	push_addr(d, p->addr, p->is);
	return 1 + n;
}

/* Q: an address (exact match, short or 32-bit long, by hdr[3:0]) and an
 * instruction count, either of which may be absent */
PARSER parse_q(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t avail,
	       struct trawl_ete_packet *p)
{
	int qt = b[0] & 0xf, pos = 1, has_addr = 0, r;
	uint64_t addr = 0, v;
	uint8_t is = 0, bits = 0;
	p->type = TRAWL_ETE_PKT_Q;
	if (qt <= 2) {
		addr = d->hist[qt].addr;
		is = d->hist[qt].is;
		has_addr = 1;
	} else if (qt == 5 || qt == 6) {
		is = qt == 6;
		r = short_addr(d, b + 1, avail - 1, is, &addr, &bits);
		if (!r)
			return 0;
		pos += r;
		has_addr = 1;
	} else if (qt == 0xA || qt == 0xB) {
		is = qt == 0xB;
		NEED(5);
		addr = long_addr(d, b + 1, 4, is);
		bits = 32;
		pos += 4;
		has_addr = 1;
	}
	if (qt != 0xF) {
		r = cont_field(b + pos, avail - (size_t)pos, CONT_MAX, &v);
		FIELD(r);
		pos += r;
		p->count = (uint32_t)v;
		p->flags |= TRAWL_ETE_PF_HAS_COUNT;
	}
	if (has_addr) {
		p->addr = addr;
		p->is = is;
		p->addr_bits = bits;
		p->flags |= TRAWL_ETE_PF_HAS_ADDR;
		push_addr(d, addr, is);
	}
	return pos;
}

/* Decode one packet at b (synced). Returns its length, 0 when more bytes
 * are needed, or a negative value after filling p as a BAD packet (which
 * drops sync). A switch on the header's class (the table), one parser per
 * packet kind. */
static inline __attribute__((always_inline)) int parse_one(struct trawl_ete_pkt_decoder *d,
							  const uint8_t *b, size_t avail,
							  struct trawl_ete_packet *p)
{
	uint8_t h = b[0];
	int cls = d->table[h];
	p->header = h;
	switch (cls) {
	case H_ATOM1: case H_ATOM2: case H_ATOM3: case H_ATOM4: case H_ATOM5: case H_ATOM6:
		atom_decode(h, cls, p);
		return 1;
	case H_EXT: return parse_ext(d, b, avail, p);
	case H_TINFO: return parse_tinfo(d, b, avail, p);
	case H_TS: return parse_ts(d, b, avail, p);
	case H_TRACE_ON: p->type = TRAWL_ETE_PKT_TRACE_ON; return 1;
	case H_EXC_RTN: p->type = TRAWL_ETE_PKT_EXCEPT_RTN; return 1;
	case H_TRANS_ST: p->type = TRAWL_ETE_PKT_TRANS_ST; return 1;
	case H_TRANS_COMMIT: p->type = TRAWL_ETE_PKT_TRANS_COMMIT; return 1;
	case H_IGNORE: p->type = TRAWL_ETE_PKT_IGNORE; return 1;
	case H_TS_MARKER: p->type = TRAWL_ETE_PKT_TS_MARKER; return 1;
	case H_EVENT: p->type = TRAWL_ETE_PKT_EVENT; p->count = h & 0xf; return 1;
	case H_EXCEPT: return parse_except(d, b, avail, p);
	case H_ITE: return parse_ite(b, avail, p);
	case H_CC_F2: return parse_cc_f2(d, b, avail, p);
	case H_CC_F3: return parse_cc_f3(d, h, p);
	case H_CC_F1: return parse_cc_f1(d, b, avail, p);
	case H_COMMIT: case H_CANCEL_F1: return parse_commit(cls, b, avail, p);
	case H_MISPRED: case H_CANCEL_F2: case H_CANCEL_F3: return parse_mispred(cls, h, p);
	case H_CTXT: return parse_ctxt(d, b, avail, p);
	case H_ADDR_CTXT: return parse_addr_ctxt(d, b, avail, p);
	case H_ADDR_MATCH: case H_SRC_MATCH: return parse_addr_match(d, cls, h, p);
	case H_ADDR_S: case H_SRC_S: return parse_addr_s(d, cls, b, avail, p);
	case H_ADDR_L32: case H_ADDR_L64: case H_SRC_L32: case H_SRC_L64:
		return parse_addr_l(d, cls, b, avail, p);
	case H_Q: return parse_q(d, b, avail, p);
	case H_BAD_CFG: return parse_unsupported(d, b, avail, p);
	default: return bad(p, TRAWL_ETE_BAD_RESERVED);
	}
}

static void emit_notsync(struct trawl_ete_pkt_decoder *d)
{
	if (!d->skipped)
		return;
	struct trawl_ete_packet *p = new_pkt(d);
	p->type = TRAWL_ETE_PKT_NOTSYNC;
	p->offset = d->skip_start;
	p->count = d->skipped > UINT32_MAX ? UINT32_MAX : (uint32_t)d->skipped;
	p->len = d->skipped > 0xffff ? 0xffff : (uint16_t)d->skipped;
	d->stats.unsynced_bytes += d->skipped;
	/* not by_type[ASYNC]: the counting path tallies packet types only at
	 * the end of a run, so it would count bytes after an A-Sync too */
	if (!d->ever_synced)
		d->stats.lead_bytes += d->skipped;
	commit_pkt(d, p);
	d->skipped = 0;
}

/* Scan for A-Sync without sync. Returns bytes consumed; sets d->synced
 * (and emits NOTSYNC + ASYNC) when found. */
static size_t scan_sync(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t c = b[i];
		if (c == 0) {
			d->zeros++;
			continue;
		}
		if (c == 0x80 && d->zeros >= 11) {
			uint64_t end = d->offset + i + 1; /* offset after the 0x80 */
			uint64_t start = end - 12;
			/* extra leading zeros count as skipped bytes */
			d->skipped = start - d->skip_start;
			emit_notsync(d);
			struct trawl_ete_packet *p = new_pkt(d);
			p->type = TRAWL_ETE_PKT_ASYNC;
			p->offset = start;
			p->len = 12;
			commit_pkt(d, p);
			d->synced = 1;
			d->ever_synced = 1;
			d->zeros = 0;
			memset(d->hist, 0, sizeof d->hist);
			return i + 1;
		}
		d->zeros = 0;
	}
	return len;
}

static void drop_sync(struct trawl_ete_pkt_decoder *d, uint64_t next_offset)
{
	d->synced = 0;
	d->zeros = 0;
	d->skip_start = next_offset;
	d->skipped = 0;
}

/* Counting only (no callback): packets are tallied per header byte without
 * a packet record (ete_count_fast counts the two packets of a pair into
 * different histograms, so runs of one header byte do not serialise on one
 * counter); the histograms become the statistics once per run. Returns the
 * bytes used; stops early (returning < len) when a packet is cut or sync
 * is lost. */
static size_t decode_count(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t len,
			   uint64_t base)
{
	size_t pos = 0;
	uint32_t hist[2][256];
	memset(hist, 0, sizeof hist);
	size_t fast_end = d->generic || len < FAST_MAX ? 0 : len - FAST_MAX;
	while (pos < len) {
		if (pos < fast_end) {
			pos = ete_count_fast(d, b, pos, fast_end, hist);
			if (pos >= len)
				break;
		}
		uint8_t h = b[pos];
		if (d->one_byte[h] && !d->generic) {
			hist[pos & 1][h]++;
			pos++;
			continue;
		}
		/* a scratch record: the batch may hold A-Sync/NOTSYNC
		 * packets still to be counted at the next flush */
		struct trawl_ete_packet tmp, *p = &tmp;
		memset(p, 0, sizeof *p);
		int r = parse_one(d, b + pos, len - pos, p);
		if (r == 0)
			break;
		p->offset = base + pos;
		if (r < 0) {
			d->stats.bad++;
			d->stats.packets++;
			d->stats.by_type[TRAWL_ETE_PKT_BAD]++;
			pos += 1;
			if (p->count == TRAWL_ETE_BAD_CONFIG)
				continue;
			drop_sync(d, base + pos);
			break;
		}
		d->stats.packets++;
		d->stats.by_type[p->type]++;
		if (p->type >= TRAWL_ETE_PKT_ATOM_F1) { /* generic mode only */
			unsigned e = (unsigned)__builtin_popcount(p->atoms);
			d->stats.atoms_e += e;
			d->stats.atoms_n += p->natoms - e;
		}
		pos += (size_t)r;
	}
	for (int h = 0; h < 256; h++) {
		uint64_t c = (uint64_t)hist[0][h] + hist[1][h];
		if (!c)
			continue;
		d->stats.packets += c;
		d->stats.by_type[d->htype[h]] += c;
		d->stats.atoms_e += c * d->n_e[h];
		d->stats.atoms_n += c * d->n_n[h];
	}
	return pos;
}

/* With a callback: records go into the batch, common runs through
 * ete_records_fast, one-byte packets from their templates, the rest
 * through parse_one. The batch position lives in a local (nb) and is
 * written back around every call that may flush. Returns as decode_count. */
static size_t decode_records(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t len,
			     uint64_t base)
{
	size_t pos = 0;
	size_t nb = d->nbatch;
	struct trawl_ete_packet *batch = d->batch;
	size_t fast_end = d->generic || len < FAST_MAX ? 0 : len - FAST_MAX;
	while (pos < len) {
		if (pos < fast_end) {
			d->nbatch = nb;
			pos = ete_records_fast(d, b, pos, fast_end, base);
			nb = d->nbatch;
			if (pos >= len)
				break;
		}
		uint8_t h = b[pos];
		if (d->one_byte[h] && !d->generic) { /* most packets: one byte, precomputed */
			if (nb == BATCH_MAX) {
				d->nbatch = nb;
				flush(d);
				nb = 0;
			}
			struct trawl_ete_packet *a = &batch[nb++];
			*a = d->tmpl[h];
			a->offset = base + pos;
			if (d->one_byte[h] == 2)
				a->cc += d->cc_threshold;
			pos++;
			continue;
		}
		d->nbatch = nb;
		struct trawl_ete_packet *p = new_pkt(d);
		int r = parse_one(d, b + pos, len - pos, p);
		if (r == 0) {
			nb = d->nbatch;
			break;
		}
		p->offset = base + pos;
		if (r < 0) {
			p->len = 1;
			d->stats.bad++;
			commit_pkt(d, p);
			pos += 1;
			nb = d->nbatch;
			/* a known one-byte header that this configuration does not
			 * allow leaves the stream in step; anything else resyncs */
			if (p->count == TRAWL_ETE_BAD_CONFIG)
				continue;
			drop_sync(d, base + pos);
			/* the byte that broke may start the next A-Sync: rescan it
			 * unless it is the bad header itself */
			return pos;
		}
		p->len = (uint16_t)r;
		commit_pkt(d, p);
		pos += (size_t)r;
		nb = d->nbatch;
	}
	d->nbatch = nb;
	return pos;
}

/* Decode as many whole packets as possible from b; returns bytes used.
 * Stops early (returning < len) when a packet is cut or sync is lost. */
static size_t decode_run(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t len,
			 uint64_t base)
{
	return d->fn ? decode_records(d, b, len, base) : decode_count(d, b, len, base);
}

/* A bad packet at the start of the carry. A header this configuration does
 * not allow leaves the stream in step: drop one byte and go on with the
 * rest of the carry. Anything else loses sync: the carry bytes after the
 * header came before this chunk, so they go through the A-Sync scanner
 * here, and if sync is found inside them the rest stays in the carry. */
static void carry_bad(struct trawl_ete_pkt_decoder *d, struct trawl_ete_packet *p, size_t old)
{
	p->len = 1;
	d->stats.bad++;
	commit_pkt(d, p);
	if (p->count == TRAWL_ETE_BAD_CONFIG) {
		memmove(d->carry, d->carry + 1, old - 1);
		d->carry_len = old - 1;
		d->carry_off++;
		if (!d->carry_len)
			d->carry_off = d->offset;
		return;
	}
	/* rescan everything after the bad header */
	uint64_t next = d->carry_off + 1;
	drop_sync(d, next);
	size_t rest = old - 1;
	if (rest) {
		uint8_t tmp[CARRY_MAX];
		memcpy(tmp, d->carry + 1, rest);
		d->carry_len = 0;
		uint64_t save = d->offset;
		d->offset = next;
		size_t s = scan_sync(d, tmp, rest);
		if (!d->synced)
			d->skipped += s;
		d->offset = save;
		if (d->synced && s < rest) {
			/* resynced inside the old bytes: decode them */
			d->carry_len = rest - s;
			memcpy(d->carry, tmp + s, rest - s);
			d->carry_off = next + s;
			return;
		}
	}
	d->carry_len = 0;
}

/* Complete the packet cut at the end of the last chunk with bytes from
 * data[*pos, len). Returns 1 when the chunk ran out before the packet
 * ended (all of it is in the carry now), else 0 (the carry is shorter or
 * empty, *pos past the bytes the packet used). */
static int feed_carry(struct trawl_ete_pkt_decoder *d, const uint8_t *data, size_t len,
		      size_t *pos)
{
	size_t take = CARRY_MAX - d->carry_len;
	if (take > len - *pos)
		take = len - *pos;
	memcpy(d->carry + d->carry_len, data + *pos, take);
	size_t old = d->carry_len, total = old + take;
	struct trawl_ete_packet *p = new_pkt(d);
	int r = parse_one(d, d->carry, total, p);
	if (r == 0) {
		if (total == CARRY_MAX) { /* cannot happen with capped fields */
			p->type = TRAWL_ETE_PKT_BAD;
			p->count = TRAWL_ETE_BAD_FIELD;
			r = -1;
		} else {
			d->carry_len = total;
			*pos += take;
			d->offset += take;
			return 1;
		}
	}
	p->offset = d->carry_off;
	if (r < 0) {
		carry_bad(d, p, old);
		return 0;
	}
	p->len = (uint16_t)r;
	commit_pkt(d, p);
	if ((size_t)r < old) {
		/* packet ended inside old carry bytes: keep the rest */
		memmove(d->carry, d->carry + r, old - (size_t)r);
		d->carry_len = old - (size_t)r;
		d->carry_off += (uint64_t)r;
		return 0;
	}
	size_t used = (size_t)r - old;
	d->carry_len = 0;
	*pos += used;
	d->offset += used;
	return 0;
}

/* The streaming loop: unsynced bytes go to the A-Sync scanner, a packet
 * cut by the last chunk is completed first (feed_carry), then whole
 * packets are decoded in place (decode_run) and a cut tail is kept. */
void trawl_ete_pkt_decoder_feed(struct trawl_ete_pkt_decoder *d, const uint8_t *data, size_t len)
{
	size_t pos = 0;
	d->stats.bytes += len;
	while (pos < len) {
		if (!d->synced) {
			size_t before = pos;
			pos += scan_sync(d, data + pos, len - pos);
			if (!d->synced)
				d->skipped += pos - before;
			d->offset += pos - before;
			continue;
		}
		if (d->carry_len) {
			if (feed_carry(d, data, len, &pos))
				break;
			continue;
		}
		size_t used = decode_run(d, data + pos, len - pos, d->offset);
		pos += used;
		d->offset += used;
		if (d->synced && pos < len) {
			/* cut packet: keep the tail */
			size_t rest = len - pos;
			if (rest > CARRY_MAX)
				rest = CARRY_MAX; /* unreachable: a packet is shorter */
			memcpy(d->carry, data + pos, rest);
			d->carry_len = rest;
			d->carry_off = d->offset;
			pos += rest;
			d->offset += rest;
		}
	}
	flush(d);
}

void trawl_ete_pkt_decoder_finish(struct trawl_ete_pkt_decoder *d)
{
	if (!d->synced) {
		emit_notsync(d);
	} else if (d->carry_len) {
		struct trawl_ete_packet *p = new_pkt(d);
		p->type = TRAWL_ETE_PKT_INCOMPLETE;
		p->offset = d->carry_off;
		p->len = (uint16_t)d->carry_len;
		p->header = d->carry[0];
		d->stats.bad++;
		commit_pkt(d, p);
		d->carry_len = 0;
	}
	flush(d);
}
