/* ETE output shared by `trawl ete encode` and `trawl emulate --ete`: bytes
 * from the encoder go to a growing stream, or through the TRBE model; at
 * the end the snapshot gets the registers, the buffer and the program's
 * loaded segments as memory dumps. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ete-out.h"
#include "core/grow.h"

const char *const ete_out_modes[] = { "fill", "wrap", "circular", NULL };
const char *const ete_out_trigs[] = { "stop", "irq", "ignore", NULL };

struct code {                /* an instruction seen outside the image */
	uint64_t pc;
	uint32_t enc;
	uint32_t size;           /* 0: empty slot */
};

struct ete_out {
	struct trawl_ete_enc_options eo;
	struct trawl_ete_encoder *enc;
	struct trawl_ete_trbe_sink *trbe;
	uint8_t *stream;
	size_t len, cap;
	struct code *code;       /* open addressing by pc */
	size_t ncode, capcode;
	int nomem;
};

static enum trawl_status stream_write(void *ctx, const uint8_t *data, size_t n,
				      struct trawl_error *err)
{
	struct ete_out *o = ctx;
	if (!trawl_grow((void **)&o->stream, &o->cap, o->len + n, 1))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory for %zu bytes of trace",
				       o->len + n);
	memcpy(o->stream + o->len, data, n);
	o->len += n;
	return TRAWL_OK;
}

void ete_out_abandon(struct ete_out *eo)
{
	if (!eo)
		return;
	trawl_ete_encoder_destroy(eo->enc);
	trawl_ete_trbe_sink_destroy(eo->trbe);
	free(eo->stream);
	free(eo->code);
	free(eo);
}

/* Options that would change nothing are refused, not ignored: the TRBE
 * ones without --trbe-size, and (emulate) all of them without --ete. */
int ete_out_check(const char *cmd, const struct ete_out_opts *o, int have_ete)
{
	int trbe = o->have_trbe_size || o->mode || o->trbe_base || o->have_trigger || o->trg ||
		   o->trig || o->external || o->nvm;
	int any = trbe || o->sync_period || o->timestamps || o->cycle_counts || o->speculate ||
		  o->no_commopt;
	if (!have_ete && any)
		return cli_usage(cmd, "the ETE options (--sync-period, --timestamps, --trbe-*...) "
				      "need --ete DIR");
	if (trbe && !o->have_trbe_size)
		return cli_usage(cmd, "the --trbe-* options need --trbe-size (the TRBE buffer)");
	return 0;
}

/* The encoder writes to a growing stream, or with --trbe-size through the
 * TRBE model, whose setup (modes from the choice indices, the default
 * base) is made here; the model checks alignment and says which register
 * is wrong, a usage error. */
int ete_out_open(const char *cmd, const struct ete_out_opts *o, struct ete_out **out)
{
	int urc = ete_out_check(cmd, o, 1);
	if (urc)
		return urc;
	struct trawl_error err;
	trawl_error_clear(&err);
	struct ete_out *eo = calloc(1, sizeof *eo);
	if (!eo) {
		cli_error(cmd, "out of memory");
		return EXIT_BAD_INPUT;
	}
	eo->eo.sync_period = (uint32_t)o->sync_period;
	eo->eo.timestamps = o->timestamps;
	eo->eo.cycle_counts = o->cycle_counts;
	eo->eo.speculate = (uint32_t)o->speculate;
	eo->eo.no_commopt = o->no_commopt;
	trawl_ete_write_fn fn = stream_write;
	void *ctx = eo;
	if (o->have_trbe_size) {
		static const enum trawl_ete_trbe_mode modes[] = {
			TRAWL_ETE_TRBE_FILL, TRAWL_ETE_TRBE_WRAP, TRAWL_ETE_TRBE_CIRCULAR };
		static const enum trawl_ete_trbe_trig trigs[] = {
			TRAWL_ETE_TRBE_TRIG_STOP, TRAWL_ETE_TRBE_TRIG_IRQ, TRAWL_ETE_TRBE_TRIG_IGNORE };
		struct trawl_ete_trbe_setup s;
		memset(&s, 0, sizeof s);
		s.base = o->trbe_base ? o->trbe_base : 0x80000000u;
		s.limit = s.base + o->trbe_size;
		s.mode = modes[o->mode];
		s.trig = trigs[o->trig];
		s.nvm = o->nvm;
		s.external = o->external;
		s.trigger_at = o->have_trigger ? o->trigger_at : UINT64_MAX;
		s.trg = o->trg;
		s.mar = 0;
		enum trawl_status st = trawl_ete_trbe_sink_create(&eo->trbe, &s, &err);
		if (st != TRAWL_OK) {
			ete_out_abandon(eo);
			if (st == TRAWL_ERR_USAGE) {
				char buf[512];
				trawl_error_format(&err, buf, sizeof buf);
				return cli_usage(cmd, "%s", buf);
			}
			return cli_report(cmd, &err);
		}
		fn = trawl_ete_trbe_sink_write;
		ctx = eo->trbe;
	}
	if (trawl_ete_encoder_create(&eo->enc, &eo->eo, fn, ctx, &err) != TRAWL_OK) {
		ete_out_abandon(eo);
		return cli_report(cmd, &err);
	}
	*out = eo;
	return 0;
}

