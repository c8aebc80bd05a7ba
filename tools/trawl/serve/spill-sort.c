/* Sorting the records of a spill (spill.h): in memory when they fit in
 * SORT_MEM, else runs of SORT_MEM sorted in place in the file and merged
 * through a heap of run cursors into a new file (the cursors' buffers
 * share SORT_MEM), so a sort costs about twice SORT_MEM (qsort's own
 * copy), whatever the number of records. */
#include "serve/spill.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SORT_MEM ((size_t)8 << 20)
#define RUN_MIN ((size_t)4 << 10)     /* bytes a run cursor reads at least */

struct cursor {
	uint64_t at, end;           /* records of the run not yet taken */
	unsigned char *buf;         /* records [at - have, at) of the run are in buf */
	size_t have, pos;
};

struct merge {
	const struct spill *s;
	int (*cmp)(const void *, const void *);
	struct cursor *c;
	size_t *heap, nheap;
	size_t per;                 /* records per cursor buffer */
};

static const void *head(const struct merge *m, size_t k)
{
	const struct cursor *c = &m->c[k];
	return c->buf + c->pos * m->s->rec;
}

static int refill(struct merge *m, struct cursor *c)
{
	size_t n = c->end - c->at < m->per ? (size_t)(c->end - c->at) : m->per;
	if (n && spill_read(m->s, c->at, n, c->buf))
		return -1;
	c->at += n;
	c->have = n;
	c->pos = 0;
	return 0;
}

static int less(const struct merge *m, size_t a, size_t b)
{
	int d = m->cmp(head(m, m->heap[a]), head(m, m->heap[b]));
	return d < 0 || (d == 0 && m->heap[a] < m->heap[b]);    /* the same order every run */
}

static void sift_down(struct merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;
		if (l < m->nheap && less(m, l, min))
			min = l;
		if (r < m->nheap && less(m, r, min))
			min = r;
		if (min == i)
			return;
		size_t t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

/* Take the smallest head into out, advance its cursor. */
static int merge_step(struct merge *m, struct spill *out)
{
	size_t k = m->heap[0];
	struct cursor *c = &m->c[k];
	if (spill_add(out, head(m, k)))
		return -1;
	if (++c->pos == c->have) {
		if (refill(m, c))
			return -1;
		if (!c->have)
			m->heap[0] = m->heap[--m->nheap];
	}
	if (m->nheap)
		sift_down(m, 0);
	return 0;
}

static int merge_runs(struct spill *s, size_t per_run, size_t mem, int (*cmp)(const void *, const void *))
{
	size_t runs = (size_t)((s->n + per_run - 1) / per_run);
	size_t each = mem / runs > RUN_MIN ? mem / runs : RUN_MIN;
	struct merge m = { s, cmp, calloc(runs, sizeof *m.c), calloc(runs, sizeof *m.heap), 0,
			   each / s->rec ? each / s->rec : 1 };
	struct spill out;
	int rc = -1;
	if (!m.c || !m.heap || spill_open(&out, s->rec))
		goto done;
	for (size_t k = 0; k < runs; k++) {
		m.c[k] = (struct cursor){ (uint64_t)k * per_run, (uint64_t)(k + 1) * per_run, NULL, 0, 0 };
		if (m.c[k].end > s->n)
			m.c[k].end = s->n;
		if (!(m.c[k].buf = malloc(m.per * s->rec)) || refill(&m, &m.c[k]))
			goto fail;
		m.heap[m.nheap++] = k;
	}
	for (size_t i = m.nheap / 2 + 1; i-- > 0;)
		sift_down(&m, i);
	while (m.nheap)
		if (merge_step(&m, &out))
			goto fail;
	/* the merged file replaces the runs; its buffer is kept for appends */
	close(s->fd);
	free(s->buf);
	*s = out;
	rc = 0;
	goto done;
fail:
	spill_close(&out);
done:
	for (size_t k = 0; m.c && k < runs; k++)
		free(m.c[k].buf);
	free(m.c);
	free(m.heap);
	return rc;
}

int spill_sort(struct spill *s, int (*cmp)(const void *, const void *))
{
	/* write what is buffered: the runs are read from the file */
	uint64_t n = s->n;
	if (s->used) {
		if (spill_write(s, s->n - s->used / s->rec, s->used / s->rec, s->buf))
			return -1;
		s->used = 0;
	}
	/* tests make the runs small to take the merge path on small traces */
	const char *env = getenv("TRAWL_SERVE_SORT_MEM");
	size_t mem = env && atol(env) > 0 ? (size_t)atol(env) : SORT_MEM;
	size_t per_run = mem / s->rec;
	if (!per_run)
		per_run = 1;
	unsigned char *run = malloc((size_t)(n < per_run ? n : per_run) * s->rec + 1);
	if (!run)
		return -1;
	for (uint64_t at = 0; at < n; at += per_run) {
		size_t k = n - at < per_run ? (size_t)(n - at) : per_run;
		if (spill_read(s, at, k, run)) {
			free(run);
			return -1;
		}
		qsort(run, k, s->rec, cmp);
		if (spill_write(s, at, k, run)) {
			free(run);
			return -1;
		}
	}
	free(run);
	return n > per_run ? merge_runs(s, per_run, mem, cmp) : 0;
}
