/* Reading a software-event trace into trawl serve's arrays (sw.h). */
#include "serve/sw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

static int oom(void)
{
	cli_error("serve", "out of memory or temporary space reading the trace: %s", strerror(errno));
	return EXIT_BAD_INPUT;
}

static int add_event(struct serve_sw *s, const struct trawl_sw_event *ev)
{
	unsigned nf = ev->cls->nfields;
	struct sw_ev e = { ev->time, s->vals.n, ev->tid, (uint16_t)ev->cpu,
			   (uint16_t)(ev->cls - s->run.info.classes) };
	if (spill_add(&s->ev, &e))
		return -1;
	for (unsigned i = 0; i < nf; i++)
		if (spill_add(&s->vals, &ev->vals[i]))
			return -1;
	if (!s->nev++)
		s->first = e.time;
	s->last = e.time;
	if (!s->row_of[e.cpu])
		s->row_of[e.cpu] = 1;
	return 0;
}

/* Rows: the cpus seen, in order. */
static int make_rows(struct serve_sw *s)
{
	unsigned n = 0;
	for (unsigned c = 0; c < 65536; c++)
		n += s->row_of[c] != 0;
	s->cpus = calloc(n ? n : 1, sizeof *s->cpus);
	if (!s->cpus)
		return -1;
	for (unsigned c = 0; c < 65536; c++)
		if (s->row_of[c]) {
			s->cpus[s->ncpus] = (uint16_t)c;
			s->row_of[c] = ++s->ncpus;
		}
	return 0;
}

int serve_sw_load(struct serve_sw *s, const char *dir, const char *defs)
{
	s->run.cmd = "serve";
	s->run.dir = dir;
	s->run.defs_path = defs;
	s->ev.fd = s->vals.fd = -1;
	int rc = events_run_open(&s->run, NULL, NULL), keep;
	if (rc)
		return rc;
	if (spill_open(&s->ev, sizeof(struct sw_ev)) || spill_open(&s->vals, sizeof(uint64_t)))
		return oom();
	struct trawl_sw_event ev;
	while (events_run_next(&s->run, &ev, &keep) == TRAWL_OK) {
		if (ev.cpu > 65535) {
			cli_error("serve", "%s: an event on cpu %u: the view takes cpus up to 65535", dir, ev.cpu);
			return EXIT_BAD_INPUT;
		}
		if (add_event(s, &ev))
			return oom();
	}
	const struct trawl_error *d = trawl_swtrace_damage(s->run.t);
	if (d) {
		snprintf(s->damage, sizeof s->damage, "%.160s: %.340s", d->file, d->message);
		cli_error("serve", "%s", s->damage); /* the reader's message says what was not read */
	}
	trawl_swtrace_info(s->run.t, &s->run.info);
	if (spill_seal(&s->ev) || spill_seal(&s->vals) || make_rows(s))
		return oom();
	char why[256];
	struct sw_filter_args none = { 0 };
	if (serve_sw_view(s, &none, why, sizeof why)) {
		cli_error("serve", "%s", why);
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}

void serve_sw_view_release(struct serve_sw *s, struct sw_view *v)
{
	free(v->key);
	spill_close(&v->kept);
	for (unsigned i = 0; v->rows && i < s->ncpus; i++)
		spill_close(&v->rows[i]);
	free(v->rows);
	for (size_t i = 0; i < v->nlanes; i++) {
		spill_close(&v->lanes[i].r);
		spill_close(&v->lanes[i].ov);
	}
	for (unsigned i = 0; v->ov_rows && i < s->ncpus; i++)
		spill_close(&v->ov_rows[i]);
	free(v->ov_rows);
	free(v->lanes);
	free(v->act_on);
	trawl_swstats_release(&v->stats);
	memset(v, 0, sizeof *v);
	v->kept.fd = -1;
}

void serve_sw_release(struct serve_sw *s)
{
	serve_sw_view_release(s, &s->view);
	trawl_act_destroy(s->names);
	s->names = NULL;
	events_run_close(&s->run);
	spill_close(&s->ev);
	spill_close(&s->vals);
	free(s->cpus);
	s->cpus = NULL;
}
