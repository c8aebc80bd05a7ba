/* Bfscope framing (bf-dump.h): "NNNN\0..." in 8 bytes, then NNNN bytes of
 * text dump. The length field is checked as soon as its 8 bytes are in,
 * so a damaged one is reported at once, with its offset, instead of the
 * client waiting for a dump that never comes. */
#include "trawl/bf-dump.h"

#include <stdlib.h>
#include <string.h>

struct trawl_bfscope {
	uint8_t head[TRAWL_BFSCOPE_HEADER];
	size_t nhead;
	char *dump;                 /* TRAWL_BFSCOPE_MAX_DUMP bytes, allocated once */
	size_t want, have;          /* the dump's declared length, bytes of it in */
	int in_dump, failed;
	uint64_t offset;            /* bytes of the connection consumed */
	uint64_t dumps;
};

enum trawl_status trawl_bfscope_create(struct trawl_bfscope **out, struct trawl_error *err)
{
	struct trawl_bfscope *p = calloc(1, sizeof *p);
	if (!p || !(p->dump = malloc(TRAWL_BFSCOPE_MAX_DUMP))) {
		free(p);
		*out = NULL;
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	*out = p;
	return TRAWL_OK;
}

/* Digits, then a NUL, inside the 8 bytes; at most the largest dump. */
static enum trawl_status parse_head(struct trawl_bfscope *p, struct trawl_error *err)
{
	size_t v = 0, i = 0;
	for (; i < TRAWL_BFSCOPE_HEADER && p->head[i] >= '0' && p->head[i] <= '9'; i++)
		v = v * 10 + (size_t)(p->head[i] - '0');
	const char *what = NULL;
	if (i == 0)
		what = "Bfscope length field does not start with a decimal digit";
	else if (i == TRAWL_BFSCOPE_HEADER || p->head[i] != 0)
		what = "Bfscope length field: the digits are not followed by a NUL within 8 bytes";
	else if (v > TRAWL_BFSCOPE_MAX_DUMP)
		what = "Bfscope dump longer than 2 MiB";
	if (what) {
		p->failed = 1;
		trawl_error_set(err, TRAWL_ERR_FORMAT, "%s", what);
		trawl_error_at(err, NULL, 0, 0, p->offset - TRAWL_BFSCOPE_HEADER);
		trawl_error_excerpt(err, (const char *)p->head, i);
		return TRAWL_ERR_FORMAT;
	}
	p->want = v;
	p->have = 0;
	p->in_dump = 1;
	return TRAWL_OK;
}

enum trawl_status trawl_bfscope_feed(struct trawl_bfscope *p, const uint8_t *data, size_t len,
				     trawl_bfscope_fn fn, void *ctx, struct trawl_error *err)
{
	if (p->failed)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "the Bfscope stream already failed");
	while (len) {
		size_t k;
		if (!p->in_dump) {
			k = TRAWL_BFSCOPE_HEADER - p->nhead;
			k = k < len ? k : len;
			memcpy(p->head + p->nhead, data, k);
			p->nhead += k;
			p->offset += k;
			data += k;
			len -= k;
			if (p->nhead < TRAWL_BFSCOPE_HEADER)
				break;
			p->nhead = 0;
			enum trawl_status st = parse_head(p, err);
			if (st != TRAWL_OK)
				return st;
		}
		k = p->want - p->have;
		k = k < len ? k : len;
		memcpy(p->dump + p->have, data, k);
		p->have += k;
		p->offset += k;
		data += k;
		len -= k;
		if (p->have == p->want) {
			p->in_dump = 0;
			p->dumps++;
			if (fn && fn(ctx, p->dump, p->want))
				return trawl_error_set(err, TRAWL_ERR_LIMIT, "stopped after dump %llu",
						       (unsigned long long)p->dumps);
		}
	}
	return TRAWL_OK;
}

size_t trawl_bfscope_pending(const struct trawl_bfscope *p, size_t *declared)
{
	if (declared)
		*declared = p->in_dump ? p->want : 0;
	return p->in_dump ? TRAWL_BFSCOPE_HEADER + p->have : p->nhead;
}

uint64_t trawl_bfscope_dumps(const struct trawl_bfscope *p)
{
	return p->dumps;
}

void trawl_bfscope_destroy(struct trawl_bfscope *p)
{
	if (!p)
		return;
	free(p->dump);
	free(p);
}
