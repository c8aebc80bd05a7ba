/* Trace buffers: CoreSight formatted frames and wrapped TRBE buffers.
 *
 * CoreSight formatter frame (16 bytes, ETF/ETR/TPIU):
 *
 *   byte   meaning
 *   0,2..14  bit0 = 1: new trace ID in bits 7:1
 *            bit0 = 0: data byte, its bit 0 is bit i of byte 15
 *   1,3..13  data byte for the current ID; after an ID change in the byte
 *            before it, belongs to the OLD ID when flag bit i is 1
 *   15       flag bits: bit i goes with byte 2i
 *
 * ID 0 is padding (its data zeros), 0x70-0x7F are reserved (0x7D marks a
 * trigger): a data byte for any of them that a formatter would not write
 * is counted (stray), as it is most likely trace that a damaged ID byte
 * sent there. In memory, Linux writes a barrier (four FSYNCs, one whole
 * frame) where a wrapped buffer lost trace. TPIU/DSTREAM captures
 * insert FSYNC (FF FF FF 7F) between frames and HSYNC (FF 7F) at even
 * positions; both are removed before frames are decoded. DSTREAM capture
 * files also end every 512-byte block with 8 bytes of capture metadata.
 *
 * TRBE buffers in wrap mode hold [write, limit) (older) then [base, write).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

struct trawl_ete_deformatter {
	int tpiu;
	int aligned;           /* tpiu: frame alignment found (first FSYNC) */
	trawl_ete_id_bytes_fn fn;
	void *fn_ctx;
	uint8_t frame[16];
	size_t nframe;
	uint64_t frame_off;    /* input offset of frame[0] */
	uint8_t pend[4];       /* tpiu: bytes held to recognise sync sequences */
	size_t npend;
	uint64_t pend_off;
	uint64_t offset;       /* offset of the next input byte */
	uint8_t cur_id;
	uint64_t frames, dropped, syncs;
	uint64_t first_drop;   /* input offset of the first byte dropped */
	uint64_t stray, first_stray; /* data bytes under ID 0 or a reserved ID */
	uint64_t unplaced;     /* data bytes before the first ID byte ... */
	int unplaced_nonzero;  /* ... and whether any was not zero */
};

/* cur_id before the input's first ID byte: not a 7-bit ID */
#define ID_NONE 0x80

enum trawl_status trawl_ete_deformatter_create(struct trawl_ete_deformatter **out, int tpiu,
					       trawl_ete_id_bytes_fn fn, void *fn_ctx,
					       struct trawl_error *err)
{
	struct trawl_ete_deformatter *d = calloc(1, sizeof *d);
	*out = NULL;
	if (!d)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	d->tpiu = tpiu;
	d->aligned = !tpiu;
	d->cur_id = ID_NONE;
	d->fn = fn;
	d->fn_ctx = fn_ctx;
	*out = d;
	return TRAWL_OK;
}

int trawl_ete_deformatter_damage(const struct trawl_ete_deformatter *d, unsigned i, uint64_t *offset, char *msg,
				 size_t size)
{
	unsigned k = 0;
	if (d->dropped && k++ == i) {
		*offset = d->first_drop;
		snprintf(msg, size, "%" PRIu64 " formatted byte%s not in a whole 16-byte frame (a buffer cut inside "
			 "a frame, or bytes before a TPIU capture's first FSYNC): not decoded",
			 d->dropped, d->dropped == 1 ? " was" : "s were");
		return 1;
	}
	if (d->unplaced_nonzero && k++ == i) {
		*offset = 0;
		snprintf(msg, size, "%" PRIu64 " data byte%s before the first trace ID byte (a wrapped buffer "
			 "starts inside some ID's bytes): which trace unit sent them is unknown: not decoded",
			 d->unplaced, d->unplaced == 1 ? "" : "s");
		return 1;
	}
	if (d->stray && k++ == i) {
		*offset = d->first_stray;
		snprintf(msg, size, "%" PRIu64 " data byte%s under the null trace ID 0 (not zero) or a reserved "
			 "ID, from this frame on: trace that a damaged ID byte sent there is not decoded",
			 d->stray, d->stray == 1 ? "" : "s");
		return 1;
	}
	return 0;
}

void trawl_ete_deformatter_destroy(struct trawl_ete_deformatter *d)
{
	free(d);
}

void trawl_ete_deformatter_counts(const struct trawl_ete_deformatter *d, uint64_t *frames,
				  uint64_t *dropped, uint64_t *syncs)
{
	if (frames)
		*frames = d->frames;
	if (dropped)
		*dropped = d->dropped;
	if (syncs)
		*syncs = d->syncs;
}

/* Offsets follow OpenCSD's convention so listings can be compared: bytes
 * of a run of one ID are numbered from the run's start (the frame start, or
 * the byte that switched to that ID). */
static inline void emit(struct trawl_ete_deformatter *d, uint8_t id, uint8_t byte, uint64_t base,
			uint32_t *cnt)
{
	if (id == 0 || id >= 0x70) {
		if (id == ID_NONE) {
			d->unplaced++;
			d->unplaced_nonzero |= byte != 0;
		} else if ((id == 0 && byte) || (id >= 0x70 && id != 0x7d)) {
			if (!d->stray++)
				d->first_stray = d->frame_off;
		}
		return;
	}
	d->fn(d->fn_ctx, id, &byte, 1, base + (*cnt)++);
}

