/* TRBE model: the trace unit's bytes written to buffer memory [base,
 * limit) as the Trace Buffer Extension does, with its registers.
 *
 *   TRBBASER_EL1  base [63:12]                    4 KiB aligned
 *   TRBLIMITR_EL1 limit [63:12], XE [6] (external mode), nVM [5],
 *                 TM [4:3] trigger mode, FM [2:1] fill mode, E [0]
 *   TRBPTR_EL1    current write pointer
 *   TRBSR_EL1     EC [31:26], IRQ [22], TRG [21], WRAP [20], EA [18],
 *                 S [17] (stopped), MSS/BSC [5:0] (1 full, 2 trigger)
 *   TRBMAR_EL1    memory attributes (recorded as given)
 *   TRBTRG_EL1    bytes still written after the trigger event
 *
 * Fill mode stops collection when the pointer reaches the limit (buffer
 * full: IRQ, S, BSC 1). Wrap mode returns the pointer to base, sets WRAP
 * and requests the interrupt, and goes on; circular-buffer mode wraps
 * without an interrupt. After the trigger event TRBTRG counts down the
 * bytes written; at 0, trigger mode 0b00 stops (BSC 2), 0b01 requests the
 * interrupt and goes on, 0b11 ignores it. Bytes after a stop are lost.
 */
#include <stdlib.h>
#include <string.h>

#include "trawl/ete-encode.h"

struct trawl_ete_trbe_sink {
	struct trawl_ete_trbe_setup s;
	struct trawl_ete_trbe_regs r;
	uint8_t *mem;
	size_t len;
	uint64_t written;   /* bytes offered so far */
	uint64_t lost;
	int wrapped, stopped, triggered;
};

#define TRB_ALIGN 0xfffull

/* The architecture's checks on the buffer (alignment, order, a reserved
 * fill mode) come first, each naming its register; then the memory and
 * the registers as software would have programmed them. */
enum trawl_status trawl_ete_trbe_sink_create(struct trawl_ete_trbe_sink **out,
					     const struct trawl_ete_trbe_setup *s,
					     struct trawl_error *err)
{
	*out = NULL;
	if (s->base & TRB_ALIGN)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "TRBBASER_EL1 0x%llx: the base must be 4 KiB aligned",
				       (unsigned long long)s->base);
	if (s->limit & TRB_ALIGN)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "TRBLIMITR_EL1 0x%llx: the limit must be 4 KiB aligned",
				       (unsigned long long)s->limit);
	if (s->limit <= s->base)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "TRBLIMITR_EL1 0x%llx: the limit must be above the base 0x%llx",
				       (unsigned long long)s->limit, (unsigned long long)s->base);
	if (s->mode != TRAWL_ETE_TRBE_FILL && s->mode != TRAWL_ETE_TRBE_WRAP &&
	    s->mode != TRAWL_ETE_TRBE_CIRCULAR)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "TRBLIMITR_EL1.FM %d is reserved", s->mode);
	if (s->limit - s->base > (1ull << 32))
		return trawl_error_set(err, TRAWL_ERR_USAGE, "TRBE buffer of %llu bytes: at most 4 GiB",
				       (unsigned long long)(s->limit - s->base));
	struct trawl_ete_trbe_sink *t = calloc(1, sizeof *t);
	if (!t)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	t->len = (size_t)(s->limit - s->base);
	t->mem = calloc(1, t->len);
	if (!t->mem) {
		size_t len = t->len;
		free(t);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory for a %zu-byte buffer", len);
	}
	t->s = *s;
	t->r.baser = s->base;
	t->r.limitr = s->limit | (s->external ? 1u << 6 : 0) | (s->nvm ? 1u << 5 : 0) |
		      ((uint64_t)(s->trig & 3) << 3) | ((uint64_t)(s->mode & 3) << 1) | 1u;
	t->r.ptr = s->base;
	t->r.mar = s->mar;
	t->r.trg = s->trg;
	t->r.external = s->external;
	*out = t;
	return TRAWL_OK;
}

static void stop(struct trawl_ete_trbe_sink *t, uint32_t bsc)
{
	t->stopped = 1;
	/* TRBLIMITR.E stays as software set it: S says collection stopped */
	t->r.sr |= TRAWL_TRBSR_S | TRAWL_TRBSR_IRQ | bsc;
}

