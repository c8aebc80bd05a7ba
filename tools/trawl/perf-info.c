/* trawl info FILE.data: what a perf.data recording of CoreSight trace
 * holds: trace units and their registers, AUX buffers and their flags,
 * mapped files. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "perf-cli.h"
#include "trawl/json.h"

static const char *unit_name(uint64_t magic)
{
	return magic == TRAWL_PERF_ETE_MAGIC ? "ETE" : magic == TRAWL_PERF_ETMV4_MAGIC ? "ETMv4"
	       : "ETMv3/PTM";
}

static void aux_flags(uint64_t fl, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s%s", (fl & TRAWL_PERF_AUX_FORMAT_MASK) == TRAWL_PERF_AUX_CS_RAW
		 ? "raw" : "formatted", fl & TRAWL_PERF_AUX_TRUNCATED ? ",truncated" : "",
		 fl & TRAWL_PERF_AUX_OVERWRITE ? ",overwrite" : "",
		 fl & TRAWL_PERF_AUX_PARTIAL ? ",partial" : "",
		 fl & TRAWL_PERF_AUX_COLLISION ? ",collision" : "");
}

static void text_info(const struct trawl_perf_file *pf)
{
	printf("perf.data:           %s (%s%zu bytes, %" PRIu64 " records, %u attribute%s)\n", pf->path,
	       pf->pipe ? "pipe mode, " : "", pf->len, pf->nrecords, pf->nattrs,
	       pf->nattrs == 1 ? "" : "s");
	printf("cs_etm header:       version %" PRIu64 ", PMU type %" PRIu64 ", %s mode, %zu cpus\n",
	       pf->etm_version, pf->etm_pmu_type, pf->etm_snapshot ? "snapshot" : "full", pf->netm);
	for (size_t i = 0; i < pf->netm; i++) {
		const struct trawl_perf_etm_cpu *c = &pf->etm[i];
		printf("cpu %-3u %-9s trace ID 0x%02x, %u params:", c->cpu, unit_name(c->magic),
		       trawl_perf_trace_id(pf, (int32_t)c->cpu) & 0xff, c->nparams);
		if (c->magic != TRAWL_PERF_ETMV3_MAGIC && c->nparams >= 6)
			printf(" TRCCONFIGR=0x%" PRIx64 " TRCIDR0=0x%" PRIx64 " TRCIDR1=0x%" PRIx64
			       " TRCIDR2=0x%" PRIx64 " TRCIDR8=0x%" PRIx64, c->params[0], c->params[2],
			       c->params[3], c->params[4], c->params[5]);
		else
			for (uint32_t k = 0; k < c->nparams && k < 16; k++)
				printf(" 0x%" PRIx64, c->params[k]);
		putchar('\n');
	}
	for (size_t i = 0; i < pf->naux; i++) {
		char fl[96];
		aux_flags(pf->aux[i].flags, fl, sizeof fl);
		printf("AUX     @%-8" PRIu64 " cpu %d, offset %" PRIu64 ", %" PRIu64 " bytes, %s\n",
		       pf->aux[i].offset, pf->aux[i].cpu, pf->aux[i].aux_offset, pf->aux[i].aux_size, fl);
	}
	for (size_t i = 0; i < pf->nchunks; i++) {
		const struct trawl_perf_auxtrace *c = &pf->chunks[i];
		printf("AUXTRACE @%-7" PRIu64 " cpu %d, tid %u, idx %u, offset %" PRIu64 ", %" PRIu64
		       " bytes%s\n", c->offset, c->cpu, c->tid, c->idx, c->aux_offset, c->size,
		       c->avail < c->size ? " (cut short)" : "");
	}
	for (size_t i = 0; i < pf->nmmaps; i++) {
		const struct trawl_perf_mmap *m = &pf->mmaps[i];
		char hex[48];
		trawl_perf_build_id_hex(pf, m, hex, sizeof hex);
		printf("mmap    pid %u: 0x%" PRIx64 "-0x%" PRIx64 " pgoff 0x%" PRIx64 " %s%s%s\n", m->pid,
		       m->start, m->start + m->len, m->pgoff, m->filename, hex[0] ? " build id " : "",
		       hex);
	}
	for (size_t i = 0; i < pf->ncomms; i++)
		printf("comm    pid %u tid %u: %s\n", pf->comms[i].pid, pf->comms[i].tid,
		       pf->comms[i].comm);
	size_t pos = 0;
	const char *k, *v;
	while (trawl_perf_meta_next(pf, &pos, &k, &v))
		printf("meta    %s = %s\n", k, v);
}

static void json_str(const char *s)
{
	trawl_json_write_string(stdout, s, strlen(s));
}

static void json_info(const struct trawl_perf_file *pf)
{
	printf("{\"perf\":");
	json_str(pf->path);
	printf(",\"pipe\":%d,\"records\":%" PRIu64 ",\"etm_version\":%" PRIu64 ",\"snapshot\":%d,"
	       "\"cpus\":[", pf->pipe, pf->nrecords, pf->etm_version, pf->etm_snapshot != 0);
	for (size_t i = 0; i < pf->netm; i++) {
		const struct trawl_perf_etm_cpu *c = &pf->etm[i];
		printf("%s{\"cpu\":%u,\"unit\":\"%s\",\"trace_id\":%d,\"params\":[", i ? "," : "", c->cpu,
		       unit_name(c->magic), trawl_perf_trace_id(pf, (int32_t)c->cpu));
		for (uint32_t k = 0; k < c->nparams && k < 16; k++)
			printf("%s%" PRIu64, k ? "," : "", c->params[k]);
		printf("]}");
	}
	printf("],\"aux\":[");
	for (size_t i = 0; i < pf->naux; i++) {
		char fl[96];
		aux_flags(pf->aux[i].flags, fl, sizeof fl);
		printf("%s{\"offset\":%" PRIu64 ",\"cpu\":%d,\"aux_offset\":%" PRIu64 ",\"size\":%" PRIu64
		       ",\"flags\":\"%s\"}", i ? "," : "", pf->aux[i].offset, pf->aux[i].cpu,
		       pf->aux[i].aux_offset, pf->aux[i].aux_size, fl);
	}
	printf("],\"auxtrace\":[");
	for (size_t i = 0; i < pf->nchunks; i++)
		printf("%s{\"offset\":%" PRIu64 ",\"cpu\":%d,\"size\":%" PRIu64 ",\"present\":%zu}",
		       i ? "," : "", pf->chunks[i].offset, pf->chunks[i].cpu, pf->chunks[i].size,
		       pf->chunks[i].avail);
	printf("],\"mmaps\":[");
	for (size_t i = 0; i < pf->nmmaps; i++) {
		const struct trawl_perf_mmap *m = &pf->mmaps[i];
		char hex[48];
		trawl_perf_build_id_hex(pf, m, hex, sizeof hex);
		printf("%s{\"pid\":%u,\"start\":%" PRIu64 ",\"len\":%" PRIu64 ",\"pgoff\":%" PRIu64
		       ",\"file\":", i ? "," : "", m->pid, m->start, m->len, m->pgoff);
		json_str(m->filename);
		printf(",\"build_id\":\"%s\"}", hex);
	}
	printf("],\"meta\":{");
	size_t pos = 0;
	const char *k, *v;
	for (int n = 0; trawl_perf_meta_next(pf, &pos, &k, &v); n++) {
		printf("%s", n ? "," : "");
		json_str(k);
		putchar(':');
		json_str(v);
	}
	printf("}}\n");
}

static void records(const struct trawl_perf_file *pf)
{
	for (size_t i = 0; i < pf->nrecs; i++)
		printf("%" PRIu64 "\t%u\t%s\t%u\n", pf->recs[i].offset, pf->recs[i].type,
		       trawl_perf_record_name(pf->recs[i].type), pf->recs[i].size);
}

/* The recording's own word that trace was lost (AUX flags, AUX data no
 * AUXTRACE record holds), as trawl ete says it: info lists those AUX
 * records, so it says that they lost trace too. */
static void on_loss(void *ctx, uint64_t off, const char *msg)
{
	cli_warn("info", "%s: offset %" PRIu64 ": %s", (const char *)ctx, off, msg);
	cli_mark_lossy();
}

int perf_cli_info(const char *path, int json, int recs)
{
	struct trawl_perf_file *pf;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_perf_open(&pf, path, &err) != TRAWL_OK)
		return cli_report("info", &err);
	if (recs)
		records(pf);
	else if (json)
		json_info(pf);
	else
		text_info(pf);
	if (pf->nwarnings) {
		cli_warn("info", "%s (%u problem%s in the recording)", pf->warning, pf->nwarnings,
			 pf->nwarnings == 1 ? "" : "s");
		cli_mark_lossy();
	}
	trawl_perf_aux_losses(pf, on_loss, (void *)path);
	trawl_perf_close(pf);
	return EXIT_OK;
}
