/* The recorder's configuration: defaults and the TRAWL_REC_* environment
 * variables (docs/recorder.md has the table). Kept apart from rec.c, which
 * runs the buffers; nothing here touches the recorder's state. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/rec.h"

void trawl_rec_config_init(struct trawl_rec_config *c)
{
	memset(c, 0, sizeof *c);
	c->mode = TRAWL_REC_DISCARD;
	c->buffer_bytes = 1u << 20;
	c->subbuffers = 8;
	c->flush_ms = 200;
	c->flush_at_exit = 1;
	c->enable = "all";
	c->crash_flush = 1;
}

static int parse_u64(const char *s, uint64_t *out, int suffixes)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	if (suffixes && (*end == 'k' || *end == 'K'))
		v <<= 10, end++;
	else if (suffixes && (*end == 'm' || *end == 'M'))
		v <<= 20, end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "S:E" or "S:E:ARG" */
static int parse_trigger(const char *s, struct trawl_rec_trigger *t)
{
	unsigned long a, b;
	unsigned long long c = 0;
	char *e1, *e2, *e3;
	errno = 0;
	a = strtoul(s, &e1, 0);
	if (e1 == s || *e1 != ':')
		return -EINVAL;
	b = strtoul(e1 + 1, &e2, 0);
	if (e2 == e1 + 1 || (*e2 && *e2 != ':'))
		return -EINVAL;
	int has_arg = 0;
	if (*e2 == ':') {
		c = strtoull(e2 + 1, &e3, 0);
		if (e3 == e2 + 1 || *e3 || c > UINT32_MAX)
			return -EINVAL;
		has_arg = 1;
	}
	if (errno || a >= TRAWL_REC_MAX_SUBSYS || b > 0xffff)
		return -EINVAL;
	t->set = 1;
	t->subsys = (uint16_t)a;
	t->event = (uint16_t)b;
	t->match_arg = has_arg;
	t->arg = (uint32_t)c;
	return 0;
}

/* Each variable is checked on its own and a bad one only sets rc, so one
 * typo neither hides nor discards the others: the caller hears -EINVAL and
 * still has every good value. Unset or empty variables leave the caller's
 * value, so the environment refines a config instead of resetting it. */
int trawl_rec_config_env(struct trawl_rec_config *c)
{
	int rc = 0;
	const char *v;
	uint64_t n;
	if ((v = getenv("TRAWL_REC_OUT")) && *v)
		c->out_dir = v;
	if ((v = getenv("TRAWL_REC_STREAM")) && *v)
		c->stream = v;
	if ((v = getenv("TRAWL_REC_MODE")) && *v) {
		if (strcmp(v, "discard") == 0)
			c->mode = TRAWL_REC_DISCARD;
		else if (strcmp(v, "overwrite") == 0)
			c->mode = TRAWL_REC_OVERWRITE;
		else
			rc = -EINVAL;
	}
	if ((v = getenv("TRAWL_REC_BUFFER")) && *v) {
		if (parse_u64(v, &n, 1) == 0 && n >= 512 && n <= (1ull << 34))
			c->buffer_bytes = (size_t)n;
		else
			rc = -EINVAL;
	}
	if ((v = getenv("TRAWL_REC_SUBBUF")) && *v) {
		if (parse_u64(v, &n, 0) == 0 && n >= 2 && n <= 4096)
			c->subbuffers = (unsigned)n;
		else
			rc = -EINVAL;
	}
	if ((v = getenv("TRAWL_REC_FLUSH_MS")) && *v) {
		if (parse_u64(v, &n, 0) == 0 && n <= 3600000)
			c->flush_ms = (unsigned)n;
		else
			rc = -EINVAL;
	}
	if ((v = getenv("TRAWL_REC_DURATION")) && *v) {
		if (parse_u64(v, &n, 0) == 0)
			c->duration_ms = n;
		else
			rc = -EINVAL;
	}
	if ((v = getenv("TRAWL_REC_ENABLE")) && *v)
		c->enable = v;
	if ((v = getenv("TRAWL_REC_CRASH_FLUSH")) && *v) {
		if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
			c->crash_flush = *v == '1';
		else
			rc = -EINVAL;
	}
	if ((v = getenv("TRAWL_REC_START")) && *v && parse_trigger(v, &c->start) != 0)
		rc = -EINVAL;
	if ((v = getenv("TRAWL_REC_STOP")) && *v && parse_trigger(v, &c->stop) != 0)
		rc = -EINVAL;
	return rc;
}