static void do_frame(struct trawl_ete_deformatter *d)
{
	const uint8_t *f = d->frame;
	uint8_t flags = f[15];
	uint64_t base = d->frame_off;
	uint32_t cnt = 0;
	static const uint8_t barrier[16] = { 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f,
					     0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f };
	if (!d->tpiu && f[0] == 0xff && !memcmp(f, barrier, sizeof barrier)) {
		d->syncs += 4;
		d->nframe = 0;
		return;
	}
	d->frames++;
	for (int i = 0; i < 8; i++) {
		uint8_t b = f[2 * i];
		int flag = (flags >> i) & 1;
		if (b & 1) {
			uint8_t id = b >> 1;
			if (i < 7 && flag)
				emit(d, d->cur_id, f[2 * i + 1], base, &cnt);
			if (id != d->cur_id) {
				d->cur_id = id;
				base = d->frame_off + 2 * (uint64_t)i;
				cnt = 0;
			}
			if (i < 7 && !flag)
				emit(d, d->cur_id, f[2 * i + 1], base, &cnt);
		} else {
			emit(d, d->cur_id, (uint8_t)(b | flag), base, &cnt);
			if (i < 7)
				emit(d, d->cur_id, f[2 * i + 1], base, &cnt);
		}
	}
	d->nframe = 0;
}

/* Add one byte pair (or single byte) to the frame being built. */
static inline void frame_byte(struct trawl_ete_deformatter *d, uint8_t c, uint64_t off)
{
	if (d->nframe == 0)
		d->frame_off = off;
	d->frame[d->nframe++] = c;
	if (d->nframe == 16)
		do_frame(d);
}

/* Bytes arrive in any split, so all state (the frame being built, pending
 * halfwords) lives in the deformatter and a feed may end anywhere. Plain
 * buffers are back-to-back 16-byte frames; TPIU captures first need the
 * alignment (bytes before the first FSYNC are counted as dropped, never
 * guessed at), then lose FSYNC at frame starts, HSYNC and DSTREAM trailers. */
void trawl_ete_deformatter_feed(struct trawl_ete_deformatter *d, const uint8_t *data, size_t len)
{
	if (!d->tpiu) {
		for (size_t i = 0; i < len; i++)
			frame_byte(d, data[i], d->offset + i);
		d->offset += len;
		return;
	}
	/* TPIU: work in halfwords, watching for FSYNC at frame starts and
	 * HSYNC anywhere; until the first FSYNC the alignment is unknown. */
	for (size_t i = 0; i < len; i++) {
		if (d->tpiu == 2 && ((d->offset + i) & 511) >= 504)
			continue; /* DSTREAM block trailer */
		d->pend[d->npend++] = data[i];
		if (d->npend == 1)
			d->pend_off = d->offset + i;
		if (!d->aligned) {
			/* slide a 4-byte window until FSYNC */
			if (d->npend < 4)
				continue;
			if (d->pend[0] == 0xff && d->pend[1] == 0xff && d->pend[2] == 0xff &&
			    d->pend[3] == 0x7f) {
				d->aligned = 1;
				d->syncs++;
				d->npend = 0;
			} else {
				if (!d->dropped++)
					d->first_drop = d->pend_off;
				memmove(d->pend, d->pend + 1, 3);
				d->npend = 3;
				d->pend_off++;
			}
			continue;
		}
		for (;;) {
			if (d->nframe == 0) {
				if (d->npend < 4)
					break;
				if (d->pend[0] == 0xff && d->pend[1] == 0xff && d->pend[2] == 0xff &&
				    d->pend[3] == 0x7f) {
					d->syncs++;
					d->npend = 0;
					break;
				}
			}
			if (d->npend < 2)
				break;
			uint8_t a = d->pend[0], b = d->pend[1];
			uint64_t off = d->pend_off;
			memmove(d->pend, d->pend + 2, d->npend - 2);
			d->npend -= 2;
			d->pend_off += 2;
			if (a == 0xff && b == 0x7f) {
				d->syncs++;
				continue;
			}
			frame_byte(d, a, off);
			frame_byte(d, b, off);
		}
	}
	d->offset += len;
}

void trawl_ete_deformatter_finish(struct trawl_ete_deformatter *d)
{
	/* zeros past the last whole frame are a capture's padding (the end
	 * of a DSTREAM file's last block): nothing is lost with them */
	unsigned nonzero = 0;
	for (unsigned i = 0; i < d->nframe; i++)
		nonzero |= d->frame[i];
	for (unsigned i = 0; i < d->npend; i++)
		nonzero |= d->pend[i];
	if (nonzero && !d->dropped)
		d->first_drop = d->nframe ? d->frame_off : d->pend_off;
	if (nonzero)
		d->dropped += d->nframe + d->npend;
	d->nframe = 0;
	d->npend = 0;
}

enum trawl_status trawl_ete_trbe_unwrap(const uint8_t *buf, size_t buf_len, uint64_t base,
					uint64_t limit, uint64_t write, int wrapped,
					const uint8_t **first, size_t *first_len,
					const uint8_t **second, size_t *second_len,
					struct trawl_error *err)
{
	*first = *second = NULL;
	*first_len = *second_len = 0;
	if (limit <= base)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "TRBE limit 0x%llx is not above base 0x%llx",
				       (unsigned long long)limit, (unsigned long long)base);
	if (write < base || write > limit)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "TRBE write pointer 0x%llx outside [0x%llx, 0x%llx]",
				       (unsigned long long)write, (unsigned long long)base,
				       (unsigned long long)limit);
	uint64_t size = limit - base;
	if (size != buf_len)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "TRBE buffer is %zu bytes but limit - base = %llu", buf_len,
				       (unsigned long long)size);
	size_t w = (size_t)(write - base);
	if (!wrapped) {
		*first = buf;
		*first_len = w;
		return TRAWL_OK;
	}
	*first = buf + w;
	*first_len = buf_len - w;
	*second = buf;
	*second_len = w;
	return TRAWL_OK;
}