struct trawl_ete_encoder *ete_out_encoder(struct ete_out *eo)
{
	return eo->enc;
}

static size_t code_slot(const struct code *t, size_t cap, uint64_t pc)
{
	size_t h = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
	while (t[h].size && t[h].pc != pc)
		h = (h + 1) & (cap - 1);
	return h;
}

static int code_grow(struct ete_out *eo)
{
	size_t nc = eo->capcode ? eo->capcode * 2 : 1024;
	struct code *t = calloc(nc, sizeof *t);
	if (!t)
		return 0;
	for (size_t i = 0; i < eo->capcode; i++)
		if (eo->code[i].size)
			t[code_slot(t, nc, eo->code[i].pc)] = eo->code[i];
	free(eo->code);
	eo->code = t;
	eo->capcode = nc;
	return 1;
}

void ete_out_code(struct ete_out *eo, const struct trawl_image *img, uint64_t pc, uint32_t enc,
		  unsigned size)
{
	uint8_t b[4];
	if (size < 2 || size > 4 || (img && trawl_image_read(img, pc, b, size) == size))
		return;
	if ((eo->ncode + 1) * 2 > eo->capcode && !code_grow(eo)) {
		eo->nomem = 1;
		return;
	}
	size_t h = code_slot(eo->code, eo->capcode, pc);
	if (!eo->code[h].size)
		eo->ncode++;
	eo->code[h] = (struct code){ pc, enc, size };
}