/* The trigger's countdown over the next n bytes: how many may still be
 * written before it fires (n when it does not). */
static size_t trigger_room(struct trawl_ete_trbe_sink *t, size_t n)
{
	if (t->s.trigger_at == UINT64_MAX || t->s.trig == TRAWL_ETE_TRBE_TRIG_IGNORE)
		return n;
	if (!t->triggered) {
		if (t->written + n <= t->s.trigger_at)
			return n;
		t->triggered = 1;
		t->r.sr |= TRAWL_TRBSR_TRG;
		size_t before = (size_t)(t->s.trigger_at - t->written);
		return before + (size_t)(t->r.trg < n - before ? t->r.trg : n - before);
	}
	return t->r.trg < n ? (size_t)t->r.trg : n;
}

static void write_bytes(struct trawl_ete_trbe_sink *t, const uint8_t *d, size_t n)
{
	while (n && !t->stopped) {
		uint64_t room = t->s.limit - t->r.ptr;
		size_t k = n < room ? n : (size_t)room;
		memcpy(t->mem + (t->r.ptr - t->s.base), d, k);
		t->r.ptr += k;
		d += k;
		n -= k;
		if (t->r.ptr < t->s.limit)
			break;
		if (t->s.mode == TRAWL_ETE_TRBE_FILL) {
			stop(t, TRAWL_TRBSR_BSC_FULL);
			t->r.ptr = t->s.limit;
		} else {
			t->r.ptr = t->s.base;
			t->wrapped = 1;
			t->r.sr |= TRAWL_TRBSR_WRAP;
			if (t->s.mode == TRAWL_ETE_TRBE_WRAP)
				t->r.sr |= TRAWL_TRBSR_IRQ;
		}
	}
	t->lost += n;
}

enum trawl_status trawl_ete_trbe_sink_write(void *ctx, const uint8_t *data, size_t n,
					    struct trawl_error *err)
{
	struct trawl_ete_trbe_sink *t = ctx;
	(void)err;
	if (t->stopped) {
		t->lost += n;
		t->written += n;
		return TRAWL_OK;
	}
	int was = t->triggered;
	size_t k = trigger_room(t, n);
	write_bytes(t, data, k);
	if (t->triggered) {
		size_t after = was ? k : k - (size_t)(t->s.trigger_at - t->written);
		t->r.trg -= after < t->r.trg ? after : t->r.trg;
	}
	if (k < n) { /* the countdown ended inside this write: the trigger fires */
		if (t->s.trig == TRAWL_ETE_TRBE_TRIG_STOP) {
			stop(t, TRAWL_TRBSR_BSC_TRIG);
			t->lost += n - k;
		} else {
			t->r.sr |= TRAWL_TRBSR_IRQ | TRAWL_TRBSR_BSC_TRIG;
			t->s.trigger_at = UINT64_MAX;
			write_bytes(t, data + k, n - k);
		}
	}
	t->written += n;
	return TRAWL_OK;
}

const uint8_t *trawl_ete_trbe_sink_memory(const struct trawl_ete_trbe_sink *t, size_t *len)
{
	*len = t->len;
	return t->mem;
}

const struct trawl_ete_trbe_regs *trawl_ete_trbe_sink_regs(const struct trawl_ete_trbe_sink *t)
{
	return &t->r;
}

int trawl_ete_trbe_sink_wrapped(const struct trawl_ete_trbe_sink *t)
{
	return t->wrapped;
}

uint64_t trawl_ete_trbe_sink_lost(const struct trawl_ete_trbe_sink *t)
{
	return t->lost;
}

/* Bytes that went into the memory and were later written over: all the
 * stored ones beyond one buffer's worth, once the pointer has wrapped. */
uint64_t trawl_ete_trbe_sink_overwritten(const struct trawl_ete_trbe_sink *t)
{
	uint64_t stored = t->written - t->lost;
	return t->wrapped && stored > t->len ? stored - t->len : 0;
}

void trawl_ete_trbe_sink_destroy(struct trawl_ete_trbe_sink *t)
{
	if (!t)
		return;
	free(t->mem);
	free(t);
}