static int code_cmp(const void *a, const void *b)
{
	const struct code *x = a, *y = b;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The instructions seen outside the image, as dumps of their bytes (runs
 * of adjacent instructions merged), after the image's own. */
static int code_dumps(struct ete_out *eo, struct trawl_ete_dump **dumps, size_t *n, size_t *cap,
		      uint8_t **bytes)
{
	size_t k = 0;
	for (size_t i = 0; i < eo->capcode; i++)
		if (eo->code[i].size)
			eo->code[k++] = eo->code[i];
	if (k)
		qsort(eo->code, k, sizeof *eo->code, code_cmp);
	if (k && !(*bytes = malloc(4 * k)))
		return 0;
	size_t used = 0;
	for (size_t i = 0; i < k; i++) {
		const struct code *c = &eo->code[i];
		struct trawl_ete_dump *last = *n ? &(*dumps)[*n - 1] : NULL;
		int joins = i && last && last->data >= *bytes && last->addr + last->len == c->pc;
		if (!joins) {
			if (!trawl_grow((void **)dumps, cap, *n + 1, sizeof **dumps))
				return 0;
			(*dumps)[(*n)++] = (struct trawl_ete_dump){ c->pc, *bytes + used, 0 };
			last = &(*dumps)[*n - 1];
		}
		for (unsigned j = 0; j < c->size; j++)
			(*bytes)[used++] = (uint8_t)(c->enc >> (8 * j));
		last->len += c->size;
	}
	eo->capcode = 0; /* the table is now a sorted list */
	return 1;
}

void ete_out_emu_insn(void *ctx, uint64_t pc, uint32_t enc, uint64_t index)
{
	struct ete_emu *x = ctx;
	struct trawl_ete_enc_insn in = { .pc = pc, .enc = enc, .size = 4, .isa = TRAWL_ISET_A64,
					 .el = 0, .security = 1 };
	in.time = in.cycles = index;
	ete_out_code(x->eo, x->img, pc, enc, 4);
	if (!x->failed && trawl_ete_encoder_insn(x->eo->enc, &in, &x->err) != TRAWL_OK)
		x->failed = 1;
}

/* The image's loaded bytes as dumps: each module's [lo, hi) in the runs
 * trawl_image_read finds contiguous (gaps between segments skipped to the
 * next segment). The dumps point into *bufs, which the caller frees. */
static int collect_dumps(const struct trawl_image *img, struct trawl_ete_dump **dumps, size_t *n,
			 size_t *capp, uint8_t **bufs)
{
	size_t nmod = 0, cap = 0, total = 0, used = 0;
	const struct trawl_image_module *m = img ? trawl_image_modules(img, &nmod) : NULL;
	*dumps = NULL;
	*n = 0;
	*bufs = NULL;
	*capp = 0;
	if (!m)
		return 1;
	for (size_t i = 0; i < nmod; i++)
		total += (size_t)(m[i].hi - m[i].lo);
	if (total && !(*bufs = malloc(total)))
		return 0;
	for (size_t i = 0; i < nmod; i++) {
		uint64_t a = m[i].lo;
		while (a < m[i].hi) {
			size_t want = (size_t)(m[i].hi - a);
			size_t got = trawl_image_read(img, a, *bufs + used, want);
			if (!got) {
				/* a segment may start anywhere, not only at a page */
				a = trawl_image_next_loaded(img, a);
				continue;
			}
			if (!trawl_grow((void **)dumps, &cap, *n + 1, sizeof **dumps))
				return 0;
			(*dumps)[*n] = (struct trawl_ete_dump){ a, *bufs + used, got };
			(*n)++;
			used += got;
			a += got;
		}
	}
	*capp = cap;
	return 1;
}

static void summary(const char *cmd, struct ete_out *eo, const char *dir)
{
	const struct trawl_ete_enc_stats *s = trawl_ete_encoder_stats(eo->enc);
	fprintf(stderr, "trawl: %s: %s: %" PRIu64 " instructions, %" PRIu64 " bytes of ETE "
		"(%.3f bytes per instruction), %" PRIu64 " atoms in %" PRIu64 " packets, %" PRIu64
		" addresses, %" PRIu64 " exceptions, %" PRIu64 " sync points\n",
		cmd, dir, s->insns, s->bytes, s->insns ? (double)s->bytes / (double)s->insns : 0.0,
		s->atoms, s->atom_packets, s->addresses, s->exceptions, s->syncs);
}

/* The stream or the TRBE memory with its registers, then the dumps. */
static enum trawl_status write_snapshot(struct ete_out *eo, const char *dir,
					const struct trawl_image *img, struct trawl_error *err)
{
	struct trawl_ete_config cfg;
	struct trawl_ete_snapshot_spec spec;
	struct trawl_ete_dump *dumps = NULL;
	uint8_t *bufs = NULL, *code = NULL;
	size_t cap;
	memset(&spec, 0, sizeof spec);
	trawl_ete_enc_config(&eo->eo, &cfg);
	spec.cfg = &cfg;
	spec.buffer = eo->stream;
	spec.len = eo->len;
	if (eo->trbe) {
		spec.buffer = trawl_ete_trbe_sink_memory(eo->trbe, &spec.len);
		spec.trbe = trawl_ete_trbe_sink_regs(eo->trbe);
		spec.wrapped = trawl_ete_trbe_sink_wrapped(eo->trbe);
	}
	if (eo->nomem || !collect_dumps(img, &dumps, &spec.ndumps, &cap, &bufs) ||
	    !code_dumps(eo, &dumps, &spec.ndumps, &cap, &code)) {
		free(dumps);
		free(bufs);
		free(code);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory for the memory dumps");
	}
	spec.dumps = dumps;
	enum trawl_status st = trawl_ete_snapshot_write(dir, &spec, err);
	free(dumps);
	free(bufs);
	free(code);
	return st;
}

int ete_out_close(const char *cmd, struct ete_out *eo, const char *dir,
		  const struct trawl_image *img, int verbose)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	int rc = 0;
	if (trawl_ete_encoder_finish(eo->enc, &err) != TRAWL_OK ||
	    write_snapshot(eo, dir, img, &err) != TRAWL_OK) {
		rc = cli_report(cmd, &err);
	} else {
		if (verbose)
			summary(cmd, eo, dir);
		uint64_t lost = eo->trbe ? trawl_ete_trbe_sink_lost(eo->trbe) : 0;
		if (lost) {
			cli_warn(cmd, "%s: the TRBE buffer stopped collection (TRBSR_EL1 0x%" PRIx64
				 "): the last %" PRIu64 " bytes of trace were not written",
				 dir, trawl_ete_trbe_sink_regs(eo->trbe)->sr, lost);
			cli_mark_lossy();
		}
		/* the user asked for a wrapping buffer, but the snapshot no
		 * longer holds the start of the run: trace lost, exit 1 */
		uint64_t over = eo->trbe ? trawl_ete_trbe_sink_overwritten(eo->trbe) : 0;
		if (over) {
			const struct trawl_ete_enc_stats *s = trawl_ete_encoder_stats(eo->enc);
			size_t len;
			trawl_ete_trbe_sink_memory(eo->trbe, &len);
			cli_warn(cmd, "%s: the TRBE buffer wrapped (TRBSR_EL1 0x%" PRIx64 "): the oldest %"
				 PRIu64 " of the %" PRIu64 " bytes of trace of the %" PRIu64 " instructions "
				 "were overwritten; the snapshot holds the last %zu bytes", dir,
				 trawl_ete_trbe_sink_regs(eo->trbe)->sr, over, s->bytes, s->insns, len);
			cli_mark_lossy();
		}
	}
	ete_out_abandon(eo);
	return rc;
}
